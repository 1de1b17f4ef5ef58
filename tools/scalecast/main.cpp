// scalecast-sim: emulates GPU training clusters. Every subcommand, one per task; exit 0 on
// success, 2 on bad input (the message names the file and field), 1 on internal failure.
// Users run `scalecast` (front_main.cpp), which runs `import` itself and execs this binary for
// the rest.
#include <xbt/base.h>  // simgrid/version.h needs its macros first
#include <simgrid/version.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tools/scalecast/guarded_run.h"
#include "tools/scalecast/subcommands.h"

#ifndef SCALECAST_VERSION
#define SCALECAST_VERSION "unknown"
#endif
#ifndef SCALECAST_BUILD_TYPE
#define SCALECAST_BUILD_TYPE "unknown"
#endif

namespace {

struct Subcommand {
  int (*run)(const std::vector<std::string>&);
  const char* summary;
};

const std::map<std::string, Subcommand>& subcommands() {
  using namespace scalecast::cli;
  static const std::map<std::string, Subcommand> table = {
      {"simulate", {run_simulate, "simulate one training step on a platform"}},
      {"collective", {run_collective, "nccl-tests-style sweep of one collective"}},
      {"inspect", {run_inspect, "summarise a trace or timeline; export for Perfetto"}},
      {"sweep", {run_sweep, "time to train across scales and strategies (DP vs hybrid)"}},
      {"import", {run_import, "import PyTorch profiler (Kineto) traces as a scalecast trace"}},
      {"capture", {run_capture, "run a real GPU job with gpu_trace injected; write its trace"}},
      {"validate", {run_validate, "run every validation case: predictions against published measurements"}},
  };
  return table;
}

void print_usage(std::ostream& out) {
  out << "usage: scalecast <subcommand> [options]   (scalecast <subcommand> --help for its options)\n"
         "       scalecast --version\n\n";
  for (const auto& [name, command] : subcommands()) out << "  " << name << std::string(12 - name.size(), ' ') << command.summary << "\n";
}

void print_version() {
  std::cout << "scalecast " << SCALECAST_VERSION << " (" << SCALECAST_BUILD_TYPE << " build), SimGrid "
            << SIMGRID_VERSION_MAJOR << "." << SIMGRID_VERSION_MINOR << "." << SIMGRID_VERSION_PATCH << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    print_version();
    return 0;
  }
  auto it = subcommands().find(argv[1]);
  if (it == subcommands().end()) {
    std::cerr << "scalecast: error: unknown subcommand '" << argv[1] << "'\n";
    print_usage(std::cerr);
    return 2;
  }
  return scalecast::cli::run_guarded(it->first, it->second.run, std::vector<std::string>(argv + 2, argv + argc));
}
