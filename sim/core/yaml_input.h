// Strict YAML input shared by the platform and workload readers: every value knows its file,
// dotted path and line, mappings reject unknown keys, and every problem becomes an InputError
// naming the file and field. (Moved from sim/platform/platform_yaml.cpp so both readers use one.)
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/input_error.h"

namespace scalecast::yaml {

std::string trim(const std::string& text);
std::string join_path(const std::string& parent, const std::string& key);
std::string join_words(const std::vector<std::string>& words);

// A YAML value and where it sits: the file it came from, its dotted path and its line, so that
// every complaint about it can say exactly where to look.
class Field {
 public:
  Field(const YAML::Node& node, const std::string& source, std::string path)
      : node_(node), source_(&source), path_(std::move(path)) {
    if (node.IsDefined()) line_ = node.Mark().line;  // Mark() throws on undefined nodes
  }
  Field(const Field&) = default;
  // YAML::Node's assignment rewrites the node it refers to (it is not a value copy), so a
  // Field, which only looks at the document, is never assigned.
  Field& operator=(const Field&) = delete;

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return *source_; }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }

  // The same place in the file under another path: used to report a missing child at the
  // line of its parent.
  Field with_path(const std::string& path) const {
    Field moved = *this;
    moved.path_ = path;
    return moved;
  }

  // A field that is not there, as a child of this one: reported without a line number, since
  // the parent's line would point at something else.
  Field missing_child(const std::string& key) const {
    Field missing = with_path(join_path(path_, key));
    missing.line_ = -1;
    return missing;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    std::string where = line_ >= 0 ? " (line " + std::to_string(line_ + 1) + ")" : "";
    throw InputError(*source_, path_, problem + where);
  }

  std::string kind() const {
    if (is_null()) return "nothing";
    if (node_.IsMap()) return "a mapping";
    if (node_.IsSequence()) return "a list";
    return "'" + node_.Scalar() + "'";
  }

  // The elements of a list, each with its indexed path ("nics[2]").
  std::vector<Field> items() const {
    if (!node_.IsSequence()) fail("expected a list, got " + kind());
    std::vector<Field> result;
    for (size_t i = 0; i < node_.size(); ++i) {
      result.emplace_back(node_[i], *source_, path_ + "[" + std::to_string(i) + "]");
    }
    return result;
  }

 private:
  YAML::Node node_;
  const std::string* source_;
  std::string path_;
  int line_ = -1;
};

// The fields of one YAML mapping, checked against the names that section allows, so that a
// typo ("bandwith") is an error rather than a silently ignored line.
class MapReader {
 public:
  MapReader(const Field& field, const std::vector<std::string>& allowed) : field_(field) {
    if (!field.node().IsMap()) field.fail("expected a mapping of fields (name: value), got " + field.kind());
    for (const auto& pair : field.node()) {
      if (!pair.first.IsScalar()) {
        Field(pair.first, field.source(), field.path()).fail("a field name must be a plain word");
      }
      const std::string key = pair.first.Scalar();
      const Field at_key(pair.first, field.source(), join_path(field.path(), key));
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        at_key.fail("unknown field; expected one of: " + join_words(allowed));
      }
      if (!fields_.emplace(key, Field(pair.second, field.source(), at_key.path())).second) {
        at_key.fail("field given twice");
      }
    }
  }

  // Absent and explicitly empty ("nvlink:") both read as not given.
  std::optional<Field> optional(const std::string& key) const {
    auto it = fields_.find(key);
    if (it == fields_.end() || it->second.is_null()) return std::nullopt;
    return it->second;
  }

  Field required(const std::string& key) const {
    auto it = fields_.find(key);
    if (it == fields_.end()) field_.missing_child(key).fail("missing required field");
    if (it->second.is_null()) it->second.fail("has no value");
    return it->second;
  }

  bool has(const std::string& key) const { return optional(key).has_value(); }
  const std::map<std::string, Field>& fields() const { return fields_; }
  const Field& field() const { return field_; }

 private:
  Field field_;
  std::map<std::string, Field> fields_;
};

std::string read_scalar(const Field& field);
std::string read_name(const Field& field);      // non-empty scalar
long long read_integer(const Field& field, long long min, long long max);
double read_number(const Field& field);          // finite

// Parses YAML text; a syntax error becomes an InputError with line and column.
YAML::Node load_yaml(const std::string& yaml_text, const std::string& source);

// The whole of a text file; `what` names what was expected in the "is a folder" complaint.
std::string read_text_file(const std::string& path, const std::string& what);

// A text with a '/' or ending in .yaml/.yml is a path, never a preset name.
bool looks_like_path(const std::string& text);

// Names (without ".yaml") of the .yaml files in a folder, sorted; empty when it is unreadable.
std::vector<std::string> yaml_files_in(const std::string& folder);

}  // namespace scalecast::yaml
