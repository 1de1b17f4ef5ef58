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
#include <type_traits>

namespace scalecast {

using json = nlohmann::json;

std::string read_text_file(const std::string& path) {
  return read_input_file(path, "a JSON file", input_cap_bytes(kMaxJsonBytes));
}

namespace {

struct DuplicateKey {
  std::string key;
};

struct NumberOverflow {
  std::string path;
  std::string text;
};

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line L, column C: ";
// we say where ourselves, with the byte offset too, and keep only what went wrong.
std::string parse_error_detail(const std::string& message) {
  const size_t column = message.find("column ");
  const size_t colon = message.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

}  // namespace

namespace {

// The DOM parser's events, with keys checked for duplicates on the way and the path of the
// value being read kept, so that a number beyond a double's range ("1e400", which nlohmann
// reports as an out_of_range error) names its field. (nlohmann's callback parser would check
// keys too, but its end_object scans the enclosing container's elements every time an object
// closes: quadratic in the length of an array of objects, 1.4 of the 1.9 s it took to read a
// trace of 41,000 tasks.)
class DuplicateRejectingParser {
 public:
  using string_t = json::string_t;
  explicit DuplicateRejectingParser(json& result) : dom_(result, true) {}
  bool null() { return done(dom_.null()); }
  bool boolean(bool value) { return done(dom_.boolean(value)); }
  bool number_integer(json::number_integer_t value) { return done(dom_.number_integer(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return done(dom_.number_unsigned(value)); }
  bool number_float(json::number_float_t value, const string_t& text) { return done(dom_.number_float(value, text)); }
  bool string(string_t& value) { return done(dom_.string(value)); }
  bool binary(json::binary_t& value) { return done(dom_.binary(value)); }
  bool start_object(std::size_t elements) {
    open_.push_back({false, 0, {}, {}});
    return dom_.start_object(elements);
  }
  bool key(string_t& name) {
    if (!open_.back().keys.insert(name).second) throw DuplicateKey{name};
    open_.back().key = name;
    return dom_.key(name);
  }
  bool end_object() {
    open_.pop_back();
    return done(dom_.end_object());
  }
  bool start_array(std::size_t elements) {
    open_.push_back({true, 0, {}, {}});
    return dom_.start_array(elements);
  }
  bool end_array() {
    open_.pop_back();
    return done(dom_.end_array());
  }
  template <class Exception>  // the exception's own type, so that it is thrown as a parse_error
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    if constexpr (std::is_same_v<Exception, json::out_of_range>) throw NumberOverflow{path(), token};
    return dom_.parse_error(position, token, error);
  }

 private:
  struct Open {  // an object or array being read
    bool array;
    size_t elements;       // an array's complete elements so far: the index of the next one
    std::string key;       // an object's current key
    std::set<std::string> keys;
  };
  bool done(bool result) {
    if (!open_.empty() && open_.back().array) ++open_.back().elements;
    return result;
  }
  std::string path() const {
    std::string out;
    for (const Open& open : open_) out = open.array ? json_index_path(out, open.elements) : json_child_path(out, open.key);
    return out;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Open> open_;
};

}  // namespace

json parse_json_text(const std::string& text, const std::string& source) {
  try {
    json result;
    DuplicateRejectingParser parser(result);
    json::sax_parse(text, &parser);
    return result;
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
  } catch (const NumberOverflow& overflow) {
    throw InputError(source, overflow.path,
                     "the number " + overflow.text + " is outside the range of numbers (magnitudes up to 1e308)");
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
