// scalecast: emulates GPU training clusters. One binary, one subcommand per task; exit 0 on
// success, 2 on bad input (the message names the file and field), 1 on internal failure.
#include <xbt/base.h>  // simgrid/version.h needs its macros first
#include <simgrid/version.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
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

// The option a library parameter comes from (RequestError names parameters, never flags).
std::string option_for(const std::string& command, const std::string& parameter) {
  if (parameter == "strategy") return command == "sweep" ? "--strategies" : "--strategy";
  static const std::map<std::string, std::string> options = {
      {"gpus", "--gpus"}, {"algorithm", "--algo"}, {"output", "--output"}, {"traces", "FILES"},
      {"step", "--step"}, {"precision", "--precision"}, {"protocol", "--proto"}, {"bytes", "--bytes"},
      {"global_batch", "--global-batch"}};
  auto it = options.find(parameter);
  return it != options.end() ? it->second : parameter;
}

int run_guarded(const std::string& name, const Subcommand& command, const std::vector<std::string>& args) {
  try {
    return command.run(args);
  } catch (const scalecast::InputError& e) {
    std::cerr << "scalecast: error: " << e.what() << "\n";
    return 2;
  } catch (const scalecast::RequestError& e) {
    std::cerr << "scalecast: error: command line: " << option_for(name, e.parameter()) << ": " << e.problem() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scalecast: internal error: " << e.what() << "\n";
    return 1;
  }
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
  return run_guarded(it->first, it->second, std::vector<std::string>(argv + 2, argv + argc));
}
