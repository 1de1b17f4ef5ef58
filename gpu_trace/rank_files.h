// A rank's files in a capture directory, and the merge of all ranks into a trace directory.
//
//   rank-NNNNN.json           the rank's tasks, a rank file of the trace format (FORMAT.md)
//   rank-NNNNN.capture.jsonl  what the manifest needs from this rank: its communicators (stable
//                             id, size, rank in it), metadata and the traced GPU; JSON Lines
//
// Both are written atomically (temporary file + rename) by the capture library at exit. The
// merge writes manifest.json once every rank is there; without a JSON library (the capture-only
// build) so that capture works on machines with only the CUDA toolkit.
#pragma once

#include <string>
#include <vector>

#include "gpu_trace/convert.h"

namespace scalecast::gpu_trace {

std::string rank_file_name(int rank);          // "rank-00003.json"
std::string rank_sidecar_name(int rank);       // "rank-00003.capture.jsonl"

// The rank file's JSON text (trace format rank file, one task per line).
std::string rank_file_text(const RankCapture& capture);

// Writes both files of `capture` into `folder` (atomically, each).
void write_rank_files(const RankCapture& capture, const std::string& folder);

struct MergeSummary {
  int world_size = 0;
  int tasks = 0;
  int communicators = 0;
};

// Reads every rank's sidecar in `folder`, checks that ranks 0…N-1 are each there once and that
// every communicator's ranks agree (size, one process per rank in it), and writes
// `folder`/manifest.json with the communicators' groups (global ranks in communicator-rank
// order), metadata and the rank files. `extra_metadata` is added (the command line, …).
// Throws InputError naming the file and field on anything inconsistent.
MergeSummary write_manifest(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& extra_metadata);

}  // namespace scalecast::gpu_trace
