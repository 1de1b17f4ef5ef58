#include "gpu_trace/records.h"

#include <cstring>

namespace scalecast::gpu_trace {

namespace {
const char* const kActivityNames[] = {"kernel", "memcpy", "memset"};
const char* const kRangeNames[] = {"push_pop", "start_end", "profiler"};
const char* const kOpNames[] = {"allreduce", "broadcast", "reduce",  "allgather", "reducescatter",
                                "alltoall",  "gather",    "scatter", "send",      "recv"};

template <typename Enum, size_t N>
bool parse_name(const char* const (&names)[N], const std::string& text, Enum& out) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i]) {
      out = static_cast<Enum>(i);
      return true;
    }
  return false;
}
}  // namespace

const char* to_string(ActivityKind kind) { return kActivityNames[static_cast<int>(kind)]; }
const char* to_string(RangeKind kind) { return kRangeNames[static_cast<int>(kind)]; }
const char* to_string(NcclOp op) { return kOpNames[static_cast<int>(op)]; }
bool parse_activity_kind(const std::string& text, ActivityKind& kind) { return parse_name(kActivityNames, text, kind); }
bool parse_range_kind(const std::string& text, RangeKind& kind) { return parse_name(kRangeNames, text, kind); }
bool parse_nccl_op(const std::string& text, NcclOp& op) { return parse_name(kOpNames, text, op); }

// ncclDataType_t values are stable since NCCL 2.0 (fp8 types appended in 2.24).
uint64_t nccl_dtype_bytes(int dtype) {
  static const uint64_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
  return dtype >= 0 && dtype < 12 ? sizes[dtype] : 0;
}

const char* nccl_dtype_name(int dtype) {
  static const char* const names[] = {"int8",    "uint8",   "int32",    "uint32",      "int64",      "uint64",
                                      "float16", "float32", "float64",  "bfloat16",    "float8e4m3", "float8e5m2"};
  return dtype >= 0 && dtype < 12 ? names[dtype] : "unknown";
}

}  // namespace scalecast::gpu_trace
