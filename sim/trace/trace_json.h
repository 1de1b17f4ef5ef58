// Trace files: the execution graph on disk, as JSON (format "scalecast-trace", version 2; version 1 is read too).
// traces/FORMAT.md is the schema in prose; traces/trace.schema.json the single-file form as
// JSON Schema.
//
// Two forms hold the same graph:
//   - one `.json` file with every rank: programs shared by ranks plus `rank_programs`;
//   - a directory with `manifest.json` (world size, communicators, metadata, the list of rank
//     files) and one `rank-NNNNN.json` per rank holding that rank's tasks. Capture writes this
//     form (each process writes its own file); ranks with identical tasks share one program
//     again when the directory is read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/trace/execution_graph.h"

namespace scalecast {

constexpr const char* kTraceFormatName = "scalecast-trace";
constexpr const char* kRankFileFormatName = "scalecast-trace-rank";

// What to tell a user who passed a PyTorch profiler (Kineto) trace, plain or gzip-compressed,
// where a scalecast trace is read: import it first.
std::string kineto_import_hint(const std::string& path);
// Throws InputError (with kineto_import_hint) when `text`, read from `path`, is gzip-compressed:
// scalecast traces and timelines are plain JSON; a .json.gz is most likely a Kineto trace.
void reject_gzip(const std::string& path, const std::string& text);

// Reads a trace: a `.json` file, a trace directory, or the `manifest.json` inside one.
// Throws InputError naming the file and the field (or, for broken JSON, the line and byte
// offset) for a Kineto trace or a gzip file (kineto_import_hint), syntax errors, schema errors
// (missing or unknown fields, wrong types), an unsupported format version, and everything
// validate() rejects.
ExecutionGraph read_trace(const std::string& path);

// Writes `graph` to `path`: one file when the path ends in ".json", a trace directory otherwise.
// The output is deterministic (same graph, same bytes) and atomic: an interrupted or failed
// write leaves no partial file or directory behind, and replaces an earlier trace only whole.
// The graph is validated first; an invalid one throws InputError and writes nothing.
// The directory form numbers programs by first use and drops unused ones, so a graph whose
// programs are not in that order reads back with the same ranks and tasks but renumbered
// programs.
void write_trace(const ExecutionGraph& graph, const std::string& path);

// The single-file form as a JSON value (default-valued fields omitted), and back. from_json
// checks the schema and calls validate(); `source` names the input in error messages.
nlohmann::json to_json(const ExecutionGraph& graph);
ExecutionGraph from_json(const nlohmann::json& document, const std::string& source);

}  // namespace scalecast
