// A model as an operator dataflow graph, read from workloads/*.yaml (workloads/SCHEMA.md):
// the forward operators with their cost-model inputs per sample, the per-GPU batch, the
// dataset, and the statistical efficiency that turns a global batch into epochs to target.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/workload/optimizer_traffic.h"
#include "sim/workload/transformer_spec.h"

namespace scalecast {

struct Operator {
  std::string name;
  std::string kind;                          // cost-model kind: conv, matmul, lstm, attention, ...
  double flops_per_sample = 0;               // forward
  double activation_bytes_per_sample = 0;    // its output, sent along every out-edge
  double parameter_bytes = 0;                // weights (their gradients are as large)
  std::vector<int> inputs;                   // indices of earlier operators it reads
  // Bytes per sample an operator without inputs reads from the data loader (images, token ids):
  // memory traffic for the roofline only, never sent between GPUs.
  double input_bytes_per_sample = 0;
  // Bytes per sample each input edge carries, parallel to `inputs`; empty: every edge carries
  // the producer's activation_bytes_per_sample. (An unrolled LSTM chunk passes only its (h, c)
  // state to the next chunk of its layer, not its whole output.)
  std::vector<double> input_edge_bytes_per_sample{};
  // Index of the operator whose weights this one uses (a later time chunk of the same LSTM
  // layer, a language-model head tied to the embedding); -1: none. Such an operator has
  // parameter_bytes 0 (the weights are counted once, at the owner) but computes a weight
  // gradient, accumulated into the owner's. Placement should keep it with its owner.
  int shares_parameters_of = -1;
  // > 0 for a sparse weight gradient (embedding lookups, sampled softmax): the bytes of gradient
  // rows one sample touches. What DP exchanges per step is then gradient_bytes(op, batch), not
  // the full parameter_bytes.
  double sparse_gradient_bytes_per_sample = 0;
};


// The operator the loader appends when a file declares none: it reads every operator nobody
// else reads (the model's outputs) and starts the backward pass.
inline constexpr const char* kLossKind = "loss";

// Epochs to the target metric as a function of the global batch: McCandlish et al.'s
// E_min * (1 + B / B_crit), or a measured (batch, epochs) table interpolated log-log.
struct StatisticalEfficiency {
  double min_epochs = 0;
  double critical_batch = 0;
  std::vector<std::pair<double, double>> measured;  // (global batch, epochs), sorted by batch
  // Model: min_epochs * (1 + B / critical_batch). Table (when `measured` is not empty): linear
  // interpolation of log(epochs) over log(B); outside the table, the end segment's slope is
  // extended (clamped to >= 0 on the right, so epochs never fall as B grows, and to 0 on the
  // left: below the smallest measured batch, epochs stay at the first point's value).
  double epochs(double global_batch) const;
  // Why epochs(B) leaves the measured ground at this batch, or nothing: beyond twice the
  // largest measured batch of a table (the trend is extrapolated), or beyond 10x the critical
  // batch of the model (each sample is then worth a tenth of a small-batch one: 11x the epochs
  // of small-batch training, and time to train no longer improves with scale).
  std::optional<std::string> extrapolation_warning(double global_batch) const;
  std::string source;  // where the numbers come from (free text, shown in reports)
};

// The largest per-GPU (per-worker) batch a workload file or a command line may give: 2^24
// samples, so that per-sample sizes and FLOPs scaled by it stay finite (training_graph checks
// what a step then moves against sim/core/physical_limits.h).
inline constexpr int kMaxBatchPerGpu = 1 << 24;

struct ModelGraph {
  std::string name;
  std::string source;                 // file it was read from (for error messages)
  int batch_per_gpu = 1;              // DP per-GPU batch (1..kMaxBatchPerGpu); a hybrid worker of M GPUs keeps it per worker
  double dataset_samples = 0;
  std::string target_metric;
  std::string precision = "fp32";     // which GPU peak the cost model uses
  std::string parameter_precision = "fp32";  // the file's `precision`: what parameter_bytes hold
  double state_bytes_per_parameter_byte = 4;  // weights + gradients + optimizer state, per weight byte
  OptimizerSpec optimizer;            // what the weight update moves (optimizer_traffic.h)
  std::vector<Operator> operators;    // forward, topologically ordered (inputs point backwards)
  StatisticalEfficiency statistical_efficiency;
  // A transformer's published configuration, when the file gives one: tensor and pipeline
  // parallelism cut it (the operators above are then derived from it, transformer.h).
  std::optional<TransformerSpec> transformer;
  // Samples per optimizer step over all data-parallel replicas, held fixed whatever the GPU
  // count, as large-model recipes do; when absent, each worker takes batch_per_gpu (weak
  // scaling). Used by tensor/pipeline strategies; dp and hybrid:M keep batch_per_gpu per worker.
  std::optional<int> global_batch;
};

// The training precisions a workload may name: fp32, tf32, fp16, bf16, fp8.
const std::vector<std::string>& training_precisions();
// Bytes of one activation value at a precision (fp8 1, fp16/bf16 2, fp32/tf32 4).
double bytes_per_value(const std::string& precision);
// The model trained at another precision: its compute runs at that precision's peak and
// efficiencies, and its activations -- and so the activation gradients of the backward pass --
// take that precision's value size. Weights and their gradients stay as the file gives them
// (mixed-precision training as PyTorch AMP does it keeps fp32 parameters and gradients whatever
// the compute precision; a file of bf16 weights says so in its parameter_bytes). Data-loader
// input bytes stay too. RequestError("precision") for an unknown precision.
ModelGraph at_precision(ModelGraph model, const std::string& precision);

// Bytes per parameter byte of the gradients a step computes and exchanges: 1, or 16-bit over
// fp32 (0.5) when the optimizer keeps master weights and the step runs at fp16/bf16.
double gradient_bytes_per_parameter_byte(const ModelGraph& model);
// Bytes the weight update moves per parameter byte: the optimizer's (optimizer_traffic.h), plus
// the master-weight copies when gradients are 16-bit under master weights.
double update_bytes_per_parameter_byte(const ModelGraph& model);

// Bytes per sample that input k of operator `op` carries (see input_edge_bytes_per_sample).
double input_edge_bytes(const ModelGraph& model, int op, size_t k);
// The weight bytes an operator reads and updates: its own, or its owner's when it shares them.
double weight_bytes_used(const ModelGraph& model, int op);
// The weight gradient a worker with `batch` samples per step exchanges for this operator: 0 for
// an operator sharing another's weights (counted at the owner), min(sparse rows * batch,
// parameter_bytes) for a sparse gradient, else parameter_bytes.
double gradient_bytes(const Operator& op, double batch);

// Reads a workload YAML file, or a preset name (the file workloads/<name>.yaml). Throws
// InputError naming the file and field on bad input (cycles, unknown inputs, negative costs).
// A text with a '/' or ending in .yaml/.yml is a path; otherwise the preset workloads/<name>.yaml
// (searched in $SCALECAST_WORKLOADS_DIR first when set, then workloads/ in the source tree).
ModelGraph load_model_graph(const std::string& path_or_preset);

// The same workload with another transformer configuration: its operators derived anew (a
// validation case's model size on a preset's recipe). `model` must have a transformer section.
ModelGraph with_transformer(ModelGraph model, const TransformerSpec& transformer);

// Parses YAML text; `source` names it in error messages and is stored in ModelGraph::source.
ModelGraph parse_model_graph_yaml(const std::string& yaml_text, const std::string& source);

// The preset names over all preset folders (sorted, without ".yaml"; files whose name starts
// with "cost-model" are not workloads and are left out).
std::vector<std::string> workload_presets();

// Sums over operators, per sample (forward FLOPs) and in total (parameter bytes).
double forward_flops_per_sample(const ModelGraph& model);
double parameter_bytes(const ModelGraph& model);

// Time to train on `global_batch` samples per step taking `step_time_s` each:
// epochs(B) * dataset_samples / B * step_time_s.
double time_to_train_s(const ModelGraph& model, double global_batch, double step_time_s);

}  // namespace scalecast
