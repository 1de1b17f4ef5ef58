// The CUPTI side of the capture (compiled only where CUPTI is found): CUDA calls
// InitializeInjection when a process that has CUDA_INJECTION64_PATH set first uses CUDA; it
// subscribes to CUPTI, turns on CUPTI's activity records and moves each completed buffer's
// records into the Recorder:
//   CONCURRENT_KERNEL, MEMCPY, MEMCPY2 (peer-to-peer), MEMSET   GPU work: device, stream, times
//   RUNTIME, DRIVER      the launching API call: thread and CPU time; only the calls that put work
//                        on the GPU (launches, copies, sets) and cudaProfilerStart/Stop are traced
//   MARKER               NVTX ranges (NVTX_INJECTION64_PATH names CUPTI), with their domain
//   EXTERNAL_CORRELATION NCCL call/group ids on the kernels NCCL launches
//   DEVICE               the GPU's name, for traced_gpu
// The records are read after the fact, off the launch path: the capture's cost is CUPTI's
// tracing plus the buffer copies below (timed into the trace's overhead).
//
// Lifetime: everything the buffer callback uses is made in InitializeInjection, before the exit
// handler that flushes CUPTI is registered, and never destroyed (GlueState). A table built lazily
// at the first buffer would be destroyed at exit before that flush ran, and the flush would read
// freed memory.
#include <cupti.h>
#include <dlfcn.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu_trace/recorder.h"

namespace {

using namespace scalecast::gpu_trace;

constexpr size_t kBufferBytes = 8u << 20;

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

std::string result_text(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

bool check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return true;
  std::fprintf(stderr, "scalecast gpu_trace: %s failed: %s\n", what, result_text(result).c_str());
  return false;
}

// NVTX ranges arrive as a start and an end marker with the same id.
struct OpenMarker {
  std::string name;
  std::string domain;
  uint64_t thread_id = 0;
  uint64_t start_ns = 0;
};

// What the buffer callback needs besides the Recorder: made once, never destroyed (see the top).
struct GlueState {
  std::mutex marker_mutex;
  std::unordered_map<uint32_t, OpenMarker> open_markers;
  std::unordered_map<uint64_t, int> push_depth;  // per thread
  uint64_t profiler_start_ns = 0;                // an open cudaProfilerStart window, 0 when none
  // API calls whose records are kept, by callback id: those that put work on the GPU. CUPTI is
  // asked for only these where it can be (cuptiActivityEnableRuntimeApi/DriverApi); where not,
  // every call is traced and the others are dropped here.
  std::vector<bool> runtime_kept, driver_kept;
};
GlueState* state = nullptr;

// Whether an API call can put work on the GPU (a launch, copy, set, graph launch), from its name:
// a framework makes many more calls (cudaGetDevice, event queries) than launches.
bool launches_work(const char* name) {
  const std::string text = name ? name : "";
  return text.find("Launch") != std::string::npos || text.find("emcpy") != std::string::npos ||
         text.find("emset") != std::string::npos;
}

bool profiler_call(bool runtime, uint32_t cbid) {
  return runtime ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
                       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                 : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart || cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
}

std::vector<bool> kept_calls(CUpti_CallbackDomain domain, uint32_t count) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  std::vector<bool> kept(count, false);
  for (uint32_t cbid = 1; cbid < count; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS)
      kept[cbid] = launches_work(name) || profiler_call(runtime, cbid);
  }
  return kept;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void take_api(const CUpti_ActivityAPI* api, bool runtime) {
  const std::vector<bool>& kept = runtime ? state->runtime_kept : state->driver_kept;
  if (api->cbid >= kept.size() || !kept[api->cbid]) return;
  const bool start = runtime ? api->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                             : api->cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
  if (profiler_call(runtime, api->cbid)) {
    std::lock_guard<std::mutex> lock(state->marker_mutex);
    if (start && !state->profiler_start_ns) state->profiler_start_ns = api->start;
    if (!start && state->profiler_start_ns) {
      Recorder::instance().add(
          CpuRange{RangeKind::profiler, "cudaProfiler", api->threadId, state->profiler_start_ns, api->end, 0, ""});
      state->profiler_start_ns = 0;
    }
    return;
  }
  Recorder::instance().add(CpuLaunch{api->correlationId, api->threadId, api->start, api->end});
}

void take_marker(const CUpti_ActivityMarker2* marker) {
  const uint64_t thread = marker->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? marker->objectId.pt.threadId : 0;
  std::lock_guard<std::mutex> lock(state->marker_mutex);
  if (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    state->open_markers[marker->id] =
        OpenMarker{marker->name ? marker->name : "", marker->domain ? marker->domain : "", thread, marker->timestamp};
    ++state->push_depth[thread];
  } else if (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = state->open_markers.find(marker->id);
    if (it == state->open_markers.end()) return;
    const OpenMarker& open = it->second;
    // A range that ends on the thread it started on is taken as push/pop (nested on its thread).
    const RangeKind kind = open.thread_id == thread ? RangeKind::push_pop : RangeKind::start_end;
    const int depth = --state->push_depth[open.thread_id];
    Recorder::instance().add(CpuRange{kind, open.name, open.thread_id, open.start_ns, marker->timestamp, depth, open.domain});
    state->open_markers.erase(it);
  }
}

const char* copy_name(uint8_t copy_kind) {
  static const char* const names[] = {"memcpy",      "memcpy HtoD", "memcpy DtoH", "memcpy HtoA",
                                      "memcpy AtoH", "memcpy AtoA", "memcpy AtoD", "memcpy DtoA",
                                      "memcpy DtoD", "memcpy HtoH", "memcpy PtoP"};
  return copy_kind < 11 ? names[copy_kind] : "memcpy";
}

// GPU work: kernels, copies (peer-to-peer ones are MEMCPY2 records), sets. Incomplete records (a
// forced flush hands them over) go on to the conversion, which counts and drops them.
bool take_gpu_work(const CUpti_Activity* record, Recorder& recorder) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      recorder.add(GpuActivity{ActivityKind::kernel, k->name ? k->name : "kernel", k->correlationId, k->deviceId,
                               k->streamId, k->start, k->end, 0});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      recorder.add(GpuActivity{ActivityKind::memcpy, copy_name(m->copyKind), m->correlationId, m->deviceId, m->streamId,
                               m->start, m->end, m->bytes});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      recorder.add(GpuActivity{ActivityKind::memcpy, "memcpy PtoP", m->correlationId, m->deviceId, m->streamId, m->start,
                               m->end, m->bytes});
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      recorder.add(GpuActivity{ActivityKind::memset, "memset", m->correlationId, m->deviceId, m->streamId, m->start,
                               m->end, m->bytes});
      return true;
    }
    default:
      return false;
  }
}

void take(const CUpti_Activity* record, Recorder& recorder) {
  if (take_gpu_work(record, recorder)) return;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      take_api(reinterpret_cast<const CUpti_ActivityAPI*>(record), true);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      take_api(reinterpret_cast<const CUpti_ActivityAPI*>(record), false);
      break;
    case CUPTI_ACTIVITY_KIND_MARKER:
      take_marker(reinterpret_cast<const CUpti_ActivityMarker2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        recorder.add(ExternalCorrelation{e->correlationId, e->externalId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      if (d->name) recorder.set_gpu_name(d->name);
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  const uint64_t entered = monotonic_ns();
  Recorder& recorder = Recorder::instance();
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) take(record, recorder);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped) recorder.add_dropped(dropped);
  std::free(buffer);
  recorder.add_overhead_ns(monotonic_ns() - entered);
}

uint64_t cupti_now_ns() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}
void push_external(uint64_t id) { cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id); }
void pop_external() {
  uint64_t id = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
}
// At exit: every buffer, the unfinished records too (the conversion drops those). No
// synchronisation first: a GPU still busy with a collective whose peers have exited would hang it.
void flush_activity() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

void CUPTIAPI no_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// CUPTI allows one subscriber: holding it keeps tools that ask first (torch.profiler's Kineto,
// Nsight) from taking CUPTI's activity buffers mid-run. cuptiSubscribe_v2 (CUDA 12.6+) names the
// client that holds it already; looked up at run time, as the CUPTI loaded may be older.
bool subscribe(Recorder& recorder) {
  static CUpti_SubscriberHandle subscriber = nullptr;  // held until the process ends
  char holder[128] = {};
  CUptiResult result = CUPTI_ERROR_UNKNOWN;
  bool asked = false;
#ifdef CUpti_SubscriberParams_STRUCT_SIZE  // the toolkit's headers have cuptiSubscribe_v2
  using SubscribeV2 = CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*, CUpti_SubscriberParams*);
  if (auto* v2 = reinterpret_cast<SubscribeV2>(dlsym(RTLD_DEFAULT, "cuptiSubscribe_v2"))) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "scalecast capture";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof holder;
    result = v2(&subscriber, no_callback, nullptr, &params);
    asked = true;
  }
#endif
  if (!asked) result = cuptiSubscribe(&subscriber, no_callback, nullptr);
  if (result == CUPTI_SUCCESS) return true;
  const std::string who = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                              ? std::string("held by another client") + (holder[0] ? std::string(" (") + holder + ")" : "")
                              : "unavailable: " + result_text(result);
  std::fprintf(stderr,
               "scalecast gpu_trace: warning: CUPTI is %s: no kernels, copies or NVTX ranges are recorded, NCCL calls "
               "keep host times; run the capture without torch.profiler, Nsight or other CUPTI tools\n",
               who.c_str());
  recorder.note("cupti", who);
  return false;
}

// Traces the API calls that launch work, one callback id at a time where CUPTI can
// (CUDA 12.x+; looked up at run time), else every call of the domain.
void enable_api_calls(CUpti_ActivityKind kind, const std::vector<bool>& kept, const char* per_call_function) {
  using EnableApi = CUptiResult (*)(CUpti_CallbackId, uint8_t);
  auto* enable = reinterpret_cast<EnableApi>(dlsym(RTLD_DEFAULT, per_call_function));
  bool each = enable != nullptr;
  for (uint32_t cbid = 1; each && cbid < kept.size(); ++cbid)
    if (kept[cbid]) each = enable(cbid, 1) == CUPTI_SUCCESS;
  if (!each) check(cuptiActivityEnable(kind), "cuptiActivityEnable (API calls)");
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static bool started = false;
  Recorder& recorder = Recorder::instance();
  if (started || !recorder.enabled()) return 1;
  started = true;
  const uint64_t entered = monotonic_ns();
  if (!subscribe(recorder)) return 1;
  state = new GlueState;  // never destroyed: the exit flush uses it
  state->runtime_kept = kept_calls(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  state->driver_kept = kept_calls(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  if (!check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks"))
    return 1;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER,
                                  CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DEVICE})
    check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  enable_api_calls(CUPTI_ACTIVITY_KIND_RUNTIME, state->runtime_kept, "cuptiActivityEnableRuntimeApi");
  enable_api_calls(CUPTI_ACTIVITY_KIND_DRIVER, state->driver_kept, "cuptiActivityEnableDriverApi");
  recorder.set_hooks(Recorder::Hooks{cupti_now_ns, push_external, pop_external, flush_activity});
  recorder.install_exit_handlers();
  recorder.add_overhead_ns(monotonic_ns() - entered);
  return 1;
}
