#include "gpu_trace/recorder.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "gpu_trace/convert.h"
#include "gpu_trace/rank_sidecar.h"
#include "gpu_trace/recording_window.h"
#include "gpu_trace/record_io.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

namespace {

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

void flush_at_exit() { Recorder::instance().flush(); }

struct sigaction previous_int, previous_term;

// Writes the trace, then does what the signal would have done: the handler that was there
// before (Python's SIGINT handler raises KeyboardInterrupt), or the default (end the process).
// The write is not async-signal-safe; a job being stopped by Ctrl-C or its launcher is the case
// where a trace is worth that risk.
void flush_on_signal(int signal) {
  Recorder::instance().flush();
  struct sigaction& previous = signal == SIGINT ? previous_int : previous_term;
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
    return;
  }
  sigaction(signal, &previous, nullptr);
  raise(signal);
}

// The conversion options the launcher passed (--steps, --step-pattern).
ConvertOptions options_from_environment() {
  ConvertOptions options;
  if (const char* steps = std::getenv("SCALECAST_CAPTURE_STEPS"))
    if (*steps) parse_step_window(steps, options, "environment", "SCALECAST_CAPTURE_STEPS");
  if (const char* pattern = std::getenv("SCALECAST_CAPTURE_STEP_PATTERN"))
    if (*pattern) options.step_pattern = pattern;
  return options;
}

// The store as the launcher's environment asks: the record cap, and the step window to keep while
// recording. The launcher checked both; a bad value here (the library used without it) is
// reported, and that setting ignored.
RecordStore store_from_environment() {
  size_t max_records = 4000000;
  if (const char* max = std::getenv("SCALECAST_CAPTURE_MAX_RECORDS")) {
    long long value = std::atoll(max);
    if (value > 0) max_records = static_cast<size_t>(value);
  }
  std::optional<RecordingWindow> window;
  const char* steps = std::getenv("SCALECAST_CAPTURE_STEPS");
  if (steps && *steps) {
    try {
      ConvertOptions options = options_from_environment();
      window.emplace(compile_step_pattern(options, "environment"), options.first_step, options.end_step);
    } catch (const InputError& e) {
      std::fprintf(stderr, "scalecast gpu_trace: warning: %s (every step is recorded)\n", e.what());
    }
  }
  return RecordStore(max_records, std::move(window));
}

}  // namespace

int rank_from_environment() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    char* end = nullptr;
    long rank = std::strtol(value, &end, 10);
    if (*end || rank < 0 || rank > 10000000)
      throw InputError("environment", name, std::string("'") + value + "' is not a rank (a non-negative integer)");
    return static_cast<int>(rank);
  }
  return -1;
}

Recorder& Recorder::instance() {
  static Recorder* recorder = new Recorder();  // never destroyed: exit handlers may run late
  return *recorder;
}

Recorder::Recorder() : store_(store_from_environment()) {
  const char* folder = std::getenv("SCALECAST_CAPTURE_DIR");
  enabled_ = folder && *folder;
}

void Recorder::enable_for_test() { enabled_ = true; }

uint64_t Recorder::now_ns() const { return hooks_.now_ns ? hooks_.now_ns() : monotonic_ns(); }

void Recorder::add_dropped(uint64_t records) {
  std::lock_guard<std::mutex> lock(mutex_);
  store_.add_dropped(records);
}

void Recorder::mark_group_simulated(uint64_t group_id, uint64_t group_start_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  store_.mark_group_simulated(group_id, group_start_ns);
}

void Recorder::set_gpu_name(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  store_.set_gpu_name(name);
}

void Recorder::note(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  store_.note(key, value);
}

ProcessRecords Recorder::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ProcessRecords copy = store_.snapshot();
  copy.overhead_s = overhead_ns_ * 1e-9;
  return copy;
}

void Recorder::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  store_.clear();
  overhead_ns_ = 0;
  call_sequence_ = 0;
  group_id_ = 0;
  flushed_ = false;
}

void Recorder::flush() {
  if (!enabled_ || flushed_) return;
  const char* folder = std::getenv("SCALECAST_CAPTURE_DIR");
  if (!folder || !*folder) return;
  try {
    if (hooks_.flush_activity) hooks_.flush_activity();
    ProcessRecords records = snapshot();
    // A process that did no GPU work and no NCCL call (torchrun's agent, a shell) is not a rank;
    // it may still become one later (a signal it survives), so this is not the last flush.
    if (records.activities.empty() && records.nccl_calls.empty()) return;
    if (flushed_.exchange(true)) return;
    write_rank(std::move(records), folder);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scalecast gpu_trace: error: %s (no trace written for process %d)\n", e.what(), getpid());
  }
}

void Recorder::write_rank(ProcessRecords records, const std::string& folder) {
  records.rank = rank_from_environment();
  // CUPTI ran (its hooks are set) yet delivered no GPU work: another client took its activity
  // buffers (torch.profiler started after the capture, Nsight), or the program used none.
  if (hooks_.flush_activity && records.activities.empty() && !records.notes.count("cupti"))
    std::fprintf(stderr,
                 "scalecast gpu_trace: warning: process %d made NCCL calls but CUPTI delivered no GPU activity: if "
                 "torch.profiler or another CUPTI tool ran, it took CUPTI's records; NCCL calls keep host times\n",
                 getpid());
  const uint64_t start = monotonic_ns();
  RankCapture capture = convert(records, options_from_environment(), "capture of process " + std::to_string(getpid()));
  if (const char* raw = std::getenv("SCALECAST_CAPTURE_RAW"); raw && std::string(raw) == "1") {
    std::ofstream out(folder + "/" + "rank-" + std::to_string(capture.rank) + ".records.jsonl");
    write_records(records, out);
  }
  capture.metadata["capture.convert_s"] = std::to_string((monotonic_ns() - start) * 1e-9);
  write_rank_capture(capture, folder);
}

void Recorder::install_exit_handlers() {
  if (!enabled_) return;
  // Exit handlers run in reverse order of registration: registered again when CUPTI starts
  // (after CUDA registered its own teardown), ours runs while CUDA can still flush its buffers.
  std::atexit(flush_at_exit);
  if (handlers_installed_.exchange(true)) return;
  // A forked child (a data-loader worker) holds a copy of the parent's records: it must not
  // write them as its own rank.
  pthread_atfork(nullptr, nullptr, [] { Recorder::instance().enabled_ = false; });
  struct sigaction action {};
  action.sa_handler = flush_on_signal;
  sigemptyset(&action.sa_mask);
  // A signal the process ignores stays ignored.
  for (auto [signal, previous] : {std::pair{SIGINT, &previous_int}, std::pair{SIGTERM, &previous_term}}) {
    sigaction(signal, nullptr, previous);
    if (previous->sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
  }
}

}  // namespace scalecast::gpu_trace
