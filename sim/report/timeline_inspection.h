// What `inspect` reports of a simulated timeline (its summary: sim/timeline/timeline_summary.h):
// the JSON object of `inspect --json`, the text tables, and the title and notes of its SVG
// picture.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/timeline/timeline_summary.h"
#include "sim/timeline/timeline_svg.h"

namespace scalecast {

nlohmann::ordered_json timeline_inspection_json(const TimelineSummary& summary);

// The human report: the step and its breakdown, per-step and per-rank tables (at most 16 rank
// classes; --json has every row), streams, top operators and the critical path.
std::string timeline_inspection_text(const std::string& path, const TimelineSummary& summary);

// The SVG picture's title and the figures under it (`file` names the timeline).
TimelineSvgOptions timeline_svg_options(const std::string& file, const TimelineSummary& summary, int max_rows);

}  // namespace scalecast
