// See fake_cupti.h. Single-threaded, like the job that uses it: records are queued as the
// structs cupti.h defines, copied back to back (8-byte aligned, as CUPTI lays them out) into the
// buffers the capture hands over, and walked by cuptiActivityGetNextRecord.
#include "tests/gpu_trace/fake_cupti/fake_cupti.h"

#include <cupti.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <vector>

namespace {

CUpti_BuffersCallbackRequestFunc request_buffer = nullptr;
CUpti_BuffersCallbackCompleteFunc complete_buffer = nullptr;
std::set<int> kinds;                             // activity kinds enabled
std::set<uint32_t> runtime_calls, driver_calls;  // API calls enabled one by one
std::vector<std::vector<uint8_t>> pending;       // records not handed over yet
std::vector<uint64_t> externals;                 // the external correlation stack (CUSTOM0)
std::vector<uint32_t> open_markers;
uint32_t next_correlation = 1, next_marker = 1;
bool device_reported = false;

// Names and kernel names stay valid as long as CUPTI's would: the whole process.
const char* keep(const char* text) {
  static auto* strings = new std::deque<std::string>;
  return text ? strings->emplace_back(text).c_str() : nullptr;
}

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

template <typename Record>
void queue(const Record& record) {
  static_assert(sizeof(Record) % 8 == 0, "CUPTI records are 8-byte aligned");
  const auto* bytes = reinterpret_cast<const uint8_t*>(&record);
  pending.emplace_back(bytes, bytes + sizeof record);
}

bool on(CUpti_ActivityKind kind) { return kinds.count(kind) != 0; }

size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    default: std::abort();
  }
}

// An API record, when that call is traced (its kind, or the call alone).
void api_record(uint32_t cbid, uint32_t correlation) {
  if (!on(CUPTI_ACTIVITY_KIND_RUNTIME) && !runtime_calls.count(cbid)) return;
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.cbid = cbid;
  api.start = now_ns();
  api.end = api.start + 1000;
  api.processId = static_cast<uint32_t>(getpid());
  api.threadId = 1;
  api.correlationId = correlation;
  queue(api);
}

void gpu_record(int work, const char* name, uint32_t correlation, uint32_t stream, uint64_t start, uint64_t end,
                uint64_t bytes) {
  if (work == 0 && on(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = keep(name);
    k.correlationId = correlation;
    k.streamId = stream;
    k.start = start;
    k.end = end;
    queue(k);
  } else if (work == 1 && on(CUPTI_ACTIVITY_KIND_MEMCPY)) {
    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    m.bytes = bytes, m.start = start, m.end = end, m.streamId = stream, m.correlationId = correlation;
    queue(m);
  } else if (work == 2 && on(CUPTI_ACTIVITY_KIND_MEMCPY2)) {
    CUpti_ActivityMemcpyPtoP4 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    m.bytes = bytes, m.start = start, m.end = end, m.streamId = stream, m.correlationId = correlation;
    queue(m);
  } else if (work == 3 && on(CUPTI_ACTIVITY_KIND_MEMSET)) {
    CUpti_ActivityMemset4 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.bytes = bytes, m.start = start, m.end = end, m.streamId = stream, m.correlationId = correlation;
    queue(m);
  }
}

void marker(uint32_t flags, uint32_t id, const char* name, const char* domain) {
  if (!on(CUPTI_ACTIVITY_KIND_MARKER)) return;
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.timestamp = now_ns();
  m.id = id;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = static_cast<uint32_t>(getpid());
  m.objectId.pt.threadId = 1;
  m.name = keep(name);
  m.domain = keep(domain);
  queue(m);
}

void write_log() {
  const char* path = std::getenv("FAKE_CUPTI_LOG");
  if (!path) return;
  FILE* log = std::fopen(path, "w");
  if (!log) return;
  std::fprintf(log, "callbacks %d\n", complete_buffer != nullptr);
  for (int kind : kinds) std::fprintf(log, "kind %d\n", kind);
  for (uint32_t cbid : runtime_calls) std::fprintf(log, "runtime %u\n", cbid);
  for (uint32_t cbid : driver_calls) std::fprintf(log, "driver %u\n", cbid);
  std::fclose(log);
}

}  // namespace

extern "C" {

uint32_t fake_cupti_launch(int work, const char* name, uint32_t stream, uint64_t start_ns, uint64_t end_ns,
                           uint64_t bytes) {
  static const uint32_t calls[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
                                   CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020};
  const uint32_t correlation = next_correlation++;
  api_record(calls[work], correlation);
  if (!externals.empty() && on(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
    CUpti_ActivityExternalCorrelation e{};
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    e.externalId = externals.back();
    e.correlationId = correlation;
    queue(e);
  }
  gpu_record(work, name, correlation, stream, start_ns, end_ns, bytes);
  return correlation;
}

void fake_cupti_api_call(uint32_t cbid) { api_record(cbid, next_correlation++); }

void fake_cupti_profiler(int start) {
  api_record(start ? CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 : CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
             next_correlation++);
}

void fake_cupti_push(const char* name, const char* domain) {
  open_markers.push_back(next_marker++);
  marker(CUPTI_ACTIVITY_FLAG_MARKER_START, open_markers.back(), name, domain);
}

void fake_cupti_pop() {
  marker(CUPTI_ACTIVITY_FLAG_MARKER_END, open_markers.back(), nullptr, nullptr);
  open_markers.pop_back();
}

void fake_cupti_deliver() {
  if (on(CUPTI_ACTIVITY_KIND_DEVICE) && !device_reported) {
    CUpti_ActivityDevice5 d{};
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.name = keep("NVIDIA H200 (fake CUPTI)");
    queue(d);
    device_reported = true;
  }
  if (!request_buffer || !complete_buffer || pending.empty()) return;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  request_buffer(&buffer, &size, &max_records);
  size_t used = 0;
  for (const auto& record : pending) {
    if (used + record.size() > size) std::abort();  // the tests stay far below a buffer
    std::memcpy(buffer + used, record.data(), record.size());
    used += record.size();
  }
  pending.clear();
  complete_buffer(nullptr, 0, buffer, size, used);
}

// ---- libcupti's functions, as the capture uses them ----

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** text) {
  *text = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                                                    : "fake CUPTI error";
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*,
                                       CUpti_SubscriberParams* params) {
  if (const char* holder = std::getenv("FAKE_CUPTI_HOLDER")) {
    if (params && params->oldSubscriberName)
      std::snprintf(params->oldSubscriberName, params->oldSubscriberSize, "%s", holder);
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* data) {
  return cuptiSubscribe_v2(subscriber, callback, data, nullptr);
}

// Names as CUPTI gives them, for the calls the job makes; every other id is some call that puts
// no work on the GPU.
CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) *name = "cudaLaunchKernel_v7000";
  else if (runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020) *name = "cudaMemcpyAsync_v3020";
  else if (runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000) *name = "cudaMemcpyPeerAsync_v4000";
  else if (runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020) *name = "cudaMemsetAsync_v3020";
  else if (runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020) *name = "cudaGetDevice_v3020";
  else if (!runtime && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx) *name = "cuLaunchKernelEx";
  else *name = keep(((runtime ? "cudaOther_" : "cuOther_") + std::to_string(cbid)).c_str());
  return CUPTI_SUCCESS;
}

// Each of these rewrites the log: what the capture asked for, as soon as it asks.
CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                    CUpti_BuffersCallbackCompleteFunc complete) {
  request_buffer = request;
  complete_buffer = complete;
  write_log();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  kinds.insert(kind);
  write_log();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  if (enable) runtime_calls.insert(cbid);
  write_log();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  if (enable) driver_calls.insert(cbid);
  write_log();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record) {
  uint8_t* next = *record ? reinterpret_cast<uint8_t*>(*record) + record_size((*record)->kind) : buffer;
  if (next >= buffer + valid_bytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t) {
  fake_cupti_deliver();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = now_ns();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t id) {
  externals.push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t* id) {
  if (externals.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  *id = externals.back();
  externals.pop_back();
  return CUPTI_SUCCESS;
}

}  // extern "C"
