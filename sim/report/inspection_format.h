// Pieces shared by `inspect`'s reports of a timeline (timeline_inspection.h) and of a trace
// (trace_inspection.h): aligned text tables and the operator totals both list.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/timeline/timeline_summary.h"

namespace scalecast {

// Appends printf-style text to `out` (the reports build strings, so that they can be tested and
// printed by the command alike).
void appendf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));

// "12.345 ms": three decimals in the largest unit (s, ms, us) that keeps the number at least 1.
// Not sim/core's format_seconds, which gives microseconds two decimals and long runs in hours
// and days: inspect's tables keep one shape for every row.
std::string format_duration(double seconds);

// Keeps table columns aligned: text longer than `width` is cut, with "..." to say so.
std::string fit_to_width(const std::string& text, size_t width);

// "  12.5%" (aligned: five characters before the sign) or "12.5%"; 0 when `whole` is not positive.
std::string percent_text(double part, double whole, bool aligned = true);

// The top operators as JSON rows. `waiting`: a timeline's operators, whose collectives may have
// waited for other ranks (a trace's measured durations have no such part).
nlohmann::ordered_json top_operators_json(const std::vector<OperatorTotal>& totals, bool waiting);

}  // namespace scalecast
