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
#include <optional>
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

// Descendants per task.
Reachability descendants(const PlacementProblem& problem, const Adjacency& adj) {
  std::vector<std::vector<int>> successors(problem.tasks.size());
  for (size_t t = 0; t < successors.size(); ++t)
    for (int e : adj.out_edges[t]) successors[t].push_back(problem.edges[e].to);
  return reachability(successors);
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
      if (counted(v) && !reaches(reach, u, v)) ++pairs;
  }
  return pairs;
}

namespace {

// The warm start relabelled so that the symmetry-breaking bounds keep it feasible (a
// link-preserving relabelling keeps every start time valid), and those bounds: with all links
// equal, the k-th group (by first task) may use GPUs 0..k; with a link-transitive topology, the
// first group sits on GPU 0.
struct Symmetry {
  std::vector<int> start_gpu;
  std::vector<int> highest_gpu;  // x[g][d] fixed to 0 above this
  int pinned_group = -1;         // fixed on GPU 0
};

std::vector<int> groups_by_first_task(const PlacementProblem& problem, int groups) {
  std::vector<int> order;
  std::vector<bool> seen(groups, false);
  for (const PlacementTask& task : problem.tasks)
    if (!seen[task.group]) {
      seen[task.group] = true;
      order.push_back(task.group);
    }
  for (int g = 0; g < groups; ++g)
    if (!seen[g]) order.push_back(g);
  return order;
}

Symmetry break_symmetry(const PlacementProblem& problem, const Placement& warm_start, int groups) {
  const int gpus = problem.gpus;
  const std::vector<int> group_order = groups_by_first_task(problem, groups);
  Symmetry symmetry{warm_start.gpu_of_group, std::vector<int>(groups, gpus - 1), -1};
  if (all_links_equal(problem)) {
    std::vector<int> label(gpus, -1);
    int next = 0;
    for (int g : group_order)
      if (label[symmetry.start_gpu[g]] < 0) label[symmetry.start_gpu[g]] = next++;
    for (int d = 0; d < gpus; ++d)
      if (label[d] < 0) label[d] = next++;
    for (int& d : symmetry.start_gpu) d = label[d];
    for (int k = 0; k < std::min(groups, gpus); ++k) symmetry.highest_gpu[group_order[k]] = k;
    return symmetry;
  }
  bool transitive = true;
  for (int d = 1; d < gpus && transitive; ++d) transitive = !link_automorphism(problem, d, 0).empty();
  if (transitive) {
    symmetry.pinned_group = group_order.front();
    const std::vector<int> map = link_automorphism(problem, symmetry.start_gpu[symmetry.pinned_group], 0);
    for (int& d : symmetry.start_gpu) d = map[d];
    symmetry.highest_gpu[symmetry.pinned_group] = 0;
  }
  return symmetry;
}

// Time windows: no task starts before its longest chain of predecessors' work (head), nor so
// late that its chain of successors' work (tail, its own included) ends past the upper bound.
struct TimeWindows {
  std::vector<double> head, tail;
};

TimeWindows time_windows(const PlacementProblem& problem, const Adjacency& adj, const std::vector<double>& dur) {
  const int tasks = static_cast<int>(dur.size());
  TimeWindows w{std::vector<double>(tasks, 0), std::vector<double>(tasks, 0)};
  for (int t = 0; t < tasks; ++t)
    for (int e : adj.in_edges[t]) w.head[t] = std::max(w.head[t], w.head[problem.edges[e].from] + dur[problem.edges[e].from]);
  for (int t = tasks - 1; t >= 0; --t) {
    w.tail[t] = dur[t];
    for (int e : adj.out_edges[t]) w.tail[t] = std::max(w.tail[t], dur[t] + w.tail[problem.edges[e].to]);
  }
  return w;
}

// The integer program of ilp_placement.h under construction, in model units (the warm start's
// step is kScaledUpperBound), with its warm start column by column.
struct IlpBuilder {
  IlpBuilder(const PlacementProblem& problem, const Adjacency& adj, const Placement& warm_start, const Symmetry& symmetry)
      : problem(problem),
        adj(adj),
        warm_start(warm_start),
        symmetry(symmetry),
        scale(kScaledUpperBound / warm_start.step_time_s),
        upper(kScaledUpperBound * (1 + 1e-9)) {
    for (const PlacementTask& task : problem.tasks) dur.push_back(task.duration_s * scale);
  }

  const PlacementProblem& problem;
  const Adjacency& adj;
  const Placement& warm_start;
  const Symmetry& symmetry;
  double scale = 0;                  // model units per second
  double upper = 0;                  // the makespan's upper bound
  std::vector<double> dur;           // task durations
  Program program;
  std::vector<double> start;         // the warm start
  std::vector<std::vector<int>> x;   // x[g][d]: group g on GPU d
  std::vector<int> s_col;            // start time per task
  int c_col = -1;                    // the makespan
  std::map<std::pair<int, int>, int> same_gpu;  // (g, h), g < h -> "on the same GPU" column

  int groups() const { return static_cast<int>(x.size()); }
  int gpus() const { return problem.gpus; }

  int column(double lb, double ub, double cost, bool integer, double warm) {
    start.push_back(std::clamp(warm, lb, ub));
    return program.column(lb, ub, cost, integer);
  }

  void add_columns(int groups, const TimeWindows& windows) {
    x.assign(groups, std::vector<int>(gpus()));
    for (int g = 0; g < groups; ++g)
      for (int d = 0; d < gpus(); ++d) {
        const bool allowed = d <= symmetry.highest_gpu[g] && (g != symmetry.pinned_group || d == 0);
        x[g][d] = column(0, allowed ? 1 : 0, 0, true, symmetry.start_gpu[g] == d ? 1 : 0);
      }
    for (size_t t = 0; t < dur.size(); ++t)
      s_col.push_back(column(windows.head[t], std::max(windows.head[t], upper - windows.tail[t]), 0, false,
                             warm_start.start_s[t] * scale));
    c_col = column(0, upper, 1, false, kScaledUpperBound);
  }

  // Each group on one GPU; each GPU's work below the makespan and its memory below the GPU's.
  void add_assignment_load_and_memory_rows() {
    for (int g = 0; g < groups(); ++g) {
      std::vector<std::pair<int, double>> terms;
      for (int d = 0; d < gpus(); ++d) terms.push_back({x[g][d], 1});
      program.row(terms, 1, 1);
    }
    std::vector<double> work(groups(), 0);
    for (size_t t = 0; t < dur.size(); ++t) work[problem.tasks[t].group] += dur[t];
    for (int d = 0; d < gpus(); ++d) {
      std::vector<std::pair<int, double>> load = {{c_col, -1}}, memory;
      for (int g = 0; g < groups(); ++g) {
        load.push_back({x[g][d], work[g]});
        if (g < static_cast<int>(problem.group_memory_bytes.size())) memory.push_back({x[g][d], problem.group_memory_bytes[g]});
      }
      program.row(load, -COIN_DBL_MAX, 0);
      if (problem.gpu_memory_bytes > 0 && !memory.empty()) program.row(memory, -COIN_DBL_MAX, problem.gpu_memory_bytes);
    }
  }

  // Makespan after every sink; each edge's consumer after its producer plus, across GPUs, the
  // transfer time of the pair of GPUs chosen (a column w bounded below per source GPU).
  void add_precedence_rows() {
    for (size_t t = 0; t < dur.size(); ++t)
      if (adj.out_edges[t].empty()) program.row({{c_col, 1}, {s_col[t], -1}}, dur[t], COIN_DBL_MAX);
    for (const PlacementEdge& edge : problem.edges) {
      const int gu = problem.tasks[edge.from].group, gv = problem.tasks[edge.to].group;
      std::vector<std::pair<int, double>> precedence = {{s_col[edge.to], 1}, {s_col[edge.from], -1}};
      if (gu != gv && edge.bytes > 0) precedence.push_back({transfer_column(edge, gu, gv), -1});
      program.row(precedence, dur[edge.from], COIN_DBL_MAX);
    }
  }

  int transfer_column(const PlacementEdge& edge, int gu, int gv) {
    std::vector<std::vector<double>> cost(gpus(), std::vector<double>(gpus()));
    double highest = 0;
    for (int a = 0; a < gpus(); ++a)
      for (int b = 0; b < gpus(); ++b) highest = std::max(highest, cost[a][b] = transfer_s(problem, edge, a, b) * scale);
    const int w = column(0, highest, 0, false, cost[symmetry.start_gpu[gu]][symmetry.start_gpu[gv]]);
    for (int a = 0; a < gpus(); ++a) {
      const double row_highest = *std::max_element(cost[a].begin(), cost[a].end());
      std::vector<std::pair<int, double>> terms = {{w, 1}, {x[gu][a], -row_highest}};
      for (int b = 0; b < gpus(); ++b) terms.push_back({x[gv][b], -cost[a][b]});
      program.row(terms, -row_highest, COIN_DBL_MAX);
    }
    return w;
  }

  int share_column(int g, int h) {
    const auto key = std::make_pair(std::min(g, h), std::max(g, h));
    if (auto found = same_gpu.find(key); found != same_gpu.end()) return found->second;
    const int s = column(0, 1, 0, false, symmetry.start_gpu[g] == symmetry.start_gpu[h] ? 1 : 0);
    for (int d = 0; d < gpus(); ++d) program.row({{s, 1}, {x[g][d], -1}, {x[h][d], -1}}, -1, COIN_DBL_MAX);
    same_gpu[key] = s;
    return s;
  }

  // One task at a time per GPU: for pairs the DAG leaves unordered and whose windows overlap,
  // an order variable o and big-M rows (relaxed when the two groups sit on different GPUs).
  int add_disjunctive_rows(const Reachability& reach, bool relax_sinks) {
    const double no_work = 1e-9;  // model units; tasks this short never conflict
    auto skipped = [&](int t) { return dur[t] <= no_work || (relax_sinks && adj.out_edges[t].empty()); };
    int pairs = 0;
    const int tasks = static_cast<int>(dur.size());
    for (int u = 0; u < tasks; ++u) {
      if (skipped(u)) continue;
      for (int v = u + 1; v < tasks; ++v) {
        if (skipped(v) || reaches(reach, u, v)) continue;
        if (add_disjunction(u, v)) ++pairs;
      }
    }
    return pairs;
  }

  bool add_disjunction(int u, int v) {
    const double latest_u = program.col_ub[s_col[u]], latest_v = program.col_ub[s_col[v]];
    const double earliest_u = program.col_lb[s_col[u]], earliest_v = program.col_lb[s_col[v]];
    if (latest_u + dur[u] <= earliest_v || latest_v + dur[v] <= earliest_u) return false;  // windows apart
    const int gu = problem.tasks[u].group, gv = problem.tasks[v].group;
    const double big_uv = latest_u + dur[u] - earliest_v;  // enough to relax "v after u"
    const double big_vu = latest_v + dur[v] - earliest_u;
    const double su = warm_start.start_s[u], sv = warm_start.start_s[v];
    const int o = column(0, 1, 0, true, su < sv || (su == sv && u < v) ? 1 : 0);
    if (gu == gv) {
      program.row({{s_col[v], 1}, {s_col[u], -1}, {o, -big_uv}}, dur[u] - big_uv, COIN_DBL_MAX);
      program.row({{s_col[u], 1}, {s_col[v], -1}, {o, big_vu}}, dur[v], COIN_DBL_MAX);
    } else {
      const int s = share_column(gu, gv);
      program.row({{s_col[v], 1}, {s_col[u], -1}, {o, -big_uv}, {s, -big_uv}}, dur[u] - 2 * big_uv, COIN_DBL_MAX);
      program.row({{s_col[u], 1}, {s_col[v], -1}, {o, big_vu}, {s, -big_vu}}, dur[v] - big_vu, COIN_DBL_MAX);
    }
    return true;
  }
};

struct CbcOutcome {
  std::vector<double> solution;
  bool proven_optimal = false;
  double objective = 0;
  double best_possible = 0;
};

// CBC's full solver (preprocessing, cuts, heuristics) on the program, with the warm start as a
// MIP start (CBC maps it by column name); nothing when it found no solution.
std::optional<CbcOutcome> solve_with_cbc(const Program& program, const std::vector<double>& start, double seconds) {
  const int columns = static_cast<int>(program.col_lb.size());
  const int rows = static_cast<int>(program.row_lb.size());
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
    const std::string name = "c" + std::to_string(i);
    solver.setColName(i, name);
    mip_start.push_back({name, start[i]});
  }
  CbcModel model(solver);
  CbcMain0(model);
  model.setMIPStart(mip_start);
  model.messageHandler()->setLogLevel(0);
  const std::string time_limit = std::to_string(seconds);
  const std::string gap = std::to_string(kScaledUpperBound * 1e-7);  // absolute, in model units
  const char* argv[] = {"scalecast-placement", "-log", "0", "-timeMode", "elapsed", "-seconds", time_limit.c_str(),
                        "-allowableGap", gap.c_str(), "-solve", "-quit"};
  CbcMain1(static_cast<int>(sizeof(argv) / sizeof(argv[0])), argv, model);
  const double* best = model.bestSolution();
  if (!best || model.solver()->getNumCols() != columns) return std::nullopt;
  return CbcOutcome{std::vector<double>(best, best + columns), model.isProvenOptimal(), model.getObjValue(),
                    model.getBestPossibleObjValue()};
}

// The solver's placement, and its order: tasks by start time, kept topological (Kahn's
// algorithm picking the earliest start) so that tolerance noise on equal starts cannot deadlock
// the replay. The list scheduler's order on the same assignment wins when it is shorter.
Placement placement_from_solution(const IlpBuilder& ilp, const std::vector<double>& best) {
  const PlacementProblem& problem = ilp.problem;
  const int tasks = static_cast<int>(problem.tasks.size());
  std::vector<int> gpu_of_group(ilp.groups(), 0);
  for (int g = 0; g < ilp.groups(); ++g)
    for (int d = 0; d < ilp.gpus(); ++d)
      if (best[ilp.x[g][d]] > 0.5) gpu_of_group[g] = d;
  std::vector<int> waiting(tasks);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> available;
  for (int t = 0; t < tasks; ++t) {
    waiting[t] = static_cast<int>(ilp.adj.in_edges[t].size());
    if (waiting[t] == 0) available.push({best[ilp.s_col[t]], t});
  }
  std::vector<std::vector<int>> order(ilp.gpus());
  while (!available.empty()) {
    const int t = available.top().second;
    available.pop();
    order[gpu_of_group[problem.tasks[t].group]].push_back(t);
    for (int e : ilp.adj.out_edges[t])
      if (--waiting[problem.edges[e].to] == 0) available.push({best[ilp.s_col[problem.edges[e].to]], problem.edges[e].to});
  }
  const Placement by_solver_order = evaluate_order(problem, gpu_of_group, order);
  const Placement by_list = schedule(problem, gpu_of_group);
  Placement placement = by_list.step_time_s < by_solver_order.step_time_s ? by_list : by_solver_order;
  placement.method = "cbc";
  return placement;
}

}  // namespace

IlpPlacementResult place_ilp(const PlacementProblem& problem, const Placement& warm_start, const PlacementOptions& options,
                             bool relax_sinks) {
  const auto started = std::chrono::steady_clock::now();
  validate_problem(problem);
  validate_assignment(problem, warm_start.gpu_of_group);
  IlpPlacementResult result;
  const int tasks = static_cast<int>(problem.tasks.size());
  if (problem.gpus < 2 || tasks == 0 || warm_start.step_time_s <= 0 || warm_start.start_s.size() != problem.tasks.size())
    return result;
  const int groups = group_count(problem);
  const Adjacency adj = adjacency(problem);
  const Symmetry symmetry = break_symmetry(problem, warm_start, groups);
  IlpBuilder ilp(problem, adj, warm_start, symmetry);
  ilp.add_columns(groups, time_windows(problem, adj, ilp.dur));
  ilp.add_assignment_load_and_memory_rows();
  ilp.add_precedence_rows();
  result.disjunctive_pairs = ilp.add_disjunctive_rows(descendants(problem, adj), relax_sinks);
  result.variables = static_cast<int>(ilp.program.col_lb.size());
  result.constraints = static_cast<int>(ilp.program.row_lb.size());

  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto outcome = solve_with_cbc(ilp.program, ilp.start, std::max(0.1, options.solver_time_limit_s - elapsed_s));
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!outcome) return result;
  result.placement = placement_from_solution(ilp, outcome->solution);
  result.solved = true;
  const double bound_s = (outcome->proven_optimal ? outcome->objective : outcome->best_possible) / ilp.scale;
  result.lower_bound_s = std::clamp(bound_s, 0.0, result.placement.step_time_s);
  result.proven_optimal = !relax_sinks && outcome->proven_optimal &&
                          result.placement.step_time_s <= outcome->objective / ilp.scale * (1 + 1e-6);
  return result;
}

}  // namespace scalecast
