#include "sim/report/tp_pp_report.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/strategy/pipeline_schedule.h"
#include "sim/strategy/tp_pp_lowering.h"
#include "sim/timeline/collective_waits.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, disjoint.
Intervals merged(Intervals intervals) {
  std::sort(intervals.begin(), intervals.end());
  Intervals out;
  for (const auto& [start, end] : intervals) {
    if (!out.empty() && start <= out.back().second) out.back().second = std::max(out.back().second, end);
    else out.emplace_back(start, end);
  }
  return out;
}

double length(const Intervals& disjoint) {
  double total = 0;
  for (const auto& [start, end] : disjoint) total += end - start;
  return total;
}

// Time in `a` outside `b` (both disjoint and sorted).
double outside(const Intervals& a, const Intervals& b) {
  double covered = 0;
  size_t j = 0;
  for (const auto& [start, end] : a) {
    while (j < b.size() && b[j].second <= start) ++j;
    for (size_t k = j; k < b.size() && b[k].first < end; ++k)
      covered += std::min(end, b[k].second) - std::max(start, b[k].first);
  }
  return length(a) - covered;
}

struct StreamTimes {
  Intervals compute, tensor, data;
  double tensor_total_s = 0, data_total_s = 0;
  double interference_s = 0;  // of the compute: NCCL kernels sharing the GPU (gpu_sharing.h)
};

// A collective's time starts when its transfer began (`transfer_start_s`, per event: see
// collective_waits.h): a stage that reaches the tied embedding's all-reduce long before the other
// end of the pipeline does is waiting, which the breakdown counts in the bubble, not in DP
// communication.
StreamTimes stream_times(const RankClassTimeline& timeline, const std::vector<double>& transfer_start_s) {
  namespace stream = tp_pp_stream;
  StreamTimes times;
  for (size_t i = 0; i < timeline.events.size(); ++i) {
    const TimelineEvent& e = timeline.events[i];
    const std::pair<double, double> span{transfer_start_s[i], e.end_s};
    if (e.stream == stream::kCompute) {
      times.compute.push_back(span);
      times.interference_s += e.interference_s;
    } else if (e.stream == stream::kTensor) {
      times.tensor.push_back(span);
      times.tensor_total_s += span.second - span.first;
    } else if (e.stream == stream::kGradients || e.stream == stream::kParameters || e.stream == stream::kEmbedding) {
      times.data.push_back(span);
      times.data_total_s += span.second - span.first;
    }
  }
  times.compute = merged(times.compute);
  times.tensor = merged(times.tensor);
  times.data = merged(times.data);
  return times;
}

// Every pipeline transfer's time on the wire (from when both ends had arrived), over the stages.
double pipeline_send_s(const PointResult& point) {
  const TensorPipelinePlan& plan = *point.tensor_pipeline;
  if (plan.spec.pipeline == 1) return 0;
  double total = 0;
  for (const CollectiveRecord& c : point.replay.collectives)
    if (c.op == CollectiveOp::broadcast && c.ranks == 2) total += c.end_s - c.start_s;
  return total / plan.spec.pipeline;
}

}  // namespace

TensorPipelineBreakdown tensor_pipeline_breakdown(const PointResult& point) {
  const TensorPipelinePlan& plan = *point.tensor_pipeline;
  TensorPipelineBreakdown b;
  b.step_s = point.step.step_time_s;
  b.ideal_bubble_fraction = ideal_bubble_fraction(plan.spec.pipeline, plan.microbatches, plan.chunks);
  b.pp_send_s = pipeline_send_s(point);
  if (point.step.breakdown_class < 0) return b;
  const RankClassTimeline& timeline = point.replay.timeline.classes.at(point.step.breakdown_class);
  b.stage = plan.layout.coordinates(timeline.ranks.front()).stage;
  const StreamTimes times =
      stream_times(timeline, collective_waits(point.replay.timeline).transfer_start_s.at(point.step.breakdown_class));
  b.compute_s = length(times.compute);
  b.interference_s = times.interference_s;
  b.tp_comm_s = times.tensor_total_s;
  b.tp_exposed_s = outside(times.tensor, times.compute);
  b.dp_comm_s = times.data_total_s;
  Intervals busy = times.compute;
  busy.insert(busy.end(), times.tensor.begin(), times.tensor.end());
  b.dp_exposed_s = outside(times.data, merged(busy));
  b.pp_bubble_s = std::max(0.0, b.step_s - b.compute_s - b.tp_exposed_s - b.dp_exposed_s);
  return b;
}

namespace {

nlohmann::ordered_json layout_json(const TensorPipelinePlan& plan) {
  nlohmann::ordered_json layout;
  layout["tp"] = plan.spec.tensor;
  layout["pp"] = plan.spec.pipeline;
  layout["dp"] = plan.replicas();
  layout["zero"] = plan.spec.zero_stage;
  layout["microbatch"] = plan.spec.microbatch;
  layout["microbatches"] = plan.microbatches;
  layout["global_batch"] = plan.global_batch;
  layout["schedule"] = to_string(plan.spec.schedule);
  layout["virtual_stages"] = plan.chunks;
  layout["recompute"] = to_string(plan.spec.recompute);
  layout["sequence_parallel"] = plan.spec.sequence_parallel;
  layout["overlap"] = to_string(plan.spec.overlap);
  layout["order"] = plan.spec.order;
  layout["gradient_accumulation"] = plan.spec.fused_gradient_accumulation ? "fused" : "add";
  return layout;
}

nlohmann::ordered_json breakdown_json(const TensorPipelineBreakdown& b) {
  nlohmann::ordered_json breakdown;
  breakdown["stage"] = b.stage;
  breakdown["compute_s"] = b.compute_s;
  breakdown["interference_s"] = b.interference_s;
  breakdown["tp_comm_s"] = b.tp_comm_s;
  breakdown["tp_exposed_s"] = b.tp_exposed_s;
  breakdown["pp_bubble_s"] = b.pp_bubble_s;
  breakdown["pp_send_s"] = b.pp_send_s;
  breakdown["dp_comm_s"] = b.dp_comm_s;
  breakdown["dp_exposed_s"] = b.dp_exposed_s;
  breakdown["ideal_bubble_fraction"] = b.ideal_bubble_fraction;
  return breakdown;
}

nlohmann::ordered_json memory_json(const TensorPipelinePlan& plan) {
  const MemoryPerGpu& m = plan.memory;
  nlohmann::ordered_json memory;
  memory["stage"] = m.stage;
  memory["parameters_bytes"] = m.parameters_bytes;
  memory["gradients_bytes"] = m.gradients_bytes;
  memory["optimizer_bytes"] = m.optimizer_bytes;
  memory["activations_bytes"] = m.activations_bytes;
  memory["total_bytes"] = m.total_bytes();
  memory["capacity_bytes"] = plan.gpu_memory_bytes;
  return memory;
}

nlohmann::ordered_json throughput_json(const Scenario& scenario, const PointResult& point) {
  const TensorPipelinePlan& plan = *point.tensor_pipeline;
  const TransformerSpec& model = *scenario.model->transformer;
  const double step_s = point.step.step_time_s;
  nlohmann::ordered_json throughput;
  throughput["samples_per_s"] = plan.global_batch / step_s;
  // Tokens the GPUs run, padding included: under sequence binning, the mean padded length.
  throughput["tokens_per_s"] = plan.global_batch * model.mean_batch_length() / step_s;
  const double model_flops_per_gpu = model_step_flops(model, plan.global_batch) / step_s / point.gpus;
  throughput["model_tflops_per_gpu"] = model_flops_per_gpu / 1e12;
  throughput["mfu"] = model_flops_per_gpu / peak_flops_per_s(scenario.platform.node.gpu, scenario.model->precision);
  return throughput;
}

}  // namespace

nlohmann::ordered_json tensor_pipeline_json(const Scenario& scenario, const PointResult& point) {
  const TensorPipelinePlan& plan = *point.tensor_pipeline;
  nlohmann::ordered_json out;
  out["layout"] = layout_json(plan);
  out["breakdown"] = breakdown_json(tensor_pipeline_breakdown(point));
  out["memory_per_gpu"] = memory_json(plan);
  out["throughput"] = throughput_json(scenario, point);
  return out;
}

}  // namespace scalecast
