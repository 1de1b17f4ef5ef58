// The merge of a capture directory into a trace directory: every rank's
// `rank-NNNNN.capture.jsonl` (rank_sidecar.h, written by the capture library at exit) becomes
// `rank-NNNNN.json`, a rank file of the trace format (FORMAT.md), and `manifest.json` names
// them. Written without a JSON library (the capture-only build) so that capture works on machines
// with only the CUDA toolkit; every file atomically (temporary file + rename), the manifest last.
#pragma once

#include <string>
#include <vector>

#include "gpu_trace/convert.h"
#include "gpu_trace/rank_sidecar.h"

namespace scalecast::gpu_trace {

std::string rank_file_name(int rank);  // "rank-00003.json"

// The rank file's JSON text (trace format rank file, one task per line).
std::string rank_file_text(const RankCapture& capture);

struct MergeSummary {
  int world_size = 0;
  int tasks = 0;
  int communicators = 0;
};

// Reads every rank's capture file in `folder`, checks that ranks 0…N-1 are each there once and
// that every communicator's ranks agree (size, one process per rank in it), writes each rank's
// trace file with its messages' peers mapped to global ranks, and `folder`/manifest.json with
// the communicators collectives ran on (global ranks in communicator-rank order), metadata and
// the rank files. `extra_metadata` is added (the command line, …). Throws InputError naming the
// file and field on anything inconsistent.
MergeSummary write_manifest(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& extra_metadata);

}  // namespace scalecast::gpu_trace
