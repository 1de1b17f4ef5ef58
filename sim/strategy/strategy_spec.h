// A parallelisation strategy as users write it (README "A tour, command by command"):
//   dp         data parallelism: every GPU holds the whole model (hybrid:1)
//   hybrid:M   workers of M GPUs of one node place the model's operator graph over their GPUs
//              (DLPlacer-style), and data parallelism runs across workers
//   tp:T,pp:P[,zero:S][,mb:B][,schedule:1f1b|gpipe|interleaved:V][,recompute:R][,sp:on][,overlap:X][,order:O]
//              a transformer cut Megatron-style: tensor parallelism over T GPUs, a pipeline of
//              P stages, data parallelism over the remaining gpus / (T*P) replicas, optionally
//              with ZeRO stage S sharding (docs/parallelism.md). Either of tp and pp may be left
//              out (it is then 1), and so may both when zero is given (zero:3 alone is FSDP).
// A strategy's name is its canonical spelling, so that parse(name()) gives it back and two
// spellings of one strategy compare equal.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalecast {

enum class PipelineSchedule { one_f_one_b, gpipe, interleaved };
// How much of a layer's forward the backward recomputes: nothing, the attention core
// (Korthikanti et al. 2022's selective recomputation), or the whole layer from its input.
// automatic: the least recomputation whose activations fit in the GPU's memory.
enum class Recompute { automatic, none, selective, full };

// Which communication hides behind compute (docs/parallelism.md "Overlap"), written
// overlap:all (the default: current Megatron-LM and NeMo recipes), overlap:none, or a '+' list:
//   tp   the weight-gradient GEMMs run while the backward tensor-parallel collective does
//        (Megatron-LM since 2022, Korthikanti et al.);
//   dp   data-parallel buckets are reduced as soon as their gradients are done (PyTorch DDP);
//        without it, after the stage's backward pass (Megatron-LM's local DDP);
//   p2p  pipeline transfers run beside the compute; without it a stage waits for each of its
//        p2p calls, sends and receives (Megatron-LM's synchronised calls before 2023;
//        pipeline_exchanges.h).
// The fidelity table runs Narayanan et al.'s SC'21 cases with overlap:dp without pipelining and
// overlap:none with it, as the paper's run script sets them (NVIDIA/Megatron-LM
// examples/sc21/run_table_1.sh: DDP=torch for the pp-1 models, DDP=local with pipelining, whose
// allreduce_gradients() runs after forward_backward_func in megatron/training.py).
struct Overlap {
  bool tensor = true;
  bool data = true;
  bool pipeline = true;
  auto operator<=>(const Overlap&) const = default;
};

const char* to_string(PipelineSchedule schedule);
std::string to_string(const Overlap& overlap);  // "all", "none", "tp+dp"
const char* to_string(Recompute recompute);

struct TensorPipelineSpec {
  int tensor = 1;       // T: GPUs splitting each layer's matrices
  int pipeline = 1;     // P: pipeline stages
  int zero_stage = 0;   // 0: replicated; 1: optimizer states, 2: + gradients, 3: + parameters sharded
  int microbatch = 1;   // samples per microbatch
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;  // model chunks per GPU (interleaved:V)
  Recompute recompute = Recompute::automatic;
  bool sequence_parallel = false;  // norms and dropouts split over the sequence (Korthikanti et al.)
  Overlap overlap;
  // How a weight's gradient is summed over the microbatches of a step. Fused (accum:fused): the
  // weight-gradient GEMM adds into the gradient buffer itself (Megatron-LM's
  // gradient_accumulation_fusion, on by default since 2022 where gradients accumulate in fp32;
  // megatron/arguments.py turns it off for fp16 accumulation), so the sum costs nothing beyond
  // the GEMM. Added (accum:add): each microbatch's gradient is written out and then added into the
  // buffer by a kernel of its own, reading both and writing the sum (Megatron-LM's DDP hook
  // `main_grad.add_(grad)`, before the fusion and without it since; PyTorch's AccumulateGrad).
  bool fused_gradient_accumulation = true;
  // Which dimension varies fastest along the rank order, innermost first: "tp-pp-dp" puts a TP
  // group on consecutive GPUs (one NVLink domain), pipeline neighbours on neighbouring nodes,
  // and data-parallel replicas outermost.
  std::string order = "tp-pp-dp";

  auto operator<=>(const TensorPipelineSpec&) const = default;
};

struct StrategySpec {
  int gpus_per_worker = 1;  // M: the GPUs that share one copy of the model (T*P for tp/pp)
  std::optional<TensorPipelineSpec> tp_pp{};

  bool is_data_parallel() const { return gpus_per_worker == 1 && !tp_pp; }
  bool is_tensor_pipeline() const { return tp_pp.has_value(); }
  std::string name() const;  // "dp", "hybrid:4", "tp:8,pp:16,zero:1"
  auto operator<=>(const StrategySpec&) const = default;
};

StrategySpec tensor_pipeline_strategy(const TensorPipelineSpec& spec);

// Throws RequestError("strategy") on anything else than the forms above.
StrategySpec parse_strategy_spec(const std::string& text);

// The forms parse_strategy_spec() takes, every tp/pp option listed: what its errors say is
// expected, and what `simulate --help` shows.
const char* strategy_grammar();

// A comma-separated list ("dp,hybrid:2,tp:8,pp:4,tp:4,pp:8"), in the order given: a tp/pp
// strategy's options follow one another, and one starts anew when an option repeats (or after
// ';'). A strategy listed twice is an error.
std::vector<StrategySpec> parse_strategy_list(const std::string& text);

}  // namespace scalecast
