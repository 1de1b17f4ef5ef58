// What `inspect` reports of a trace before any simulation (its summary:
// sim/timeline/timeline_summary.h): measured compute per rank and step, programs, collectives,
// communicators, streams and top operators. Times that need a simulation are null in the JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/timeline/timeline_summary.h"

namespace scalecast {

nlohmann::ordered_json trace_inspection_json(const TraceSummary& summary);

std::string trace_inspection_text(const std::string& path, const TraceSummary& summary);

}  // namespace scalecast
