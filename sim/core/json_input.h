// Reading what users give us as JSON (traces, timelines): the file, the syntax (errors name the
// line, column and byte; duplicate keys are refused), and the schema, one object at a time with
// the field's path in every error and unknown fields rejected (a typo such as "duraton_s" must
// not be silently ignored).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/input_error.h"

namespace scalecast {

std::string read_text_file(const std::string& path);
nlohmann::json parse_json_text(const std::string& text, const std::string& source);
nlohmann::json read_json_file(const std::string& path);

std::string json_child_path(const std::string& path, const std::string& key);
std::string json_index_path(const std::string& path, size_t index);
// "an object", "an array", or the type and (shortened) text of a scalar, for error messages.
std::string describe_json_value(const nlohmann::json& value);

// Typed conversions; `path` names the value in errors.
void convert_json(const nlohmann::json& value, const std::string& source, const std::string& path, int& out);
void convert_json(const nlohmann::json& value, const std::string& source, const std::string& path, double& out);
void convert_json(const nlohmann::json& value, const std::string& source, const std::string& path, std::string& out);
const nlohmann::json& json_array(const nlohmann::json& value, const std::string& source, const std::string& path);

// One JSON object being read. Remembers the keys asked for; reject_unknown() reports any other.
class JsonFields {
 public:
  // `what` describes the object in errors ("a timeline event").
  JsonFields(const nlohmann::json& value, const std::string& source, std::string path, std::string what);

  const std::string& source() const { return source_; }
  std::string path(const std::string& key) const { return json_child_path(path_, key); }
  void describe_as(std::string what) { what_ = std::move(what); }
  InputError error(const std::string& key, const std::string& problem) const;

  const nlohmann::json* find(const std::string& key);
  const nlohmann::json& required(const std::string& key);

  // Reads an optional field into `out`, leaving it unchanged when absent.
  template <class T>
  bool read(const std::string& key, T& out) {
    const nlohmann::json* value = find(key);
    if (value) convert_json(*value, source_, path(key), out);
    return value != nullptr;
  }
  template <class T>
  void read_required(const std::string& key, T& out) {
    convert_json(required(key), source_, path(key), out);
  }
  template <class T>
  T get(const std::string& key, const nlohmann::json& value) const {
    T out{};
    convert_json(value, source_, path(key), out);
    return out;
  }
  template <class T>
  T get_required(const std::string& key) {
    T out{};
    read_required(key, out);
    return out;
  }
  const nlohmann::json& required_array(const std::string& key) { return json_array(required(key), source_, path(key)); }

  void reject_unknown() const;

 private:
  const nlohmann::json& value_;
  const std::string& source_;
  std::string path_;
  std::string what_;
  std::vector<std::string> known_;
};

}  // namespace scalecast
