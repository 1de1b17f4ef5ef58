// Reading a workload YAML file (workloads/SCHEMA.md) into a ModelGraph. Everything is checked
// here (unknown keys, types, non-negative costs, inputs naming real operators, no cycles), so
// training_graph and placement can trust the graph they get.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <queue>
#include <set>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/preset_paths.h"
#include "sim/core/yaml_input.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

using namespace yaml;

// Bounds that only guard against absurd input (and keep every product of them finite).
constexpr size_t kMaxOperators = 1000000;
// Training-set samples: 1e15, a hundred times the tokens of the largest LLM corpora (~1e13).
constexpr limits::Range kSamples{0, 1e15, "at most 1e15 samples"};
// Epochs to the target: 1e6 (ImageNet takes ~90, LLMs less than one).
constexpr limits::Range kEpochs{0, 1e6, "at most 1e6 epochs"};
// A global batch in samples: 1e12 (LLM batches are ~1e7 tokens).
constexpr limits::Range kGlobalBatch{0, 1e12, "at most 1e12 samples"};
// Weights, gradients and optimizer state per weight byte: Adam in mixed precision is ~4-8.
constexpr limits::Range kStatePerParameterByte{0, 1024, "at most 1024"};
// A share of batches: a fraction.
constexpr limits::Range kShare{0, 1, "at most 1"};
// Sequence bins: LDDL uses 8 (bin size 64 of 512); one per token of a 4096-token model is 4096.
constexpr size_t kMaxSequenceBins = 4096;
// How far the shares may sum from 1: they are published to a few digits.
constexpr double kShareSumTolerance = 1e-3;


// Softmax cross-entropy per logit: max, subtract, exp, sum, log and the label pick: about 5
// FLOPs and the logits read once (a memory-bound kernel; the exact count hardly matters).
constexpr double kLossFlopsPerLogit = 5;

double read_non_negative(const Field& field, const limits::Range& range) {
  const double value = read_number(field);
  if (value < 0) field.fail("must not be negative, got " + read_scalar(field));
  if (!limits::within(value, range)) field.fail(limits::out_of_range(range, read_scalar(field)));
  return value;
}

double read_positive(const Field& field, const limits::Range& range) {
  const double value = read_number(field);
  if (value <= 0) field.fail("must be positive, got " + read_scalar(field));
  if (!limits::within(value, range)) field.fail(limits::out_of_range(range, read_scalar(field)));
  return value;
}

// One of `choices`, as the schema spells them.
std::string read_choice(const Field& field, const std::vector<std::string>& choices) {
  const std::string word = read_name(field);
  if (std::find(choices.begin(), choices.end(), word) == choices.end())
    field.fail("expected one of: " + join_words(choices) + ", got '" + word + "'");
  return word;
}

OptimizerSpec read_optimizer(const Field& field) {
  MapReader map(field, {"algorithm", "implementation", "clip_grad_norm", "zero_grad", "master_weights", "tensors"});
  OptimizerSpec spec;
  spec.algorithm = read_choice(map.required("algorithm"), optimizer_algorithms());
  spec.fused = has_fused_implementation(spec.algorithm);  // the default: fused where it exists
  if (auto implementation = map.optional("implementation")) {
    spec.fused = read_choice(*implementation, {"fused", "unfused"}) == "fused";
    const bool exists = spec.fused ? has_fused_implementation(spec.algorithm) : has_unfused_implementation(spec.algorithm);
    if (!exists)
      implementation->fail("'" + spec.algorithm + "' runs only " +
                           (spec.fused ? "unfused (a per-tensor loop of element-wise ops); expected unfused"
                                       : "fused (NVIDIA's multi-tensor kernels); expected fused"));
  }
  if (auto clip = map.optional("clip_grad_norm")) spec.clip_grad_norm = read_choice(*clip, {"true", "false"}) == "true";
  if (auto zero = map.optional("zero_grad")) spec.zero_grad_memset = read_choice(*zero, {"memset", "none"}) == "memset";
  if (auto tensors = map.optional("tensors")) spec.tensors = static_cast<int>(read_integer(*tensors, 1, 1000000));
  if (auto master = map.optional("master_weights")) {
    const std::string word = read_choice(*master, {"false", "true", "in_update"});
    spec.master_weights = word == "true" ? MasterWeights::copies
                        : word == "in_update" ? MasterWeights::in_update : MasterWeights::none;
    if (spec.master_weights == MasterWeights::in_update && !spec.fused)
      master->fail("in_update is a fused kernel's own handling of the 16-bit gradients and weights; "
                   "it needs implementation: fused");
  }
  return spec;
}

StatisticalEfficiency read_statistical_efficiency(const Field& field) {
  MapReader map(field, {"min_epochs", "critical_batch", "measured", "source"});
  StatisticalEfficiency efficiency;
  if (auto source = map.optional("source")) efficiency.source = read_name(*source);
  const bool has_model = map.has("min_epochs") || map.has("critical_batch");
  if (auto measured = map.optional("measured")) {
    if (has_model)
      measured->fail("give either min_epochs and critical_batch (the model) or measured (a table), not both");
    double previous_batch = 0;
    for (const Field& row : measured->items()) {
      if (!row.node().IsSequence() || row.node().size() != 2)
        row.fail("expected [global_batch, epochs], got " + row.kind());
      const std::vector<Field> parts = row.items();
      const double batch = read_positive(parts[0].with_path(row.path() + ".global_batch"), kGlobalBatch);
      const double epochs = read_positive(parts[1].with_path(row.path() + ".epochs"), kEpochs);
      if (batch <= previous_batch) row.fail("global batches must increase from one row to the next");
      previous_batch = batch;
      efficiency.measured.emplace_back(batch, epochs);
    }
    if (efficiency.measured.empty()) measured->fail("must hold at least one [global_batch, epochs] row");
    return efficiency;
  }
  efficiency.min_epochs = read_positive(map.required("min_epochs"), kEpochs);
  efficiency.critical_batch = read_positive(map.required("critical_batch"), kGlobalBatch);
  return efficiency;
}

struct OperatorEntry {
  Operator op;
  std::vector<std::string> input_names;
  std::vector<Field> input_fields;
  std::vector<double> edge_bytes;  // per input; < 0: the producer's activation bytes
  std::string shares_name;         // shares_parameters_of, unresolved
  std::optional<Field> shares_field;
};

OperatorEntry read_operator(const Field& field) {
  MapReader map(field, {"name", "kind", "flops_per_sample", "activation_bytes_per_sample", "parameter_bytes",
                        "input_bytes_per_sample", "inputs", "shares_parameters_of",
                        "sparse_gradient_bytes_per_sample"});
  OperatorEntry entry;
  Operator& op = entry.op;
  op.name = read_name(map.required("name"));
  op.kind = read_name(map.required("kind"));
  op.flops_per_sample = read_non_negative(map.required("flops_per_sample"), limits::kFlops);
  op.activation_bytes_per_sample = read_non_negative(map.required("activation_bytes_per_sample"), limits::kBytes);
  if (auto params = map.optional("parameter_bytes")) op.parameter_bytes = read_non_negative(*params, limits::kBytes);
  if (auto inputs = map.optional("inputs")) {
    for (const Field& item : inputs->items()) {
      // An input is an operator name, or {name: producer, bytes_per_sample: what the edge carries}.
      std::optional<MapReader> edge;
      double edge_bytes = -1;
      if (item.node().IsMap()) {
        edge.emplace(item, std::vector<std::string>{"name", "bytes_per_sample"});
        edge_bytes = read_non_negative(edge->required("bytes_per_sample"), limits::kBytes);
      }
      const Field input = edge ? edge->required("name") : item;
      const std::string name = read_name(input);
      if (std::find(entry.input_names.begin(), entry.input_names.end(), name) != entry.input_names.end())
        input.fail("operator '" + name + "' is listed twice");
      entry.input_names.push_back(name);
      entry.input_fields.push_back(input);
      entry.edge_bytes.push_back(edge_bytes);
    }
  }
  if (auto shares = map.optional("shares_parameters_of")) {
    entry.shares_name = read_name(*shares);
    entry.shares_field.emplace(*shares);
    if (op.parameter_bytes > 0)
      shares->fail("an operator using another's weights has parameter_bytes 0 (they are counted at the owner)");
  }
  if (auto sparse = map.optional("sparse_gradient_bytes_per_sample"))
    op.sparse_gradient_bytes_per_sample = read_non_negative(*sparse, limits::kBytes);
  if (auto input_bytes = map.optional("input_bytes_per_sample")) {
    if (!entry.input_names.empty())
      input_bytes->fail("only an operator without inputs reads from the data loader; this one has inputs");
    op.input_bytes_per_sample = read_non_negative(*input_bytes, limits::kBytes);
  }
  return entry;
}

// One cycle among operators that Kahn's algorithm could not order, as "a -> b -> a": follow
// inputs that are still unordered until an operator repeats.
std::vector<int> find_cycle(const std::vector<std::vector<int>>& inputs, const std::vector<bool>& ordered) {
  int start = 0;
  while (ordered[start]) ++start;
  std::vector<int> path;
  std::map<int, size_t> position;
  int at = start;
  while (!position.count(at)) {
    position[at] = path.size();
    path.push_back(at);
    for (int input : inputs[at])
      if (!ordered[input]) {
        at = input;
        break;
      }
  }
  std::vector<int> cycle(path.begin() + position[at], path.end());
  std::reverse(cycle.begin(), cycle.end());  // data-flow direction: producer -> consumer
  cycle.push_back(cycle.front());
  return cycle;
}

// The operators' inputs by file index; an unknown name is an error at its field.
std::vector<std::vector<int>> resolve_inputs(std::vector<OperatorEntry>& entries, const std::map<std::string, int>& index) {
  std::vector<std::vector<int>> inputs(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t k = 0; k < entries[i].input_names.size(); ++k) {
      auto it = index.find(entries[i].input_names[k]);
      if (it == index.end()) entries[i].input_fields[k].fail("unknown operator '" + entries[i].input_names[k] + "'");
      inputs[i].push_back(it->second);
    }
  return inputs;
}

// Kahn's order, the smallest file index among the ready operators first; a cycle is an error
// naming its operators, at the first one's inputs.
std::vector<int> topological_order(const std::vector<OperatorEntry>& entries, const std::vector<std::vector<int>>& inputs,
                                   const Field& list) {
  const int n = static_cast<int>(entries.size());
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i)
    for (int input : inputs[i]) consumers[input].push_back(i);
  std::vector<int> waiting(n);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if ((waiting[i] = static_cast<int>(inputs[i].size())) == 0) ready.push(i);
  std::vector<int> order;
  std::vector<bool> ordered(n, false);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    ordered[i] = true;
    for (int c : consumers[i])
      if (--waiting[c] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) < n) {
    const std::vector<int> cycle = find_cycle(inputs, ordered);
    std::string names;
    for (int i : cycle) names += (names.empty() ? "" : " -> ") + entries[i].op.name;
    const int first = *std::min_element(cycle.begin(), cycle.end());
    const Field at = list.items()[first];
    at.with_path(at.path() + ".inputs").fail("the operators form a cycle: " + names + "; a dataflow graph must be acyclic");
  }
  return order;
}

// The file index of the operator whose weights entry `i` shares; errors at `shares`.
int shared_weights_owner(const std::vector<OperatorEntry>& entries, int i, const std::map<std::string, int>& index) {
  auto it = index.find(entries[i].shares_name);
  const Field& at = *entries[i].shares_field;
  if (it == index.end()) at.fail("unknown operator '" + entries[i].shares_name + "'");
  const OperatorEntry& owner = entries[it->second];
  if (it->second == i) at.fail("an operator cannot share its own weights");
  if (owner.shares_field || owner.op.parameter_bytes <= 0)
    at.fail("operator '" + owner.op.name + "' does not own weights (parameter_bytes 0 or shares another's)");
  return it->second;
}

// Resolves input names and orders the operators topologically, keeping the file's order where
// the edges allow (the smallest file index among the ready operators goes first).
std::vector<Operator> order_operators(std::vector<OperatorEntry>& entries, const Field& list) {
  const int n = static_cast<int>(entries.size());
  std::map<std::string, int> index;
  for (int i = 0; i < n; ++i) index[entries[i].op.name] = i;
  const std::vector<std::vector<int>> inputs = resolve_inputs(entries, index);
  const std::vector<int> order = topological_order(entries, inputs, list);
  std::vector<int> new_index(n);
  for (int k = 0; k < n; ++k) new_index[order[k]] = k;
  std::vector<Operator> result;
  for (int i : order) {
    Operator op = entries[i].op;
    for (int input : inputs[i]) op.inputs.push_back(new_index[input]);
    bool any_edge_bytes = false;
    for (double bytes : entries[i].edge_bytes) any_edge_bytes = any_edge_bytes || bytes >= 0;
    if (any_edge_bytes)
      for (size_t k = 0; k < inputs[i].size(); ++k)
        op.input_edge_bytes_per_sample.push_back(entries[i].edge_bytes[k] >= 0
                                                     ? entries[i].edge_bytes[k]
                                                     : entries[inputs[i][k]].op.activation_bytes_per_sample);
    if (entries[i].shares_field) op.shares_parameters_of = new_index[shared_weights_owner(entries, i, index)];
    result.push_back(std::move(op));
  }
  return result;
}

// Operators nobody reads: the model's outputs.
std::vector<int> sinks_of(const std::vector<Operator>& ops) {
  std::vector<bool> read(ops.size(), false);
  for (const Operator& op : ops)
    for (int input : op.inputs) read[input] = true;
  std::vector<int> sinks;
  for (size_t i = 0; i < ops.size(); ++i)
    if (!read[i]) sinks.push_back(static_cast<int>(i));
  return sinks;
}

// Appends the loss when the file declares none; when it declares one, every output must feed it
// (an output that reaches no loss would get no gradient).
void add_or_check_loss(ModelGraph& model, const Field& list) {
  std::vector<int> losses;
  for (size_t i = 0; i < model.operators.size(); ++i)
    if (model.operators[i].kind == kLossKind) losses.push_back(static_cast<int>(i));
  const std::vector<int> sinks = sinks_of(model.operators);
  if (losses.size() > 1) list.fail("declares " + std::to_string(losses.size()) + " operators of kind loss; at most one");
  if (losses.size() == 1) {
    for (int sink : sinks)
      if (sink != losses[0])
        list.fail("operator '" + model.operators[sink].name +
                  "' is read by no other operator and is not the loss: its output would get no gradient");
    return;
  }
  Operator loss;
  loss.name = "loss";
  for (const Operator& op : model.operators)
    if (op.name == loss.name) loss.name = "training_loss";
  loss.kind = kLossKind;
  double logits_bytes = 0;
  for (int sink : sinks) {
    loss.inputs.push_back(sink);
    logits_bytes += model.operators[sink].activation_bytes_per_sample;
  }
  const double value_bytes = bytes_per_activation_value(model.precision);
  loss.flops_per_sample = kLossFlopsPerLogit * logits_bytes / value_bytes;
  loss.activation_bytes_per_sample = value_bytes;  // one scalar per sample
  model.operators.push_back(std::move(loss));
}

// One of a few words; anything else names the choices.
int read_width(const MapReader& map, const std::string& key, long long max) {
  return static_cast<int>(read_integer(map.required(key), 1, max));
}

// `padded_lengths`: sequence binning (workloads/SCHEMA.md "Transformer"), as [padded length,
// share of batches] rows. Shares are rescaled to sum to exactly 1 once they are within
// kShareSumTolerance of it.
std::vector<PaddedLength> read_padded_lengths(const Field& field, int sequence) {
  MapReader map(field, {"bins", "source"});
  if (auto source = map.optional("source")) read_name(*source);
  const Field bins = map.required("bins");
  const std::vector<Field> rows = bins.items();
  if (rows.empty()) bins.fail("must hold at least one [length, share] row");
  if (rows.size() > kMaxSequenceBins) bins.fail("holds " + std::to_string(rows.size()) + " rows; at most " + std::to_string(kMaxSequenceBins));
  std::vector<PaddedLength> lengths;
  double sum = 0;
  for (const Field& row : rows) {
    if (!row.node().IsSequence() || row.node().size() != 2) row.fail("expected [length, share], got " + row.kind());
    const std::vector<Field> parts = row.items();
    PaddedLength bin;
    bin.length = static_cast<int>(read_integer(parts[0].with_path(row.path() + ".length"), 1, sequence));
    bin.share = read_positive(parts[1].with_path(row.path() + ".share"), kShare);
    if (!lengths.empty() && bin.length <= lengths.back().length) row.fail("lengths must increase from one row to the next");
    sum += bin.share;
    lengths.push_back(bin);
  }
  if (std::abs(sum - 1) > kShareSumTolerance)
    bins.fail("the shares sum to " + limits::format_number(sum) + "; they must sum to 1");
  for (PaddedLength& bin : lengths) bin.share /= sum;
  return lengths;
}

// The `transformer:` section (workloads/SCHEMA.md "Transformer"). Bounds only guard against
// absurd input; shapes must split evenly (heads over the width, query heads over KV heads).
TransformerSpec read_transformer(const Field& field) {
  MapReader map(field, {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "sequence", "padded_lengths", "vocabulary",
                        "predicted_tokens", "activation", "embeddings", "position_embeddings", "biases", "norm",
                        "attention_softmax", "cross_entropy", "source"});
  TransformerSpec t;
  t.layers = read_width(map, "layers", 100000);
  t.hidden = read_width(map, "hidden", 1 << 20);
  t.heads = read_width(map, "heads", 1 << 16);
  t.sequence = read_width(map, "sequence", 1 << 24);
  t.vocabulary = read_width(map, "vocabulary", 1 << 26);
  if (auto predicted = map.optional("predicted_tokens")) t.predicted_tokens = static_cast<int>(read_integer(*predicted, 1, t.sequence));
  if (auto padded = map.optional("padded_lengths")) t.padded_lengths = read_padded_lengths(*padded, t.sequence);
  if (t.hidden % t.heads != 0)
    map.required("heads").fail("must divide hidden (" + std::to_string(t.hidden) + ") into equal heads");
  t.kv_heads = t.heads;
  if (auto kv = map.optional("kv_heads")) {
    t.kv_heads = static_cast<int>(read_integer(*kv, 1, t.heads));
    if (t.heads % t.kv_heads != 0) kv->fail("must divide heads (" + std::to_string(t.heads) + ")");
  }
  t.ffn_hidden = map.has("ffn_hidden") ? read_width(map, "ffn_hidden", 1 << 22) : 4 * t.hidden;
  if (auto activation = map.optional("activation")) t.gated_ffn = read_choice(*activation, {"gelu", "swiglu"}) == "swiglu";
  if (auto embeddings = map.optional("embeddings")) t.tied_embeddings = read_choice(*embeddings, {"tied", "untied"}) == "tied";
  if (auto positions = map.optional("position_embeddings"))
    t.learned_positions = read_choice(*positions, {"learned", "rotary"}) == "learned";
  if (auto biases = map.optional("biases")) t.biases = read_choice(*biases, {"yes", "no"}) == "yes";
  if (auto norm = map.optional("norm")) t.rms_norm = read_choice(*norm, {"layernorm", "rmsnorm"}) == "rmsnorm";
  if (auto softmax = map.optional("attention_softmax"))
    t.fused_softmax = read_choice(*softmax, {"fused", "unfused"}) == "fused";
  if (auto loss = map.optional("cross_entropy"))
    t.vocab_parallel_loss = read_choice(*loss, {"vocab_parallel", "log_softmax"}) == "vocab_parallel";
  if (auto source = map.optional("source")) read_name(*source);
  return t;
}

// Operators listed in the file, or derived from its transformer; exactly one of the two.
// DP exchanges all the weights: their sum is a message size too, held to the same range.
void check_weights_sum(const std::vector<Operator>& operators, const Field& at) {
  double weights_bytes = 0;
  for (const Operator& op : operators) weights_bytes += op.parameter_bytes;
  if (!limits::within(weights_bytes, limits::kBytes))
    at.fail("the operators' parameter_bytes in all " + limits::out_of_range(limits::kBytes, limits::format_number(weights_bytes)));
}

void read_operators(const MapReader& top, ModelGraph& model) {
  if (auto transformer = top.optional("transformer")) {
    if (top.has("operators"))
      top.required("operators").fail("give either operators or a transformer section (which derives them), not both");
    model.transformer = read_transformer(*transformer);
    model.operators = transformer_operators(*model.transformer, bytes_per_activation_value(model.precision));
    check_weights_sum(model.operators, *transformer);
    add_or_check_loss(model, *transformer);
    return;
  }
  const Field list = top.required("operators");
  std::vector<OperatorEntry> entries;
  std::map<std::string, size_t> seen;
  for (const Field& item : list.items()) {
    if (entries.size() >= kMaxOperators) item.fail("too many operators (at most " + std::to_string(kMaxOperators) + ")");
    OperatorEntry entry = read_operator(item);
    if (auto [it, fresh] = seen.emplace(entry.op.name, entries.size()); !fresh)
      item.with_path(item.path() + ".name")
          .fail("operator name '" + entry.op.name + "' is already used by operators[" + std::to_string(it->second) + "]");
    entries.push_back(std::move(entry));
  }
  if (entries.empty()) list.fail("must list at least one operator");
  model.operators = order_operators(entries, list);
  check_weights_sum(model.operators, list);
  add_or_check_loss(model, list);
}

ModelGraph read_model_graph(const YAML::Node& root, const std::string& source) {
  const Field document(root, source, "");
  if (document.is_null()) document.fail("is empty; expected a workload description (name, operators, ...)");
  MapReader top(document, {"name", "description", "precision", "batch_per_gpu", "state_bytes_per_parameter_byte",
                           "dataset", "target_metric", "statistical_efficiency", "operators", "transformer",
                           "global_batch", "optimizer"});
  ModelGraph model;
  model.source = source;
  model.name = read_name(top.required("name"));
  if (auto description = top.optional("description")) read_name(*description);
  if (auto precision = top.optional("precision")) {
    model.precision = read_name(*precision);
    const auto& known = training_precisions();
    if (std::find(known.begin(), known.end(), model.precision) == known.end())
      precision->fail("unknown precision '" + model.precision + "'; expected one of: " + join_words(known));
  }
  model.batch_per_gpu = static_cast<int>(read_integer(top.required("batch_per_gpu"), 1, kMaxBatchPerGpu));
  if (auto state = top.optional("state_bytes_per_parameter_byte"))
    model.state_bytes_per_parameter_byte = read_positive(*state, kStatePerParameterByte);
  {
    MapReader dataset(top.required("dataset"), {"name", "samples"});
    if (auto name = dataset.optional("name")) read_name(*name);
    model.dataset_samples = read_positive(dataset.required("samples"), kSamples);
  }
  model.target_metric = read_name(top.required("target_metric"));
  model.statistical_efficiency = read_statistical_efficiency(top.required("statistical_efficiency"));

  if (auto global_batch = top.optional("global_batch"))
    model.global_batch = static_cast<int>(read_integer(*global_batch, 1, kMaxBatchPerGpu));
  model.parameter_precision = model.precision;
  if (auto optimizer = top.optional("optimizer")) {
    model.optimizer = read_optimizer(*optimizer);
    if (model.optimizer.keeps_master_weights() && bytes_per_value(model.precision) != 4)
      optimizer->fail("master_weights needs fp32 parameter_bytes (precision fp32 or tf32): the master copy is "
                      "fp32 and the 16-bit working weights follow the run's precision; got precision " +
                      model.precision);
  }
  read_operators(top, model);
  return model;
}

}  // namespace

ModelGraph parse_model_graph_yaml(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = load_yaml(yaml_text, source);
  try {
    return read_model_graph(root, source);
  } catch (const YAML::Exception& error) {
    // Every access above checks the node's type first; a last guard so that odd YAML is
    // reported as bad input, never as a crash.
    throw InputError(source, "", std::string("unreadable YAML structure: ") + error.what());
  }
}

ModelGraph with_transformer(ModelGraph model, const TransformerSpec& transformer) {
  model.transformer = transformer;
  model.operators = transformer_operators(transformer, bytes_per_activation_value(model.precision));
  const YAML::Node none;
  add_or_check_loss(model, Field(none, model.source, "transformer"));
  return model;
}

std::vector<std::string> workload_presets() { return preset_names(PresetKind::workload, "cost-model"); }

ModelGraph load_model_graph(const std::string& path_or_preset) {
  std::string path = path_or_preset;
  if (!looks_like_path(path_or_preset) && !std::filesystem::is_regular_file(path_or_preset)) {
    const auto preset = path_or_preset.rfind("cost-model", 0) == 0
                            ? std::nullopt
                            : find_preset_file(PresetKind::workload, path_or_preset);
    if (!preset) {
      const std::vector<std::string> presets = workload_presets();
      const std::string available = presets.empty() ? "none found" : join_words(presets);
      throw InputError(path_or_preset, "", "not a file and not a workload preset; available presets: " + available);
    }
    path = *preset;
  }
  return parse_model_graph_yaml(read_text_file(path, "a workload YAML file"), path);
}

double input_edge_bytes(const ModelGraph& model, int op, size_t k) {
  const Operator& o = model.operators[op];
  if (k < o.input_edge_bytes_per_sample.size()) return o.input_edge_bytes_per_sample[k];
  return model.operators[o.inputs[k]].activation_bytes_per_sample;
}

double weight_bytes_used(const ModelGraph& model, int op) {
  const Operator& o = model.operators[op];
  return o.shares_parameters_of >= 0 ? model.operators[o.shares_parameters_of].parameter_bytes : o.parameter_bytes;
}

double gradient_bytes(const Operator& op, double batch) {
  if (op.sparse_gradient_bytes_per_sample > 0)
    return std::min(op.sparse_gradient_bytes_per_sample * batch, op.parameter_bytes);
  return op.parameter_bytes;
}

double forward_flops_per_sample(const ModelGraph& model) {
  double total = 0;
  for (const Operator& op : model.operators) total += op.flops_per_sample;
  return total;
}

double parameter_bytes(const ModelGraph& model) {
  double total = 0;
  for (const Operator& op : model.operators) total += op.parameter_bytes;
  return total;
}

}  // namespace scalecast
