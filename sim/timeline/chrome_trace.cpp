#include "sim/timeline/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "sim/core/atomic_file.h"

namespace scalecast {

using json = nlohmann::json;

namespace {

constexpr double kMicrosecondsPerSecond = 1e6;
// A label listing more ranges than this is cut short: it has to fit a viewer's track header.
constexpr size_t kMaxLabelRanges = 6;

std::string text(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string microseconds_text(double seconds) {
  if (!std::isfinite(seconds)) throw std::runtime_error("timeline has a non-finite time");
  return text(seconds * kMicrosecondsPerSecond);
}

// The trace is written one event per line; `first` tracks the comma between them.
class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) {}

  void metadata(const char* name, int pid, int tid, const json& args) {
    begin();
    out_ << "{\"name\":\"" << name << "\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"args\":" << text(args)
         << "}";
  }

  void complete(const TimelineEvent& e, int pid) {
    begin();
    out_ << "{\"name\":" << text(e.name) << ",\"cat\":\"" << to_string(e.category) << "\",\"ph\":\"X\",\"ts\":"
         << microseconds_text(e.start_s) << ",\"dur\":" << microseconds_text(e.end_s - e.start_s) << ",\"pid\":" << pid
         << ",\"tid\":" << e.stream << ",\"args\":{\"step\":" << e.step << ",\"bytes\":" << text(e.bytes) << "}}";
  }

 private:
  void begin() {
    out_ << (first_ ? "\n" : ",\n");
    first_ = false;
  }
  std::ostream& out_;
  bool first_ = true;
};

// Which categories ran on each stream of a class, to name the stream's track.
std::map<int, std::set<std::string>> stream_categories(const RankClassTimeline& rank_class) {
  std::map<int, std::set<std::string>> streams;
  for (const TimelineEvent& e : rank_class.events) streams[e.stream].insert(to_string(e.category));
  return streams;
}

std::string stream_label(int stream, const std::set<std::string>& categories) {
  std::string label = "stream " + std::to_string(stream) + " (";
  bool first = true;
  for (const std::string& category : categories) {
    label += (first ? "" : ", ") + category;
    first = false;
  }
  return label + ")";
}

// Metadata and events of one process: a rank, or a whole rank class standing for its ranks.
// `label`, when not empty, is shown under the process name (Perfetto and chrome://tracing both do).
void write_process(const RankClassTimeline& rank_class, int pid, int sort_index, const std::string& name,
                   const std::string& label, EventWriter& writer) {
  writer.metadata("process_name", pid, 0, {{"name", name}});
  writer.metadata("process_sort_index", pid, 0, {{"sort_index", sort_index}});
  if (!label.empty()) writer.metadata("process_labels", pid, 0, {{"labels", label}});
  for (const auto& [stream, categories] : stream_categories(rank_class)) {
    writer.metadata("thread_name", pid, stream, {{"name", stream_label(stream, categories)}});
    writer.metadata("thread_sort_index", pid, stream, {{"sort_index", stream}});
  }
  for (const TimelineEvent& e : rank_class.events) writer.complete(e, pid);
}

std::string class_process_name(const RankClassTimeline& rank_class, size_t class_index) {
  const std::string who = rank_class.ranks.size() == 1 ? "rank " : "ranks ";
  return who + rank_ranges_text(rank_class.ranks) + " (class " + std::to_string(class_index) + ")";
}

std::string grouping_note(const Timeline& timeline, const ChromeTraceOptions& options) {
  return "world of " + std::to_string(timeline.world_size) + " ranks is more than " + std::to_string(options.max_ranks) +
         ": one process per rank class, standing for every rank in it (their events are identical)";
}

}  // namespace

std::string rank_ranges_text(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::vector<std::pair<int, int>> ranges;
  for (int rank : ranks) {
    if (!ranges.empty() && rank <= ranges.back().second + 1) ranges.back().second = std::max(ranges.back().second, rank);
    else ranges.emplace_back(rank, rank);
  }
  std::string out;
  for (size_t i = 0; i < ranges.size() && i < kMaxLabelRanges; ++i) {
    const auto [first, last] = ranges[i];
    if (i) out += ',';
    out += std::to_string(first);
    if (last > first) out += '-' + std::to_string(last);
  }
  if (ranges.size() > kMaxLabelRanges) out += ",... (" + std::to_string(ranks.size()) + " ranks)";
  return out;
}

void write_chrome_trace(const Timeline& timeline, std::ostream& out, const ChromeTraceOptions& options) {
  const bool grouped = timeline.world_size > options.max_ranks;
  out << "{\"displayTimeUnit\":\"ms\",\n\"otherData\":"
      << text({{"platform", timeline.platform},
               {"world_size", timeline.world_size},
               {"rank_classes", timeline.classes.size()},
               {"ranks_grouped_by_class", grouped}})
      << ",\n\"traceEvents\":[";
  EventWriter writer(out);
  if (grouped) {
    for (size_t c = 0; c < timeline.classes.size(); ++c) {
      const RankClassTimeline& rank_class = timeline.classes[c];
      const int pid = *std::min_element(rank_class.ranks.begin(), rank_class.ranks.end());
      write_process(rank_class, pid, static_cast<int>(c), class_process_name(rank_class, c),
                    grouping_note(timeline, options), writer);
    }
  } else {
    // Ranks in rank order, whatever order the classes list them in.
    std::map<int, const RankClassTimeline*> class_of_rank;
    for (const RankClassTimeline& rank_class : timeline.classes)
      for (int rank : rank_class.ranks) class_of_rank[rank] = &rank_class;
    for (const auto& [rank, rank_class] : class_of_rank)
      write_process(*rank_class, rank, rank, "rank " + std::to_string(rank), "", writer);
  }
  out << "\n]}\n";
}

void write_chrome_trace(const Timeline& timeline, const std::string& path, const ChromeTraceOptions& options) {
  write_file_atomically(path, [&](std::ostream& out) { write_chrome_trace(timeline, out, options); });
}

json chrome_trace_json(const Timeline& timeline, const ChromeTraceOptions& options) {
  std::ostringstream out;
  write_chrome_trace(timeline, out, options);
  return json::parse(out.str());
}

}  // namespace scalecast
