// The CUPTI side of the capture (compiled only where CUPTI is found): CUDA calls
// InitializeInjection when a process that has CUDA_INJECTION64_PATH set first uses CUDA; it turns
// on CUPTI's activity records and moves each completed buffer's records into the Recorder:
//   CONCURRENT_KERNEL, MEMCPY, MEMSET   GPU work: device, stream, start, end, correlation id
//   RUNTIME, DRIVER                     the launching API call: thread and CPU time
//   MARKER                              NVTX ranges (NVTX_INJECTION64_PATH names CUPTI)
//   EXTERNAL_CORRELATION                NCCL call/group ids on the kernels NCCL launches
//   DEVICE                              the GPU's name, for traced_gpu
// The records are read after the fact, off the launch path: the capture's cost is CUPTI's
// tracing plus the buffer copies below (timed into the trace's overhead).
#include <cupti.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "gpu_trace/recorder.h"

namespace {

using namespace scalecast::gpu_trace;

constexpr size_t kBufferBytes = 8u << 20;

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

bool check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "scalecast gpu_trace: %s failed: %s\n", what, text ? text : "unknown CUPTI error");
  return false;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

// NVTX ranges arrive as a start and an end marker with the same id.
struct OpenMarker {
  std::string name;
  uint64_t thread_id = 0;
  uint64_t start_ns = 0;
};
std::mutex marker_mutex;
std::unordered_map<uint32_t, OpenMarker> open_markers;
std::unordered_map<uint64_t, int> push_depth;  // per thread
uint64_t profiler_start_ns = 0;                // an open cudaProfilerStart window, 0 when none

// Whether an API call can put work on the GPU (a launch, copy, set, graph launch): only those are
// kept, since a framework makes many more calls (cudaGetDevice, event queries) than launches.
// Decided once per callback id from its name.
bool launches_work(bool runtime, uint32_t cbid) {
  static std::mutex mutex;
  static std::unordered_map<uint64_t, bool> known;
  const uint64_t key = (runtime ? 1ull << 32 : 0) | cbid;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(key);
  if (it != known.end()) return it->second;
  const char* name = nullptr;
  cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name);
  const std::string text = name ? name : "";
  const bool keep = text.empty() || text.find("Launch") != std::string::npos || text.find("emcpy") != std::string::npos ||
                    text.find("emset") != std::string::npos;
  known[key] = keep;
  return keep;
}

void take_api(const CUpti_ActivityAPI* api, bool runtime) {
  Recorder& recorder = Recorder::instance();
  const bool start = runtime ? api->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                             : api->cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
  const bool stop = runtime ? api->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
                            : api->cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
  if (start || stop) {
    std::lock_guard<std::mutex> lock(marker_mutex);
    if (start && !profiler_start_ns) profiler_start_ns = api->start;
    if (stop && profiler_start_ns) {
      recorder.add(CpuRange{RangeKind::profiler, "cudaProfiler", api->threadId, profiler_start_ns, api->end, 0});
      profiler_start_ns = 0;
    }
    return;
  }
  if (launches_work(runtime, api->cbid)) recorder.add(CpuLaunch{api->correlationId, api->threadId, api->start, api->end});
}

void take_marker(const CUpti_ActivityMarker2* marker) {
  const uint64_t thread = marker->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? marker->objectId.pt.threadId : 0;
  std::lock_guard<std::mutex> lock(marker_mutex);
  if (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    open_markers[marker->id] = OpenMarker{marker->name ? marker->name : "", thread, marker->timestamp};
    ++push_depth[thread];
  } else if (marker->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_markers.find(marker->id);
    if (it == open_markers.end()) return;
    const OpenMarker& open = it->second;
    // A range that ends on the thread it started on is taken as push/pop (nested on its thread).
    const RangeKind kind = open.thread_id == thread ? RangeKind::push_pop : RangeKind::start_end;
    const int depth = --push_depth[open.thread_id];
    Recorder::instance().add(CpuRange{kind, open.name, open.thread_id, open.start_ns, marker->timestamp, depth});
    open_markers.erase(it);
  }
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  const uint64_t entered = monotonic_ns();
  Recorder& recorder = Recorder::instance();
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
        recorder.add(GpuActivity{ActivityKind::kernel, k->name ? k->name : "kernel", k->correlationId, k->deviceId,
                                 k->streamId, k->start, k->end, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
        static const char* const names[] = {"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                            "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH",
                                            "memcpy PtoP"};
        const char* name = m->copyKind < 11 ? names[m->copyKind] : "memcpy";
        recorder.add(GpuActivity{ActivityKind::memcpy, name, m->correlationId, m->deviceId, m->streamId, m->start,
                                 m->end, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(record);
        recorder.add(GpuActivity{ActivityKind::memset, "memset", m->correlationId, m->deviceId, m->streamId, m->start,
                                 m->end, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
        take_api(reinterpret_cast<CUpti_ActivityAPI*>(record), true);
        break;
      case CUPTI_ACTIVITY_KIND_DRIVER:
        take_api(reinterpret_cast<CUpti_ActivityAPI*>(record), false);
        break;
      case CUPTI_ACTIVITY_KIND_MARKER:
        take_marker(reinterpret_cast<CUpti_ActivityMarker2*>(record));
        break;
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* e = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
          recorder.add(ExternalCorrelation{e->correlationId, e->externalId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_DEVICE: {
        auto* d = reinterpret_cast<CUpti_ActivityDevice5*>(record);
        if (d->name) recorder.set_gpu_name(d->name);
        break;
      }
      default:
        break;
    }
  }
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
void flush_activity() { cuptiActivityFlushAll(1 /* CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static bool started = false;
  Recorder& recorder = Recorder::instance();
  if (started || !recorder.enabled()) return 1;
  started = true;
  const uint64_t entered = monotonic_ns();
  if (!check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks"))
    return 0;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
                                  CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MARKER,
                                  CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DEVICE})
    check(cuptiActivityEnable(kind), "cuptiActivityEnable");
  recorder.set_hooks(Recorder::Hooks{cupti_now_ns, push_external, pop_external, flush_activity});
  recorder.install_exit_handlers();
  recorder.add_overhead_ns(monotonic_ns() - entered);
  return 1;
}
