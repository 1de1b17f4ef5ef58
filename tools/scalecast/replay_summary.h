// What the commands report of a replay: per-step time and its breakdown, and helpers for
// output files. Shared by simulate and collective.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/engine/replay_engine.h"

namespace scalecast::cli {

struct StepSummary {
  int steps = 0;
  double step_time_s = 0;     // median over steps of the step's span
  double compute_s = 0;       // mean over steps, on the rank class that finishes the step last
  double comm_s = 0;
  double exposed_comm_s = 0;
  double idle_s = 0;
};
StepSummary summarize_steps(const ReplayResult& result);

// {"ring": 3, "tree": 7}
nlohmann::ordered_json algorithm_counts(const ReplayResult& result);

// Fails early (exit 2, nothing simulated) when an output cannot be written to that folder.
void check_output_path(const std::string& path, const std::string& option);

}  // namespace scalecast::cli
