#include "sim/core/json_input.h"

#include "sim/core/input_file.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace scalecast {

using json = nlohmann::json;

std::string read_text_file(const std::string& path) {
  return read_input_file(path, "a JSON file", input_cap_bytes(kMaxJsonBytes));
}

namespace {

struct DuplicateKey {
  std::string key;
};

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line L, column C: ";
// we say where ourselves, with the byte offset too, and keep only what went wrong.
std::string parse_error_detail(const std::string& message) {
  const size_t column = message.find("column ");
  const size_t colon = message.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& source) {
  std::vector<std::set<std::string>> keys_of_open_objects;
  auto reject_duplicate_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys_of_open_objects.emplace_back();
    if (event == json::parse_event_t::object_end) keys_of_open_objects.pop_back();
    if (event == json::parse_event_t::key && !keys_of_open_objects.back().insert(parsed.get<std::string>()).second)
      throw DuplicateKey{parsed.get<std::string>()};
    return true;
  };
  try {
    return json::parse(text, reject_duplicate_keys);
  } catch (const json::parse_error& error) {
    const size_t byte = std::min<size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < byte; ++i)
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    throw InputError(source, "",
                     "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(byte - line_start + 1) +
                         " (byte offset " + std::to_string(byte) + "): " + parse_error_detail(error.what()));
  } catch (const DuplicateKey& duplicate) {
    throw InputError(source, "", "invalid JSON: key \"" + duplicate.key + "\" appears twice in one object");
  }
}

json read_json_file(const std::string& path) { return parse_json_text(read_text_file(path), path); }

std::string json_child_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string json_index_path(const std::string& path, size_t index) { return path + "[" + std::to_string(index) + "]"; }

std::string describe_json_value(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(value.type_name()) + " " + text;
}

void convert_json(const json& value, const std::string& source, const std::string& path, int& out) {
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(INT_MAX)) throw InputError(source, path, "is too large");
    out = static_cast<int>(number);
  } else if (value.is_number_integer()) {
    const auto number = value.get<std::int64_t>();
    if (number < INT_MIN || number > INT_MAX) throw InputError(source, path, "is out of range");
    out = static_cast<int>(number);
  } else {
    throw InputError(source, path, "must be an integer, got " + describe_json_value(value));
  }
}

void convert_json(const json& value, const std::string& source, const std::string& path, double& out) {
  if (!value.is_number()) throw InputError(source, path, "must be a number, got " + describe_json_value(value));
  out = value.get<double>();
}

void convert_json(const json& value, const std::string& source, const std::string& path, std::string& out) {
  if (!value.is_string()) throw InputError(source, path, "must be a string, got " + describe_json_value(value));
  out = value.get<std::string>();
}

const json& json_array(const json& value, const std::string& source, const std::string& path) {
  if (!value.is_array()) throw InputError(source, path, "must be an array, got " + describe_json_value(value));
  return value;
}

JsonFields::JsonFields(const json& value, const std::string& source, std::string path, std::string what)
    : value_(value), source_(source), path_(std::move(path)), what_(std::move(what)) {
  if (!value.is_object())
    throw InputError(source_, path_, "must be an object (" + what_ + "), got " + describe_json_value(value));
}

InputError JsonFields::error(const std::string& key, const std::string& problem) const {
  return InputError(source_, key.empty() ? path_ : path(key), problem);
}

const json* JsonFields::find(const std::string& key) {
  known_.push_back(key);
  auto found = value_.find(key);
  return found == value_.end() ? nullptr : &*found;
}

const json& JsonFields::required(const std::string& key) {
  const json* value = find(key);
  if (!value) throw InputError(source_, path(key), "is missing (required in " + what_ + ")");
  return *value;
}

void JsonFields::reject_unknown() const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (std::find(known_.begin(), known_.end(), it.key()) != known_.end()) continue;
    std::string expected;
    for (const std::string& key : known_) expected += (expected.empty() ? "" : ", ") + key;
    throw InputError(source_, path(it.key()), "is not a field of " + what_ + " (expected: " + expected + ")");
  }
}

}  // namespace scalecast
