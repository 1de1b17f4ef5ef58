// The sweep's pictures, as SVG text: time to train against GPUs (log-log, one line per
// strategy, the best strategy at each scale ringed, the crossover marked), and each point's
// step time split into compute, exposed communication and idle.
#pragma once

#include <string>
#include <vector>

#include "sim/report/sweep_summary.h"

namespace scalecast {

std::string time_to_train_svg(const std::string& title, const std::vector<SweepRow>& rows, const SweepSummary& summary);
std::string step_breakdown_svg(const std::string& title, const std::vector<SweepRow>& rows);

}  // namespace scalecast
