// The record file: what one process recorded (records.h), one JSON object per line. The capture
// library writes it next to the rank's trace when SCALECAST_CAPTURE_RAW=1 (to debug a capture or
// to make a test fixture); tests/data/gpu_trace/ holds such files and the converter tests read
// them. gpu_trace/README.md lists every line type and field.
#pragma once

#include <iosfwd>
#include <string>

#include "gpu_trace/records.h"

namespace scalecast::gpu_trace {

constexpr const char* kRecordFileFormat = "scalecast-capture-records";
constexpr int kRecordFileVersion = 1;

void write_records(const ProcessRecords& records, std::ostream& out);

// Throws InputError(path, "line N.field", problem) on anything malformed: unknown record type or
// field, missing field, wrong type, bad enum value, a first line that is not the header.
ProcessRecords read_records(const std::string& path);
ProcessRecords read_records(std::istream& in, const std::string& source);

}  // namespace scalecast::gpu_trace
