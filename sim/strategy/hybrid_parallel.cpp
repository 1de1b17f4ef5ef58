#include "sim/strategy/hybrid_parallel.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/core/input_error.h"
#include "sim/cost/compute_cost.h"
#include "sim/strategy/apex_ddp.h"
#include "sim/strategy/ddp_reducer.h"
#include "sim/strategy/transformer_task_pricing.h"
#include "sim/strategy/worker_links.h"
#include "sim/workload/step_estimate.h"

namespace scalecast {

namespace {

// Placement groups: an operator that uses another's weights (a later time chunk of an LSTM
// layer, a head tied to the embedding) runs where those weights live.
int group_of(const ModelGraph& model, int op) {
  const int owner = model.operators[op].shares_parameters_of;
  return owner >= 0 ? owner : op;
}

// What one operator pins on its group's GPU: weights with their gradients and optimizer state,
// and the activations the backward pass needs, stashed from the forward pass.
double operator_memory_bytes(const ModelGraph& model, const Operator& op) {
  return op.parameter_bytes * model.state_bytes_per_parameter_byte + op.activation_bytes_per_sample * model.batch_per_gpu;
}

void check_worker_size(const PlatformSpec& platform, int gpus_per_worker) {
  const int per_node = platform.node.gpus;
  if (gpus_per_worker < 1 || gpus_per_worker > per_node || per_node % gpus_per_worker != 0)
    throw RequestError("strategy",
                     "hybrid:" + std::to_string(gpus_per_worker) + " needs M to divide the " + std::to_string(per_node) +
                         " GPUs of a " + platform.name + " node (" + platform.source + ": node.gpus), so that no worker spans two nodes");
}

// Streams of a rank's program: compute first, then the gradients' allreduces, then one stream
// per peer and direction for activations, so that transfers to one peer keep their order
// while those to different peers overlap.
constexpr int kComputeStream = 0;
constexpr int kGradientStream = 1;
int send_stream(int peer) { return 2 + peer; }
int recv_stream(int gpus_per_worker, int peer) { return 2 + gpus_per_worker + peer; }

// An activation (or its gradient) that leaves GPU `from` for GPU `to` after task `producer`.
struct Transfer {
  int producer = 0;
  int from = 0;
  int to = 0;
  double bytes = 0;
  std::vector<int> consumers;
};

}  // namespace

WorkerPlan prepare_worker(const ModelGraph& model, const PlatformSpec& platform, const ComputeCostModel& cost,
                          const HybridOptions& options) {
  check_worker_size(platform, options.gpus_per_worker);
  WorkerPlan plan;
  plan.gpus_per_worker = options.gpus_per_worker;
  plan.step = training_graph(model, model.batch_per_gpu);

  PlacementProblem& problem = plan.problem;
  plan.priced = price_step_tasks(model, plan.step, platform.node.gpu, cost);
  for (size_t t = 0; t < plan.step.tasks.size(); ++t)
    problem.tasks.push_back({plan.step.tasks[t].name, group_of(model, plan.step.tasks[t].op),
                             compute_duration_s(plan.priced[t], platform.node.gpu, cost)});
  for (const StepEdge& edge : plan.step.edges) problem.edges.push_back({edge.from, edge.to, edge.bytes});
  problem.group_memory_bytes.assign(model.operators.size(), 0);
  for (size_t op = 0; op < model.operators.size(); ++op)
    problem.group_memory_bytes[group_of(model, static_cast<int>(op))] += operator_memory_bytes(model, model.operators[op]);
  problem.gpus = options.gpus_per_worker;
  problem.gpu_memory_bytes = platform.node.gpu.memory_bytes;
  WorkerLinks links = worker_links(platform, 0, options.gpus_per_worker);
  problem.bandwidth_Bps = std::move(links.bandwidth_Bps);
  problem.latency_s = std::move(links.latency_s);
  check_memory(problem, model.source);
  return plan;
}

Placement place_worker(const WorkerPlan& plan, const PlacementOptions& options, const std::string& source) {
  if (plan.gpus_per_worker > 1) return place_best(plan.problem, options, source);
  // One GPU: nothing to place, and the step runs in the training graph's order, as autograd
  // runs it, so that gradients complete (and their buckets start) as DDP's do.
  std::vector<int> in_order(plan.problem.tasks.size());
  for (size_t t = 0; t < in_order.size(); ++t) in_order[t] = static_cast<int>(t);
  Placement placement = evaluate_order(plan.problem, std::vector<int>(plan.problem.group_memory_bytes.size(), 0), {in_order});
  placement.method = "single-gpu";
  placement.proven_optimal = true;
  return placement;
}

WorkerPlan plan_worker(const ModelGraph& model, const PlatformSpec& platform, const ComputeCostModel& cost,
                       const HybridOptions& options) {
  WorkerPlan plan = prepare_worker(model, platform, cost, options);
  plan.placement = place_worker(plan, options.placement, model.source);
  return plan;
}

void adopt_placement(WorkerPlan& plan, const Placement& placement) {
  const std::string method = placement.method;
  const bool proven_optimal = placement.proven_optimal;
  const double bound_s = placement.solver_lower_bound_s;
  const std::string failure = placement.solver_failure;
  plan.placement = evaluate_order(plan.problem, placement.gpu_of_group, placement.task_order);
  plan.placement.method = method;
  plan.placement.proven_optimal = proven_optimal;
  plan.placement.solver_lower_bound_s = bound_s;
  plan.placement.solver_failure = failure;
}

namespace {

// The graph's frame: one program per GPU of a worker, shared by that GPU's rank in every worker.
ExecutionGraph hybrid_graph_frame(const ModelGraph& model, int m, int gpus) {
  ExecutionGraph graph;
  graph.origin = "generated";
  graph.metadata["workload"] = model.name;
  graph.metadata["strategy"] = StrategySpec{m}.name();
  graph.metadata["batch_per_worker"] = std::to_string(model.batch_per_gpu);
  graph.programs.resize(m);
  for (int r = 0; r < gpus; ++r) graph.program_of_rank.push_back(r % m);
  return graph;
}

// Where each step task landed: its index in its GPU's program and its position in that GPU's
// schedule (which orders transfers); and each GPU's gradients in the order they become ready.
struct TaskSlots {
  std::vector<int> index_in_program;
  std::vector<int> position_on_gpu;
  std::vector<std::vector<ReadyGradient>> ready;  // per GPU of the worker
  std::vector<double> held_weight_bytes;          // per GPU of the worker
};

// How many weight-gradient tasks contribute to each owner's gradient.
std::vector<int> weight_gradient_contributions(const ModelGraph& model, const WorkerPlan& plan) {
  std::vector<int> contributions(model.operators.size(), 0);
  for (const StepTask& t : plan.step.tasks)
    if (t.pass == Pass::backward_weight) ++contributions[group_of(model, t.op)];
  return contributions;
}

// A later batch of an accumulating step adding its gradient into the one held.
Task accumulation_task(const std::string& owner, double gradient_bytes) {
  Task add;
  add.kind = TaskKind::compute;
  add.name = owner + ".grad += new";
  add.op_kind = kElementwiseKind;
  add.duration_s = -1;
  add.flops = gradient_bytes / 4;
  add.memory_bytes = gradient_add_bytes(gradient_bytes, gradient_bytes);
  add.stream = kComputeStream;
  add.step = 0;
  return add;
}

DdpLowering ddp_lowering(const HybridOptions& options, int slot, const std::string& label) {
  DdpLowering lowering;
  lowering.compute_stream = kComputeStream;
  lowering.nccl_stream = kGradientStream;
  lowering.communicator = slot;
  lowering.label = label;
  lowering.first_bucket_bytes = options.first_bucket_bytes;
  lowering.bucket_cap_bytes = options.bucket_bytes;
  lowering.allreduce_bytes_scale = options.gradient_bytes_scale;
  return lowering;
}

// What follows a gradient's completion in one batch: its add into the gradients held (a batch
// after the first of an accumulating step) and, when the batch reduces, what the DDP wrapper does
// with it: PyTorch's Reducer copies it into its bucket; apex flattens its bucket once the bucket
// is complete (apex_ddp.h). `prefix` names the batch's tasks ("batch0."; "" for the step's last
// batch).
struct BatchRole {
  std::string prefix;
  bool accumulates = false;
  bool to_bucket = false;
};

// A gradient's completion: after the task at `position` of the GPU's order, `bytes` of the
// weights of operator group `owner`.
struct GradientDone {
  size_t position = 0;
  int owner = 0;
  double bytes = 0;
};

// apex's message_size counts gradient elements: the gradients' bytes per element. Workload
// files give fp32 weights (parameter_bytes, as PyTorch AMP and apex amp keep them:
// workloads/SCHEMA.md), so 4 bytes, or 2 for the 16-bit gradients of master-weight training.
double gradient_element_bytes(const ModelGraph& model) { return 4 * gradient_bytes_per_parameter_byte(model); }

// The GPU's gradients in the order they become ready: after their last weight-gradient task (a
// weight shared by several operators: after its last contribution). Under apex, also which of
// them complete a bucket: apex's buckets close at message_size elements, the first one too
// (assign_ddp_buckets with equal limits). The same for every batch of a step: built once per GPU.
struct ReadyOrder {
  std::vector<GradientDone> done;
  std::vector<bool> closes_bucket;  // under apex, per entry of `done`; empty under PyTorch's DDP
};

ReadyOrder ready_order(const ModelGraph& model, const WorkerPlan& plan, int slot, const DdpWrapper& ddp) {
  ReadyOrder ready;
  std::vector<int> contributions = weight_gradient_contributions(model, plan);
  const std::vector<int>& order = plan.placement.task_order[slot];
  for (size_t k = 0; k < order.size(); ++k) {
    const StepTask& step_task = plan.step.tasks[order[k]];
    if (step_task.pass != Pass::backward_weight) continue;
    const int owner = group_of(model, step_task.op);
    if (--contributions[owner] > 0) continue;
    ready.done.push_back({k, owner, gradient_bytes_per_parameter_byte(model) *
                                        gradient_bytes(model.operators[owner], model.batch_per_gpu)});
  }
  if (ddp.kind != DdpWrapper::Kind::apex) return ready;
  std::vector<double> bytes;
  for (const GradientDone& g : ready.done) bytes.push_back(g.bytes);
  ready.closes_bucket.assign(bytes.size(), false);
  const double message_bytes = ddp.apex_message_elements * gradient_element_bytes(model);
  for (const std::vector<int>& bucket : assign_ddp_buckets(bytes, message_bytes, message_bytes))
    ready.closes_bucket[bucket.back()] = true;
  return ready;
}

// One batch's compute tasks on GPU `slot`, in the order the placement's schedule runs them, each
// gradient followed by its add and its bucket's work when the role has them. Returns what the
// reduction starts from: with PyTorch's DDP every gradient in ready order (copy_task: its copy
// into the bucket); with apex one entry per bucket (copy_task: its flatten). `slots`, when
// given, records where the step's tasks landed and the weights the GPU holds (the last batch:
// transfers and the update use them).
std::vector<ReadyGradient> append_batch(const ModelGraph& model, const WorkerPlan& plan, int slot, const BatchRole& role,
                                        const ReadyOrder& order, std::vector<Task>& tasks, TaskSlots* slots) {
  const std::vector<GradientDone>& done = order.done;
  const bool apex = role.to_bucket && !order.closes_bucket.empty();
  std::vector<ReadyGradient> ready;
  double open_bucket_bytes = 0;
  size_t next = 0;  // the next gradient to complete
  for (size_t k = 0; k < plan.placement.task_order[slot].size(); ++k) {
    const int t = plan.placement.task_order[slot][k];
    if (slots) {
      slots->index_in_program[t] = static_cast<int>(tasks.size());
      slots->position_on_gpu[t] = static_cast<int>(k);
    }
    Task task = plan.priced[t];
    task.name = role.prefix + task.name;
    tasks.push_back(std::move(task));
    if (next == done.size() || done[next].position != k) continue;
    const GradientDone& g = done[next];
    const Operator& op = model.operators[g.owner];
    if (slots) slots->held_weight_bytes[slot] += op.parameter_bytes;
    const std::string name = role.prefix + op.name;
    if (role.accumulates) tasks.push_back(accumulation_task(name, g.bytes));
    if (!apex) {
      if (role.to_bucket) tasks.push_back(ddp_gradient_copy(name + ".grad -> bucket", g.bytes, kComputeStream));
      ready.push_back({name, g.bytes, static_cast<int>(tasks.size()) - 1});
    } else {
      open_bucket_bytes += g.bytes;
      if (order.closes_bucket[next]) {  // the bucket is complete: its hook flattens it
        const int bucket = static_cast<int>(ready.size());
        tasks.push_back(apex_flatten(role.prefix + "gpu" + std::to_string(slot), bucket, open_bucket_bytes, kComputeStream));
        ready.push_back({role.prefix + "bucket" + std::to_string(bucket), open_bucket_bytes, static_cast<int>(tasks.size()) - 1});
        open_bucket_bytes = 0;
      }
    }
    ++next;
  }
  return ready;
}

// The reduction of one batch's gradients by the run's DDP wrapper; returns the task the
// optimizer waits for (-1 when there are no gradients).
int append_reduction(const std::vector<ReadyGradient>& ready, const HybridOptions& options, int slot,
                     const std::string& label, std::vector<Task>& tasks) {
  const DdpLowering lowering = ddp_lowering(options, slot, label);
  if (options.ddp.kind == DdpWrapper::Kind::apex)
    return append_apex_reduction(ready, lowering, options.ddp.apex_predivide, tasks);
  return append_ddp_reduction(ready, lowering, tasks);
}

// The batches before the last of an accumulating dp step, ahead of it on the one GPU's compute
// stream (stream order chains them): forward and backward, the gradient adds from the second
// batch on, and DDP's reduction when every batch reduces. The next batch waits for the
// reduction's last task, as apex's backward epilogue makes the compute stream wait for its
// bucket stream (PyTorch's copies back are on the compute stream already). Returns that task
// for the step's last batch to wait for (-1: none).
int add_earlier_micro_batches(const ModelGraph& model, const WorkerPlan& plan, int workers, const HybridOptions& options,
                              const GradientAccumulation& accumulation, ExecutionGraph& graph) {
  auto& tasks = graph.programs[0].tasks;
  const bool reduces = workers > 1 && accumulation.reduce_every_micro_batch;
  const ReadyOrder order = ready_order(model, plan, 0, options.ddp);
  int reduced = -1;
  for (int batch = 0; batch + 1 < accumulation.micro_batches; ++batch) {
    const std::string prefix = "batch" + std::to_string(batch) + ".";
    const size_t first = tasks.size();
    const std::vector<ReadyGradient> ready =
        append_batch(model, plan, 0, {prefix, batch > 0, reduces}, order, tasks, nullptr);
    if (reduced >= 0 && first < tasks.size()) tasks[first].deps.push_back({0, reduced});
    if (reduces) reduced = append_reduction(ready, options, 0, prefix + "gpu0", tasks);
  }
  return reduced;
}

// The step's last batch on every GPU of the worker: its gradients are added into those held when
// the step `accumulates`, and with several workers each goes to its bucket as it completes.
TaskSlots add_compute_tasks(const ModelGraph& model, const WorkerPlan& plan, int workers, bool accumulates,
                            const DdpWrapper& ddp, ExecutionGraph& graph) {
  const int m = plan.gpus_per_worker;
  TaskSlots slots{std::vector<int>(plan.step.tasks.size(), -1), std::vector<int>(plan.step.tasks.size(), -1),
                  std::vector<std::vector<ReadyGradient>>(m), std::vector<double>(m, 0)};
  for (int slot = 0; slot < m; ++slot)
    slots.ready[slot] = append_batch(model, plan, slot, {"", accumulates, workers > 1}, ready_order(model, plan, slot, ddp),
                                     graph.programs[slot].tasks, &slots);
  return slots;
}

// Step edges become dependencies on the consumer's GPU; an edge between GPUs that carries data
// becomes a transfer: one per (producer, destination GPU), however many consumers. Returned in
// each direction's production order, the order both ends run them in.
std::vector<Transfer> collect_transfers(const ModelGraph& model, const WorkerPlan& plan, const TaskSlots& slots,
                                        ExecutionGraph& graph) {
  const auto slot_of_task = [&](int t) { return plan.placement.gpu_of_group[group_of(model, plan.step.tasks[t].op)]; };
  std::map<std::pair<int, int>, Transfer> transfers;
  for (const StepEdge& edge : plan.step.edges) {
    const int from = slot_of_task(edge.from), to = slot_of_task(edge.to);
    Task& consumer = graph.programs[to].tasks[slots.index_in_program[edge.to]];
    if (from == to) {
      consumer.deps.push_back({0, slots.index_in_program[edge.from]});
    } else if (edge.bytes <= 0) {
      consumer.deps.push_back({from - to, slots.index_in_program[edge.from]});
    } else {
      Transfer& transfer = transfers[{edge.from, to}];
      transfer.producer = edge.from;
      transfer.from = from;
      transfer.to = to;
      transfer.bytes = std::max(transfer.bytes, edge.bytes);
      transfer.consumers.push_back(edge.to);
    }
  }
  std::vector<Transfer> ordered;
  for (auto& [key, transfer] : transfers) ordered.push_back(transfer);
  std::sort(ordered.begin(), ordered.end(), [&](const Transfer& a, const Transfer& b) {
    return std::tie(a.from, a.to, slots.position_on_gpu[a.producer]) <
           std::tie(b.from, b.to, slots.position_on_gpu[b.producer]);
  });
  return ordered;
}

// A transfer is a two-rank broadcast on the communicator of its (sender, receiver) pair,
// whose groups pair those GPUs in every worker: all workers' copies are one collective, so
// workers stay in lockstep and their flows share the links. Each direction keeps the
// sender's production order on both sides, which the schedule shows to be deadlock-free.
void add_transfers(const WorkerPlan& plan, const std::vector<Transfer>& ordered, const TaskSlots& slots, int workers,
                   ExecutionGraph& graph) {
  const int m = plan.gpus_per_worker;
  std::map<std::pair<int, int>, int> pair_communicator;
  const int first_pair_communicator = m;
  for (const Transfer& transfer : ordered) {
    auto [it, added] = pair_communicator.emplace(std::make_pair(transfer.from, transfer.to),
                                                 first_pair_communicator + static_cast<int>(pair_communicator.size()));
    if (added) {
      Communicator communicator{it->second, "activations.gpu" + std::to_string(transfer.from) + "-to-gpu" + std::to_string(transfer.to), {}};
      const int low = std::min(transfer.from, transfer.to), high = std::max(transfer.from, transfer.to);
      for (int w = 0; w < workers; ++w) communicator.groups.push_back({w * m + low, w * m + high});
      graph.communicators.push_back(std::move(communicator));
    }
    Task copy;
    copy.kind = TaskKind::collective;
    copy.op = CollectiveOp::broadcast;
    copy.communicator = it->second;
    copy.root = transfer.from < transfer.to ? 0 : 1;
    copy.bytes = transfer.bytes;
    copy.step = 0;
    // Both ends carry one name, so that the timeline pairs them (collective_waits.h): a receive
    // posted before its producer has run shows as waiting, not as communication.
    copy.name = plan.step.tasks[transfer.producer].name + " gpu" + std::to_string(transfer.from) + "->gpu" +
                std::to_string(transfer.to);
    Task send = copy;
    send.stream = send_stream(transfer.to);
    send.deps.push_back({0, slots.index_in_program[transfer.producer]});
    graph.programs[transfer.from].tasks.push_back(send);
    Task receive = copy;
    receive.stream = recv_stream(m, transfer.from);
    auto& receiver_tasks = graph.programs[transfer.to].tasks;
    const int received = static_cast<int>(receiver_tasks.size());
    receiver_tasks.push_back(receive);
    for (int consumer : transfer.consumers) receiver_tasks[slots.index_in_program[consumer]].deps.push_back({0, received});
  }
}

// The optimizer reads and writes weights, gradients and optimizer state: memory-bound
// (optimizer_traffic.h). It runs once every bucket is reduced (`update_deps`).
Task optimizer_task(int slot, const ModelGraph& model, double held_weight_bytes, const std::vector<int>& update_deps) {
  Task update = optimizer_update_task(model, held_weight_bytes);
  update.name = "optimizer.step.gpu" + std::to_string(slot);
  update.stream = kComputeStream;
  update.step = 0;
  for (int d : update_deps) update.deps.push_back({0, d});
  return update;
}

// One GPU's gradients, reduced with the GPUs holding the same operators in the other workers
// as DDP does it (sim/strategy/ddp_reducer.h); then the optimizer step.
void add_gradient_exchange(const HybridOptions& options, const ModelGraph& model, int m, int slot, int workers,
                           const TaskSlots& slots, ExecutionGraph& graph) {
  Communicator gradients{slot, "gradients.gpu" + std::to_string(slot), {{}}};
  for (int w = 0; w < workers; ++w) gradients.groups[0].push_back(w * m + slot);
  graph.communicators.push_back(std::move(gradients));

  auto& tasks = graph.programs[slot].tasks;
  std::vector<int> update_deps;
  if (workers > 1) {
    if (int last = append_reduction(slots.ready[slot], options, slot, "gpu" + std::to_string(slot), tasks); last >= 0)
      update_deps.push_back(last);
  } else {
    for (const ReadyGradient& g : slots.ready[slot]) update_deps.push_back(g.copy_task);
  }
  if (slots.held_weight_bytes[slot] > 0) tasks.push_back(optimizer_task(slot, model, slots.held_weight_bytes[slot], update_deps));
}

}  // namespace

int accumulated_batches(long long global_batch, int batch, int gpus) {
  const long long per_step = static_cast<long long>(batch) * gpus;
  const std::string shares = " on each of " + std::to_string(gpus) + " GPUs";
  if (global_batch < gpus)
    throw RequestError("global_batch", std::to_string(global_batch) + " samples cannot give each of " +
                                           std::to_string(gpus) + " GPUs a sample: expected at least " +
                                           std::to_string(gpus));
  if (global_batch < per_step)
    throw RequestError("global_batch", std::to_string(global_batch) + " samples are fewer than a batch of " +
                                           std::to_string(batch) + shares + "; a per-GPU batch of at most " +
                                           std::to_string(global_batch / gpus) + " would fit");
  if (global_batch % per_step != 0)
    throw RequestError("global_batch", std::to_string(global_batch) + " samples do not split into batches of " +
                                           std::to_string(batch) + shares + ": expected a multiple of " +
                                           std::to_string(per_step));
  const long long batches = global_batch / per_step;
  if (batches > kMaxAccumulatedBatches)
    throw RequestError("global_batch", std::to_string(global_batch) + " samples make " + std::to_string(batches) +
                                           " batches per GPU per step; at most " +
                                           std::to_string(kMaxAccumulatedBatches) +
                                           " are simulated (a larger per-GPU batch or more GPUs need fewer)");
  return static_cast<int>(batches);
}

std::set<std::string> graph_priced_kinds(const ModelGraph& model) {
  // A transformer's operators run their layers' kernels (transformer_task_pricing.h).
  if (model.transformer) return {kGemmKind, kElementwiseKind, kOptimizerKind};
  std::set<std::string> kinds = {kElementwiseKind, kOptimizerKind};
  for (const Operator& op : model.operators) kinds.insert(op.kind);
  return kinds;
}

ExecutionGraph lower_hybrid(const ModelGraph& model, const WorkerPlan& plan, int gpus, const HybridOptions& options,
                            const GradientAccumulation& accumulation) {
  const int m = plan.gpus_per_worker;
  if (gpus < m || gpus % m != 0)
    throw RequestError("gpus",
                     std::to_string(gpus) + " GPUs cannot be split into workers of " + std::to_string(m) + " GPUs");
  if (plan.placement.task_order.size() != static_cast<size_t>(m))  // a caller's bug, not the user's input
    throw std::logic_error("lower_hybrid: the worker plan is not placed (place_worker, then adopt_placement)");
  if (accumulation.micro_batches < 1 || (accumulation.micro_batches > 1 && m != 1))  // refused by callers first
    throw std::logic_error("lower_hybrid: gradient accumulation needs dp (one GPU per worker) and 1+ batches");
  const int workers = gpus / m;
  ExecutionGraph graph = hybrid_graph_frame(model, m, gpus);
  if (accumulation.micro_batches > 1) graph.metadata["accumulated_batches"] = std::to_string(accumulation.micro_batches);
  const int earlier_reduced = add_earlier_micro_batches(model, plan, workers, options, accumulation, graph);
  const size_t last_batch_first = graph.programs[0].tasks.size();
  const TaskSlots slots = add_compute_tasks(model, plan, workers, accumulation.micro_batches > 1, options.ddp, graph);
  if (earlier_reduced >= 0 && last_batch_first < graph.programs[0].tasks.size())
    graph.programs[0].tasks[last_batch_first].deps.push_back({0, earlier_reduced});
  add_transfers(plan, collect_transfers(model, plan, slots, graph), slots, workers, graph);

  for (int slot = 0; slot < m; ++slot) add_gradient_exchange(options, model, m, slot, workers, slots, graph);
  std::sort(graph.communicators.begin(), graph.communicators.end(),
            [](const Communicator& a, const Communicator& b) { return a.id < b.id; });
  return graph;
}

}  // namespace scalecast
