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

double round_significant(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return std::strtod(text, nullptr);
}

void canonicalize(nlohmann::ordered_json& json, const std::string& source_dir) {
  if (json.is_object()) {
    for (const std::string& field : kWallClockFields) json.erase(field);
    for (auto& [key, value] : json.items()) canonicalize(value, source_dir);
  } else if (json.is_array()) {
    for (auto& value : json) canonicalize(value, source_dir);
  } else if (json.is_number_float()) {
    json = round_significant(json.get<double>());
  } else if (json.is_string()) {
    std::string text = json.get<std::string>();
    for (size_t at; (at = text.find(source_dir)) != std::string::npos;) text.replace(at, source_dir.size(), "${SOURCE}");
    json = text;
  }
}

std::string canonical_text(const std::string& text, const std::string& source_dir) {
  static const std::regex number(R"((\d+\.\d+(?:[eE][-+]?\d+)?))");
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.find(" wall") != std::string::npos) continue;
    for (size_t at; (at = line.find(source_dir)) != std::string::npos;) line.replace(at, source_dir.size(), "${SOURCE}");
    std::string rounded;
    auto begin = std::sregex_iterator(line.begin(), line.end(), number);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      rounded += line.substr(last, it->position() - last);
      char text_number[32];
      std::snprintf(text_number, sizeof text_number, "%.4g", std::strtod(it->str().c_str(), nullptr));
      // Padded to the printed width, so that tables keep their columns.
      const std::string value = text_number;
      rounded += std::string(it->length() > value.size() ? it->length() - value.size() : 0, ' ') + value;
      last = it->position() + it->length();
    }
    out += rounded + line.substr(last) + "\n";
  }
  return out;
}

}  // namespace

std::string canonical_output(const std::string& stdout_text, const std::string& source_dir) {
  auto json = nlohmann::ordered_json::parse(stdout_text, nullptr, false);
  if (json.is_discarded() || !(json.is_object() || json.is_array())) return canonical_text(stdout_text, source_dir);
  canonicalize(json, source_dir);
  return json.dump(2) + "\n";
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
