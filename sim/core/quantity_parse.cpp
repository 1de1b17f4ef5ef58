#include "sim/core/quantity_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

namespace scalecast {

namespace {

std::string trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// Splits "64MB" into 64 and "MB". Fails on an empty or non-finite number.
bool split_number(const std::string& raw, double& number, std::string& suffix) {
  std::string text = trim(raw);
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || !std::isfinite(number)) return false;
  suffix = trim(std::string(ptr, end));
  return true;
}

std::optional<double> scaled(const std::string& text, const std::map<std::string, double>& units) {
  double number = 0;
  std::string suffix;
  if (!split_number(text, number, suffix)) return std::nullopt;
  auto it = units.find(suffix);
  if (it == units.end()) return std::nullopt;
  return number * it->second;
}

}  // namespace

std::optional<double> parse_bytes(const std::string& text) {
  static const std::map<std::string, double> units = {
      {"", 1},       {"B", 1},         {"KB", 1e3},         {"MB", 1e6},         {"GB", 1e9},
      {"TB", 1e12},  {"KiB", 1024.0},  {"MiB", 1048576.0},  {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0},        {"K", 1024.0},       {"M", 1048576.0},    {"G", 1073741824.0}};
  return scaled(text, units);
}

std::optional<double> parse_bytes_with_unit(const std::string& text) {
  const std::string trimmed = trim(text);
  if (trimmed.empty() || !std::isalpha(static_cast<unsigned char>(trimmed.back()))) return std::nullopt;
  return parse_bytes(trimmed);
}

std::optional<double> parse_bandwidth_Bps(const std::string& text) {
  static const std::map<std::string, double> units = {
      {"B/s", 1},     {"KB/s", 1e3},  {"MB/s", 1e6},  {"GB/s", 1e9},  {"TB/s", 1e12}, {"GBps", 1e9},
      {"MBps", 1e6},  {"bps", 0.125}, {"Kbps", 125},  {"Mbps", 1.25e5}, {"Gbps", 1.25e8}, {"Tbps", 1.25e11},
      {"Kb/s", 125},  {"Mb/s", 1.25e5}, {"Gb/s", 1.25e8}, {"Tb/s", 1.25e11}};
  return scaled(text, units);
}

std::optional<double> parse_seconds(const std::string& text) {
  static const std::map<std::string, double> units = {
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}, {"min", 60}, {"h", 3600}};
  return scaled(text, units);
}

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    parts.push_back(trim(text.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

// "A-B" (doubling) or "A:B:xF" (multiplying by F) ranges, both inclusive of A and of B when hit.
template <typename Parse>
std::optional<std::vector<double>> parse_list(const std::string& text, Parse parse_one) {
  std::vector<double> values;
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) return std::nullopt;
    std::vector<std::string> range = split(item, item.find(':') != std::string::npos ? ':' : '-');
    if (range.size() == 1) {
      auto value = parse_one(item);
      if (!value) return std::nullopt;
      values.push_back(*value);
      continue;
    }
    if (range.size() > 3) return std::nullopt;
    auto first = parse_one(range[0]);
    auto last = parse_one(range[1]);
    double factor = 2;
    if (range.size() == 3) {
      if (range[2].empty() || range[2][0] != 'x') return std::nullopt;
      double parsed = 0;
      std::string rest;
      if (!split_number(range[2].substr(1), parsed, rest) || !rest.empty()) return std::nullopt;
      factor = parsed;
    }
    if (!first || !last || *first <= 0 || *last < *first || factor <= 1) return std::nullopt;
    for (double v = *first; v <= *last * (1 + 1e-9); v *= factor) {
      values.push_back(v);
      if (values.size() > 100000) return std::nullopt;
    }
  }
  return values;
}

}  // namespace

std::optional<std::vector<double>> parse_bytes_list(const std::string& text) {
  return parse_list(text, parse_bytes);
}

std::optional<std::vector<int>> parse_int_list(const std::string& text) {
  auto parse_int = [](const std::string& item) -> std::optional<double> {
    double number = 0;
    std::string rest;
    if (!split_number(item, number, rest) || !rest.empty() || number != std::floor(number)) return std::nullopt;
    return number;
  };
  auto values = parse_list(text, parse_int);
  if (!values) return std::nullopt;
  std::vector<int> ints;
  for (double v : *values) {
    if (v < 1 || v > 1e9) return std::nullopt;
    ints.push_back(static_cast<int>(std::llround(v)));
  }
  return ints;
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, bytes == std::floor(bytes) ? "%.0f %s" : "%.2f %s", bytes, units[unit]);
  return buffer;
}

std::string format_seconds(double seconds) {
  char buffer[64];
  double magnitude = std::fabs(seconds);
  if (magnitude >= 3600 * 48) std::snprintf(buffer, sizeof buffer, "%.2f d", seconds / 86400);
  else if (magnitude >= 3600) std::snprintf(buffer, sizeof buffer, "%.2f h", seconds / 3600);
  else if (magnitude >= 1) std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  else if (magnitude >= 1e-3) std::snprintf(buffer, sizeof buffer, "%.3f ms", seconds * 1e3);
  else std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  return buffer;
}

}  // namespace scalecast
