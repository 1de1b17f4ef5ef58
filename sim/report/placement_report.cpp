#include "sim/report/placement_report.h"

#include <cstdio>

namespace scalecast {

nlohmann::ordered_json placement_json(const ModelGraph& model, const WorkerPlan& plan) {
  nlohmann::ordered_json out;
  out["method"] = plan.placement.method;
  out["proven_optimal"] = plan.placement.proven_optimal;
  if (!plan.placement.solver_failure.empty()) out["solver_failure"] = plan.placement.solver_failure;
  out["gpus_per_worker"] = plan.gpus_per_worker;
  out["single_gpu_step_s"] = plan.placement.single_gpu_step_s;
  out["predicted_step_s"] = plan.placement.step_time_s;
  out["mp_speedup"] = plan.mp_speedup();
  out["transfers"] = plan.placement.transfers;
  out["transfer_bytes"] = plan.placement.transfer_bytes;
  out["gpus"] = nlohmann::ordered_json::array();
  for (int gpu = 0; gpu < plan.gpus_per_worker; ++gpu) {
    nlohmann::ordered_json entry;
    double busy_s = 0;
    for (int t : plan.placement.task_order[gpu]) busy_s += plan.problem.tasks[t].duration_s;
    entry["gpu"] = gpu;
    entry["busy_s"] = busy_s;
    entry["operators"] = nlohmann::ordered_json::array();
    for (size_t op = 0; op < model.operators.size(); ++op)
      if (plan.placement.gpu_of_group[op] == gpu) entry["operators"].push_back(model.operators[op].name);
    out["gpus"].push_back(std::move(entry));
  }
  return out;
}

std::string placement_line(const WorkerPlan& plan) {
  char line[256];
  std::snprintf(line, sizeof line, "%s%s, MP speedup %.2fx: step %.1f ms on %d GPU%s vs %.1f ms on 1",
                plan.placement.method.c_str(), plan.placement.proven_optimal ? " (optimal)" : "", plan.mp_speedup(),
                plan.placement.step_time_s * 1e3, plan.gpus_per_worker, plan.gpus_per_worker > 1 ? "s" : "",
                plan.placement.single_gpu_step_s * 1e3);
  return line;
}

}  // namespace scalecast
