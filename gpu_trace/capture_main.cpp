// The capture-only build's `scalecast`: just the `capture` subcommand, for GPU machines that have
// the CUDA toolkit but none of scalecast's other dependencies (SimGrid, yaml-cpp, Boost, JSON).
// The trace is merged but not validated here: `scalecast inspect DIR` on a full build does that.
#include <cstring>
#include <iostream>

#include "gpu_trace/launcher.h"
#include "sim/core/input_error.h"

int main(int argc, char** argv) {
  using namespace scalecast::gpu_trace;
  if (argc < 2 || std::strcmp(argv[1], "capture") != 0) {
    std::cerr << "usage: scalecast capture [options] -- COMMAND ARGS...   (capture-only build: the other "
                 "subcommands need the full build)\n";
    return 2;
  }
  try {
    const CaptureRequest request = parse_capture_args(std::vector<std::string>(argv + 2, argv + argc));
    if (request.help) {
      std::cout << capture_usage();
      return 0;
    }
    if (request.out.size() > 5 && request.out.substr(request.out.size() - 5) == ".json")
      throw scalecast::InputError("command line", "--out",
                                  "a single .json file needs the full build (it validates the trace); give a directory");
    return run_capture(request, default_capture_libraries(), [](const std::string&, const std::string&) {});
  } catch (const scalecast::InputError& e) {
    std::cerr << "scalecast: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scalecast: internal error: " << e.what() << "\n";
    return 1;
  }
}
