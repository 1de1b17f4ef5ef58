#include "sim/report/step_estimate.h"

#include <algorithm>
#include <limits>

#include "sim/collectives/collective_cost.h"

namespace scalecast {

namespace {

// A collective's time alone on the network as NCCL's tuning model predicts a ring: its
// latency, plus the bus bytes (with the protocol's overhead on the wire) over the channels'
// bandwidth, or the protocol's cap; with the protocol NCCL would pick, the fastest by that
// model, as the engine does (collective_catalog.h). The low-latency protocols matter for the
// many small per-layer collectives over large data-parallel groups: a 32-replica ring pays 31
// steps of latency per collective. Ranking only: the simulation takes the flows on the links.
double collective_s(const Scenario& scenario, CollectiveOp op, double bytes, const std::vector<int>& group) {
  if (group.size() < 2 || bytes <= 0) return 0;
  const ClusterLayout layout{&scenario.platform, scenario.platform.node.gpus};
  const GroupShape shape = group_shape({op, bytes, group, 0}, layout);
  const double bus_Bps = shape.graph.channels * shape.graph.channel_bw_GBps * 1e9;
  const double data_transfer_s = bytes * bus_bandwidth_factor(op, shape.ranks) / bus_Bps;
  const CollectiveChoice ring{CollectiveAlgorithm::ring, CollectiveProtocol::automatic};
  double best_s = std::numeric_limits<double>::infinity();
  for (const CollectiveChoice& choice : candidate_choices(op, ring, shape, scenario.platform)) {
    const double transfer_s = data_transfer_s * wire_factor(op, choice, shape, scenario.platform, bytes);
    best_s = std::min(best_s, collective_latency_s(op, choice, shape, scenario.platform, bytes) +
                                  std::max(transfer_s, min_transfer_s(op, choice, shape, scenario.platform, bytes)));
  }
  return best_s;
}

struct MicrobatchTimes {
  double forward_s = 0;
  double backward_s = 0;  // recomputation included
  double total_s() const { return forward_s + backward_s; }
};

// ZeRO-3's gather of one layer's weights over the data-parallel replicas (0 otherwise).
double layer_gather_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  if (plan.spec.zero_stage < 3) return 0;
  return collective_s(scenario, CollectiveOp::allgather, plan.layer_weights * plan.value_bytes,
                      plan.layout.data_group({0, 0, 0}));
}

// One microbatch through one layer on one stage, with the tensor-parallel collectives the
// compute does not hide: in the backward, as the stage's program orders them (tp_pp_stage.cpp),
// the column-parallel input gradient hides the re-gather of its input and the weight gradient
// the input gradient's reduction; the output gradient's gather hides under nothing. Under
// zero:3 a layer waits for its weights, gathered one layer ahead on their own stream (once
// before the forward, once for the recomputation and backward), so it runs no faster than the
// gathers.
MicrobatchTimes layer_microbatch(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const LayerTimes& l = plan.layer;
  const std::vector<int> tensor = plan.layout.tensor_group({0, 0, 0});
  const bool sequence_parallel = plan.spec.sequence_parallel, overlap = plan.spec.overlap.tensor;
  const double gather = sequence_parallel ? collective_s(scenario, CollectiveOp::allgather, plan.hidden_bytes, tensor) : 0;
  const double reduce = sequence_parallel ? collective_s(scenario, CollectiveOp::reducescatter, plan.hidden_bytes, tensor)
                                          : collective_s(scenario, CollectiveOp::allreduce, plan.hidden_bytes, tensor);
  const double forward = l.attention.forward.total_s() + l.mlp.forward.total_s() + 2 * (gather + reduce);
  double backward = 0;
  for (const BlockTimes* block : {&l.attention, &l.mlp}) {
    const double input_s = block->backward_column_input.total_s(), weight_s = block->backward_column_weight.total_s();
    backward += block->backward().total_s() + gather;
    backward += overlap ? std::max(0.0, gather - input_s) + std::max(0.0, reduce - weight_s) : gather + reduce;
  }
  if (plan.spec.recompute == Recompute::full) backward += forward;
  if (plan.spec.recompute == Recompute::selective) backward += l.attention_core_forward.total_s();
  const double gather_s = layer_gather_s(scenario, plan);
  return {std::max(forward, gather_s), std::max(backward, gather_s)};
}

// One microbatch's forward and backward on each kind of stage (all its chunks): the layers
// and transfers every stage has, plus the embedding on the first and the head on the last.
struct StageMicrobatches {
  MicrobatchTimes first, last;
  double body_s = 0;  // a stage between them
};

StageMicrobatches stage_microbatches(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const int layers = plan.layers_per_chunk * plan.chunks;
  const MicrobatchTimes layer = layer_microbatch(scenario, plan);
  MicrobatchTimes body{layers * layer.forward_s, layers * layer.backward_s};
  if (plan.spec.pipeline > 1) {
    const RankLayout& r = plan.layout;
    const double send = collective_s(scenario, CollectiveOp::broadcast, plan.hidden_bytes / plan.spec.tensor,
                                     {r.rank({0, 0, 0}), r.rank({0, 1, 0})});
    const double gather = plan.spec.sequence_parallel
                              ? 0
                              : collective_s(scenario, CollectiveOp::allgather, plan.hidden_bytes, r.tensor_group({0, 0, 0}));
    const double each_way = plan.chunks * (gather + (plan.spec.overlap.pipeline ? 0 : send));
    body.forward_s += each_way;
    body.backward_s += each_way;
  }
  const EndTimes& e = plan.ends;
  const MicrobatchTimes embedding{e.embedding_forward.total_s(), e.embedding_backward.total_s()};
  const MicrobatchTimes head{e.head_forward.total_s(), e.head_backward_input.total_s() + e.head_backward_weight.total_s()};
  StageMicrobatches stages;
  stages.body_s = body.total_s();
  stages.first = {body.forward_s + embedding.forward_s, body.backward_s + embedding.backward_s};
  stages.last = {body.forward_s + head.forward_s, body.backward_s + head.backward_s};
  if (plan.spec.pipeline == 1) stages.first = stages.last = {stages.first.forward_s + head.forward_s,
                                                             stages.first.backward_s + head.backward_s};
  return stages;
}

// The first stage's compute: the fill and drain cross every stage once (a 1/V chunk of it when
// interleaved), the M microbatches pass at the slowest stage's pace.
double pipeline_s(const TensorPipelinePlan& plan, const StageMicrobatches& stages) {
  const int P = plan.spec.pipeline;
  const double slowest_s = std::max(stages.first.total_s(), stages.last.total_s());
  const double all_stages_s =
      P == 1 ? slowest_s : stages.first.total_s() + stages.last.total_s() + (P - 2) * stages.body_s;
  return plan.microbatches * slowest_s + (all_stages_s - slowest_s) / plan.chunks;
}

// A unit of weights whose gradient completes at once, and when in its microbatch's backward
// (a fraction of the backward) it does.
struct GradientUnit {
  double weights = 0;
  double done_fraction = 1;
};

// The first stage's units in the order its backward completes them: its layers, last first,
// evenly over the backward, then the embedding; a single stage holds the head too, done first.
std::vector<GradientUnit> first_stage_units(const TensorPipelinePlan& plan) {
  const int layers = plan.layers_per_chunk * plan.chunks;
  std::vector<GradientUnit> units;
  if (plan.spec.pipeline == 1) units.push_back({plan.head_weights, 0});
  for (int j = 0; j < layers; ++j) units.push_back({plan.layer_weights, double(j + 1) / layers});
  units.push_back({plan.embedding_weights, 1});
  return units;
}

// Gradients travel at their accumulation precision (training_memory.h's state_bytes), as in the
// lowering (tp_pp_stage.cpp).
double gradient_bytes(const TensorPipelinePlan& plan, double weights) {
  return weights * plan.gradient_bytes_per_weight * plan.options.gradient_bytes_scale;
}

// A FIFO stream of collectives: each starts when it is ready and the one before it is done.
struct CollectiveStream {
  double free_s = 0;
  void issue(double ready_s, double duration_s) { free_s = std::max(free_s, ready_s) + duration_s; }
};

// Units grouped as the lowering's buckets are: in completion order, closed once they hold the
// bucket size. Each bucket: its bytes and the fraction of the backward when its last unit is done.
std::vector<GradientUnit> in_buckets(const TensorPipelinePlan& plan, const std::vector<GradientUnit>& units,
                                     double bytes_per_weight) {
  std::vector<GradientUnit> buckets;
  GradientUnit open{0, 0};
  for (const GradientUnit& unit : units) {
    open.weights += unit.weights;
    open.done_fraction = unit.done_fraction;
    if (open.weights * bytes_per_weight >= plan.options.bucket_bytes) buckets.push_back(open), open = {0, 0};
  }
  if (open.weights > 0) buckets.push_back(open);
  return buckets;
}

// The first stage's data-parallel stream after its compute ends at `pipeline_s`: how much of
// the gradients' reduction is left (see the header).
double data_parallel_tail_s(const Scenario& scenario, const TensorPipelinePlan& plan, const StageMicrobatches& stages,
                            double pipeline_s) {
  const std::vector<int> data = plan.layout.data_group({0, 0, 0});
  const int zero = plan.spec.zero_stage;
  const std::vector<GradientUnit> units = first_stage_units(plan);
  // Microbatch k's backward on the first stage ends at pipeline_s - (M-1-k) x the slowest
  // stage's microbatch (the pace of the pipeline).
  const MicrobatchTimes& microbatch = stages.first;
  const double pace_s = std::max(stages.first.total_s(), stages.last.total_s());
  auto backward_start_s = [&](int k) {
    return pipeline_s - (plan.microbatches - 1 - k) * pace_s - microbatch.backward_s;
  };
  CollectiveStream stream;
  if (zero >= 2) {
    std::vector<double> reduce_s;  // each unit's, the same every microbatch
    for (const GradientUnit& unit : units)
      reduce_s.push_back(collective_s(scenario, CollectiveOp::reducescatter, gradient_bytes(plan, unit.weights), data));
    for (int k = 0; k < plan.microbatches; ++k)
      for (size_t j = 0; j < units.size(); ++j)
        stream.issue(backward_start_s(k) + units[j].done_fraction * microbatch.backward_s, reduce_s[j]);
  } else {
    const CollectiveOp op = zero == 0 ? CollectiveOp::allreduce : CollectiveOp::reducescatter;
    for (const GradientUnit& bucket : in_buckets(plan, units, gradient_bytes(plan, 1))) {
      const double ready_s = plan.spec.overlap.data
                                 ? backward_start_s(plan.microbatches - 1) + bucket.done_fraction * microbatch.backward_s
                                 : pipeline_s;
      stream.issue(ready_s, collective_s(scenario, op, gradient_bytes(plan, bucket.weights), data));
    }
  }
  return std::max(0.0, stream.free_s - pipeline_s);
}

// zero:1 and 2: every replica gathers the shards the others updated, in buckets, one after another.
double weight_gather_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  if (plan.spec.zero_stage != 1 && plan.spec.zero_stage != 2) return 0;
  const std::vector<int> data = plan.layout.data_group({0, 0, 0});
  double total_s = 0;
  for (const GradientUnit& bucket : in_buckets(plan, first_stage_units(plan), plan.value_bytes)) {
    const double bytes = bucket.weights * plan.value_bytes * plan.options.gradient_bytes_scale;
    total_s += collective_s(scenario, CollectiveOp::allgather, bytes, data);
  }
  return total_s;
}

}  // namespace

StepEstimate estimate_step(const Scenario& scenario, const TensorPipelinePlan& plan) {
  const StageMicrobatches stages = stage_microbatches(scenario, plan);
  StepEstimate estimate;
  estimate.pipeline_s = pipeline_s(plan, stages);
  estimate.optimizer_s = *std::max_element(plan.optimizer_s.begin(), plan.optimizer_s.end());
  if (plan.replicas() < 2) return estimate;
  estimate.data_parallel_tail_s = data_parallel_tail_s(scenario, plan, stages, estimate.pipeline_s);
  estimate.weight_gather_s = weight_gather_s(scenario, plan);
  return estimate;
}

}  // namespace scalecast
