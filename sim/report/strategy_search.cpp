#include "sim/report/strategy_search.h"

#include <algorithm>

#include "sim/collectives/collective_cost.h"
#include "sim/core/input_error.h"
#include "sim/strategy/tp_pp_plan.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

// A collective's time alone on the network as NCCL's tuning model predicts a ring with the
// Simple protocol: its latency, plus the bus bytes over the channels' bandwidth (or the
// protocol's cap). Ranking only: the simulation takes the flows on the links.
double collective_s(const Scenario& scenario, CollectiveOp op, double bytes, const std::vector<int>& group) {
  if (group.size() < 2 || bytes <= 0) return 0;
  const ClusterLayout layout{&scenario.platform, scenario.platform.node.gpus};
  const CollectiveRequest request{op, bytes, group, 0};
  const GroupShape shape = group_shape(request, layout);
  const CollectiveChoice ring{CollectiveAlgorithm::ring, CollectiveProtocol::simple};
  const double bus_Bps = shape.graph.channels * shape.graph.channel_bw_GBps * 1e9;
  const double transfer_s = bytes * bus_bandwidth_factor(op, shape.ranks) / bus_Bps;
  return collective_latency_s(op, ring, shape, scenario.platform, bytes) +
         std::max(transfer_s, min_transfer_s(op, ring, shape, scenario.platform, bytes));
}

// One microbatch through one layer on one stage: forward, recomputation, backward, and the
// tensor-parallel collectives the compute does not hide.
double layer_microbatch_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const LayerTimes& l = plan.layer;
  const std::vector<int> tensor = plan.layout.tensor_group({0, 0, 0});
  const double reduce = plan.spec.sequence_parallel
                            ? collective_s(scenario, CollectiveOp::reducescatter, plan.hidden_bytes, tensor) +
                                  collective_s(scenario, CollectiveOp::allgather, plan.hidden_bytes, tensor)
                            : collective_s(scenario, CollectiveOp::allreduce, plan.hidden_bytes, tensor);
  const double forward = l.attention.forward_s + l.mlp.forward_s + 2 * reduce;
  const double weights_s = l.attention.backward_weight_s + l.mlp.backward_weight_s;
  const double backward_reduce = plan.spec.overlap.tensor ? std::max(0.0, 2 * reduce - weights_s) : 2 * reduce;
  const double backward = l.attention.backward_input_s + l.mlp.backward_input_s + weights_s + backward_reduce;
  double recompute = 0;
  if (plan.spec.recompute == Recompute::full) recompute = forward;
  if (plan.spec.recompute == Recompute::selective) recompute = l.attention_core_forward_s;
  return forward + recompute + backward;
}

// One microbatch's forward and backward on the slowest stage, transfers included.
double stage_microbatch_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const int layers = plan.layers_per_chunk * plan.chunks;
  const EndTimes& e = plan.ends;
  const double ends = std::max(e.embedding_forward_s + e.embedding_backward_s,
                               e.head_forward_s + e.head_backward_input_s + e.head_backward_weight_s);
  double transfers = 0;
  if (plan.spec.pipeline > 1) {
    const RankLayout& r = plan.layout;
    const double send = collective_s(scenario, CollectiveOp::broadcast, plan.hidden_bytes / plan.spec.tensor,
                                     {r.rank({0, 0, 0}), r.rank({0, 1, 0})});
    const double gather = plan.spec.sequence_parallel
                              ? 0
                              : collective_s(scenario, CollectiveOp::allgather, plan.hidden_bytes, r.tensor_group({0, 0, 0}));
    transfers = 2 * plan.chunks * (gather + (plan.spec.overlap.pipeline ? 0 : send));
  }
  return layers * layer_microbatch_s(scenario, plan) + ends + transfers;
}

// The data-parallel exchange of one stage's gradients (and weights) the compute does not hide.
double data_parallel_exposed_s(const Scenario& scenario, const TensorPipelinePlan& plan, double pipeline_s,
                               double last_backward_s) {
  const std::vector<int> data = plan.layout.data_group({0, 0, 0});
  if (data.size() < 2) return 0;
  const double weights = plan.layer_weights * plan.layers_per_chunk * plan.chunks + plan.embedding_weights;
  const double gradient_bytes = weights * plan.value_bytes * plan.options.gradient_bytes_scale;
  const int zero = plan.spec.zero_stage;
  const double gather = zero == 1 || zero == 2 ? collective_s(scenario, CollectiveOp::allgather, gradient_bytes, data) : 0;
  if (zero == 0 || zero == 1) {
    const CollectiveOp op = zero == 0 ? CollectiveOp::allreduce : CollectiveOp::reducescatter;
    const double reduce = collective_s(scenario, op, gradient_bytes, data);
    return (plan.spec.overlap.data ? std::max(0.0, reduce - last_backward_s) : reduce) + gather;
  }
  // zero:2 and 3 exchange every microbatch, beside the compute; zero:3 gathers weights twice or
  // three times (forward, recomputation, backward) per microbatch.
  const double passes = zero == 3 ? (plan.spec.recompute == Recompute::full ? 3 : 2) : 0;
  const double per_microbatch = collective_s(scenario, CollectiveOp::reducescatter, gradient_bytes, data) +
                                passes * collective_s(scenario, CollectiveOp::allgather, gradient_bytes, data);
  return std::max(0.0, plan.microbatches * per_microbatch - pipeline_s) + gather;
}

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// Every spec of the search space at `gpus`, shapes not yet checked.
std::vector<TensorPipelineSpec> candidate_specs(const Scenario& scenario, int gpus, const LayoutSearchOptions& options) {
  const TransformerSpec& t = *scenario.model->transformer;
  std::vector<TensorPipelineSpec> specs;
  for (int tensor = 1; tensor <= scenario.platform.node.gpus && tensor <= gpus; tensor *= 2)
    for (int stages : divisors(t.layers)) {
      if (gpus % (tensor * stages) != 0) continue;
      const int replicas = gpus / (tensor * stages);
      for (int microbatch : options.microbatches)
        for (int zero : options.zero_stages) {
          if (zero > 0 && replicas == 1) continue;
          for (int chunks : {1, 2})
            for (bool sp : {false, true}) {
              if ((chunks > 1 && stages == 1) || (sp && tensor == 1)) continue;
              TensorPipelineSpec spec;
              spec.tensor = tensor;
              spec.pipeline = stages;
              spec.microbatch = microbatch;
              spec.zero_stage = zero;
              spec.sequence_parallel = sp;
              if (chunks > 1) spec.schedule = PipelineSchedule::interleaved, spec.virtual_stages = chunks;
              specs.push_back(spec);
            }
        }
    }
  return specs;
}

}  // namespace

double estimate_step_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const double microbatch_s = stage_microbatch_s(scenario, plan);
  const double pipeline_s =
      (plan.microbatches + double(plan.spec.pipeline - 1) / plan.chunks) * microbatch_s;
  const double last_backward_s = microbatch_s * 2.0 / 3;
  const double optimizer_s = *std::max_element(plan.optimizer_s.begin(), plan.optimizer_s.end());
  return pipeline_s + data_parallel_exposed_s(scenario, plan, pipeline_s, last_backward_s) + optimizer_s;
}

std::vector<LayoutEstimate> rank_layouts(const Scenario& scenario, int gpus, const LayoutSearchOptions& options) {
  if (!scenario.model || !scenario.model->transformer)
    throw RequestError("strategy", "auto searches tp/pp layouts of a transformer; " + scenario.source +
                                       " has no transformer section (workloads/SCHEMA.md, \"Transformer\")");
  TensorPipelineOptions plan_options;
  plan_options.global_batch = scenario.global_batch;
  std::vector<LayoutEstimate> ranked;
  for (const TensorPipelineSpec& spec : candidate_specs(scenario, gpus, options)) {
    try {
      TensorPipelinePlan plan =
          plan_tensor_pipeline(*scenario.model, scenario.platform, scenario.replay.compute, spec, gpus, plan_options);
      const double step_s = estimate_step_s(scenario, plan);
      ranked.push_back({tensor_pipeline_strategy(spec), step_s, std::move(plan)});
    } catch (const RequestError&) {
      // Does not divide, or does not fit: not a candidate.
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.step_s < b.step_s; });
  return ranked;
}

}  // namespace scalecast
