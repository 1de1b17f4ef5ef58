#include "tests/support/golden_tesh.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace scalecast::testing {

namespace {

const std::vector<std::string> kWallClockFields = {"sim_wall_s", "wall_s", "sweep_wall_s", "jobs"};

void canonicalize(nlohmann::ordered_json& json, const std::string& source_dir) {
  if (json.is_object()) {
    for (const std::string& field : kWallClockFields) json.erase(field);
    for (auto& [key, value] : json.items()) canonicalize(value, source_dir);
  } else if (json.is_array()) {
    for (auto& value : json) canonicalize(value, source_dir);
  } else if (json.is_string()) {
    std::string text = json.get<std::string>();
    for (size_t at; (at = text.find(source_dir)) != std::string::npos;) text.replace(at, source_dir.size(), "${SOURCE}");
    json = text;
  }
}

// Numbers with a decimal point rounded to 4 significant digits, as printed text (a double
// rounded and printed again can come back as 0.0031580000000000002). `keep_width` pads each
// to its printed width, so that tables keep their columns.
std::string round_numbers(const std::string& line, bool keep_width) {
  static const std::regex number(R"((\d+\.\d+(?:[eE][-+]?\d+)?))");
  std::string rounded;
  size_t last = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), number); it != std::sregex_iterator(); ++it) {
    rounded += line.substr(last, it->position() - last);
    last = it->position() + it->length();
    static const std::regex whole(R"(\d+\.0+)");
    if (std::regex_match(it->str(), whole) && it->length() <= 17) {  // a whole number stays as printed
      rounded += it->str();
      continue;
    }
    char text_number[32];
    std::snprintf(text_number, sizeof text_number, "%.4g", std::strtod(it->str().c_str(), nullptr));
    const std::string value = text_number;
    if (keep_width && static_cast<size_t>(it->length()) > value.size()) rounded += std::string(it->length() - value.size(), ' ');
    rounded += value;
  }
  return rounded + line.substr(last);
}

std::string canonical_text(const std::string& text, const std::string& source_dir) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.find(" wall") != std::string::npos) continue;
    for (size_t at; (at = line.find(source_dir)) != std::string::npos;) line.replace(at, source_dir.size(), "${SOURCE}");
    out += round_numbers(line, true) + "\n";
  }
  return out;
}

}  // namespace

std::string canonical_output(const std::string& stdout_text, const std::string& source_dir) {
  auto json = nlohmann::ordered_json::parse(stdout_text, nullptr, false);
  if (json.is_discarded() || !(json.is_object() || json.is_array())) return canonical_text(stdout_text, source_dir);
  canonicalize(json, source_dir);
  std::istringstream lines(json.dump(2));
  std::string line, out;
  while (std::getline(lines, line)) out += round_numbers(line, false) + "\n";
  return out;
}

TeshFile read_tesh(const std::string& path) {
  TeshFile file;
  file.path = path;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0 || line == "#") file.comments.push_back(line.size() > 2 ? line.substr(2) : "");
    else if (line.rfind("$ scalecast ", 0) == 0) file.command = line.substr(12);
    else if (line.rfind("> ", 0) == 0 || line == ">") file.expected += (line.size() > 2 ? line.substr(2) : "") + "\n";
  }
  return file;
}

void write_tesh(const TeshFile& file) {
  std::string text;
  for (const std::string& comment : file.comments) text += comment.empty() ? "#\n" : "# " + comment + "\n";
  text += "$ scalecast " + file.command + "\n";
  std::istringstream in(file.expected);
  std::string line;
  while (std::getline(in, line)) text += line.empty() ? ">\n" : "> " + line + "\n";
  std::ofstream(file.path) << text;
}

std::vector<std::string> tesh_files(const std::string& folder) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".tesh") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace scalecast::testing
