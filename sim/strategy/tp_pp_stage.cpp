#include "sim/strategy/tp_pp_stage.h"

#include <algorithm>

#include "sim/strategy/tp_pp_lowering.h"

namespace scalecast {

namespace stream = tp_pp_stream;
namespace comm = tp_pp_communicator;

namespace {

// Vocabulary-parallel cross entropy all-reduces three fp32 values per token over the tensor
// group: the logits' maximum, the target's logit and the sum of exponentials (Megatron's
// _VocabParallelCrossEntropy).
constexpr int kCrossEntropyReductions = 3;
constexpr double kFp32Bytes = 4;

// Both ends of a pipeline transfer name it alike -- what it carries, the microbatch, and the
// virtual stages (chunk * P + stage) it goes between -- so that the timeline pairs the two
// (collective_waits.h): a receive posted before its sender is ready shows as waiting, the
// pipeline's bubble, not as communication. The ends' own chunk numbers can differ (the last
// stage's chunk c feeds the first stage's chunk c + 1), the virtual stages cannot.
std::string transfer_name(const PipelinePass& pass, int from_virtual_stage, int to_virtual_stage) {
  return std::string(pass.forward ? "pipeline.activation" : "pipeline.gradient") + " mb" +
         std::to_string(pass.microbatch) + " v" + std::to_string(from_virtual_stage) + ">v" +
         std::to_string(to_virtual_stage);
}

}  // namespace

StageBuilder::StageBuilder(const TensorPipelinePlan& plan, int stage, double optimizer_s, RankProgram& program)
    : plan_(plan),
      stage_(stage),
      optimizer_s_(optimizer_s),
      program_(program) {
  const int layers = plan.layers_per_chunk * plan.chunks * plan.spec.pipeline;
  for (int l = 0; l < layers; ++l) layers_.push_back({"layer" + std::to_string(l), plan.layer_weights, -1});
  embedding_ = {"embedding", plan.embedding_weights, -1};
  head_ = {"head", plan.head_weights, -1};
}

int StageBuilder::add(Task task, const std::vector<int>& deps) {
  task.step = 0;
  // Each dependency once: a collective's data and the compute issued before it are often the
  // same task.
  auto depend_on = [&](int d) {
    if (d >= 0 && std::find(task.deps.begin(), task.deps.end(), TaskRef{0, d}) == task.deps.end())
      task.deps.push_back({0, d});
  };
  for (int d : deps) depend_on(d);
  for (int d : host_sync_) depend_on(d);
  program_.tasks.push_back(std::move(task));
  return static_cast<int>(program_.tasks.size()) - 1;
}

int StageBuilder::compute(const std::string& name, double duration_s, std::vector<int> deps) {
  Task task;
  task.kind = TaskKind::compute;
  task.name = name;
  task.stream = stream::kCompute;
  task.duration_s = duration_s;  // priced from the layer's kernels (transformer_layer_costs.h)
  last_compute_ = add(std::move(task), deps);
  host_sync_.clear();  // what is issued later follows this compute
  return last_compute_;
}

int StageBuilder::compute(const std::string& name, const KernelSequenceTime& time, std::vector<int> deps) {
  const int index = compute(name, time.total_s(), std::move(deps));
  Task& task = program_.tasks[index];
  task.compute_bound_s = time.compute_s;
  task.memory_bound_s = time.memory_s;
  task.memory_bytes = time.memory_bytes;
  return index;
}

int StageBuilder::collective(const std::string& name, CollectiveOp op, int communicator, int stream_id, double bytes,
                             const std::vector<int>& deps, int root) {
  Task task;
  task.kind = TaskKind::collective;
  task.name = name;
  task.op = op;
  task.communicator = communicator;
  task.root = root;
  task.stream = stream_id;
  task.bytes = bytes;
  task.dtype = plan_.value_bytes < 4 ? "float16" : "float32";
  return add(std::move(task), deps);
}

// A collective waits for every compute task issued before it, not only for the data it
// carries: PyTorch's ProcessGroupNCCL makes the NCCL stream wait for the current stream when a
// collective is issued (syncStreams). So the backward's gathers cannot run under the weight
// gradient issued before them.
int StageBuilder::tensor_collective(const std::string& name, CollectiveOp op, double bytes, int after) {
  if (plan_.spec.tensor == 1) return after;
  return collective(name, op, comm::kTensor, stream::kTensor, bytes, {after, last_compute_});
}

// Megatron's g (forward) and f (backward): an all-reduce of the block's output, or under
// sequence parallelism a reduce-scatter over the sequence.
int StageBuilder::tensor_reduce(const std::string& name, int after) {
  const CollectiveOp op = plan_.spec.sequence_parallel ? CollectiveOp::reducescatter : CollectiveOp::allreduce;
  return tensor_collective(name, op, plan_.hidden_bytes, after);
}

// Sequence parallelism's all-gather of the sequence-split hidden state before a block.
int StageBuilder::tensor_gather(const std::string& name, int after) {
  if (!plan_.spec.sequence_parallel) return after;
  return tensor_collective(name, CollectiveOp::allgather, plan_.hidden_bytes, after);
}

std::string StageBuilder::pass_tag(const PipelinePass& pass) const {
  return " mb" + std::to_string(pass.microbatch) + (plan_.chunks > 1 ? " c" + std::to_string(pass.chunk) : "");
}

int StageBuilder::global_layer(int chunk, int j) const {
  return (chunk * plan_.spec.pipeline + stage_) * plan_.layers_per_chunk + j;
}

// One of Megatron's batched p2p calls (pipeline_exchanges.h): its sends and receives go out
// together after the compute issued before them, each waiting for its neighbour's matching
// call. Without p2p overlap the host then synchronizes: whatever the stage issues next waits
// for the whole call, and the received tensors are gathered at once (Megatron's _communicate).
// With overlap a received tensor is waited for, and gathered, only before the pass that needs
// it (input_of), so a receive made a pass ahead holds up no collective of the pass between.
void StageBuilder::exchange(const PipelineExchange& call) {
  std::vector<int> transfers;
  for (const PipelinePass& pass : call.sends) transfers.push_back(send(pass, results_.at(key(pass))));
  std::vector<std::pair<PipelinePass, int>> received;
  for (const PipelinePass& pass : call.receives) {
    received.push_back({pass, receive(pass)});
    transfers.push_back(received.back().second);
  }
  if (!plan_.spec.overlap.pipeline) host_sync_ = transfers;
  for (const auto& [pass, transfer] : received)
    inputs_[key(pass)] = plan_.spec.overlap.pipeline ? transfer : gather_received(pass, transfer);
}

// The pass's input as its first task takes it (the pass must have one).
int StageBuilder::input_of(const PipelinePass& pass) {
  const int input = inputs_.at(key(pass));
  return plan_.spec.overlap.pipeline ? gather_received(pass, input) : input;
}

// A received activation (or gradient) is 1/T of the hidden state from each tensor rank, put
// back together over NVLink unless sequence parallelism keeps it split.
int StageBuilder::gather_received(const PipelinePass& pass, int transfer) {
  if (plan_.spec.sequence_parallel) return transfer;
  return tensor_collective("gather.received" + pass_tag(pass), CollectiveOp::allgather, plan_.hidden_bytes, transfer);
}

int StageBuilder::receive(const PipelinePass& pass) {
  const int stages = plan_.spec.pipeline;
  const int from = pass.forward ? (stage_ + stages - 1) % stages : (stage_ + 1) % stages;
  const int communicator = pass.forward ? comm::forward_pair(from) : comm::backward_pair(from);
  const int root = from < stage_ ? 0 : 1;  // a pair's groups list the lower stage first
  const int virtual_stage = pass.chunk * stages + stage_;
  const int sender = pass.forward ? virtual_stage - 1 : virtual_stage + 1;
  return collective(transfer_name(pass, sender, virtual_stage), CollectiveOp::broadcast, communicator,
                    pass.forward ? stream::kReceiveForward : stream::kReceiveBackward,
                    plan_.hidden_bytes / plan_.spec.tensor, {last_compute_}, root);
}

int StageBuilder::send(const PipelinePass& pass, int after) {
  const int stages = plan_.spec.pipeline;
  const int to = pass.forward ? (stage_ + 1) % stages : (stage_ + stages - 1) % stages;
  const int communicator = pass.forward ? comm::forward_pair(stage_) : comm::backward_pair(stage_);
  const int root = stage_ < to ? 0 : 1;
  const int virtual_stage = pass.chunk * stages + stage_;
  // Like a collective, the send waits for the compute issued before it: after a backward pass,
  // the last weight gradient (Megatron-LM sends once autograd has issued the whole chunk).
  return collective(transfer_name(pass, virtual_stage, pass.forward ? virtual_stage + 1 : virtual_stage - 1),
                    CollectiveOp::broadcast, communicator, pass.forward ? stream::kSendForward : stream::kSendBackward,
                    plan_.hidden_bytes / plan_.spec.tensor, {after, last_compute_}, root);
}

// ZeRO-3: the layer's weights gathered from the data-parallel shards before it runs, at most
// one layer ahead: the gather waits for the pass of the layer two gathers back to finish.
int StageBuilder::gather_layer_weights(int layer, const std::string& tag) {
  if (plan_.spec.zero_stage < 3 || plan_.replicas() == 1) return -1;
  const size_t k = gather_consumers_.size();
  const int limit = k >= 2 ? gather_consumers_[k - 2] : -1;
  return collective("gather.weights.layer" + std::to_string(layer) + tag, CollectiveOp::allgather, comm::kParameters,
                    stream::kParameters, plan_.layer_weights * plan_.value_bytes, {limit});
}

int StageBuilder::layer_forward(int layer, const std::string& tag, int after, int weights) {
  const std::string name = "layer" + std::to_string(layer);
  const int attention = compute(name + ".attention.forward" + tag, plan_.layer.attention.forward,
                                {tensor_gather(name + ".attention.gather" + tag, after), weights});
  const int reduced = tensor_reduce(name + ".attention.reduce" + tag, attention);
  const int mlp = compute(name + ".mlp.forward" + tag, plan_.layer.mlp.forward,
                          {tensor_gather(name + ".mlp.gather" + tag, reduced)});
  return tensor_reduce(name + ".mlp.reduce" + tag, mlp);
}

// A block's backward in the order Megatron-LM's autograd issues it (transformer_layer_costs.h):
// the output side (row-parallel dX and dW, the elementwise and attention core backward), the
// column-parallel dX, then its collective -- Megatron's f, an all-reduce, or sequence
// parallelism's reduce-scatter -- beside the column-parallel dW. Under sequence parallelism the
// output gradient is all-gathered first (the backward of the forward's reduce-scatter) and the
// column linear's input gathered again beside its dX. Each collective also waits for the compute
// issued before it (tensor_collective), so neither gather hides under the previous block's dW.
StageBuilder::BlockBackward StageBuilder::block_backward(const std::string& name, const BlockTimes& times,
                                                         const KernelSequenceTime& extra_output_side, int after,
                                                         int weights) {
  // Without overlap (Megatron-LM before 2022) the collectives run beside no compute.
  const bool overlap = plan_.spec.overlap.tensor;
  const int gradient = tensor_gather(name + ".gather.gradient", after);
  const int output_side =
      compute(name + ".backward.output", times.backward_output_side + extra_output_side, {gradient, weights});
  const int input = tensor_gather(name + ".gather.input", output_side);
  const int dgrad = compute(name + ".backward.input", times.backward_column_input, {output_side, overlap ? -1 : input});
  const int reduced = tensor_reduce(name + ".reduce.gradient", dgrad);
  const int wgrad = compute(name + ".backward.weight", times.backward_column_weight, {dgrad, input, overlap ? -1 : reduced});
  return {reduced, wgrad};
}

int StageBuilder::layer_backward(int layer, const std::string& tag, int after) {
  const std::string name = "layer" + std::to_string(layer);
  const int weights = gather_layer_weights(layer, tag);
  if (plan_.spec.recompute == Recompute::full) after = layer_forward(layer, tag + " recompute", after, weights);
  const KernelSequenceTime selective =
      plan_.spec.recompute == Recompute::selective ? plan_.layer.attention_core_forward : KernelSequenceTime{};
  const BlockBackward mlp = block_backward(name + ".mlp" + tag, plan_.layer.mlp, {}, after, weights);
  const BlockBackward attention = block_backward(name + ".attention" + tag, plan_.layer.attention, selective,
                                                 mlp.input_gradient, -1);
  weights_done(layers_[layer], attention.weight_gradient, tag);  // after the MLP's in the compute stream
  if (weights >= 0) gather_consumers_.push_back(attention.input_gradient);
  return attention.input_gradient;
}

// A unit's weight gradient for this microbatch is done after task `wgrad`. zero:2 and zero:3
// keep no gradient between microbatches: it is reduce-scattered at once.
void StageBuilder::weights_done(GradientUnit& unit, int wgrad, const std::string& tag) {
  unit.ready = wgrad;
  last_backward_compute_ = std::max(last_backward_compute_, wgrad);
  if (plan_.spec.zero_stage < 2 || plan_.replicas() == 1) return;
  per_microbatch_reductions_.push_back(collective("reduce.gradients." + unit.name + tag, CollectiveOp::reducescatter,
                                                  comm::kGradients, stream::kGradients, gradient_bytes(unit), {wgrad}));
}

double StageBuilder::gradient_bytes(const GradientUnit& unit) const {
  return unit.weights * plan_.gradient_bytes_per_weight * plan_.options.gradient_bytes_scale;
}

int StageBuilder::forward_pass(const PipelinePass& pass) {
  const std::string tag = pass_tag(pass);
  int last = -1;
  if (plan_.first_virtual_stage(stage_, pass.chunk)) {
    last = compute("embedding.forward" + tag, plan_.ends.embedding_forward, {});
    last = tensor_reduce("embedding.reduce" + tag, last);
  } else {
    last = input_of(pass);
  }
  for (int j = 0; j < plan_.layers_per_chunk; ++j) {
    const int layer = global_layer(pass.chunk, j);
    const int weights = gather_layer_weights(layer, tag);
    last = layer_forward(layer, tag, last, weights);
    if (weights >= 0) gather_consumers_.push_back(last);
  }
  if (!plan_.last_virtual_stage(stage_, pass.chunk)) {
    results_[key(pass)] = last;
    return last;
  }
  last = compute("head.forward" + tag, plan_.ends.head_forward, {tensor_gather("head.gather" + tag, last)});
  for (int k = 0; k < kCrossEntropyReductions; ++k)
    last = tensor_collective("loss.reduce" + tag, CollectiveOp::allreduce, plan_.tokens_per_microbatch * kFp32Bytes,
                             last);
  return last;
}

int StageBuilder::backward_pass(const PipelinePass& pass) {
  const std::string tag = pass_tag(pass);
  int last = -1;
  if (plan_.last_virtual_stage(stage_, pass.chunk)) {
    const int dgrad = compute("head.backward.input" + tag, plan_.ends.head_backward_input, {});
    last = tensor_reduce("head.reduce.gradient" + tag, dgrad);
    weights_done(head_, compute("head.backward.weight" + tag, plan_.ends.head_backward_weight, {dgrad}), tag);
  } else {
    last = input_of(pass);
  }
  for (int j = plan_.layers_per_chunk - 1; j >= 0; --j) last = layer_backward(global_layer(pass.chunk, j), tag, last);
  if (!plan_.first_virtual_stage(stage_, pass.chunk)) {
    results_[key(pass)] = last;
    return last;
  }
  weights_done(embedding_, compute("embedding.backward" + tag, plan_.ends.embedding_backward, {last}), tag);
  return last;
}

void StageBuilder::build() {
  const PipelineProgram program =
      pipeline_program(plan_.spec.schedule, plan_.spec.pipeline, stage_, plan_.microbatches, plan_.chunks,
                       plan_.spec.overlap.pipeline ? PipelineCalls::overlapped : PipelineCalls::synchronous);
  for (const PipelineStep& step : program.steps) {
    for (const PipelineExchange& call : step.exchanges_before) exchange(call);
    step.pass.forward ? forward_pass(step.pass) : backward_pass(step.pass);
  }
  for (const PipelineExchange& call : program.exchanges_after) exchange(call);
  synchronize_gradients();
}

// The weights this stage holds, each with the task after which its gradient is complete.
std::vector<GradientUnit> StageBuilder::held_units() const {
  std::vector<GradientUnit> units;
  for (const GradientUnit& layer : layers_)
    if (layer.ready >= 0) units.push_back(layer);
  if (embedding_.ready >= 0) units.push_back(embedding_);
  if (head_.ready >= 0) units.push_back(head_);
  return units;
}

// Once the last microbatch is done: the tied embedding's gradient summed between the first and
// last stage, the data-parallel reduction, the Adam step, the updated weights gathered.
void StageBuilder::synchronize_gradients() {
  GradientUnit* tied = stage_ == 0 ? &embedding_ : &head_;
  if (plan_.tied_embeddings && tied->ready >= 0)
    tied->ready = collective("reduce.tied_embedding", CollectiveOp::allreduce, comm::kEmbedding, stream::kEmbedding,
                             plan_.shared_embedding_weights * plan_.gradient_bytes_per_weight * plan_.options.gradient_bytes_scale,
                             {tied->ready});
  const std::vector<GradientUnit> units = held_units();
  std::vector<int> reduced;
  if (plan_.replicas() == 1 || plan_.spec.zero_stage >= 2) {
    for (const GradientUnit& unit : units) reduced.push_back(unit.ready);
    reduced.insert(reduced.end(), per_microbatch_reductions_.begin(), per_microbatch_reductions_.end());
  } else {
    // Without dp overlap, once the stage's backward is over (Megatron's local DDP), after the
    // schedule's last p2p call. With it DDP's autograd hooks issue each bucket during the
    // backward, before that call: the host synchronization after it does not hold them.
    const int after = plan_.spec.overlap.data ? -1 : last_backward_compute_;
    const std::vector<int> after_schedule = host_sync_;
    if (plan_.spec.overlap.data) host_sync_.clear();
    reduced = in_buckets(units, plan_.spec.zero_stage == 0 ? CollectiveOp::allreduce : CollectiveOp::reducescatter,
                         "reduce.gradients", stream::kGradients, comm::kGradients, plan_.gradient_bytes_per_weight, after);
    host_sync_ = after_schedule;
  }
  const int optimizer = compute("optimizer.step", optimizer_s_, reduced);
  // zero:1 and zero:2 update a shard, whose new weights every replica needs for the next step;
  // zero:3 keeps them sharded (the next step gathers them layer by layer).
  if (plan_.replicas() > 1 && (plan_.spec.zero_stage == 1 || plan_.spec.zero_stage == 2))
    in_buckets(units, CollectiveOp::allgather, "gather.weights", stream::kParameters, comm::kParameters,
               plan_.value_bytes, optimizer);
}

// Units in the order their gradients complete, in buckets of at least the bucket size, one
// collective each, issued as soon as its last unit is ready (or after `after`).
std::vector<int> StageBuilder::in_buckets(std::vector<GradientUnit> units, CollectiveOp op, const std::string& name,
                                          int stream_id, int communicator, double bytes_per_weight, int after) {
  std::stable_sort(units.begin(), units.end(), [](const GradientUnit& a, const GradientUnit& b) { return a.ready < b.ready; });
  std::vector<int> issued, deps;
  double bytes = 0;
  auto close = [&]() {
    if (deps.empty()) return;
    deps.push_back(after);
    issued.push_back(collective(name + ".bucket" + std::to_string(issued.size()), op, communicator, stream_id,
                                bytes * plan_.options.gradient_bytes_scale, deps));
    deps.clear();
    bytes = 0;
  };
  for (const GradientUnit& unit : units) {
    deps.push_back(unit.ready);
    bytes += unit.weights * bytes_per_weight;
    if (bytes >= plan_.options.bucket_bytes) close();
  }
  close();
  return issued;
}

}  // namespace scalecast
