// `scalecast capture [--out DIR] [--steps A:B] [--step-pattern RE] -- COMMAND ARGS…`: runs the
// command with the capture library injected into it and every process it starts (torchrun
// workers, mpirun ranks, srun tasks inherit the environment), then merges the per-rank files
// into one trace directory. No dependency beyond the C++ library, so the capture-only build
// (CUDA machines without scalecast's Debian packages) has the same launcher as `scalecast`.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace scalecast::gpu_trace {

struct CaptureRequest {
  std::string out = "scalecast-capture";  // trace directory, or a .json file (full build only)
  std::string steps;                      // "A:B", empty: every step
  std::string step_pattern;               // empty: the library's default
  std::vector<std::string> command;
  bool help = false;
};

std::string capture_usage();

// Parses the arguments after `capture`. Throws InputError("command line", option, …).
CaptureRequest parse_capture_args(const std::vector<std::string>& args);

// Where the injected pieces are: the capture library (default: the one this build made; the
// environment variable SCALECAST_GPU_TRACE_LIBRARY overrides) and CUPTI (NVTX ranges reach CUPTI
// only when NVTX_INJECTION64_PATH names it; SCALECAST_CUPTI_LIBRARY overrides).
struct CaptureLibraries {
  std::string gpu_trace;
  std::string cupti;
};

// The variables to set for the command (name → value), given the current environment. Throws
// InputError("environment", variable, …) when the environment is already used by another tool
// (CUDA_INJECTION64_PATH naming something else: Nsight Systems, another profiler).
std::map<std::string, std::string> capture_environment(const CaptureRequest& request, const CaptureLibraries& libraries,
                                                       const std::string& staging_folder,
                                                       const std::map<std::string, std::string>& current);

// Runs the whole capture: checks the request, runs the command with the capture environment,
// merges the rank files (write_manifest) in a staging folder beside the output, lets `finish`
// check the trace and write other forms (the full build reads it back with sim/trace and writes
// a .json output), then moves it into place. Returns the command's exit status when it failed,
// else 0. Bad input throws InputError.
using FinishTrace = std::function<void(const std::string& staging_folder, const std::string& out)>;
int run_capture(const CaptureRequest& request, const CaptureLibraries& libraries, const FinishTrace& finish);

}  // namespace scalecast::gpu_trace

namespace scalecast::gpu_trace {
// The libraries this build made and found (paths fixed at configure time), each overridable by
// its environment variable. Empty gpu_trace when this build has no capture library.
CaptureLibraries default_capture_libraries();
}  // namespace scalecast::gpu_trace
