// Streaming reader of Kineto traces: nlohmann's SAX interface over a gzip-decompressing stream.
// The handler follows where it is in the document with a stack of container roles and builds
// one small struct per kept event, so memory grows with what is kept, not with the file.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <istream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/cost/kernel_class.h"
#include "sim/import/gzip_input.h"
#include "sim/import/kineto_trace.h"

namespace scalecast {

namespace {

// A scalar as the file gave it: events are validated only once they are complete.
struct Scalar {
  bool present = false;
  bool is_number = false;
  double number = 0;
  std::string text;
};

struct RawEvent {
  Scalar ph, cat, name, ts, dur, tid;
  Scalar stream, device, correlation, external_id, bytes, alloc_bytes;
  Scalar collective, in_nelems, out_nelems, dtype, group_size, pg_ranks;
  std::string input_dtype;  // first floating-point entry of args."Input type"
  Scalar wait_on_stream, record_correlation, src_rank, dst_rank;
  void clear() { *this = RawEvent{}; }
};

// Ranges of the numbers kept (sim/core/physical_limits.h for sizes and durations). Identifiers
// (correlation, External id, thread ids) are integers: beyond 2^53 a double no longer holds them
// exactly, and they are kept in 64-bit integers.
constexpr double kMaxId = 9007199254740992.0;  // 2^53
// Timestamps are microseconds since an epoch (about 1.7e15 today): 1e18 µs is 31,700 years.
constexpr double kMaxTimestamp_us = 1e18;
constexpr double kMaxDuration_us = limits::kTaskDuration_s.max * 1e6;
// Device, stream and rank numbers are small integers.
constexpr double kMaxIndex = 1e9;

enum class Role { root, events, event, event_args, input_types, dist_info, devices, device, other };

class KinetoSax {
 public:
  using json = nlohmann::json;
  explicit KinetoSax(KinetoTrace& trace) : trace_(trace) {}

  bool null() { return scalar(Scalar{true, false, 0, "null"}); }
  bool boolean(bool v) { return scalar(Scalar{true, false, 0, v ? "true" : "false"}); }
  bool number_integer(json::number_integer_t v) { return scalar(Scalar{true, true, static_cast<double>(v), {}}); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(Scalar{true, true, static_cast<double>(v), {}}); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(Scalar{true, true, v, {}}); }
  bool string(json::string_t& v) { return scalar(Scalar{true, false, 0, std::move(v)}); }
  bool binary(json::binary_t&) { return true; }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    const auto colon = what.find("] ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw InputError(trace_.source, "", "invalid JSON at byte " + std::to_string(position) + " (decompressed): " + what);
  }

  void finish() const {
    if (!root_was_object_) throw InputError(trace_.source, "", "not a Kineto trace: the document is not a JSON object");
    if (!saw_events_)
      throw InputError(trace_.source, "traceEvents", "not a Kineto trace: no traceEvents array (is this a PyTorch profiler trace?)");
  }

 private:
  bool open(bool array) {
    Role role = Role::other;
    if (stack_.empty()) {
      role = array ? Role::other : Role::root;
      root_was_object_ = !array;
    } else {
      const Role parent = stack_.back();
      if (parent == Role::root && key_ == "traceEvents" && array) {
        role = Role::events;
        saw_events_ = true;
      } else if (parent == Role::root && key_ == "distributedInfo" && !array) {
        role = Role::dist_info;
      } else if (parent == Role::root && key_ == "deviceProperties" && array) {
        role = Role::devices;
      } else if (parent == Role::events && !array) {
        role = Role::event;
        event_.clear();
      } else if (parent == Role::event && key_ == "args" && !array) {
        role = Role::event_args;
      } else if (parent == Role::event_args && key_ == "Input type" && array) {
        role = Role::input_types;
      } else if (parent == Role::devices && !array) {
        role = Role::device;
        device_id_ = Scalar{};
        device_name_ = Scalar{};
      }
    }
    stack_.push_back(role);
    return true;
  }

  bool close() {
    const Role role = stack_.back();
    stack_.pop_back();
    if (role == Role::event) {
      finish_event();
      ++trace_.events_seen;
    } else if (role == Role::device && device_name_.present && !device_name_.is_number) {
      const bool numbered = device_id_.is_number && device_id_.number >= 0 && device_id_.number <= kMaxIndex;
      trace_.device_names[numbered ? static_cast<int>(device_id_.number) : 0] = device_name_.text;
    }
    return true;
  }

  bool scalar(Scalar value) {
    if (stack_.empty()) return true;  // a bare scalar document; finish() reports it
    switch (stack_.back()) {
      case Role::event: event_field(std::move(value)); break;
      case Role::event_args: args_field(std::move(value)); break;
      case Role::input_types:
        if (event_.input_dtype.empty() && !value.is_number && !precision_from_dtype(value.text).empty())
          event_.input_dtype = std::move(value.text);
        break;
      case Role::dist_info:
        if (key_ == "rank") trace_.rank = whole_number(value, "distributedInfo.rank");
        else if (key_ == "world_size") trace_.world_size = whole_number(value, "distributedInfo.world_size");
        else if (key_ == "nccl_version" && !value.is_number) trace_.nccl_version = value.text;
        break;
      case Role::device:
        if (key_ == "id") device_id_ = std::move(value);
        else if (key_ == "name") device_name_ = std::move(value);
        break;
      default: break;
    }
    return true;
  }

  // distributedInfo's rank and world size: whole numbers up to the GPUs scalecast simulates. The
  // import gives each rank of the claimed world an entry (untraced ranks replay a traced one's
  // program), so a 1 kB trace claiming 2^24 ranks took 26 s and 900 MB, and a world larger
  // than a simulation's could never be replayed anyway.
  int whole_number(const Scalar& value, const std::string& field) const {
    if (!value.is_number || value.number != std::floor(value.number))
      throw InputError(trace_.source, field, "expected a whole number, got " + (value.is_number ? limits::format_number(value.number) : "'" + value.text + "'"));
    if (std::fabs(value.number) > static_cast<double>(limits::kMaxSimulatedGpus))
      throw InputError(trace_.source, field,
                       "must be at most " + std::to_string(limits::kMaxSimulatedGpus) +
                           " (the most GPUs scalecast simulates: a larger world could never be replayed), got " +
                           (std::fabs(value.number) < 1e15 ? std::to_string(static_cast<long long>(value.number))
                                                           : limits::format_number(value.number)));
    return static_cast<int>(value.number);
  }

  void event_field(Scalar value) {
    if (key_ == "ph") event_.ph = std::move(value);
    else if (key_ == "cat") event_.cat = std::move(value);
    else if (key_ == "name") event_.name = std::move(value);
    else if (key_ == "ts") event_.ts = std::move(value);
    else if (key_ == "dur") event_.dur = std::move(value);
    else if (key_ == "tid") event_.tid = std::move(value);
  }

  void args_field(Scalar value) {
    if (key_ == "stream") event_.stream = std::move(value);
    else if (key_ == "device") event_.device = std::move(value);
    else if (key_ == "correlation") event_.correlation = std::move(value);
    else if (key_ == "External id") event_.external_id = std::move(value);
    else if (key_ == "bytes") event_.bytes = std::move(value);
    else if (key_ == "Bytes") event_.alloc_bytes = std::move(value);
    else if (key_ == "Collective name") event_.collective = std::move(value);
    else if (key_ == "In msg nelems") event_.in_nelems = std::move(value);
    else if (key_ == "Out msg nelems") event_.out_nelems = std::move(value);
    else if (key_ == "dtype") event_.dtype = std::move(value);
    else if (key_ == "Group size") event_.group_size = std::move(value);
    else if (key_ == "Process Group Ranks") event_.pg_ranks = std::move(value);
    else if (key_ == "wait_on_stream") event_.wait_on_stream = std::move(value);
    else if (key_ == "Src Rank") event_.src_rank = std::move(value);
    else if (key_ == "Dst Rank") event_.dst_rank = std::move(value);
    else if (key_ == "wait_on_cuda_event_record_corr_id") event_.record_correlation = std::move(value);
  }

  std::string field(const std::string& name) const {
    return "traceEvents[" + std::to_string(trace_.events_seen) + "]." + name;
  }

  // A required number between `min` and `max` (`range`: how messages say it); `what` says which
  // kind of event needs it.
  double number(const Scalar& value, const std::string& name, const char* what, double min, double max,
                const std::string& range = "") const {
    if (!value.present) throw InputError(trace_.source, field(name), std::string("missing (") + what + " needs it)");
    if (!value.is_number) throw InputError(trace_.source, field(name), "expected a number, got '" + value.text + "'");
    if (!(value.number >= min && value.number <= max))  // also NaN
      throw InputError(trace_.source, field(name),
                       "must be " + (range.empty() ? "between " + limits::format_number(min) + " and " + limits::format_number(max) : range) +
                           ", got " + limits::format_number(value.number));
    return value.number;
  }
  double optional_number(const Scalar& value, const std::string& name, double fallback, double min, double max,
                         const std::string& range = "") const {
    if (!value.present) return fallback;
    return number(value, name, "", min, max, range);
  }
  // An optional identifier or index, kept as an integer (-1 when absent).
  int64_t optional_id(const Scalar& value, const std::string& name, double max = kMaxId) const {
    return static_cast<int64_t>(optional_number(value, name, -1, -max, max));
  }
  // Thread ids are numbers in Kineto's output, but some tools write strings.
  int64_t thread_id(const Scalar& value, const char* what) const {
    if (!value.present) throw InputError(trace_.source, field("tid"), std::string("missing (") + what + " needs it)");
    if (value.is_number) return static_cast<int64_t>(number(value, "tid", what, -kMaxId, kMaxId));
    return static_cast<int64_t>(std::hash<std::string>{}(value.text) >> 1);
  }
  int intern(const std::string& name) {
    auto [it, added] = name_ids_.emplace(name, static_cast<int>(trace_.names.size()));
    if (added) trace_.names.push_back(name);
    return it->second;
  }
  void timing(double& ts_us, double& dur_us, const char* what) const {
    ts_us = number(event_.ts, "ts", what, -kMaxTimestamp_us, kMaxTimestamp_us);
    if (event_.dur.is_number && event_.dur.number < 0) throw InputError(trace_.source, field("dur"), "must be >= 0");
    dur_us = number(event_.dur, "dur", what, 0, kMaxDuration_us, "at most 1e12 µs (1e6 s, 11.6 days)");
  }

  // The NCCL metadata of the current event (a kernel's or record_param_comms'), kept.
  int add_nccl_args() {
    const RawEvent& e = event_;
    KinetoNcclArgs nccl;
    nccl.collective = e.collective.text;
    // Element counts: at most 2^60 (elements are at least a byte; sizes are capped there).
    nccl.in_nelems = optional_number(e.in_nelems, "args.In msg nelems", -1, -1, limits::kMaxBytes, "at most 2^60 elements");
    nccl.out_nelems = optional_number(e.out_nelems, "args.Out msg nelems", -1, -1, limits::kMaxBytes, "at most 2^60 elements");
    nccl.dtype = e.dtype.present ? e.dtype.text : std::string();
    nccl.group_size = static_cast<int>(optional_id(e.group_size, "args.Group size", limits::kMaxWorldSize));
    nccl.process_group_ranks = e.pg_ranks.present ? e.pg_ranks.text : std::string();
    // Newer fields, read when they are whole numbers and ignored otherwise.
    auto rank = [](const Scalar& value) {
      return value.is_number && value.number >= 0 && value.number < 1e9 ? static_cast<int>(value.number) : -1;
    };
    nccl.src_rank = rank(e.src_rank);
    nccl.dst_rank = rank(e.dst_rank);
    trace_.nccl_args.push_back(std::move(nccl));
    return static_cast<int>(trace_.nccl_args.size()) - 1;
  }

  // Dispatches the event just parsed by its phase and category; events that shape nothing in
  // the graph (flows, metadata, other instants and categories) are dropped here.
  void finish_event() {
    const RawEvent& e = event_;
    if (!e.cat.present || e.cat.is_number || !e.ph.present) return;
    const std::string& cat = e.cat.text;
    const std::string name = e.name.present && !e.name.is_number ? e.name.text : std::string();
    if (e.ph.text == "i" && cat == "cpu_instant_event" && name == "[memory]") return add_allocation();
    if (e.ph.text != "X") return;
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") add_gpu_op(cat, name);
    else if (cat == "cuda_runtime" || cat == "cuda_driver") add_runtime_call(name);
    else if (cat == "cuda_sync") add_cuda_sync(name);
    else if (cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0) add_step(name);
    else if (cat == "cpu_op" || cat == "user_annotation") add_cpu_op(name);
  }

  void add_allocation() {
    const RawEvent& e = event_;
    const double bytes = optional_number(e.alloc_bytes, "args.Bytes", 0, -limits::kMaxBytes, limits::kMaxBytes);  // < 0: a free
    if (bytes > 0)
      trace_.allocations.push_back({thread_id(e.tid, "a memory event"),
                                    number(e.ts, "ts", "a memory event", -kMaxTimestamp_us, kMaxTimestamp_us), bytes});
  }

  void add_gpu_op(const std::string& cat, const std::string& name) {
    const RawEvent& e = event_;
    const char* what = "a GPU event";
    KinetoGpuOp op;
    op.kind = cat == "kernel" ? KinetoGpuOp::Kind::kernel : cat == "gpu_memcpy" ? KinetoGpuOp::Kind::memcpy : KinetoGpuOp::Kind::memset;
    timing(op.ts_us, op.dur_us, what);
    const double stream = number(e.stream, "args.stream", what, 0, kMaxIndex);
    if (stream != std::floor(stream)) throw InputError(trace_.source, field("args.stream"), "expected a stream number >= 0");
    op.stream = static_cast<int>(stream);
    op.device = static_cast<int>(optional_number(e.device, "args.device", 0, -1, kMaxIndex));
    op.correlation = static_cast<int64_t>(number(e.correlation, "args.correlation", what, -kMaxId, kMaxId));
    op.external_id = optional_id(e.external_id, "args.External id");
    op.bytes = optional_number(e.bytes, "args.bytes", -1, -1, limits::kMaxBytes, limits::kBytes.text);
    op.name = intern(name);
    if (e.collective.present) op.nccl = add_nccl_args();
    trace_.gpu_ops.push_back(std::move(op));
  }

  void add_runtime_call(const std::string& name) {
    const char* what = "a CUDA runtime event";
    // Only launches, copies, synchronisations, event records and stream waits shape the
    // graph; queries (cudaStreamIsCapturing, cudaEventQuery, ...) are the bulk of the rest.
    static const char* const kKept[] = {"Launch", "Memcpy", "Memset", "Synchronize", "WaitEvent", "EventRecord"};
    if (std::none_of(std::begin(kKept), std::end(kKept), [&](const char* k) { return name.find(k) != std::string::npos; })) return;
    KinetoRuntimeCall call;
    timing(call.ts_us, call.dur_us, what);
    call.tid = thread_id(event_.tid, what);
    call.correlation = optional_id(event_.correlation, "args.correlation");
    call.name = intern(name);
    trace_.runtime_calls.push_back(call);
  }

  void add_cuda_sync(const std::string& name) {
    const RawEvent& e = event_;
    KinetoCudaSync sync;
    sync.kind = intern(name);
    sync.stream = static_cast<int>(optional_id(e.stream, "args.stream", kMaxIndex));
    sync.correlation = optional_id(e.correlation, "args.correlation");
    sync.wait_on_stream = static_cast<int>(optional_id(e.wait_on_stream, "args.wait_on_stream", kMaxIndex));
    sync.record_correlation = optional_id(e.record_correlation, "args.wait_on_cuda_event_record_corr_id");
    trace_.cuda_syncs.push_back(sync);
  }

  // A "ProfilerStep#N" annotation: the step's span and its number.
  void add_step(const std::string& name) {
    KinetoStep step;
    timing(step.ts_us, step.dur_us, "a ProfilerStep annotation");
    step.tid = thread_id(event_.tid, "a ProfilerStep annotation");
    const std::string digits = name.substr(13);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(trace_.source, field("name"), "expected ProfilerStep#N with a step number N, got '" + name + "'");
    step.number = std::stoi(digits);
    trace_.steps.push_back(step);
  }

  void add_cpu_op(const std::string& name) {
    const RawEvent& e = event_;
    const char* what = "a CPU operator event";
    KinetoCpuOp op;
    timing(op.ts_us, op.dur_us, what);
    op.tid = thread_id(e.tid, what);
    op.external_id = optional_id(e.external_id, "args.External id");
    op.name = intern(name);
    if (!e.input_dtype.empty()) op.input_dtype = intern(e.input_dtype);
    if (e.collective.present && name == "record_param_comms") op.nccl = add_nccl_args();
    trace_.cpu_ops.push_back(op);
  }

  KinetoTrace& trace_;
  std::vector<Role> stack_;
  std::string key_;
  RawEvent event_;
  Scalar device_id_, device_name_;
  std::unordered_map<std::string, int> name_ids_;
  bool root_was_object_ = false;
  bool saw_events_ = false;
};

}  // namespace

KinetoTrace read_kineto_trace(const std::string& path) {
  KinetoTrace trace;
  trace.source = path;
  GzipInputBuffer buffer(path, "a Kineto trace (.json or .json.gz)");
  std::istream input(&buffer);
  KinetoSax sax(trace);
  // Errors surface as InputError from the handler or from the gzip buffer; sax_parse returns
  // false only if the handler asks it to stop, which this one never does.
  nlohmann::json::sax_parse(input, &sax);
  sax.finish();
  // Vectors grew by doubling while streaming; give back the slack before the graph is built.
  trace.gpu_ops.shrink_to_fit();
  trace.runtime_calls.shrink_to_fit();
  trace.cpu_ops.shrink_to_fit();
  trace.allocations.shrink_to_fit();
  // Hand the parse's freed buffers back to the system: the graph is built next, and a trace
  // of hundreds of MB should peak at what is kept, not at what parsing left in the heap.
  malloc_trim(0);
  if (trace.world_size == 0 || trace.world_size < -1)
    throw InputError(path, "distributedInfo.world_size", "must be at least 1, got " + std::to_string(trace.world_size));
  if (trace.rank < -1) throw InputError(path, "distributedInfo.rank", "must be >= 0, got " + std::to_string(trace.rank));
  if (trace.rank >= 0 && trace.world_size > 0 && trace.rank >= trace.world_size)
    throw InputError(path, "distributedInfo.rank",
                     "rank " + std::to_string(trace.rank) + " is outside the world of " + std::to_string(trace.world_size) + " ranks");
  return trace;
}

}  // namespace scalecast
