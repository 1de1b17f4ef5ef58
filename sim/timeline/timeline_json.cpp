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

namespace scalecast {

using json = nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Reading: typed access to JSON values with the field path in every error
// ---------------------------------------------------------------------------------------------

std::string child_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string index_path(const std::string& path, size_t index) { return path + "[" + std::to_string(index) + "]"; }

std::string describe(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(value.type_name()) + " " + text;
}

// One JSON object being read. Keys the reader never asks for are reported as unknown fields, so
// a misspelt "end_s" is an error rather than a silently zero end time.
class ObjectReader {
 public:
  ObjectReader(const json& value, const std::string& source, std::string path, std::string what)
      : value_(value), source_(source), path_(std::move(path)), what_(std::move(what)) {
    if (!value.is_object()) throw error("", "must be an object (" + what_ + "), got " + describe(value));
  }

  InputError error(const std::string& key, const std::string& problem) const {
    return InputError(source_, key.empty() ? path_ : child_path(path_, key), problem);
  }
  std::string path(const std::string& key) const { return child_path(path_, key); }

  const json* find(const std::string& key) {
    known_.push_back(key);
    auto it = value_.find(key);
    return it == value_.end() ? nullptr : &*it;
  }

  const json& required(const std::string& key) {
    const json* value = find(key);
    if (!value) throw error(key, "is missing (required in " + what_ + ")");
    return *value;
  }

  int integer(const std::string& key, const json& value) const {
    if (!value.is_number_integer()) throw error(key, "must be an integer, got " + describe(value));
    if (value.is_number_unsigned() ? value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT_MAX)
                                   : (value.get<std::int64_t>() < INT_MIN || value.get<std::int64_t>() > INT_MAX))
      throw error(key, "is out of range");
    return value.get<int>();
  }

  double number(const std::string& key, const json& value) const {
    if (!value.is_number()) throw error(key, "must be a number, got " + describe(value));
    return value.get<double>();
  }

  std::string string(const std::string& key, const json& value) const {
    if (!value.is_string()) throw error(key, "must be a string, got " + describe(value));
    return value.get<std::string>();
  }

  const json& array(const std::string& key, const json& value) const {
    if (!value.is_array()) throw error(key, "must be an array, got " + describe(value));
    return value;
  }

  int required_int(const std::string& key) { return integer(key, required(key)); }
  double required_number(const std::string& key) { return number(key, required(key)); }
  std::string required_string(const std::string& key) { return string(key, required(key)); }
  const json& required_array(const std::string& key) { return array(key, required(key)); }

  void reject_unknown() const {
    for (auto it = value_.begin(); it != value_.end(); ++it) {
      if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
      std::string expected;
      for (const std::string& key : known_) expected += (expected.empty() ? "" : ", ") + key;
      throw error(it.key(), "is not a field of " + what_ + " (expected: " + expected + ")");
    }
  }

 private:
  const json& value_;
  const std::string& source_;
  std::string path_;
  std::string what_;
  std::vector<std::string> known_;
};

void check_format(ObjectReader& root) {
  if (!root.find("format"))
    throw root.error("format", std::string("is missing; a scalecast timeline starts with \"format\": \"") +
                                   kTimelineFormatName + "\"");
  const std::string format = root.required_string("format");
  if (format != kTimelineFormatName)
    throw root.error("format", "is \"" + format + "\"; expected \"" + kTimelineFormatName + "\"");
  const int version = root.required_int("version");
  if (version != kTimelineFormatVersion)
    throw root.error("version", "is " + std::to_string(version) + ", but this scalecast reads version " +
                                    std::to_string(kTimelineFormatVersion) + " only");
}

TimelineEvent parse_event(const json& value, const std::string& source, const std::string& path) {
  ObjectReader fields(value, source, path, "a timeline event");
  TimelineEvent event;
  event.stream = fields.required_int("stream");
  if (event.stream < 0) throw fields.error("stream", "is negative");
  if (const json* step = fields.find("step")) event.step = fields.integer("step", *step);
  if (event.step < -1) throw fields.error("step", "must be -1 (no step) or a step number, got " + std::to_string(event.step));
  const std::string category = fields.required_string("category");
  if (!parse_event_category(category, event.category))
    throw fields.error("category", "is \"" + category + "\"; expected compute, communication or p2p");
  event.name = fields.required_string("name");
  event.start_s = fields.required_number("start_s");
  event.end_s = fields.required_number("end_s");
  if (event.end_s < event.start_s)
    throw fields.error("end_s", "is before start_s (" + json(event.end_s).dump() + " < " + json(event.start_s).dump() + ")");
  if (const json* bytes = fields.find("bytes")) event.bytes = fields.number("bytes", *bytes);
  if (event.bytes < 0) throw fields.error("bytes", "is negative");
  fields.reject_unknown();
  return event;
}

RankClassTimeline parse_class(const json& value, const std::string& source, const std::string& path) {
  ObjectReader fields(value, source, path, "a rank class");
  RankClassTimeline rank_class;
  const json& ranks = fields.required_array("ranks");
  if (ranks.empty()) throw fields.error("ranks", "is empty; a rank class holds at least one rank");
  for (const json& rank : ranks) {
    const std::string rank_key = index_path("ranks", rank_class.ranks.size());
    rank_class.ranks.push_back(fields.integer(rank_key, rank));
  }
  const json& events = fields.required_array("events");
  rank_class.events.reserve(events.size());
  for (const json& event : events)
    rank_class.events.push_back(parse_event(event, source, index_path(fields.path("events"), rank_class.events.size())));
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
      const std::string field = index_path(index_path("classes", c) + ".ranks", i);
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
      << ",\"end_s\":" << number_text(e.end_s, "end_s") << ",\"bytes\":" << number_text(e.bytes, "bytes") << "}";
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

std::string read_text_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw InputError(path, "", "does not exist");
  if (std::filesystem::is_directory(path, error)) throw InputError(path, "", "is a directory, expected a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot be read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "reading failed");
  return text.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

json timeline_to_json(const Timeline& timeline) {
  json classes = json::array();
  for (const RankClassTimeline& rank_class : timeline.classes) {
    json events = json::array();
    for (const TimelineEvent& e : rank_class.events)
      events.push_back({{"stream", e.stream},
                        {"step", e.step},
                        {"category", to_string(e.category)},
                        {"name", e.name},
                        {"start_s", e.start_s},
                        {"end_s", e.end_s},
                        {"bytes", e.bytes}});
    classes.push_back({{"ranks", rank_class.ranks}, {"events", std::move(events)}});
  }
  return {{"format", kTimelineFormatName},
          {"version", kTimelineFormatVersion},
          {"platform", timeline.platform},
          {"world_size", timeline.world_size},
          {"classes", std::move(classes)}};
}

Timeline timeline_from_json(const json& document, const std::string& source) {
  ObjectReader root(document, source, "", "a scalecast timeline");
  check_format(root);
  Timeline timeline;
  timeline.platform = root.required_string("platform");
  timeline.world_size = root.required_int("world_size");
  if (timeline.world_size < 1) throw root.error("world_size", "must be at least 1");
  const json& classes = root.required_array("classes");
  for (const json& rank_class : classes)
    timeline.classes.push_back(parse_class(rank_class, source, index_path("classes", timeline.classes.size())));
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

json read_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return json::parse(text);
  } catch (const json::parse_error& error) {
    // Say where in the file, counting lines ourselves so that the message names line and column.
    const size_t byte = std::min<size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + byte, '\n');
    const size_t line_start = text.rfind('\n', byte == 0 ? 0 : byte - 1);
    const size_t column = line_start == std::string::npos || line == 1 ? byte + 1 : byte - line_start;
    const std::string what = error.what();
    const size_t detail = what.find(": ", what.find("column"));
    throw InputError(path, "",
                     "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
                         (detail == std::string::npos ? what : what.substr(detail + 2)));
  }
}

Timeline read_timeline(const std::string& path) { return timeline_from_json(read_json_file(path), path); }

}  // namespace scalecast
