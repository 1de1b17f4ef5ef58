#include "sim/timeline/timeline_json.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/json_input.h"

namespace scalecast {

using json = nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Reading: typed access to JSON values with the field path in every error
// ---------------------------------------------------------------------------------------------

void check_format(JsonFields& root) {
  if (!root.find("format"))
    throw root.error("format", std::string("is missing; a scalecast timeline starts with \"format\": \"") +
                                   kTimelineFormatName + "\"");
  const std::string format = root.get_required<std::string>("format");
  if (format != kTimelineFormatName)
    throw root.error("format", "is \"" + format + "\"; expected \"" + kTimelineFormatName + "\"");
  const int version = root.get_required<int>("version");
  if (version < kOldestTimelineFormatVersion || version > kTimelineFormatVersion)
    throw root.error("version", "is " + std::to_string(version) + ", but this scalecast reads versions " +
                                    std::to_string(kOldestTimelineFormatVersion) + " to " +
                                    std::to_string(kTimelineFormatVersion));
}

TimelineEvent parse_event(const json& value, const std::string& source, const std::string& path) {
  JsonFields fields(value, source, path, "a timeline event");
  TimelineEvent event;
  event.stream = fields.get_required<int>("stream");
  if (event.stream < 0) throw fields.error("stream", "is negative");
  if (const json* step = fields.find("step")) event.step = fields.get<int>("step", *step);
  if (event.step < -1) throw fields.error("step", "must be -1 (no step) or a step number, got " + std::to_string(event.step));
  const std::string category = fields.get_required<std::string>("category");
  if (!parse_event_category(category, event.category))
    throw fields.error("category", "is \"" + category + "\"; expected compute, communication, p2p or host");
  event.name = fields.get_required<std::string>("name");
  event.start_s = fields.get_required<double>("start_s");
  event.end_s = fields.get_required<double>("end_s");
  if (event.end_s < event.start_s)
    throw fields.error("end_s", "is before start_s (" + json(event.end_s).dump() + " < " + json(event.start_s).dump() + ")");
  if (const json* bytes = fields.find("bytes")) event.bytes = fields.get<double>("bytes", *bytes);
  if (event.bytes < 0) throw fields.error("bytes", "is negative");
  for (auto [name, into] : {std::pair<const char*, double*>{"interference_s", &event.interference_s},
                            std::pair<const char*, double*>{"straggler_s", &event.straggler_s}}) {
    if (const json* value = fields.find(name)) *into = fields.get<double>(name, *value);
    if (*into < 0) throw fields.error(name, "is negative");
    if (*into > event.end_s - event.start_s) throw fields.error(name, "is longer than the event");
  }
  fields.reject_unknown();
  return event;
}

RankClassTimeline parse_class(const json& value, const std::string& source, const std::string& path) {
  JsonFields fields(value, source, path, "a rank class");
  RankClassTimeline rank_class;
  const json& ranks = fields.required_array("ranks");
  if (ranks.empty()) throw fields.error("ranks", "is empty; a rank class holds at least one rank");
  for (const json& rank : ranks) {
    const std::string rank_key = json_index_path("ranks", rank_class.ranks.size());
    rank_class.ranks.push_back(fields.get<int>(rank_key, rank));
  }
  const json& events = fields.required_array("events");
  rank_class.events.reserve(events.size());
  for (const json& event : events)
    rank_class.events.push_back(parse_event(event, source, json_index_path(fields.path("events"), rank_class.events.size())));
  fields.reject_unknown();
  return rank_class;
}

// Every rank of the world must be in exactly one class: the summary and the Chrome export count
// and label ranks from the classes.
void check_rank_cover(const Timeline& timeline, const std::string& source) {
  std::vector<int> class_of_rank(timeline.world_size, -1);
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    const auto& ranks = timeline.classes[c].ranks;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const std::string field = json_index_path(json_index_path("classes", c) + ".ranks", i);
      const int rank = ranks[i];
      if (rank < 0 || rank >= timeline.world_size)
        throw InputError(source, field, "is " + std::to_string(rank) + ", outside [0, world_size = " +
                                            std::to_string(timeline.world_size) + ")");
      if (class_of_rank[rank] >= 0)
        throw InputError(source, field, "rank " + std::to_string(rank) + " is also in classes[" +
                                            std::to_string(class_of_rank[rank]) + "]; a rank belongs to one class");
      class_of_rank[rank] = static_cast<int>(c);
    }
  }
  auto missing = std::find(class_of_rank.begin(), class_of_rank.end(), -1);
  if (missing != class_of_rank.end())
    throw InputError(source, "classes",
                     "rank " + std::to_string(missing - class_of_rank.begin()) + " is in no class; every rank of world_size " +
                         std::to_string(timeline.world_size) + " must be in one");
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

// nlohmann prints the shortest text that reads back to the same double, which is what makes the
// output both exact and deterministic.
std::string number_text(double value, const char* what) {
  if (!std::isfinite(value)) throw std::runtime_error(std::string("timeline has a non-finite ") + what);
  return json(value).dump();
}

std::string string_text(const std::string& value) {
  return json(value).dump(-1, ' ', false, json::error_handler_t::replace);
}

void write_event(const TimelineEvent& e, std::ostream& out) {
  out << "{\"stream\":" << e.stream << ",\"step\":" << e.step << ",\"category\":" << string_text(to_string(e.category))
      << ",\"name\":" << string_text(e.name) << ",\"start_s\":" << number_text(e.start_s, "start_s")
      << ",\"end_s\":" << number_text(e.end_s, "end_s") << ",\"bytes\":" << number_text(e.bytes, "bytes");
  // Only where the replay slowed the task, so that other timelines stay as they were.
  if (e.interference_s > 0) out << ",\"interference_s\":" << number_text(e.interference_s, "interference_s");
  if (e.straggler_s > 0) out << ",\"straggler_s\":" << number_text(e.straggler_s, "straggler_s");
  out << "}";
}

void write_class(const RankClassTimeline& rank_class, std::ostream& out) {
  out << "    {\n      \"ranks\": [";
  for (size_t i = 0; i < rank_class.ranks.size(); ++i) out << (i ? "," : "") << rank_class.ranks[i];
  out << "],\n      \"events\": [";
  for (size_t i = 0; i < rank_class.events.size(); ++i) {
    out << (i ? ",\n        " : "\n        ");
    write_event(rank_class.events[i], out);
  }
  out << (rank_class.events.empty() ? "]\n    }" : "\n      ]\n    }");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

json timeline_to_json(const Timeline& timeline) {
  json classes = json::array();
  for (const RankClassTimeline& rank_class : timeline.classes) {
    json events = json::array();
    for (const TimelineEvent& e : rank_class.events) {
      json event = {{"stream", e.stream},       {"step", e.step},   {"category", to_string(e.category)},
                    {"name", e.name},           {"start_s", e.start_s}, {"end_s", e.end_s},
                    {"bytes", e.bytes}};
      if (e.interference_s > 0) event["interference_s"] = e.interference_s;
      if (e.straggler_s > 0) event["straggler_s"] = e.straggler_s;
      events.push_back(std::move(event));
    }
    classes.push_back({{"ranks", rank_class.ranks}, {"events", std::move(events)}});
  }
  return {{"format", kTimelineFormatName},
          {"version", kTimelineFormatVersion},
          {"platform", timeline.platform},
          {"world_size", timeline.world_size},
          {"classes", std::move(classes)}};
}

Timeline timeline_from_json(const json& document, const std::string& source) {
  JsonFields root(document, source, "", "a scalecast timeline");
  check_format(root);
  Timeline timeline;
  timeline.platform = root.get_required<std::string>("platform");
  timeline.world_size = root.get_required<int>("world_size");
  if (timeline.world_size < 1) throw root.error("world_size", "must be at least 1");
  const json& classes = root.required_array("classes");
  for (const json& rank_class : classes)
    timeline.classes.push_back(parse_class(rank_class, source, json_index_path("classes", timeline.classes.size())));
  root.reject_unknown();
  check_rank_cover(timeline, source);
  return timeline;
}

void write_timeline_text(const Timeline& timeline, std::ostream& out) {
  out << "{\n  \"format\": " << string_text(kTimelineFormatName) << ",\n  \"version\": " << kTimelineFormatVersion
      << ",\n  \"platform\": " << string_text(timeline.platform) << ",\n  \"world_size\": " << timeline.world_size
      << ",\n  \"classes\": [";
  for (size_t i = 0; i < timeline.classes.size(); ++i) {
    out << (i ? ",\n" : "\n");
    write_class(timeline.classes[i], out);
  }
  out << (timeline.classes.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

void write_timeline(const Timeline& timeline, const std::string& path) {
  write_file_atomically(path, [&](std::ostream& out) { write_timeline_text(timeline, out); });
}

Timeline read_timeline(const std::string& path) {
  const std::string text = read_text_file(path);
  if (std::optional<Timeline> timeline = timeline_from_text_fast(text)) return std::move(*timeline);
  return timeline_from_json(parse_json_text(text, path), path);
}

}  // namespace scalecast
