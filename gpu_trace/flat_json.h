// Minimal JSON for the capture's own files: the capture library runs inside the user's program
// and the capture-only build has no JSON library, so it writes JSON by hand and reads back only
// flat objects (string and number values) — the shape of every line of a record file and of a
// rank's capture sidecar entries.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

// `text` as a JSON string literal, quotes included.
std::string json_quote(const std::string& text);

// A number as JSON: integral values without a fraction, others with 17 significant digits.
std::string json_number(double value);

struct FlatValue {
  bool is_string = false;
  std::string text;   // the string, or the number's literal
  double number = 0;
};
using FlatObject = std::map<std::string, FlatValue>;

// Parses one flat JSON object ({"k": "v", "n": 12}); nested values are an error. Returns false
// and sets `problem` on malformed input.
bool parse_flat_object(const std::string& text, FlatObject& object, std::string& problem);

// One parsed line of a JSON Lines file: typed getters that name the line and field on error, and a final check that
// every field was known.
class LineReader {
 public:
  LineReader(const std::string& source, int line, FlatObject object)
      : source_(source), line_(line), object_(std::move(object)) {}

  std::string str(const std::string& key) {
    const FlatValue& value = find(key);
    if (!value.is_string) fail(key, "is not a string");
    return value.text;
  }
  uint64_t u64(const std::string& key) {
    const FlatValue& value = number(key);
    errno = 0;
    char* end = nullptr;
    unsigned long long parsed = std::strtoull(value.text.c_str(), &end, 10);
    if (errno || *end || value.text[0] == '-') fail(key, "is not a non-negative integer: " + value.text);
    return parsed;
  }
  int64_t i64(const std::string& key) {
    const FlatValue& value = number(key);
    errno = 0;
    char* end = nullptr;
    long long parsed = std::strtoll(value.text.c_str(), &end, 10);
    if (errno || *end) fail(key, "is not an integer: " + value.text);
    return parsed;
  }
  int i32(const std::string& key) {
    int64_t value = i64(key);
    if (value < INT32_MIN || value > INT32_MAX) fail(key, "is out of range");
    return static_cast<int>(value);
  }
  double real(const std::string& key) { return number(key).number; }
  bool has(const std::string& key) const { return object_.count(key) != 0; }

  void check_all_used() {
    for (const auto& [key, value] : object_)
      if (!used_.count(key)) fail(key, "is not a field of a \"" + object_["record"].text + "\" record");
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(source_, "line " + std::to_string(line_) + (key.empty() ? "" : "." + key), problem);
  }

 private:
  const FlatValue& find(const std::string& key) {
    auto it = object_.find(key);
    if (it == object_.end()) fail(key, "is missing");
    used_.insert(key);
    return it->second;
  }
  const FlatValue& number(const std::string& key) {
    const FlatValue& value = find(key);
    if (value.is_string) fail(key, "is not a number");
    return value;
  }

  std::string source_;
  int line_;
  FlatObject object_;
  std::set<std::string> used_;
};

}  // namespace scalecast::gpu_trace
