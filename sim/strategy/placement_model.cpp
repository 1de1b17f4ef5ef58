#include "sim/strategy/placement_model.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"

namespace scalecast {

using placement_detail::validate_problem;

int group_count(const PlacementProblem& problem) {
  int groups = static_cast<int>(problem.group_memory_bytes.size());
  for (const PlacementTask& task : problem.tasks) groups = std::max(groups, task.group + 1);
  return groups;
}

std::optional<std::string> memory_shortfall(const PlacementProblem& problem) {
  validate_problem(problem);
  if (problem.gpu_memory_bytes <= 0) return std::nullopt;  // unlimited
  const std::string one_gpu = format_bytes(problem.gpu_memory_bytes);
  double sum = 0;
  for (size_t g = 0; g < problem.group_memory_bytes.size(); ++g) {
    const double bytes = problem.group_memory_bytes[g];
    sum += bytes;
    if (bytes > problem.gpu_memory_bytes)
      return "operator group " + std::to_string(g) + " needs " + format_bytes(bytes) + ", more than one GPU's " + one_gpu +
             ": it cannot be placed on any of the worker's GPUs";
  }
  // What to try instead: the user chose (or defaulted to) data parallelism or a hybrid worker.
  const std::string instead = "; a transformer workload's layers split with a tp:T,pp:P[,zero:1-3] strategy "
                              "(docs/parallelism.md)";
  if (sum > problem.gpu_memory_bytes * problem.gpus && problem.gpus == 1)
    return "the model needs " + format_bytes(sum) + " per GPU (weights, gradients and optimizer state, and the "
           "activations of its batch), more than one GPU's " + one_gpu +
           ": data parallelism keeps a whole replica on every GPU. hybrid:M spreads the operators over M GPUs" + instead;
  if (sum > problem.gpu_memory_bytes * problem.gpus)
    return "the model needs " + format_bytes(sum) + ", more than the " + format_bytes(problem.gpu_memory_bytes * problem.gpus) +
           " of a hybrid worker's " + std::to_string(problem.gpus) + " GPUs: a larger M (up to a node's GPUs) holds more" + instead;
  return std::nullopt;
}

void check_memory(const PlacementProblem& problem, const std::string& source) {
  if (auto shortfall = memory_shortfall(problem)) throw InputError(source, "memory", *shortfall);
}

namespace placement_detail {

void validate_problem(const PlacementProblem& problem) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("placement problem: " + what); };
  const int tasks = static_cast<int>(problem.tasks.size());
  if (problem.gpus < 1) fail("gpus must be at least 1, got " + std::to_string(problem.gpus));
  if (!(problem.gpu_memory_bytes >= 0)) fail("gpu_memory_bytes must be >= 0");
  for (int t = 0; t < tasks; ++t) {
    const PlacementTask& task = problem.tasks[t];
    if (task.group < 0) fail("task " + std::to_string(t) + " has a negative group");
    if (!(task.duration_s >= 0) || !std::isfinite(task.duration_s))
      fail("task " + std::to_string(t) + " has a negative or non-finite duration");
  }
  for (double bytes : problem.group_memory_bytes)
    if (!(bytes >= 0) || !std::isfinite(bytes)) fail("group memory must be finite and >= 0");
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    const PlacementEdge& edge = problem.edges[e];
    if (edge.from < 0 || edge.from >= tasks || edge.to < 0 || edge.to >= tasks)
      fail("edge " + std::to_string(e) + " names a task out of range");
    if (edge.from >= edge.to) fail("edge " + std::to_string(e) + " does not go forward: tasks must be topologically ordered");
    if (!(edge.bytes >= 0) || !std::isfinite(edge.bytes)) fail("edge " + std::to_string(e) + " has bad bytes");
  }
  if (problem.gpus > 1) {
    const size_t m = static_cast<size_t>(problem.gpus);
    if (problem.bandwidth_Bps.size() != m || problem.latency_s.size() != m)
      fail("bandwidth_Bps and latency_s must be gpus x gpus");
    for (size_t i = 0; i < m; ++i) {
      if (problem.bandwidth_Bps[i].size() != m || problem.latency_s[i].size() != m)
        fail("bandwidth_Bps and latency_s must be gpus x gpus");
      for (size_t j = 0; j < m; ++j) {
        if (i == j) continue;
        if (!(problem.bandwidth_Bps[i][j] > 0)) fail("bandwidth between distinct GPUs must be > 0");
        if (!(problem.latency_s[i][j] >= 0)) fail("latency must be >= 0");
      }
    }
  }
}

void validate_assignment(const PlacementProblem& problem, const std::vector<int>& gpu_of_group) {
  if (static_cast<int>(gpu_of_group.size()) != group_count(problem))
    throw std::invalid_argument("placement: gpu_of_group has " + std::to_string(gpu_of_group.size()) +
                                " entries for " + std::to_string(group_count(problem)) + " groups");
  for (int gpu : gpu_of_group)
    if (gpu < 0 || gpu >= problem.gpus) throw std::invalid_argument("placement: GPU index out of range");
}

Adjacency adjacency(const PlacementProblem& problem) {
  Adjacency result;
  result.in_edges.resize(problem.tasks.size());
  result.out_edges.resize(problem.tasks.size());
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    result.out_edges[problem.edges[e].from].push_back(static_cast<int>(e));
    result.in_edges[problem.edges[e].to].push_back(static_cast<int>(e));
  }
  return result;
}

Reachability reachability(const std::vector<std::vector<int>>& successors) {
  const int tasks = static_cast<int>(successors.size());
  const size_t words = (tasks + 63) / 64;
  Reachability reach(tasks, std::vector<uint64_t>(words, 0));
  for (int t = tasks - 1; t >= 0; --t)
    for (int v : successors[t]) {
      reach[t][v / 64] |= uint64_t{1} << (v % 64);
      for (size_t w = 0; w < words; ++w) reach[t][w] |= reach[v][w];
    }
  return reach;
}

double total_work_s(const PlacementProblem& problem) {
  double sum = 0;
  for (const PlacementTask& task : problem.tasks) sum += task.duration_s;
  return sum;
}

}  // namespace placement_detail
}  // namespace scalecast
