// Export of a simulated timeline in the Chrome trace event format (JSON object form), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Each task is a complete event ("ph": "X") with ts and dur in microseconds; pid is the rank and
// tid the stream, named by metadata events ("rank 3", "stream 0 (compute)"); args hold the
// task's step and bytes.
//
// A viewer cannot usefully show thousands of processes, and the events of ranks in one rank
// class are identical anyway. So when the world has more than `max_ranks` ranks, each rank class
// becomes one process (pid = its first rank) labelled with the ranks it stands for
// ("ranks 0-1023 (class 0)"), and a "process_labels" metadata event and the top-level
// "otherData" say that ranks were grouped.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/timeline/timeline.h"

namespace scalecast {

struct ChromeTraceOptions {
  int max_ranks = 64;  // expand classes to one process per rank up to this world size
};

// Streams the trace (one event per line) so that large timelines are not built in memory.
void write_chrome_trace(const Timeline& timeline, std::ostream& out, const ChromeTraceOptions& options = {});

// Writes atomically; throws InputError when the path cannot be written.
void write_chrome_trace(const Timeline& timeline, const std::string& path, const ChromeTraceOptions& options = {});

// The same trace as a JSON value (for tests and small timelines).
nlohmann::json chrome_trace_json(const Timeline& timeline, const ChromeTraceOptions& options = {});

// "0-3,8,10-11": sorted ranks as ranges, for labels.
std::string rank_ranges_text(std::vector<int> ranks);

}  // namespace scalecast
