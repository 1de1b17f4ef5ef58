#include "gpu_trace/record_io.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "gpu_trace/flat_json.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

namespace {

// Builds one line: `{"record":"kernel","name":"k",...}`.
class LineWriter {
 public:
  explicit LineWriter(const char* type) { text_ = std::string("{\"record\":") + json_quote(type); }
  LineWriter& str(const char* key, const std::string& value) { return raw(key, json_quote(value)); }
  LineWriter& u64(const char* key, uint64_t value) { return raw(key, std::to_string(value)); }
  LineWriter& i64(const char* key, int64_t value) { return raw(key, std::to_string(value)); }
  LineWriter& real(const char* key, double value) { return raw(key, json_number(value)); }
  std::string done() const { return text_ + "}\n"; }

 private:
  LineWriter& raw(const char* key, const std::string& value) {
    text_ += ",";
    text_ += json_quote(key);
    text_ += ":";
    text_ += value;
    return *this;
  }
  std::string text_;
};

}  // namespace

void write_records(const ProcessRecords& r, std::ostream& out) {
  out << "{\"format\":" << json_quote(kRecordFileFormat) << ",\"version\":" << kRecordFileVersion
      << ",\"rank\":" << r.rank << ",\"gpu_name\":" << json_quote(r.gpu_name)
      << ",\"dropped_records\":" << r.dropped_records << ",\"overhead_s\":" << json_number(r.overhead_s) << "}\n";
  for (const auto& a : r.activities)
    out << LineWriter(to_string(a.kind)).str("name", a.name).u64("correlation_id", a.correlation_id)
               .u64("device", a.device).u64("stream", a.stream).u64("start_ns", a.start_ns).u64("end_ns", a.end_ns)
               .u64("bytes", a.bytes).done();
  for (const auto& l : r.launches)
    out << LineWriter("launch").u64("correlation_id", l.correlation_id).u64("thread_id", l.thread_id)
               .u64("start_ns", l.start_ns).u64("end_ns", l.end_ns).done();
  for (const auto& c : r.correlations)
    out << LineWriter("external").u64("correlation_id", c.correlation_id).u64("external_id", c.external_id).done();
  for (const auto& g : r.ranges) {
    LineWriter line("range");
    line.str("kind", to_string(g.kind)).str("name", g.name).u64("thread_id", g.thread_id).u64("start_ns", g.start_ns)
        .u64("end_ns", g.end_ns).i64("depth", g.depth);
    if (!g.domain.empty()) line.str("domain", g.domain);  // absent: the default domain
    out << line.done();
  }
  for (const auto& c : r.communicators)
    out << LineWriter("communicator").u64("handle", c.handle).u64("stable_id", c.stable_id).i64("nranks", c.nranks)
               .i64("rank", c.rank).i64("device", c.device).str("created_by", c.created_by).done();
  for (const auto& [key, value] : r.notes) out << LineWriter("note").str("key", key).str("value", value).done();
  for (const auto& n : r.nccl_calls)
    out << LineWriter("nccl").u64("sequence", n.sequence).str("op", to_string(n.op)).u64("count", n.count)
               .i64("dtype", n.dtype).i64("red_op", n.red_op).i64("root_or_peer", n.root_or_peer).u64("comm", n.comm)
               .u64("stream", n.stream).u64("group_id", n.group_id).i64("group_depth", n.group_depth)
               .u64("host_start_ns", n.host_start_ns).u64("host_end_ns", n.host_end_ns).i64("result", n.result)
               .done();
}

ProcessRecords read_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot be read");
  return read_records(in, path);
}

namespace {

void read_header(LineReader& reader, ProcessRecords& r) {
  if (!reader.has("format") || reader.str("format") != kRecordFileFormat)
    reader.fail("format", std::string("the first line must be the header {\"format\": \"") + kRecordFileFormat + "\", …}");
  if (reader.i64("version") != kRecordFileVersion)
    reader.fail("version", "is not " + std::to_string(kRecordFileVersion) + ", the version this build reads");
  r.rank = reader.i32("rank");
  r.gpu_name = reader.str("gpu_name");
  r.dropped_records = reader.u64("dropped_records");
  r.overhead_s = reader.real("overhead_s");
}

GpuActivity read_activity(LineReader& reader, ActivityKind kind) {
  GpuActivity a;
  a.kind = kind;
  a.name = reader.str("name");
  a.correlation_id = static_cast<uint32_t>(reader.u64("correlation_id"));
  a.device = static_cast<uint32_t>(reader.u64("device"));
  a.stream = static_cast<uint32_t>(reader.u64("stream"));
  a.start_ns = reader.u64("start_ns");
  a.end_ns = reader.u64("end_ns");
  a.bytes = reader.u64("bytes");
  return a;  // incomplete timing (start 0, end before start) is the conversion's to drop
}

CpuLaunch read_launch(LineReader& reader) {
  CpuLaunch l;
  l.correlation_id = static_cast<uint32_t>(reader.u64("correlation_id"));
  l.thread_id = reader.u64("thread_id");
  l.start_ns = reader.u64("start_ns");
  l.end_ns = reader.u64("end_ns");
  return l;
}

CpuRange read_range(LineReader& reader) {
  CpuRange g;
  if (!parse_range_kind(reader.str("kind"), g.kind)) reader.fail("kind", "is not push_pop, start_end or profiler");
  g.name = reader.str("name");
  g.thread_id = reader.u64("thread_id");
  g.start_ns = reader.u64("start_ns");
  g.end_ns = reader.u64("end_ns");
  g.depth = reader.i32("depth");
  if (reader.has("domain")) g.domain = reader.str("domain");
  return g;
}

CommunicatorRecord read_communicator(LineReader& reader) {
  CommunicatorRecord c;
  c.handle = reader.u64("handle");
  c.stable_id = reader.u64("stable_id");
  c.nranks = reader.i32("nranks");
  c.rank = reader.i32("rank");
  c.device = reader.i32("device");
  c.created_by = reader.str("created_by");
  if (c.nranks < 1) reader.fail("nranks", "must be at least 1");
  if (c.rank < 0 || c.rank >= c.nranks) reader.fail("rank", "must lie in [0, nranks)");
  return c;
}

NcclCall read_nccl_call(LineReader& reader) {
  NcclCall n;
  n.sequence = reader.u64("sequence");
  if (!parse_nccl_op(reader.str("op"), n.op)) reader.fail("op", "is not an NCCL operation scalecast knows");
  n.count = reader.u64("count");
  n.dtype = reader.i32("dtype");
  n.red_op = reader.i32("red_op");
  n.root_or_peer = reader.i32("root_or_peer");
  n.comm = reader.u64("comm");
  n.stream = reader.u64("stream");
  n.group_id = reader.u64("group_id");
  n.group_depth = reader.i32("group_depth");
  n.host_start_ns = reader.u64("host_start_ns");
  n.host_end_ns = reader.u64("host_end_ns");
  n.result = reader.i32("result");
  if (!nccl_dtype_bytes(n.dtype)) reader.fail("dtype", "is not an ncclDataType_t value (0-11)");
  return n;
}

// One line after the header, by its "record" field.
void read_record(LineReader& reader, ProcessRecords& r) {
  if (!reader.has("record")) reader.fail("record", "is missing (every line after the header names its record type)");
  const std::string type = reader.str("record");
  ActivityKind kind;
  if (parse_activity_kind(type, kind))
    r.activities.push_back(read_activity(reader, kind));
  else if (type == "launch")
    r.launches.push_back(read_launch(reader));
  else if (type == "external")
    r.correlations.push_back({static_cast<uint32_t>(reader.u64("correlation_id")), reader.u64("external_id")});
  else if (type == "range")
    r.ranges.push_back(read_range(reader));
  else if (type == "communicator")
    r.communicators.push_back(read_communicator(reader));
  else if (type == "nccl")
    r.nccl_calls.push_back(read_nccl_call(reader));
  else if (type == "note")
    r.notes[reader.str("key")] = reader.str("value");
  else
    reader.fail("record", "\"" + type + "\" is not a record type (kernel, memcpy, memset, launch, external, range, communicator, nccl, note)");
}

}  // namespace

ProcessRecords read_records(std::istream& in, const std::string& source) {
  ProcessRecords r;
  std::string text;
  int line = 0;
  bool header_seen = false;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    FlatObject object;
    std::string problem;
    if (!parse_flat_object(text, object, problem)) throw InputError(source, "line " + std::to_string(line), problem);
    LineReader reader(source, line, std::move(object));
    if (header_seen)
      read_record(reader, r);
    else
      read_header(reader, r);
    header_seen = true;
    reader.check_all_used();
  }
  if (!header_seen) throw InputError(source, "", "is empty; expected a capture record file");
  return r;
}

}  // namespace scalecast::gpu_trace
