// How one simulated point is reported: the fields of `simulate --json` and of a sweep's row.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/report/scenario.h"
#include "sim/report/sweep_summary.h"

namespace scalecast {

// {"ring": 3, "tree": 7}: the algorithms the point's collectives ran (send/recv left out).
nlohmann::ordered_json algorithm_counts(const ReplayResult& result);

// How the engine's symmetry folds shortened the run, in words: "1 rank class for 131,072 GPUs;
// 9 of 9 collectives timed alone in closed form; 0 run on one node for all" (replay_engine.h).
std::string folding_summary(const ReplayResult& result, int gpus);

// simulate's JSON object (README "A tour, command by command"), without the wall time.
nlohmann::ordered_json point_json(const Scenario& scenario, const PointResult& point);

SweepRow sweep_row(const Scenario& scenario, const PointResult& point);

}  // namespace scalecast
