#include "sim/core/physical_limits.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace scalecast::limits {

std::string out_of_range(const Range& range, const std::string& got) {
  return std::string("must be ") + range.text + ", got " + got;
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::uint64_t checked_byte_count(double value) {
  // 2^63: below the largest double that converts to a uint64 without overflow.
  if (!(value >= 0) || value >= 9223372036854775808.0)
    throw std::logic_error("byte count " + std::to_string(value) + " is outside 0..2^63");
  return static_cast<std::uint64_t>(std::llround(value));
}

}  // namespace scalecast::limits
