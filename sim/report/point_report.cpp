#include "sim/report/point_report.h"

#include <map>

#include "sim/report/placement_report.h"
#include "sim/report/scaling_report.h"
#include "sim/report/tp_pp_report.h"

namespace scalecast {

nlohmann::ordered_json algorithm_counts(const ReplayResult& result) {
  std::map<std::string, int> counts;
  for (const auto& c : result.collectives)
    if (!c.point_to_point) ++counts[to_string(c.algorithm)];
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, count] : counts) out[name] = count;
  return out;
}

std::string folding_summary(const ReplayResult& result, int gpus) {
  int collectives = 0;
  for (const auto& c : result.collectives) collectives += c.point_to_point ? 0 : 1;
  return std::to_string(result.rank_classes) + " rank class" + (result.rank_classes == 1 ? "" : "es") + " for " +
         std::to_string(gpus) + " GPUs; " + std::to_string(result.collectives_reused) + " of " +
         std::to_string(collectives) + " collectives timed alone in closed form" +
         (result.collectives_symmetry_folded > 0
              ? " (" + std::to_string(result.collectives_symmetry_folded) +
                    " solved by rail/pod symmetry, down to 1/" + std::to_string(result.symmetry_order) + " of the flows)"
              : "") +
         (result.collectives_handed_over > 0
              ? ", " + std::to_string(result.collectives_handed_over) +
                    " started so and handed to the flow solver when another transfer reached their links"
              : "") +
         ", " + std::to_string(result.collectives_folded) + " run on one node for all";
}

nlohmann::ordered_json point_json(const Scenario& scenario, const PointResult& point) {
  const StepReport& step = point.step;
  nlohmann::ordered_json out;
  out["platform"] = scenario.platform.name;
  out["source"] = scenario.source;
  out["gpus"] = point.gpus;
  out["strategy"] = point.strategy.name();
  out["steps"] = step.steps.size();
  out["step_time_s"] = step.step_time_s;
  out["compute_s"] = step.per_step.compute_s;
  out["exposed_comm_s"] = step.per_step.exposed_communication_s;
  out["comm_s"] = step.per_step.communication_s;
  out["idle_s"] = step.per_step.idle_s;
  // Parts of compute_s: time lost to NCCL kernels sharing the GPU, and to the slowest rank.
  out["interference_s"] = step.per_step.interference_s;
  out["straggler_s"] = step.per_step.straggler_s;
  out["stragglers"] = {{"compute_cv", point.variability.cv},
                       {"cv_source", point.variability.source},
                       {"seed", point.variability.seed},
                       {"slowest_rank_delay", point.straggler_delay}};
  out["waiting_s"] = step.per_step_waiting_s;
  out["host_s"] = step.per_step.host_s;
  out["breakdown_class"] = step.breakdown_class;
  out["collectives"] = point.replay.collectives.size();
  out["algorithms"] = algorithm_counts(point.replay);
  out["flows"] = point.replay.flows;
  out["rank_classes"] = point.replay.rank_classes;
  out["collectives_closed_form"] = point.replay.collectives_reused;
  out["collectives_handed_over"] = point.replay.collectives_handed_over;
  out["collectives_node_folded"] = point.replay.collectives_folded;
  out["collectives_symmetry_folded"] = point.replay.collectives_symmetry_folded;
  out["symmetry_fold_order"] = point.replay.symmetry_order;
  if (!point.replay.network.empty()) out["network"] = point.replay.network;
  out["accumulated_batches"] = point.accumulated_batches;
  // The DDP wrapper, when several workers reduce and it is not PyTorch's (the default).
  if (auto it = scenario.hybrid.find(point.strategy); it != scenario.hybrid.end() &&
                                                      it->second.ddp.kind != DdpWrapper::Kind::torch &&
                                                      point.gpus > point.strategy.gpus_per_worker)
    out["ddp"] = to_string(it->second.ddp);
  if (point.training) {
    out["global_batch"] = point.training->global_batch;
    out["epochs"] = point.training->epochs;
    out["time_to_train_s"] = point.training->time_to_train_s;
  }
  out["warnings"] = point.warnings;
  if (point.tensor_pipeline) {
    const nlohmann::ordered_json layers = tensor_pipeline_json(scenario, point);
    for (const auto& [key, value] : layers.items()) out[key] = value;
  } else if (scenario.model) {
    out["placement"] = placement_json(*scenario.model, scenario.plans.at(point.strategy));
  }
  out["cost_model"] = {{"family", scenario.cost_family}, {"notes", scenario.cost_notes()}};
  if (scenario.scaling) out["rescaled"] = scaling_json(*scenario.scaling);
  return out;
}

SweepRow sweep_row(const Scenario& scenario, const PointResult& point) {
  SweepRow row;
  row.gpus = point.gpus;
  row.gpus_per_worker = point.strategy.gpus_per_worker;
  row.strategy = point.strategy.name();
  row.workers = point.gpus / point.strategy.gpus_per_worker;
  row.step_time_s = point.step.step_time_s;
  row.compute_s = point.step.per_step.compute_s;
  row.comm_s = point.step.per_step.communication_s;
  row.exposed_comm_s = point.step.per_step.exposed_communication_s;
  row.waiting_s = point.step.per_step_waiting_s;
  row.idle_s = point.step.per_step.idle_s;
  row.interference_s = point.step.per_step.interference_s;
  row.straggler_s = point.step.per_step.straggler_s;
  row.flows = point.replay.flows;
  if (scenario.model && !point.tensor_pipeline) row.mp_speedup = scenario.plans.at(point.strategy).mp_speedup();
  if (point.training) {
    row.global_batch = point.training->global_batch;
    row.epochs = point.training->epochs;
    row.time_to_train_s = point.training->time_to_train_s;
  }
  row.sim_wall_s = point.sim_wall_s;
  row.warnings = point.warnings;
  return row;
}

}  // namespace scalecast
