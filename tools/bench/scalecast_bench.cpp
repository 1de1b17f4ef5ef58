// scalecast-bench: the project's speed and memory targets (README "Performance"), measured. Runs each
// scenario as a separate `scalecast` process (as users run it), several times, and prints the
// median wall time and the peak resident memory (from wait4's rusage) per scenario, beside its
// target where it has one ("ok", or "MISSED" when the median or the peak is over it).
//
//   scalecast-bench [--repeat N] [--full] [--only TEXT]
//   (--full adds the 16,384- and 131,072-GPU scenarios; --only runs the scenarios whose label
//   contains TEXT)
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <optional>
#include <vector>

namespace {

// What a scenario must stay under (0: no bound). The figures are the project's design targets and
// issue 17's (131,072 GPUs).
struct Target {
  double wall_s = 0;
  double peak_rss_MiB = 0;
};

struct Scenario {
  std::string label;
  std::vector<std::string> args;
  bool full_only = false;
  std::vector<std::string> setup{};  // run once before the timed runs (not timed), when not empty
  bool seed_sweep = false;         // one of the seed study's three sweeps (their sum has a target)
  Target target{};
};

struct Measurement {
  double wall_s = 0;
  double peak_rss_MiB = 0;
  int exit_code = 0;
};

Measurement run_once(const std::string& binary, const std::vector<std::string>& args) {
  Measurement m;
  std::fflush(stdout);  // or the child's copy of the buffer is written again
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Quiet: a sweep's progress on stderr would bury the table.
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.peak_rss_MiB = usage.ru_maxrss / 1024.0;
  m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return m;
}

// "< 2 s, < 2048 MiB: ok", or "" when the scenario has no target.
std::string target_verdict(const Target& target, double wall_s, double peak_rss_MiB) {
  if (target.wall_s <= 0 && target.peak_rss_MiB <= 0) return "";
  char text[96];
  std::string bounds;
  if (target.wall_s > 0) {
    std::snprintf(text, sizeof text, "< %g s", target.wall_s);
    bounds += text;
  }
  if (target.peak_rss_MiB > 0) {
    std::snprintf(text, sizeof text, "%s< %g MiB", bounds.empty() ? "" : ", ", target.peak_rss_MiB);
    bounds += text;
  }
  const bool met = (target.wall_s <= 0 || wall_s < target.wall_s) && (target.peak_rss_MiB <= 0 || peak_rss_MiB < target.peak_rss_MiB);
  return bounds + (met ? ": ok" : ": MISSED");
}

std::string binary_beside(const char* self) {
  std::string path = self;
  auto slash = path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/scalecast";
}

// Runs `s` `repeat` times and prints its row: median and fastest wall time, peak memory, its
// target's verdict. Returns the median, or nothing when the scenario's setup failed.
std::optional<double> measure_and_print(const std::string& binary, const Scenario& s, int repeat) {
  if (!s.setup.empty() && run_once(binary, s.setup).exit_code != 0) {
    std::printf("%-58s %12s\n", s.label.c_str(), "(setup FAILED)");
    return std::nullopt;
  }
  std::vector<double> walls;
  double peak = 0;
  int failed = 0;
  for (int r = 0; r < repeat; ++r) {
    Measurement m = run_once(binary, s.args);
    if (m.exit_code != 0) ++failed;
    walls.push_back(m.wall_s);
    peak = std::max(peak, m.peak_rss_MiB);
  }
  std::sort(walls.begin(), walls.end());
  const double median_s = walls[walls.size() / 2];
  std::printf("%-58s %12.2f %12.2f %14.0f  %s%s\n", s.label.c_str(), median_s, walls.front(), peak,
              target_verdict(s.target, median_s, peak).c_str(), failed ? "  (FAILED)" : "");
  std::fflush(stdout);
  return median_s;
}

// Where the scenarios write: removed after the run.
struct ScratchPaths {
  std::string sweep_out;  // the seed sweeps' and the strategy search's output folders
  std::string imported;   // the imported Kineto trace
  std::string scratch;    // a folder of its own (the per-rank timeline and its picture)
};

ScratchPaths make_scratch_paths() {
  char scratch_template[] = "/tmp/scalecast-bench-XXXXXX";
  ScratchPaths paths;
  paths.sweep_out = "/tmp/scalecast-bench-sweep-" + std::to_string(getpid());
  paths.imported = "/tmp/scalecast-bench-import-" + std::to_string(getpid()) + ".json";
  paths.scratch = mkdtemp(scratch_template) ? scratch_template : "/tmp";
  return paths;
}

void remove_scratch(const ScratchPaths& paths) {
  std::filesystem::remove_all(paths.sweep_out);
  std::remove(paths.imported.c_str());
  if (paths.scratch != "/tmp") std::filesystem::remove_all(paths.scratch);
}

constexpr double kGiB_MiB = 1024;

// Collectives and DP steps from 1,024 to 131,072 GPUs.
std::vector<Scenario> scale_scenarios() {
  auto allreduce = [](int gpus) {
    Scenario s{"allreduce 64MB, dgx-h100, " + std::to_string(gpus) + " GPUs",
               {"collective", "--platform", "dgx-h100", "--op", "allreduce", "--bytes", "64MB", "--gpus",
                std::to_string(gpus)},
               gpus > 4096};
    if (gpus == 16384) s.target = {2, 2 * kGiB_MiB};  // design target; issue 17
    return s;
  };
  // One DP step: 131,072 GPUs under 30 s and 8 GiB (issue 17).
  auto dp_step = [](const std::string& workload, int gpus) {
    const bool resnet = workload == "resnet50";
    std::vector<std::string> args = {"simulate", "--platform", "dgx-a100", "--workload", workload, "--gpus", std::to_string(gpus)};
    if (resnet) args.insert(args.end(), {"--bucket", "10MiB"});
    Scenario s{"DP step " + workload + (resnet ? " (10 buckets)" : "") + ", dgx-a100, " + std::to_string(gpus) + " GPUs",
               args, gpus > 4096};
    if (gpus == 131072) s.target = {30, 8 * kGiB_MiB};
    return s;
  };
  std::vector<Scenario> scenarios = {allreduce(1024),
                                     allreduce(4096),
                                     allreduce(16384),
                                     dp_step("resnet50", 1024),
                                     dp_step("resnet50", 4096),
                                     dp_step("resnet50", 16384),
                                     dp_step("resnet50", 131072),
                                     dp_step("gpt", 131072)};
  return scenarios;
}

// The seed study's points and sweeps, and issue 16's 3D step and strategy search.
std::vector<Scenario> strategy_scenarios(const std::string& sweep_out) {
  std::vector<Scenario> scenarios;
  // The design target: one DP step of Inception-V3 on 4,096 GPUs under 10 s; and one hybrid
  // point of the seed study (placement search included).
  scenarios.push_back({"DP step inception_v3, dgx1-v100, 4096 GPUs",
                       {"simulate", "--platform", "dgx1-v100", "--workload", "inception_v3", "--gpus", "4096"},
                       false,
                       {},
                       false,
                       {10, 0}});
  scenarios.push_back({"hybrid:4 step inception_v3, dgx1-v100, 4096 GPUs",
                       {"simulate", "--platform", "dgx1-v100", "--workload", "inception_v3", "--gpus", "4096", "--strategy",
                        "hybrid:4"}});
  // The design target: the seed study's sweep (three workloads x dp, hybrid:2/4/8 x 8..4,096
  // GPUs, placement searches included) with --jobs 2; the sum is printed last, against issue
  // 17's 20 s (the design asked for 60 s).
  for (const char* workload : {"inception_v3", "gnmt", "biglstm"})
    scenarios.push_back({std::string("seed sweep ") + workload + ", dgx1-v100, 8-4096 GPUs, --jobs 2",
                         {"sweep", "--platform", "dgx1-v100", "--workload", workload, "--gpus", "8-4096", "--strategies",
                          "dp,hybrid:2,hybrid:4,hybrid:8", "--jobs", "2", "--out", sweep_out + "/" + workload},
                         false,
                         {},
                         true});
  // Issue 16's targets: one 3D-parallel step of GPT-3 175B on 1,024 GPUs under 30 s, and the
  // strategy search over 1,024-16,384 GPUs (every feasible tp/pp layout ranked, the three best
  // estimates simulated per scale) under 5 min with --jobs 2 (--full: it takes minutes).
  scenarios.push_back({"3D step gpt3-175b tp:8,pp:16, dgx-a100, 1024 GPUs",
                       {"simulate", "--platform", "dgx-a100", "--workload", "gpt3-175b", "--strategy", "tp:8,pp:16",
                        "--gpus", "1024"},
                       false, {}, false, {30, 0}});
  scenarios.push_back({"strategy search gpt3-175b, dgx-a100, 1024-16384, --jobs 2",
                       {"sweep", "--platform", "dgx-a100", "--workload", "gpt3-175b", "--gpus", "1024-16384",
                        "--strategies", "auto", "--jobs", "2", "--out", sweep_out + "/auto"},
                       true, {}, false, {300, 0}});
  return scenarios;
}

// Kineto import, a simulation of the imported trace, and inspect of a large timeline.
std::vector<Scenario> trace_scenarios(const ScratchPaths& paths) {
  std::vector<Scenario> scenarios;
  // Kineto import: target under 3 s and a peak RSS below the trace's uncompressed size (53 MB
  // for the V100 trace). `import --help` is the process's own footprint before any work.
  const std::string kineto = std::string(SCALECAST_SHARED_DATA) + "/kineto/";
  const std::string& imported = paths.imported;
  scenarios.push_back({"scalecast import --help (process footprint)", {"import", "--help"}});
  scenarios.push_back({"import kineto v100x2_rank1 (53 MB JSON, 22k GPU ops)",
                       {"import", "kineto", kineto + "v100x2_rank1.json.gz", "-o", imported},
                       false,
                       {},
                       false,
                       {3, 53e6 / (1 << 20)}});
  scenarios.push_back({"import kineto a100x2_allreduce_rank0", {"import", "kineto", kineto + "a100x2_allreduce_rank0.json.gz", "-o", imported}});
  scenarios.push_back({"simulate imported a100 trace, dgx-a100, 1024 GPUs",
                       {"simulate", "--platform", "dgx-a100", "--trace", imported, "--gpus", "1024"}});
  // inspect of a 1,024-rank timeline simulated rank by rank (--per-rank: 1,024 rows, ~35 MB of
  // JSON), with the SVG picture: the timeline is made once, untimed, in a scratch folder.
  const std::string& scratch = paths.scratch;
  const std::string timeline = scratch + "/resnet50-1024-per-rank.json";
  scenarios.push_back({"inspect --svg, 1024-rank per-rank timeline (resnet50)",
                       {"inspect", timeline, "--json", "--svg", scratch + "/timeline.svg"},
                       false,
                       {"simulate", "--platform", "dgx-a100", "--workload", "resnet50", "--gpus", "1024", "--per-rank",
                        "--timeline", timeline}});
  return scenarios;
}

// Every scenario, with its target where the design or an issue sets one.
std::vector<Scenario> target_scenarios(const ScratchPaths& paths) {
  std::vector<Scenario> scenarios = scale_scenarios();
  for (auto part : {strategy_scenarios(paths.sweep_out), trace_scenarios(paths)})
    scenarios.insert(scenarios.end(), part.begin(), part.end());
  return scenarios;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  bool full = false;
  std::string only;  // run only the scenarios whose label contains this
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--full")) full = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: scalecast-bench [--repeat N] [--full] [--only TEXT]\n");
      return 2;
    }
  }
  const std::string binary = binary_beside(argv[0]);
  const ScratchPaths paths = make_scratch_paths();
  const std::vector<Scenario> scenarios = target_scenarios(paths);
  std::printf("%-58s %12s %12s %14s  %s\n", "scenario", "median (s)", "min (s)", "peak RSS (MiB)", "target");
  double seed_sweep_s = 0;
  int seed_sweeps = 0;
  for (const Scenario& s : scenarios) {
    if ((s.full_only && !full) || s.label.find(only) == std::string::npos) continue;
    const std::optional<double> median_s = measure_and_print(binary, s, repeat);
    if (median_s && s.seed_sweep) {
      seed_sweep_s += *median_s;
      ++seed_sweeps;
    }
  }
  if (seed_sweeps == 3)
    std::printf("%-58s %12.2f %12s %14s  %s\n", "seed sweep, the three workloads (sum of medians)", seed_sweep_s, "", "",
                target_verdict({20, 0}, seed_sweep_s, 0).c_str());
  remove_scratch(paths);
  return 0;
}
