// Records of one process (records.h) → that rank's part of a trace (traces/FORMAT.md): compute
// tasks (one per NVTX operator range, with its GPU busy time), collectives and send/recv (one per
// NCCL call, sized as nccl-tests counts), steps from step ranges, a chosen window of steps.
// Pure C++: runs inside the capture library at exit and in tests on recorded files.
#pragma once

#include <cstdint>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "gpu_trace/records.h"
#include "sim/trace/execution_graph.h"

namespace scalecast::gpu_trace {

struct ConvertOptions {
  // NVTX ranges whose whole name matches this ECMAScript regex are step boundaries.
  std::string step_pattern = "ProfilerStep#\\d+|step";
  // Keep steps [first_step, end_step) (0-based, in order of their start); -1: no bound.
  int first_step = -1;
  int end_step = -1;
};

// A communicator this rank used, as the merge needs it to build the trace's groups and to map
// its ranks to global ranks.
struct RankCommunicator {
  int trace_id = 0;        // the id collectives refer to: 31 bits of the stable id
  uint64_t stable_id = 0;  // same on every rank of the communicator
  int nranks = 0;
  int rank = 0;            // this process's rank in it
  bool collectives = true; // collectives ran on it (else only messages: not a trace communicator)
};

// A send or recv task whose peer is known only as a rank of its NCCL communicator (PyTorch runs a
// lone send/recv on a 2-rank communicator of the two peers). The task's peer_offset assumes the
// communicator's ranks are consecutive global ranks; the merge, which knows every communicator's
// members, replaces it with the real offset.
struct PeerMessage {
  int task = 0;          // index in RankCapture::tasks
  int communicator = 0;  // trace id of the communicator it ran on
  int peer = 0;          // the peer's rank in that communicator
};

struct RankCapture {
  int rank = 0;  // global rank
  std::string traced_gpu;
  std::vector<Task> tasks;
  std::vector<RankCommunicator> communicators;
  std::vector<PeerMessage> messages;
  std::map<std::string, std::string> metadata;  // "capture.*": steps, overhead, measured times
};

// Records whose timing CUPTI could not complete (a start of 0, or an end before the start: a
// forced flush hands over unfinished records) are left out and counted in
// capture.incomplete_records (and in capture.dropped_records).
// Throws InputError(source, …) when the options are unusable (bad regex, empty window) or the
// records contradict themselves (a call on a communicator never created).
RankCapture convert(const ProcessRecords& records, const ConvertOptions& options, const std::string& source);

// The step pattern, compiled; throws InputError(source, "step pattern", …) when it is not a regex.
std::regex compile_step_pattern(const ConvertOptions& options, const std::string& source);

// Parses "A:B" (steps A to B-1), "A:" or ":B"; throws InputError(source, field, …).
void parse_step_window(const std::string& text, ConvertOptions& options, const std::string& source,
                       const std::string& field);

// The trace's communicator id for a stable id: non-negative, fits an int.
int trace_communicator_id(uint64_t stable_id);

// PyTorch's emit_nvtx names an operator "aten::add, seq = 12, op_id = 3, sizes = …": the
// operator is the part before ", seq = " / ", op_id = " / ", sizes = ".
std::string operator_name(const std::string& range_name);

}  // namespace scalecast::gpu_trace
