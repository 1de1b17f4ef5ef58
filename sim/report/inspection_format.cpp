#include "sim/report/inspection_format.h"

#include <cstdarg>
#include <cstdio>

namespace scalecast {

using ordered_json = nlohmann::ordered_json;

void appendf(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (length > 0) {
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(length) + 1);
    std::vsnprintf(out.data() + at, static_cast<size_t>(length) + 1, format, again);
    out.resize(at + static_cast<size_t>(length));
  }
  va_end(again);
}

std::string format_duration(double seconds) {
  char text[64];
  if (seconds >= 1 || seconds == 0)
    std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  else
    std::snprintf(text, sizeof text, "%.3f us", seconds * 1e6);
  return text;
}

std::string fit_to_width(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string percent_text(double part, double whole, bool aligned) {
  char text[32];
  std::snprintf(text, sizeof text, aligned ? "%5.1f%%" : "%.1f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

nlohmann::ordered_json top_operators_json(const std::vector<OperatorTotal>& totals, bool waiting) {
  ordered_json operators = ordered_json::array();
  for (const OperatorTotal& op : totals) {
    ordered_json entry = {{"name", op.name},
                          {"category", to_string(op.category)},
                          {"count", op.count},
                          {"total_s", op.total_s},
                          {"mean_s", op.mean_s}};
    if (waiting) entry["waiting_s"] = op.waiting_s;
    operators.push_back(std::move(entry));
  }
  return operators;
}

}  // namespace scalecast
