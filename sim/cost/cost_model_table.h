// Per-operator-kind efficiencies of the roofline cost model, per GPU family and precision, read
// from workloads/cost-model.yaml (format and calibration sources: workloads/SCHEMA.md and
// workloads/README.md). The hybrid simulator and placement turn them into a ComputeCostModel
// for the simulated GPU with compute_cost_model_for.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"

namespace scalecast {

struct CostModelFamily {
  std::string family;                              // "V100"
  std::vector<std::string> match;                  // a GPU belongs here when its model contains one of these
  std::map<std::string, ComputeCostModel> by_precision;  // "fp32", "fp16", ... (defaults + per_kind)
};

struct CostModelTable {
  std::string source;  // the file it came from
  std::vector<CostModelFamily> families;
};

// `path` empty: the default table, cost-model.yaml in the workloads folder
// (the first workload preset folder that has one: sim/core/preset_paths.h).
CostModelTable load_cost_model_table(const std::string& path = "");
CostModelTable parse_cost_model_yaml(const std::string& yaml_text, const std::string& source);

// The cost model for `gpu` running at `precision`: the first family whose match occurs in
// gpu.model. Throws InputError naming the table when no family or precision fits (a GPU the
// table has not been calibrated for is an input problem, not something to guess).
ComputeCostModel compute_cost_model_for(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision);

}  // namespace scalecast
