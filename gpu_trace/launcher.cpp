#include "gpu_trace/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "gpu_trace/convert.h"
#include "gpu_trace/rank_files.h"
#include "sim/core/input_error.h"

extern char** environ;

namespace scalecast::gpu_trace {

namespace fs = std::filesystem;

std::string capture_usage() {
  return "usage: scalecast capture [-o|--out DIR] [--steps A:B] [--step-pattern REGEX] -- COMMAND ARGS...\n"
         "\n"
         "Runs COMMAND with the gpu_trace capture library injected (CUPTI kernels, memcpy, memset, NVTX\n"
         "ranges; every NCCL call), in it and every process it starts (torchrun, mpirun, srun), then\n"
         "merges the per-rank files into one trace that simulate --trace and inspect read.\n"
         "\n"
         "  -o, --out DIR        trace directory to write (default scalecast-capture); a path ending in\n"
         "                       .json writes one file (needs the full build). Nothing is left there\n"
         "                       when the capture fails, except rank files kept for inspection\n"
         "  --steps A:B          keep steps A to B-1 (0-based, in order; A: or :B for open ends)\n"
         "  --step-pattern RE    NVTX ranges whose whole name matches RE are steps\n"
         "                       (default 'ProfilerStep#\\d+|step'; else cudaProfilerStart/Stop)\n"
         "  --help               this text\n";
}

CaptureRequest parse_capture_args(const std::vector<std::string>& args) {
  CaptureRequest request;
  size_t i = 0;
  auto value = [&](const std::string& option) -> std::string {
    if (i + 1 >= args.size() || args[i + 1] == "--") throw InputError("command line", option, "needs a value");
    return args[++i];
  };
  // -o, --out and --output name the same output (sweep and import spell it --output).
  std::string out_option;
  auto set_out = [&](const std::string& option, const std::string& path) {
    if (!out_option.empty()) throw InputError("command line", option, "given twice (also as " + out_option + ")");
    out_option = option;
    request.out = path;
  };
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      request.command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (arg == "--help" || arg == "-h") request.help = true;
    else if (arg == "--out" || arg == "-o" || arg == "--output") set_out(arg, value(arg));
    else if (arg == "--steps") request.steps = value(arg);
    else if (arg == "--step-pattern") request.step_pattern = value(arg);
    else if (arg.rfind("--out=", 0) == 0) set_out("--out", arg.substr(6));
    else if (arg.rfind("--output=", 0) == 0) set_out("--output", arg.substr(9));
    else if (arg.rfind("--steps=", 0) == 0) request.steps = arg.substr(8);
    else if (arg.rfind("--step-pattern=", 0) == 0) request.step_pattern = arg.substr(15);
    else
      throw InputError("command line", arg,
                       "is not an option of capture (put the command to run after '--': scalecast capture -- python train.py)");
  }
  if (request.help) return request;
  if (request.command.empty())
    throw InputError("command line", "COMMAND", "is missing: scalecast capture [--out DIR] [--steps A:B] -- COMMAND ARGS...");
  if (request.out.empty()) throw InputError("command line", "--out", "is empty");
  // Checked here, before the job runs, not at the end of it.
  ConvertOptions options;
  if (!request.steps.empty()) parse_step_window(request.steps, options, "command line", "--steps");
  if (!request.step_pattern.empty()) {
    options.step_pattern = request.step_pattern;
    compile_step_pattern(options, "command line");
  }
  return request;
}

std::map<std::string, std::string> capture_environment(const CaptureRequest& request, const CaptureLibraries& libraries,
                                                       const std::string& staging_folder,
                                                       const std::map<std::string, std::string>& current) {
  std::map<std::string, std::string> set;
  auto existing = [&](const char* name) {
    auto it = current.find(name);
    return it == current.end() ? std::string() : it->second;
  };
  const std::string injection = existing("CUDA_INJECTION64_PATH");
  if (!injection.empty() && injection != libraries.gpu_trace)
    throw InputError("environment", "CUDA_INJECTION64_PATH",
                     "is already set to '" + injection + "' (another profiler?); CUDA loads one injection library, unset it");
  // CUDA loads the library through CUDA_INJECTION64_PATH when the process first uses CUDA (and
  // calls its InitializeInjection, which starts CUPTI). LD_PRELOAD loads it first, so that its
  // NCCL functions come before libnccl's in symbol lookup; the second load is the same copy.
  set["CUDA_INJECTION64_PATH"] = libraries.gpu_trace;
  std::string preload = existing("LD_PRELOAD");
  bool preloaded = false;
  for (size_t start = 0; start <= preload.size();) {
    size_t end = preload.find_first_of(": ", start);
    if (end == std::string::npos) end = preload.size();
    if (preload.substr(start, end - start) == libraries.gpu_trace) preloaded = true;
    start = end + 1;
  }
  set["LD_PRELOAD"] = preloaded ? preload : preload.empty() ? libraries.gpu_trace : libraries.gpu_trace + ":" + preload;
  // NVTX hands its ranges to the library NVTX_INJECTION64_PATH names; CUPTI must be it.
  const std::string nvtx = existing("NVTX_INJECTION64_PATH");
  if (!nvtx.empty() && nvtx != libraries.cupti)
    throw InputError("environment", "NVTX_INJECTION64_PATH",
                     "is already set to '" + nvtx + "'; NVTX ranges would not reach the capture, unset it");
  if (!libraries.cupti.empty()) set["NVTX_INJECTION64_PATH"] = libraries.cupti;
  set["SCALECAST_CAPTURE_DIR"] = staging_folder;
  if (!request.steps.empty()) set["SCALECAST_CAPTURE_STEPS"] = request.steps;
  if (!request.step_pattern.empty()) set["SCALECAST_CAPTURE_STEP_PATTERN"] = request.step_pattern;
  return set;
}

namespace {

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  return env;
}

// Runs the command and waits; SIGINT/SIGTERM reach the job (its own signal handlers write the
// rank files), the launcher waits for it instead of dying first. A command that cannot be
// started (not found, not executable) is bad input: the child reports execvp's errno through a
// close-on-exec pipe, which a successful exec closes unwritten.
int run_command(const std::vector<std::string>& command, const std::map<std::string, std::string>& set) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int exec_error_pipe[2];
  if (pipe2(exec_error_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  struct sigaction ignore {}, old_int {}, old_term {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &ignore, &old_term);
  pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (child == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    for (const auto& [name, value] : set) setenv(name.c_str(), value.c_str(), 1);
    execvp(argv[0], argv.data());
    const int exec_errno = errno;
    [[maybe_unused]] const ssize_t written = write(exec_error_pipe[1], &exec_errno, sizeof exec_errno);
    _exit(127);
  }
  close(exec_error_pipe[1]);
  int exec_errno = 0;
  ssize_t got = 0;
  while ((got = read(exec_error_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(exec_error_pipe[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (got == static_cast<ssize_t>(sizeof exec_errno))
    throw InputError("command line", "COMMAND", "cannot run '" + command[0] + "': " + std::strerror(exec_errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// The output path, checked before the job runs: a new path, a trace directory (replaced whole)
// or a .json file.
fs::path checked_output(const CaptureRequest& request) {
  fs::path out = fs::absolute(request.out).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();  // "trace/" is the folder "trace"
  if (fs::exists(out) && (!fs::is_directory(out) || (!fs::is_empty(out) && !fs::exists(out / "manifest.json"))) &&
      out.extension() != ".json")
    throw InputError("command line", "--out",
                     "'" + request.out + "' exists and is not a trace directory; give a new path (a trace is replaced whole)");
  return out;
}

// The folder the job's ranks write into, beside the output, and the folders made for it. Unless
// kept (moved into place, or holding rank files worth inspecting), it is removed with the
// parent folders it made: a failed capture leaves nothing behind.
class StagingFolder {
 public:
  explicit StagingFolder(const fs::path& out)
      : path_(out.parent_path() / (out.filename().string() + ".capture-" + std::to_string(getpid()))) {
    for (fs::path p = out.parent_path(); !p.empty() && !fs::exists(p) && p != p.parent_path(); p = p.parent_path())
      made_parents_.push_back(p);  // deepest first
    std::error_code error;
    fs::remove_all(path_, error);
    fs::create_directories(path_, error);
    if (error) {
      remove_made_parents();
      throw InputError(path_.string(), "", "cannot be created: " + error.message());
    }
  }
  ~StagingFolder() {
    if (kept_) return;
    std::error_code error;
    fs::remove_all(path_, error);
    remove_made_parents();
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;

  const fs::path& path() const { return path_; }
  bool holds_rank_files() const {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(path_, error))
      if (entry.path().extension() == ".jsonl") return true;
    return false;
  }
  void keep() { kept_ = true; }

 private:
  void remove_made_parents() {
    std::error_code error;
    for (const fs::path& p : made_parents_) fs::remove(p, error);  // only while empty
  }
  fs::path path_;
  std::vector<fs::path> made_parents_;
  bool kept_ = false;
};

std::string command_line(const std::vector<std::string>& command) {
  std::string line;
  for (const auto& a : command) line += (line.empty() ? "" : " ") + a;
  return line;
}

// Merges the rank files, lets `finish` check the trace, and moves it into place (a previous
// trace is replaced whole: moved aside, the new one moved in, the old one removed).
void merge_into_place(const CaptureRequest& request, StagingFolder& staging, const fs::path& out, const FinishTrace& finish) {
  std::vector<std::pair<std::string, std::string>> metadata;
  metadata.emplace_back("capture.command", command_line(request.command));
  if (!request.steps.empty()) metadata.emplace_back("capture.window", request.steps);
  try {
    const MergeSummary summary = write_manifest(staging.path().string(), metadata);
    finish(staging.path().string(), out.string());
    if (out.extension() != ".json") {
      std::error_code error;
      const fs::path old = out.parent_path() / (out.filename().string() + ".old-" + std::to_string(getpid()));
      if (fs::exists(out)) fs::rename(out, old);
      fs::rename(staging.path(), out);
      staging.keep();
      fs::remove_all(old, error);
    }
    std::cerr << "scalecast capture: " << summary.world_size << " rank(s), " << summary.communicators
              << " communicator(s) → " << request.out << "\n";
  } catch (...) {
    if (staging.holds_rank_files()) {
      staging.keep();
      std::cerr << "scalecast capture: the rank files stay in " << staging.path().string() << " for inspection\n";
    }
    throw;
  }
}

}  // namespace

int run_capture(const CaptureRequest& request, const CaptureLibraries& libraries, const FinishTrace& finish) {
  if (libraries.gpu_trace.empty() || !fs::exists(libraries.gpu_trace))
    throw InputError("environment", "SCALECAST_GPU_TRACE_LIBRARY",
                     "the capture library '" + libraries.gpu_trace +
                         "' does not exist (this build found no CUDA toolkit with CUPTI and NCCL; see gpu_trace/README.md)");
  const fs::path out = checked_output(request);
  StagingFolder staging(out);
  if (libraries.cupti.empty())
    std::cerr << "scalecast capture: note: this build found no CUPTI; only NCCL calls are recorded "
                 "(no kernels, copies or NVTX ranges): rebuild with the CUDA toolkit for those\n";
  const auto set = capture_environment(request, libraries, staging.path().string(), current_environment());
  const int status = run_command(request.command, set);
  if (status != 0) {
    std::cerr << "scalecast capture: the command exited with status " << status << "\n";
    if (!staging.holds_rank_files()) return status;
    std::cerr << "scalecast capture: merging what its ranks wrote\n";
  }
  merge_into_place(request, staging, out, finish);
  return status;
}

}  // namespace scalecast::gpu_trace
