// Checks of a capture's raw records (SCALECAST_CAPTURE_RAW=1) against what the job that made them
// is known to do: the device check (tools/capture/device-check.sh) runs them on the first real
// captures, where host-time fallbacks would otherwise let a broken capture pass unnoticed.
#pragma once

#include <string>
#include <vector>

#include "gpu_trace/records.h"

namespace scalecast::gpu_trace {

struct RecordExpectations {
  int steps = -1;                      // step ranges (default step pattern); -1: not checked
  int broadcasts = -1;                 // broadcast records (one per ncclBcast/ncclBroadcast call); -1: not checked
  std::vector<NcclOp> tied_ops;        // every successful call of these ran GPU work carrying its id
  std::vector<std::string> ranges;     // NVTX ranges that must appear (operator names: emit_nvtx's suffixes cut)
};

struct CheckFinding {
  std::string check;   // "kernels", "ranges", "nccl allreduce", …
  bool ok = false;
  std::string detail;  // what was found
};

// One finding per check: GPU kernels besides NCCL's; the expected ranges; each tied op's calls
// with GPU activity carrying their external id; no record with a start of 0 and none unfinished;
// every GPU activity's launch recorded (the API calls traced are the ones that launch work); the
// number of step ranges and of broadcast records.
std::vector<CheckFinding> check_records(const ProcessRecords& records, const RecordExpectations& expected);

}  // namespace scalecast::gpu_trace
