// place_ilp_isolated: the CBC solve in a child process (ilp_placement.h says why). The child
// sends back the solver's figures and the placement's assignment and per-GPU order as JSON; the
// parent evaluates that order on the problem again (evaluate_order is deterministic), so the
// Placement is the one the child found.
#include <nlohmann/json.hpp>

#include "sim/core/process_pool.h"
#include "sim/strategy/ilp_placement.h"

namespace scalecast {

namespace {

std::string result_to_text(const IlpPlacementResult& r) {
  nlohmann::json out = {{"solved", r.solved},
                        {"proven_optimal", r.proven_optimal},
                        {"lower_bound_s", r.lower_bound_s},
                        {"variables", r.variables},
                        {"constraints", r.constraints},
                        {"disjunctive_pairs", r.disjunctive_pairs},
                        {"wall_s", r.wall_s}};
  if (r.solved) {
    out["gpu_of_group"] = r.placement.gpu_of_group;
    out["task_order"] = r.placement.task_order;
    out["method"] = r.placement.method;
  }
  return out.dump();
}

IlpPlacementResult result_from_text(const PlacementProblem& problem, const std::string& text) {
  const nlohmann::json in = nlohmann::json::parse(text);
  IlpPlacementResult r;
  r.solved = in.at("solved").get<bool>();
  r.proven_optimal = in.at("proven_optimal").get<bool>();
  r.lower_bound_s = in.at("lower_bound_s").get<double>();
  r.variables = in.at("variables").get<int>();
  r.constraints = in.at("constraints").get<int>();
  r.disjunctive_pairs = in.at("disjunctive_pairs").get<int>();
  r.wall_s = in.at("wall_s").get<double>();
  if (r.solved) {
    r.placement = evaluate_order(problem, in.at("gpu_of_group").get<std::vector<int>>(),
                                 in.at("task_order").get<std::vector<std::vector<int>>>());
    r.placement.method = in.at("method").get<std::string>();
  }
  return r;
}

}  // namespace

IlpPlacementResult place_ilp_isolated(const PlacementProblem& problem, const Placement& warm_start,
                                      const PlacementOptions& options, bool relax_sinks, std::string* failure) {
  IlpPlacementResult result;
  run_in_processes(
      1, 1, [&](int) { return result_to_text(place_ilp(problem, warm_start, options, relax_sinks)); },
      [&](int, const JobOutcome& outcome) {
        if (outcome.exit_code == 0)
          result = result_from_text(problem, outcome.output);
        else if (failure)
          *failure = outcome.output;
      });
  return result;
}

}  // namespace scalecast
