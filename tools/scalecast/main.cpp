// scalecast: emulates GPU training clusters. One binary, one subcommand per task; exit 0 on
// success, 2 on bad input (the message names the file and field), 1 on internal failure.
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
#include "tools/scalecast/subcommands.h"

namespace {

struct Subcommand {
  int (*run)(const std::vector<std::string>&);
  const char* summary;
};

const std::map<std::string, Subcommand>& subcommands() {
  static const std::map<std::string, Subcommand> table = {
      {"simulate", {scalecast::cli::run_simulate, "simulate one training step on a platform"}},
      {"collective", {scalecast::cli::run_collective, "nccl-tests-style sweep of one collective"}},
      {"inspect", {scalecast::cli::run_inspect, "summarise a trace or timeline; export for Perfetto"}},
      {"sweep", {scalecast::cli::run_sweep, "time to train across scales and strategies (DP vs hybrid)"}},
      {"import", {scalecast::cli::run_import, "import PyTorch profiler (Kineto) traces as a scalecast trace"}},
      {"capture", {scalecast::cli::run_capture, "run a real GPU job with gpu_trace injected; write its trace"}},
  };
  return table;
}

void print_usage(std::ostream& out) {
  out << "usage: scalecast <subcommand> [options]   (scalecast <subcommand> --help for its options)\n\n";
  for (const auto& [name, command] : subcommands()) out << "  " << name << std::string(12 - name.size(), ' ') << command.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  auto it = subcommands().find(argv[1]);
  if (it == subcommands().end()) {
    std::cerr << "scalecast: error: unknown subcommand '" << argv[1] << "'\n";
    print_usage(std::cerr);
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    return it->second.run(args);
  } catch (const scalecast::InputError& e) {
    std::cerr << "scalecast: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scalecast: internal error: " << e.what() << "\n";
    return 1;
  }
}
