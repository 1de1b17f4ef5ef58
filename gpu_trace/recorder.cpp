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

Recorder::Recorder() {
  const char* folder = std::getenv("SCALECAST_CAPTURE_DIR");
  enabled_ = folder && *folder;
  if (const char* max = std::getenv("SCALECAST_CAPTURE_MAX_RECORDS")) {
    long long value = std::atoll(max);
    if (value > 0) max_records_ = static_cast<size_t>(value);
  }
}

void Recorder::enable_for_test() { enabled_ = true; }

uint64_t Recorder::now_ns() const { return hooks_.now_ns ? hooks_.now_ns() : monotonic_ns(); }

template <typename T>
void Recorder::push(std::vector<T>& into, const T& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (into.size() >= max_records_) {
    ++records_.dropped_records;
    return;
  }
  into.push_back(record);
}

void Recorder::add(const GpuActivity& r) { push(records_.activities, r); }
void Recorder::add(const CpuLaunch& r) { push(records_.launches, r); }
void Recorder::add(const ExternalCorrelation& r) { push(records_.correlations, r); }
void Recorder::add(const CpuRange& r) { push(records_.ranges, r); }
void Recorder::add(const CommunicatorRecord& r) { push(records_.communicators, r); }
void Recorder::add(const NcclCall& r) { push(records_.nccl_calls, r); }

void Recorder::add_dropped(uint64_t records) {
  std::lock_guard<std::mutex> lock(mutex_);
  records_.dropped_records += records;
}

void Recorder::mark_group_simulated(uint64_t group_id, uint64_t group_start_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The group's calls are the latest of their thread: search back to the group's start only.
  for (auto it = records_.nccl_calls.rbegin(); it != records_.nccl_calls.rend() && it->host_start_ns >= group_start_ns; ++it)
    if (it->group_id == group_id) it->result = NcclCall::kSimulated;
}

void Recorder::set_gpu_name(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (records_.gpu_name.empty()) records_.gpu_name = name;
}

ProcessRecords Recorder::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ProcessRecords copy = records_;
  copy.overhead_s = overhead_ns_ * 1e-9;
  return copy;
}

void Recorder::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  records_ = ProcessRecords{};
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
    records.rank = rank_from_environment();
    ConvertOptions options;
    if (const char* steps = std::getenv("SCALECAST_CAPTURE_STEPS"))
      if (*steps) parse_step_window(steps, options, "environment", "SCALECAST_CAPTURE_STEPS");
    if (const char* pattern = std::getenv("SCALECAST_CAPTURE_STEP_PATTERN"))
      if (*pattern) options.step_pattern = pattern;
    const uint64_t start = monotonic_ns();
    RankCapture capture = convert(records, options, "capture of process " + std::to_string(getpid()));
    if (const char* raw = std::getenv("SCALECAST_CAPTURE_RAW"); raw && std::string(raw) == "1") {
      std::ofstream out(std::string(folder) + "/" + "rank-" + std::to_string(capture.rank) + ".records.jsonl");
      write_records(records, out);
    }
    capture.metadata["capture.convert_s"] = std::to_string((monotonic_ns() - start) * 1e-9);
    write_rank_capture(capture, folder);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scalecast gpu_trace: error: %s (no trace written for process %d)\n", e.what(), getpid());
  }
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
