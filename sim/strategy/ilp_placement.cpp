// place_ilp: builds the integer program documented in ilp_placement.h, hands it to CBC (its
// full solver: preprocessing, cuts, heuristics) with the warm start as a MIP start, and reads
// the placement and per-GPU order back.
#include "sim/strategy/ilp_placement.h"

#include <CbcModel.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "sim/strategy/placement_model.h"

namespace scalecast {

using namespace placement_detail;

namespace {

constexpr double kScaledUpperBound = 1000;  // the warm start's step, in model units

// The program in triplet form, with names (CBC maps a MIP start by column name).
struct Program {
  std::vector<double> col_lb, col_ub, objective;
  std::vector<int> integers;
  std::vector<int> row_of, col_of;
  std::vector<double> value;
  std::vector<double> row_lb, row_ub;

  int column(double lb, double ub, double cost, bool integer) {
    col_lb.push_back(lb);
    col_ub.push_back(ub);
    objective.push_back(cost);
    int index = static_cast<int>(col_lb.size()) - 1;
    if (integer) integers.push_back(index);
    return index;
  }
  void row(const std::vector<std::pair<int, double>>& terms, double lb, double ub) {
    int index = static_cast<int>(row_lb.size());
    for (const auto& [col, coefficient] : terms) {
      if (coefficient == 0) continue;
      row_of.push_back(index);
      col_of.push_back(col);
      value.push_back(coefficient);
    }
    row_lb.push_back(lb);
    row_ub.push_back(ub);
  }
};

// A permutation p of the GPUs with cost(p(i), p(j)) == cost(i, j) for every pair and
// p(from) == to; empty when none exists. Backtracking over at most 8! candidates.
std::vector<int> link_automorphism(const PlacementProblem& problem, int from, int to) {
  const int m = problem.gpus;
  std::vector<int> image(m, -1);
  std::vector<bool> used(m, false);
  auto same = [&](int i, int j, int pi, int pj) {
    return problem.latency_s[i][j] == problem.latency_s[pi][pj] && problem.bandwidth_Bps[i][j] == problem.bandwidth_Bps[pi][pj];
  };
  std::function<bool(int)> extend = [&](int i) {
    if (i == m) return true;
    if (image[i] >= 0) return extend(i + 1);
    for (int candidate = 0; candidate < m; ++candidate) {
      if (used[candidate]) continue;
      bool ok = true;
      for (int j = 0; j < m && ok; ++j)
        if (image[j] >= 0 && j != i) ok = same(i, j, candidate, image[j]) && same(j, i, image[j], candidate);
      if (!ok) continue;
      image[i] = candidate;
      used[candidate] = true;
      if (extend(i + 1)) return true;
      image[i] = -1;
      used[candidate] = false;
    }
    return false;
  };
  image[from] = to;
  used[to] = true;
  return extend(0) ? image : std::vector<int>{};
}

bool all_links_equal(const PlacementProblem& problem) {
  for (int i = 0; i < problem.gpus; ++i)
    for (int j = 0; j < problem.gpus; ++j)
      if (i != j && (problem.latency_s[i][j] != problem.latency_s[0][1] || problem.bandwidth_Bps[i][j] != problem.bandwidth_Bps[0][1]))
        return false;
  return true;
}

// Descendants per task (bitsets).
std::vector<std::vector<uint64_t>> descendants(const PlacementProblem& problem, const Adjacency& adj) {
  const int tasks = static_cast<int>(problem.tasks.size());
  const size_t words = (tasks + 63) / 64;
  std::vector<std::vector<uint64_t>> reach(tasks, std::vector<uint64_t>(words, 0));
  for (int t = tasks - 1; t >= 0; --t)
    for (int e : adj.out_edges[t]) {
      int v = problem.edges[e].to;
      reach[t][v / 64] |= uint64_t{1} << (v % 64);
      for (size_t w = 0; w < words; ++w) reach[t][w] |= reach[v][w];
    }
  return reach;
}

}  // namespace

long unordered_task_pairs(const PlacementProblem& problem, bool skip_sinks) {
  validate_problem(problem);
  const int tasks = static_cast<int>(problem.tasks.size());
  const Adjacency adj = adjacency(problem);
  const auto reach = descendants(problem, adj);
  auto counted = [&](int t) { return problem.tasks[t].duration_s > 0 && !(skip_sinks && adj.out_edges[t].empty()); };
  long pairs = 0;
  for (int u = 0; u < tasks; ++u) {
    if (!counted(u)) continue;
    for (int v = u + 1; v < tasks; ++v)
      if (counted(v) && !(reach[u][v / 64] >> (v % 64) & 1)) ++pairs;
  }
  return pairs;
}

IlpPlacementResult place_ilp(const PlacementProblem& problem, const Placement& warm_start, const PlacementOptions& options,
                             bool relax_sinks) {
  const auto started = std::chrono::steady_clock::now();
  validate_problem(problem);
  validate_assignment(problem, warm_start.gpu_of_group);
  IlpPlacementResult result;
  const int tasks = static_cast<int>(problem.tasks.size());
  const int groups = group_count(problem);
  const int gpus = problem.gpus;
  if (gpus < 2 || tasks == 0 || warm_start.step_time_s <= 0 || warm_start.start_s.size() != problem.tasks.size())
    return result;
  const Adjacency adj = adjacency(problem);
  const double scale = kScaledUpperBound / warm_start.step_time_s;  // model units per second
  const double upper = kScaledUpperBound * (1 + 1e-9);
  std::vector<double> dur(tasks);
  for (int t = 0; t < tasks; ++t) dur[t] = problem.tasks[t].duration_s * scale;

  // Symmetry and the warm start relabelled to satisfy it (a link-preserving relabelling keeps
  // every start time valid).
  std::vector<int> group_order;  // groups by their first task, then the task-less ones
  {
    std::vector<bool> seen(groups, false);
    for (const PlacementTask& task : problem.tasks)
      if (!seen[task.group]) {
        seen[task.group] = true;
        group_order.push_back(task.group);
      }
    for (int g = 0; g < groups; ++g)
      if (!seen[g]) group_order.push_back(g);
  }
  std::vector<int> start_gpu = warm_start.gpu_of_group;
  std::vector<int> highest_gpu(groups, gpus - 1);  // x[g][d] fixed to 0 above this
  int pinned_group = -1;                           // fixed on GPU 0
  if (all_links_equal(problem)) {
    std::vector<int> label(gpus, -1);
    int next = 0;
    for (int g : group_order)
      if (label[start_gpu[g]] < 0) label[start_gpu[g]] = next++;
    for (int d = 0; d < gpus; ++d)
      if (label[d] < 0) label[d] = next++;
    for (int& d : start_gpu) d = label[d];
    for (int k = 0; k < std::min(groups, gpus); ++k) highest_gpu[group_order[k]] = k;
  } else {
    bool transitive = true;
    for (int d = 1; d < gpus && transitive; ++d) transitive = !link_automorphism(problem, d, 0).empty();
    if (transitive) {
      pinned_group = group_order.front();
      std::vector<int> map = link_automorphism(problem, start_gpu[pinned_group], 0);
      for (int& d : start_gpu) d = map[d];
      highest_gpu[pinned_group] = 0;
    }
  }

  // Time windows: no task starts before its longest chain of predecessors' work, nor so late
  // that its chain of successors' work ends past the upper bound.
  std::vector<double> head(tasks, 0), tail(tasks, 0);
  for (int t = 0; t < tasks; ++t)
    for (int e : adj.in_edges[t]) head[t] = std::max(head[t], head[problem.edges[e].from] + dur[problem.edges[e].from]);
  for (int t = tasks - 1; t >= 0; --t) {
    tail[t] = dur[t];
    for (int e : adj.out_edges[t]) tail[t] = std::max(tail[t], dur[t] + tail[problem.edges[e].to]);
  }
  // Descendants per task, to know which pairs the DAG already orders.
  const auto reach = descendants(problem, adj);

  Program program;
  std::vector<double> start;  // the warm start, column by column
  auto column = [&](double lb, double ub, double cost, bool integer, double warm) {
    start.push_back(std::clamp(warm, lb, ub));
    return program.column(lb, ub, cost, integer);
  };
  std::vector<std::vector<int>> x(groups, std::vector<int>(gpus));
  for (int g = 0; g < groups; ++g)
    for (int d = 0; d < gpus; ++d) {
      bool allowed = d <= highest_gpu[g] && (g != pinned_group || d == 0);
      x[g][d] = column(0, allowed ? 1 : 0, 0, true, start_gpu[g] == d ? 1 : 0);
    }
  std::vector<int> s_col(tasks);
  for (int t = 0; t < tasks; ++t)
    s_col[t] = column(head[t], std::max(head[t], upper - tail[t]), 0, false, warm_start.start_s[t] * scale);
  const int c_col = column(0, upper, 1, false, kScaledUpperBound);

  // Assignment, memory, load.
  for (int g = 0; g < groups; ++g) {
    std::vector<std::pair<int, double>> terms;
    for (int d = 0; d < gpus; ++d) terms.push_back({x[g][d], 1});
    program.row(terms, 1, 1);
  }
  std::vector<double> work(groups, 0);
  for (int t = 0; t < tasks; ++t) work[problem.tasks[t].group] += dur[t];
  for (int d = 0; d < gpus; ++d) {
    std::vector<std::pair<int, double>> load = {{c_col, -1}}, memory;
    for (int g = 0; g < groups; ++g) {
      load.push_back({x[g][d], work[g]});
      if (g < static_cast<int>(problem.group_memory_bytes.size()))
        memory.push_back({x[g][d], problem.group_memory_bytes[g]});
    }
    program.row(load, -COIN_DBL_MAX, 0);
    if (problem.gpu_memory_bytes > 0 && !memory.empty()) program.row(memory, -COIN_DBL_MAX, problem.gpu_memory_bytes);
  }
  // Makespan and precedence with transfer times.
  for (int t = 0; t < tasks; ++t)
    if (adj.out_edges[t].empty()) program.row({{c_col, 1}, {s_col[t], -1}}, dur[t], COIN_DBL_MAX);
  for (const PlacementEdge& edge : problem.edges) {
    const int gu = problem.tasks[edge.from].group, gv = problem.tasks[edge.to].group;
    std::vector<std::pair<int, double>> precedence = {{s_col[edge.to], 1}, {s_col[edge.from], -1}};
    if (gu != gv && edge.bytes > 0) {
      std::vector<std::vector<double>> cost(gpus, std::vector<double>(gpus));
      double highest = 0;
      for (int a = 0; a < gpus; ++a)
        for (int b = 0; b < gpus; ++b) highest = std::max(highest, cost[a][b] = transfer_s(problem, edge, a, b) * scale);
      const double warm = cost[start_gpu[gu]][start_gpu[gv]];
      const int w = column(0, highest, 0, false, warm);
      for (int a = 0; a < gpus; ++a) {
        double row_highest = *std::max_element(cost[a].begin(), cost[a].end());
        std::vector<std::pair<int, double>> terms = {{w, 1}, {x[gu][a], -row_highest}};
        for (int b = 0; b < gpus; ++b) terms.push_back({x[gv][b], -cost[a][b]});
        program.row(terms, -row_highest, COIN_DBL_MAX);
      }
      precedence.push_back({w, -1});
    }
    program.row(precedence, dur[edge.from], COIN_DBL_MAX);
  }
  // One task at a time per GPU: pairs the DAG leaves unordered and whose windows overlap.
  std::map<std::pair<int, int>, int> same_gpu;  // (g, h), g < h -> s column
  auto share_column = [&](int g, int h) {
    auto key = std::make_pair(std::min(g, h), std::max(g, h));
    auto found = same_gpu.find(key);
    if (found != same_gpu.end()) return found->second;
    int s = column(0, 1, 0, false, start_gpu[g] == start_gpu[h] ? 1 : 0);
    for (int d = 0; d < gpus; ++d) program.row({{s, 1}, {x[g][d], -1}, {x[h][d], -1}}, -1, COIN_DBL_MAX);
    same_gpu[key] = s;
    return s;
  };
  const double no_work = 1e-9;  // model units; tasks this short never conflict
  for (int u = 0; u < tasks; ++u) {
    if (dur[u] <= no_work || (relax_sinks && adj.out_edges[u].empty())) continue;
    for (int v = u + 1; v < tasks; ++v) {
      if (dur[v] <= no_work || (relax_sinks && adj.out_edges[v].empty()) || (reach[u][v / 64] >> (v % 64) & 1)) continue;
      const double latest_u = program.col_ub[s_col[u]], latest_v = program.col_ub[s_col[v]];
      const double earliest_u = program.col_lb[s_col[u]], earliest_v = program.col_lb[s_col[v]];
      if (latest_u + dur[u] <= earliest_v || latest_v + dur[v] <= earliest_u) continue;  // windows apart
      const int gu = problem.tasks[u].group, gv = problem.tasks[v].group;
      const double big_uv = latest_u + dur[u] - earliest_v;  // enough to relax "v after u"
      const double big_vu = latest_v + dur[v] - earliest_u;
      const double su = warm_start.start_s[u], sv = warm_start.start_s[v];
      const int o = column(0, 1, 0, true, su < sv || (su == sv && u < v) ? 1 : 0);
      ++result.disjunctive_pairs;
      if (gu == gv) {
        program.row({{s_col[v], 1}, {s_col[u], -1}, {o, -big_uv}}, dur[u] - big_uv, COIN_DBL_MAX);
        program.row({{s_col[u], 1}, {s_col[v], -1}, {o, big_vu}}, dur[v], COIN_DBL_MAX);
      } else {
        const int s = share_column(gu, gv);
        program.row({{s_col[v], 1}, {s_col[u], -1}, {o, -big_uv}, {s, -big_uv}}, dur[u] - 2 * big_uv, COIN_DBL_MAX);
        program.row({{s_col[u], 1}, {s_col[v], -1}, {o, big_vu}, {s, -big_vu}}, dur[v] - big_vu, COIN_DBL_MAX);
      }
    }
  }

  const int columns = static_cast<int>(program.col_lb.size());
  const int rows = static_cast<int>(program.row_lb.size());
  result.variables = columns;
  result.constraints = rows;
  CoinPackedMatrix matrix(false, program.row_of.data(), program.col_of.data(), program.value.data(),
                          static_cast<CoinBigIndex>(program.value.size()));
  matrix.setDimensions(rows, columns);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.setIntParam(OsiNameDiscipline, 1);
  solver.loadProblem(matrix, program.col_lb.data(), program.col_ub.data(), program.objective.data(),
                     program.row_lb.data(), program.row_ub.data());
  for (int i : program.integers) solver.setInteger(i);
  std::vector<std::pair<std::string, double>> mip_start;
  for (int i = 0; i < columns; ++i) {
    std::string name = "c" + std::to_string(i);
    solver.setColName(i, name);
    mip_start.push_back({name, start[i]});
  }

  CbcModel model(solver);
  CbcMain0(model);
  model.setMIPStart(mip_start);
  model.messageHandler()->setLogLevel(0);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string seconds = std::to_string(std::max(0.1, options.solver_time_limit_s - elapsed_s));
  const std::string gap = std::to_string(kScaledUpperBound * 1e-7);  // absolute, in model units
  const char* argv[] = {"scalecast-placement", "-log", "0", "-timeMode", "elapsed", "-seconds", seconds.c_str(),
                        "-allowableGap", gap.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, model);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const double* best = model.bestSolution();
  if (!best || model.solver()->getNumCols() != columns) return result;
  std::vector<int> gpu_of_group(groups, 0);
  for (int g = 0; g < groups; ++g)
    for (int d = 0; d < gpus; ++d)
      if (best[x[g][d]] > 0.5) gpu_of_group[g] = d;
  // The solver's order: tasks by start time, kept topological (Kahn's algorithm picking the
  // earliest start) so that tolerance noise on equal starts cannot deadlock the replay.
  std::vector<int> waiting(tasks);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> available;
  for (int t = 0; t < tasks; ++t) {
    waiting[t] = static_cast<int>(adj.in_edges[t].size());
    if (waiting[t] == 0) available.push({best[s_col[t]], t});
  }
  std::vector<std::vector<int>> order(gpus);
  while (!available.empty()) {
    int t = available.top().second;
    available.pop();
    order[gpu_of_group[problem.tasks[t].group]].push_back(t);
    for (int e : adj.out_edges[t])
      if (--waiting[problem.edges[e].to] == 0) available.push({best[s_col[problem.edges[e].to]], problem.edges[e].to});
  }
  Placement by_solver_order = evaluate_order(problem, gpu_of_group, order);
  Placement by_list = schedule(problem, gpu_of_group);
  result.placement = by_list.step_time_s < by_solver_order.step_time_s ? by_list : by_solver_order;
  result.placement.method = "cbc";
  result.solved = true;
  const double bound_s = model.isProvenOptimal() ? model.getObjValue() / scale : model.getBestPossibleObjValue() / scale;
  result.lower_bound_s = std::clamp(bound_s, 0.0, result.placement.step_time_s);
  result.proven_optimal = !relax_sinks && model.isProvenOptimal() && result.placement.step_time_s <= model.getObjValue() / scale * (1 + 1e-6);
  return result;
}

}  // namespace scalecast
