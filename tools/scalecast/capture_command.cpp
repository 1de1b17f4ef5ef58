// scalecast capture: the launcher of gpu_trace/launcher.h, plus what only the full build can do:
// read the merged trace back with sim/trace (every consistency rule of FORMAT.md) before it is
// moved into place, and write the single-file form when --out ends in .json.
#include <iostream>

#include "gpu_trace/launcher.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/subcommands.h"

namespace scalecast::cli {

int run_capture(const std::vector<std::string>& args) {
  const gpu_trace::CaptureRequest request = gpu_trace::parse_capture_args(args);
  if (request.help) {
    std::cout << gpu_trace::capture_usage();
    return 0;
  }
  return gpu_trace::run_capture(request, gpu_trace::default_capture_libraries(),
                                [](const std::string& staging, const std::string& out) {
                                  const ExecutionGraph graph = read_trace(staging);
                                  if (out.size() > 5 && out.substr(out.size() - 5) == ".json") write_trace(graph, out);
                                });
}

}  // namespace scalecast::cli
