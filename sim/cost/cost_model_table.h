// The GPU families of the cost model, read from workloads/cost-model.yaml (format:
// workloads/SCHEMA.md "Cost model"; calibration sources: workloads/README.md):
//  - per family and precision, the roofline efficiencies of each operator kind;
//  - the efficiencies a GPU no family matches runs with (`uncalibrated`, with a warning);
//  - reference figures (peaks, memory bandwidth) of the GPUs traces are measured on, so that a
//    trace's durations can be rescaled to another GPU (sim/cost/trace_scaling.h);
//  - the duration under which a kernel counts as launch-bound.
// A user's table (--cost-model, or cost-model.yaml in $SCALECAST_WORKLOADS_DIR) is layered on
// the shipped one: its families and GPUs are tried first, and one of the same name replaces
// the shipped entry.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"

namespace scalecast {

struct CostModelFamily {
  std::string family;                              // "V100"
  std::vector<std::string> match;                  // a GPU belongs here when its model contains one of these
  // "fp32", "fp16", ... (defaults + per_kind). Efficiencies copied from another family or
  // derived rather than measured carry copied_from, and every result that uses them says so.
  std::map<std::string, ComputeCostModel> by_precision;
  std::string source;                              // the file it came from
};

// A GPU model's data-sheet figures, for the GPU a trace was measured on (the simulated GPU's
// come from its platform file).
struct GpuReference {
  std::vector<std::string> match;  // substrings of the traced GPU's name ("PG509-200")
  GpuSpec gpu;
  std::string source;
};

struct CostModelTable {
  std::string source;  // the file(s) it came from
  std::vector<CostModelFamily> families;
  std::optional<CostModelFamily> uncalibrated;  // for GPUs no family matches
  std::vector<GpuReference> gpus;
  std::optional<double> launch_bound_below_s;  // kernels at most this long keep their duration
};

// The shipped table, with $SCALECAST_WORKLOADS_DIR/cost-model.yaml (when there is one) and then
// `user_path` (when not empty) layered on top.
CostModelTable load_cost_model_table(const std::string& user_path = "");
// One file. `complete`: a table of its own, which must list families; a file layered on
// another may give any part.
CostModelTable parse_cost_model_yaml(const std::string& yaml_text, const std::string& source, bool complete = true);
// `top` over `base`: top's families and GPUs first (a family of the same name, or a GPU of the
// same model, replaces base's); top's `uncalibrated` and launch limit replace base's.
CostModelTable layer_cost_models(CostModelTable base, const CostModelTable& top);

// The cost model for `gpu` at a training precision, and what the user must be told about it.
struct ResolvedCostModel {
  ComputeCostModel model;
  std::string family;               // the family matched; "" when uncalibrated
  std::vector<std::string> notes;   // uncalibrated GPU, copied efficiencies, missing peaks
};

// The first family whose match occurs in gpu.model; a GPU no family matches runs with the
// `uncalibrated` efficiencies against its own peaks (noted "uncalibrated"). A precision the
// family lacks takes a related one's efficiencies, noted as copied: bf16 and fp8 from fp16
// (bf16 runs at fp16's tensor-core rate on every GPU that has it), tf32 from fp32, fp64 from
// fp32. Throws InputError naming the table only when no related precision exists either.
// `kinds_used`: the operator kinds the caller prices (copied efficiencies of other kinds are not
// noted); empty: all.
ResolvedCostModel resolve_cost_model(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision,
                                     const std::set<std::string>& kinds_used = {});
ComputeCostModel compute_cost_model_for(const CostModelTable& table, const GpuSpec& gpu, const std::string& precision);

// The family `gpu` belongs to; "" when none matches (uncalibrated).
std::string family_of(const CostModelTable& table, const GpuSpec& gpu);

// The reference figures of the GPU a trace names (first entry one of whose match strings
// occurs in `traced_gpu`); nullptr when the table has none.
const GpuReference* find_gpu_reference(const CostModelTable& table, const std::string& traced_gpu);

double launch_bound_below_s(const CostModelTable& table);

}  // namespace scalecast
