// One pipeline stage's program of a tp/pp plan (tp_pp_lowering.h says what it holds). Internal
// to the lowering: tp_pp_lowering.cpp builds the frame and communicators, this the tasks.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/strategy/pipeline_exchanges.h"
#include "sim/strategy/tp_pp_plan.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// Communicator ids of a tp/pp graph.
namespace tp_pp_communicator {
constexpr int kTensor = 0;
constexpr int kGradients = 1;
constexpr int kParameters = 2;
constexpr int kEmbedding = 3;
// Activations from `stage` to the next stage (forward) and to the previous one (backward).
inline int forward_pair(int stage) { return 4 + 2 * stage; }
inline int backward_pair(int stage) { return 5 + 2 * stage; }
}  // namespace tp_pp_communicator

// A unit of weights whose gradient is complete after some task: a layer, the embedding, the
// head. `ready` is the task after which its gradient can be reduced.
struct GradientUnit {
  std::string name;
  double weights = 0;  // per GPU
  int ready = -1;
};

class StageBuilder {
 public:
  StageBuilder(const TensorPipelinePlan& plan, int stage, double optimizer_s, RankProgram& program);
  void build();

 private:
  int add(Task task, const std::vector<int>& deps);
  int compute(const std::string& name, double duration_s, std::vector<int> deps);
  // A task priced kernel by kernel: its duration and what bounds its parts (Task::compute_bound_s).
  int compute(const std::string& name, const KernelSequenceTime& time, std::vector<int> deps);
  int collective(const std::string& name, CollectiveOp op, int communicator, int stream, double bytes,
                 const std::vector<int>& deps, int root = 0);
  int tensor_collective(const std::string& name, CollectiveOp op, double bytes, int after);
  int tensor_reduce(const std::string& name, int after);
  int tensor_gather(const std::string& name, int after);

  int forward_pass(const PipelinePass& pass);
  int backward_pass(const PipelinePass& pass);
  // `weights`: the ZeRO-3 gather the layer's first compute waits for (-1: none).
  int layer_forward(int layer, const std::string& tag, int after, int weights);
  int layer_backward(int layer, const std::string& tag, int after);
  struct BlockBackward {
    int input_gradient = -1;   // the collective that completes it (or the compute, without TP)
    int weight_gradient = -1;
  };
  BlockBackward block_backward(const std::string& name, const BlockTimes& times, const KernelSequenceTime& extra_output_side,
                               int after, int weights);
  int gather_layer_weights(int layer, const std::string& tag);
  void exchange(const PipelineExchange& call);
  int input_of(const PipelinePass& pass);
  int gather_received(const PipelinePass& pass, int transfer);
  int receive(const PipelinePass& pass);
  int send(const PipelinePass& pass, int after);
  void weights_done(GradientUnit& unit, int wgrad, const std::string& tag);
  double gradient_bytes(const GradientUnit& unit) const;

  std::vector<GradientUnit> held_units() const;
  void synchronize_gradients();
  std::vector<int> in_buckets(std::vector<GradientUnit> units, CollectiveOp op, const std::string& name, int stream_id,
                              int communicator, double bytes_per_weight, int after);

  std::string pass_tag(const PipelinePass& pass) const;
  int global_layer(int chunk, int j) const;

  const TensorPipelinePlan& plan_;
  const int stage_;
  const double optimizer_s_;
  RankProgram& program_;
  std::vector<GradientUnit> layers_;  // by global layer index (only this stage's are used)
  GradientUnit embedding_, head_;
  std::vector<int> per_microbatch_reductions_;  // zero:2 and zero:3
  // Without p2p overlap: the transfers of the last p2p call, which every task issued after it
  // waits for until the next compute has been issued (Megatron's torch.cuda.synchronize() after
  // each call; later tasks follow that compute).
  std::vector<int> host_sync_;
  // The compute task issued last. Tensor-parallel collectives and pipeline transfers wait for
  // it, as PyTorch's NCCL stream waits for the compute stream when a collective is issued.
  // Gradient and ZeRO collectives name the task they follow (their weight gradient, or the
  // layer gathered ahead of) themselves.
  int last_compute_ = -1;
  // Per pass (forward, microbatch, chunk): the task its input arrived with (the received
  // activation or gradient; without p2p overlap already gathered over the tensor group) and the
  // task its result leaves after.
  using PassKey = std::tuple<bool, int, int>;
  static PassKey key(const PipelinePass& pass) { return {pass.forward, pass.microbatch, pass.chunk}; }
  std::map<PassKey, int> inputs_, results_;
  int last_backward_compute_ = -1;  // without dp overlap: gradients are reduced after it
  // zero:3: for each layer pass that gathered its weights, in issue order, the task ending it.
  std::vector<int> gather_consumers_;
};

}  // namespace scalecast
