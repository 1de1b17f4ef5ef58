// What one process of a captured job hands to the merge: `rank-NNNNN.capture.jsonl`, written
// atomically by the capture library at exit, one flat JSON object per line (gpu_trace/README.md
// lists them):
//   header        format, version, rank, traced_gpu
//   metadata      key, value ("capture.*": steps, overhead, measured times)
//   communicator  trace id, stable id, size, this rank's rank in it, whether collectives ran on it
//   task          one per task of the rank, in order (fields of traces/FORMAT.md; deps as a string)
//   message       a send/recv task whose peer is a communicator rank, for the merge to map
// The rank's trace file is written by the merge, once every rank's communicators are known: only
// then can a message's peer (a rank of, say, a 2-rank communicator) become a global rank.
#pragma once

#include <string>

#include "gpu_trace/convert.h"

namespace scalecast::gpu_trace {

std::string rank_sidecar_name(int rank);  // "rank-00003.capture.jsonl"

// Writes `capture` into `folder`/rank_sidecar_name(capture.rank), atomically.
void write_rank_capture(const RankCapture& capture, const std::string& folder);

// Reads a rank's file back; without `with_tasks` its tasks and messages are skipped (the merge
// first reads every rank's communicators, then one rank's tasks at a time). Throws InputError
// naming the file, line and field on anything malformed.
RankCapture read_rank_capture(const std::string& path, bool with_tasks);

}  // namespace scalecast::gpu_trace
