// placement-bench: the placement target of issue 3 (Inception-V3 on 8 GPUs in under 10 s),
// measured. Builds a synthetic Inception-V3-sized training step (the real module fan-out:
// stem chain, 3 x A, reduction A, 4 x B, reduction B, 2 x C, head; forward, input-gradient and
// weight-gradient tasks) or reads a problem from a JSON file, places it on one worker with
// HEFT and with place_best (HEFT + CBC), and prints wall times, step times and speedups.
//
//   placement-bench [--platform P] [--gpus M] [--first-gpu F] [--time-limit S]
//                   [--max-solver-tasks N] [--max-solver-pairs N] [--problem FILE] [--details]
//
// --details also runs the CBC program alone and prints its size and outcome.
// A problem file: {"tasks": [{"name", "group", "duration_s"}], "edges": [{"from", "to",
// "bytes"}], "group_memory_bytes": [...]} (tasks topologically ordered); links and memory
// come from the platform. Exit 2 on bad input, naming the file and field.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/core/json_input.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/ilp_placement.h"
#include "sim/strategy/placement.h"
#include "sim/strategy/placement_coarsening.h"
#include "sim/strategy/worker_links.h"

namespace scalecast {
namespace {

// Forward operators of the synthetic model; backward tasks are derived from them.
struct Op {
  std::string name;
  double duration_s;
  double activation_bytes;  // its output
  double parameter_bytes;   // 0: no weights, no weight-gradient task
  std::vector<int> inputs;
};

class InceptionLike {
 public:
  std::vector<Op> ops;

  int add(const std::string& name, double duration_s, double activation_bytes, double parameter_bytes,
          std::vector<int> inputs) {
    // +-10% spread so that equal-looking operators are not exact ties.
    double spread = 1 + 0.1 * (static_cast<int>(ops.size() * 37 % 7) - 3) / 3.0;
    ops.push_back({name, duration_s * spread, activation_bytes, parameter_bytes, std::move(inputs)});
    return static_cast<int>(ops.size()) - 1;
  }
  int chain(const std::string& name, int from, int length, double duration_s, double bytes, double params) {
    for (int i = 0; i < length; ++i) from = add(name + "." + std::to_string(i), duration_s, bytes, params, {from});
    return from;
  }
  // One module: branches of the given lengths (a branch of length 0 is a pool followed by a
  // 1x1 conv), joined by a concat.
  int module(const std::string& name, int input, const std::vector<int>& lengths, double conv_s, double branch_bytes,
             double concat_bytes, double params) {
    std::vector<int> ends;
    for (size_t b = 0; b < lengths.size(); ++b) {
      std::string branch = name + ".b" + std::to_string(b);
      if (lengths[b] == 0) {
        int pool = add(branch + ".pool", conv_s * 0.3, branch_bytes, 0, {input});
        ends.push_back(chain(branch, pool, 1, conv_s * 0.5, branch_bytes, params));
      } else {
        ends.push_back(chain(branch, input, lengths[b], conv_s, branch_bytes, params));
      }
    }
    return add(name + ".concat", conv_s * 0.1, concat_bytes, 0, ends);
  }
};

// Batch 32 at fp32 on a V100-class GPU: about 60 ms forward, activations from 177 MB (stem) to
// 3 MB (8x8 branches).
std::vector<Op> inception_like_ops() {
  InceptionLike m;
  const double MB = 1e6;
  int x = m.add("input", 0.2e-3, 19 * MB, 0, {});
  x = m.chain("stem", x, 5, 2.5e-3, 177 * MB, 0.2 * MB);
  x = m.add("stem.pool", 0.5e-3, 40 * MB, 0, {x});
  x = m.chain("stem2", x, 2, 2.0e-3, 80 * MB, 0.5 * MB);
  x = m.add("stem2.pool", 0.3e-3, 36 * MB, 0, {x});
  for (int i = 0; i < 3; ++i) x = m.module("mixed5" + std::string(1, char('b' + i)), x, {1, 2, 3, 0}, 0.6e-3, 10 * MB, 45 * MB, 0.25 * MB);
  x = m.module("mixed6a", x, {1, 3, 0}, 1.0e-3, 20 * MB, 28 * MB, 1.5 * MB);
  for (int i = 0; i < 4; ++i) x = m.module("mixed6" + std::string(1, char('b' + i)), x, {1, 3, 5, 0}, 0.45e-3, 7 * MB, 28 * MB, 0.8 * MB);
  x = m.module("mixed7a", x, {2, 4, 0}, 0.6e-3, 5 * MB, 16 * MB, 1.5 * MB);
  for (int i = 0; i < 2; ++i) x = m.module("mixed7" + std::string(1, char('b' + i)), x, {1, 3, 4, 0}, 0.5e-3, 3 * MB, 17 * MB, 2 * MB);
  x = m.add("avgpool", 0.1e-3, 0.26 * MB, 0, {x});
  x = m.add("fc", 0.2e-3, 0.13 * MB, 8 * MB, {x});
  m.add("loss", 0.05e-3, 0, 0, {x});
  return m.ops;
}

// Forward tasks, then per operator in reverse order its input-gradient task and (with
// weights) its weight-gradient task, in the operator's group. A consumer's input gradient
// feeds its producer's backward tasks with the activation's size.
PlacementProblem training_problem(const std::vector<Op>& ops) {
  PlacementProblem problem;
  const int n = static_cast<int>(ops.size());
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    problem.tasks.push_back({ops[i].name, i, ops[i].duration_s});
    problem.group_memory_bytes.push_back(4 * ops[i].parameter_bytes);  // weights, gradients, optimizer state
    for (int input : ops[i].inputs) {
      problem.edges.push_back({input, i, ops[input].activation_bytes});
      consumers[input].push_back(i);
    }
  }
  std::vector<int> grad_input(n, -1);
  for (int i = n - 1; i >= 0; --i) {
    std::vector<int> mine;
    int gi = static_cast<int>(problem.tasks.size());
    problem.tasks.push_back({ops[i].name + ".grad_input", i, ops[i].duration_s});
    mine.push_back(gi);
    if (ops[i].parameter_bytes > 0) {
      problem.tasks.push_back({ops[i].name + ".grad_weight", i, ops[i].duration_s});
      mine.push_back(gi + 1);
    }
    for (int t : mine) {
      problem.edges.push_back({i, t, 0});  // saved activations: same group, same GPU
      for (int c : consumers[i]) problem.edges.push_back({grad_input[c], t, ops[i].activation_bytes});
    }
    grad_input[i] = gi;
  }
  return problem;
}

PlacementProblem read_problem(const std::string& path) {
  nlohmann::json root = read_json_file(path);
  JsonFields fields(root, path, "", "a placement problem");
  PlacementProblem problem;
  const nlohmann::json& tasks = fields.required_array("tasks");
  for (size_t i = 0; i < tasks.size(); ++i) {
    JsonFields task(tasks[i], path, json_index_path("tasks", i), "a task");
    PlacementTask t;
    task.read("name", t.name);
    task.read_required("group", t.group);
    task.read_required("duration_s", t.duration_s);
    task.reject_unknown();
    problem.tasks.push_back(t);
  }
  const nlohmann::json& edges = fields.required_array("edges");
  for (size_t i = 0; i < edges.size(); ++i) {
    JsonFields edge(edges[i], path, json_index_path("edges", i), "an edge");
    PlacementEdge e;
    edge.read_required("from", e.from);
    edge.read_required("to", e.to);
    edge.read("bytes", e.bytes);
    edge.reject_unknown();
    problem.edges.push_back(e);
  }
  if (const nlohmann::json* memory = fields.find("group_memory_bytes")) {
    const nlohmann::json& list = json_array(*memory, path, "group_memory_bytes");
    for (size_t i = 0; i < list.size(); ++i) {
      double bytes = 0;
      convert_json(list[i], path, json_index_path("group_memory_bytes", i), bytes);
      problem.group_memory_bytes.push_back(bytes);
    }
  }
  fields.reject_unknown();
  return problem;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct BenchArgs {
  std::string platform = "dgx1-v100";
  std::string problem_file;  // empty: the synthetic Inception-V3
  int gpus = 8;
  int first_gpu = 0;
  bool details = false;
  bool help = false;
  PlacementOptions options;
};

BenchArgs parse_args(int argc, char** argv) {
  BenchArgs args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InputError("command line", arg, "needs a value");
      return argv[++i];
    };
    auto number = [&](const std::string& text) {
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end) throw InputError("command line", arg, "must be a number, got '" + text + "'");
      return v;
    };
    if (arg == "--platform") args.platform = value();
    else if (arg == "--gpus") args.gpus = static_cast<int>(number(value()));
    else if (arg == "--first-gpu") args.first_gpu = static_cast<int>(number(value()));
    else if (arg == "--time-limit") args.options.solver_time_limit_s = number(value());
    else if (arg == "--max-solver-tasks") args.options.max_solver_tasks = static_cast<int>(number(value()));
    else if (arg == "--max-solver-pairs") args.options.max_solver_pairs = static_cast<int>(number(value()));
    else if (arg == "--problem") args.problem_file = value();
    else if (arg == "--details") args.details = true;
    else if (arg == "--help" || arg == "-h") args.help = true;
    else throw InputError("command line", arg, "unknown option (see --help)");
  }
  if (args.gpus < 1 && !args.help) throw InputError("command line", "--gpus", "must be at least 1");
  return args;
}

// The problem placed: the file's, or the synthetic Inception-V3, on the worker's GPUs.
PlacementProblem bench_problem(const BenchArgs& args, const PlatformSpec& spec) {
  PlacementProblem problem = args.problem_file.empty() ? training_problem(inception_like_ops()) : read_problem(args.problem_file);
  WorkerLinks links = worker_links(spec, args.first_gpu, args.gpus);
  problem.gpus = args.gpus;
  problem.bandwidth_Bps = links.bandwidth_Bps;
  problem.latency_s = links.latency_s;
  problem.gpu_memory_bytes = spec.node.gpu.memory_bytes;
  return problem;
}

int gpus_used(const Placement& p, int gpus) {
  std::vector<bool> seen(gpus, false);
  int count = 0;
  for (int g : p.gpu_of_group)
    if (!seen[g]) seen[g] = true, ++count;
  return count;
}

void print_comparison(const Placement& heft, double heft_wall_s, const Placement& best, double best_wall_s, int gpus) {
  std::printf("%-22s %12s %10s %10s %10s %12s\n", "method", "step (ms)", "speedup", "GPUs used", "transfers", "wall (s)");
  std::printf("%-22s %12.3f %10.3f %10s %10s %12s\n", "one GPU", heft.single_gpu_step_s * 1e3, 1.0, "1", "0", "-");
  std::printf("%-22s %12.3f %10.3f %10d %10d %12.3f\n", "heft", heft.step_time_s * 1e3, heft.mp_speedup(),
              gpus_used(heft, gpus), heft.transfers, heft_wall_s);
  std::printf("%-22s %12.3f %10.3f %10d %10d %12.3f\n", ("place_best (" + best.method + ")").c_str(),
              best.step_time_s * 1e3, best.mp_speedup(), gpus_used(best, gpus), best.transfers, best_wall_s);
  if (best.solver_lower_bound_s > 0)
    std::printf("\nCBC lower bound %.3f ms (gap %.1f%%), proven optimal: %s\n", best.solver_lower_bound_s * 1e3,
                100 * (best.step_time_s - best.solver_lower_bound_s) / best.step_time_s, best.proven_optimal ? "yes" : "no");
}

// --details: the problem's size before and after coarsening, and CBC alone from HEFT.
void print_details(const PlacementProblem& problem, const Placement& heft, const PlacementOptions& options) {
  Coarsening coarsening = coarsen(problem);
  std::printf("unordered task pairs %ld; coarsened: %zu tasks, %zu edges, %d groups, %ld unordered pairs "
              "(%ld without sinks)\n",
              unordered_task_pairs(problem), coarsening.coarse.tasks.size(), coarsening.coarse.edges.size(),
              group_count(coarsening.coarse), unordered_task_pairs(coarsening.coarse),
              unordered_task_pairs(coarsening.coarse, true));
  IlpPlacementResult ilp = place_ilp(problem, heft, options);
  std::printf("CBC alone from HEFT: %d variables, %d constraints, %d disjunctive pairs, %.2f s wall, step %.3f ms, "
              "bound %.3f ms%s\n", ilp.variables, ilp.constraints, ilp.disjunctive_pairs, ilp.wall_s,
              ilp.placement.step_time_s * 1e3, ilp.lower_bound_s * 1e3, ilp.proven_optimal ? ", proven optimal" : "");
}

int run(int argc, char** argv) {
  const BenchArgs args = parse_args(argc, argv);
  if (args.help) {
    std::printf("placement-bench [--platform P] [--gpus M] [--first-gpu F] [--time-limit S] "
                "[--max-solver-tasks N] [--max-solver-pairs N] [--problem FILE] [--details]\n");
    return 0;
  }
  const PlatformSpec spec = load_platform(args.platform);
  const PlacementProblem problem = bench_problem(args, spec);
  const std::string label = args.problem_file.empty() ? "synthetic Inception-V3 (batch 32)" : args.problem_file;
  const std::string source = args.problem_file.empty() ? "placement-bench" : args.problem_file;
  std::printf("placement of %s: %zu tasks, %zu edges, %d groups on %d GPUs of %s (GPUs %d-%d)\n", label.c_str(),
              problem.tasks.size(), problem.edges.size(), group_count(problem), args.gpus, spec.name.c_str(),
              args.first_gpu, args.first_gpu + args.gpus - 1);
  std::printf("solver time limit %.1f s, max solver tasks %d\n\n", args.options.solver_time_limit_s,
              args.options.max_solver_tasks);

  auto start = std::chrono::steady_clock::now();
  const Placement heft = place_heft(problem, source);
  const double heft_wall_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const Placement best = place_best(problem, args.options, source);
  const double best_wall_s = seconds_since(start);
  print_comparison(heft, heft_wall_s, best, best_wall_s, args.gpus);
  if (args.details) print_details(problem, heft, args.options);
  if (args.problem_file.empty() && args.gpus == 8)
    std::printf("target: placement of Inception-V3 on 8 GPUs under 10 s: %.2f s wall (place_best)\n", best_wall_s);
  return 0;
}

}  // namespace
}  // namespace scalecast

int main(int argc, char** argv) {
  try {
    return scalecast::run(argc, argv);
  } catch (const scalecast::InputError& error) {
    std::fprintf(stderr, "placement-bench: %s\n", error.what());
    return 2;
  } catch (const std::invalid_argument& error) {  // a malformed problem file
    std::fprintf(stderr, "placement-bench: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "placement-bench: internal error: %s\n", error.what());
    return 1;
  }
}
