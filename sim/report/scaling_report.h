// How `simulate` and `inspect` show what a trace's replay rescaled (sim/cost/trace_scaling.h):
// per kernel class, the measured and rescaled GPU time per step and the rule behind the factor,
// then the notes the user must read (uncalibrated GPUs, copied efficiencies).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/cost/trace_scaling.h"

namespace scalecast {

nlohmann::ordered_json scaling_json(const TraceScaling& scaling);

// The class table as indented text lines (per step, per rank).
std::string scaling_text(const TraceScaling& scaling);

}  // namespace scalecast
