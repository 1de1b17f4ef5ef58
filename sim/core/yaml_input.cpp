#include "sim/core/yaml_input.h"

#include "sim/core/input_file.h"
#include "sim/core/utf8.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace scalecast::yaml {

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string join_words(const std::vector<std::string>& words) {
  std::string joined;
  for (const std::string& word : words) joined += (joined.empty() ? "" : ", ") + word;
  return joined;
}


std::string read_scalar(const Field& field) {
  if (field.is_null()) field.fail("has no value");
  if (!field.node().IsScalar()) field.fail("expected a single value, got " + field.kind());
  return trim(field.node().Scalar());
}

std::string read_name(const Field& field) {
  std::string text = read_scalar(field);
  if (text.empty()) field.fail("must not be empty");
  return text;
}

long long read_integer(const Field& field, long long min, long long max) {
  const std::string text = read_scalar(field);
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    field.fail("expected a whole number, got '" + text + "'");
  }
  if (value < min || value > max) {
    field.fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
  }
  return value;
}

double read_number(const Field& field) {
  const std::string text = read_scalar(field);
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range && end == text.data() + text.size())
    field.fail("'" + text + "' is outside the range of numbers (magnitudes 1e-308 to 1e308)");
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    field.fail("expected a number, got '" + text + "'");
  }
  return value;
}

namespace {

// Refuses a text with more structure characters than the cap, counted in the raw text before
// yaml-cpp sees it: its parser queues every token of a flow collection until the collection
// closes, so counting its events would come too late. Every occurrence counts, in quotes and
// comments too: the count bounds the nodes from above and cannot be fooled by a stray quote.
void check_yaml_structure(const std::string& yaml_text, const std::string& source) {
  static constexpr std::array<std::uint8_t, 256> kStructure = [] {
    std::array<std::uint8_t, 256> table{};
    for (const unsigned char c : {',', ':', '-', '[', '{', '?'}) table[c] = 1;
    return table;
  }();
  const std::uint64_t cap_marks = input_cap_bytes(kMaxYamlBytes) / kYamlBytesPerStructureMark;
  // The text is already within its byte cap: counting it whole is bounded, and a table lookup
  // per byte (no branch) keeps the count cheap next to parsing.
  std::uint64_t marks = 0;
  for (const char c : yaml_text) marks += kStructure[static_cast<unsigned char>(c)];
  if (marks > cap_marks)
    throw InputError(source, "",
                     "holds more than " + std::to_string(cap_marks) +
                         " YAML structure characters (, : - [ { ?), the most a YAML input may hold (one per " +
                         std::to_string(kYamlBytesPerStructureMark) + " bytes of its " +
                         format_cap(input_cap_bytes(kMaxYamlBytes)) +
                         " cap): every list item and mapping entry takes one (SCALECAST_MAX_INPUT_MB raises both caps)");
}

}  // namespace

YAML::Node load_yaml(const std::string& yaml_text, const std::string& source) {
  check_yaml_structure(yaml_text, source);
  if (const auto bad = first_invalid_utf8(yaml_text)) {
    const std::string before = yaml_text.substr(0, *bad);
    const size_t line_start = before.rfind('\n') == std::string::npos ? 0 : before.rfind('\n') + 1;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(yaml_text[*bad]));
    throw InputError(source, "",
                     "is not UTF-8 text: byte " + std::string(byte) + " at line " +
                         std::to_string(std::count(before.begin(), before.end(), '\n') + 1) + ", column " +
                         std::to_string(*bad - line_start + 1) + " is not part of a UTF-8 character (YAML files are UTF-8)");
  }
  try {
    return YAML::Load(yaml_text);
  } catch (const YAML::Exception& error) {
    const std::string where = error.mark.is_null() ? ""
                                                   : " at line " + std::to_string(error.mark.line + 1) + ", column " +
                                                         std::to_string(error.mark.column + 1);
    throw InputError(source, "", "YAML syntax error" + where + ": " + error.msg);
  }
}


bool looks_like_path(const std::string& text) {
  auto ends_with = [&](const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return text.find('/') != std::string::npos || ends_with(".yaml") || ends_with(".yml");
}

std::string read_text_file(const std::string& path, const std::string& what) {
  return read_input_file(path, what, input_cap_bytes(kMaxYamlBytes));
}


std::vector<std::string> yaml_files_in(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace scalecast::yaml
