#include "gpu_trace/rank_sidecar.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpu_trace/flat_json.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

namespace {

constexpr const char* kFormat = "scalecast-capture-rank";
constexpr int kVersion = 2;  // 2: tasks and messages here, the rank file written by the merge

// A task as one flat line: every field of its kind, its same-rank dependencies as "3 7 12".
std::string task_line(const Task& t) {
  std::string deps;
  for (const TaskRef& d : t.deps) {
    if (d.rank_offset != 0) throw std::logic_error("a captured task depends on another rank's task");
    deps += (deps.empty() ? "" : " ") + std::to_string(d.task);
  }
  std::string s = "{\"record\":\"task\",\"kind\":" + json_quote(to_string(t.kind)) + ",\"name\":" + json_quote(t.name) +
                  ",\"stream\":" + std::to_string(t.stream) + ",\"step\":" + std::to_string(t.step) +
                  ",\"deps\":" + json_quote(deps);
  switch (t.kind) {
    case TaskKind::compute:
      s += ",\"duration_s\":" + json_number(t.duration_s) + ",\"flops\":" + json_number(t.flops) +
           ",\"memory_bytes\":" + json_number(t.memory_bytes) + ",\"op_kind\":" + json_quote(t.op_kind);
      break;
    case TaskKind::collective:
      s += ",\"op\":" + json_quote(to_string(t.op)) + ",\"communicator\":" + std::to_string(t.communicator) +
           ",\"bytes\":" + json_number(t.bytes) + ",\"dtype\":" + json_quote(t.dtype) + ",\"root\":" + std::to_string(t.root);
      break;
    case TaskKind::send:
    case TaskKind::recv:
      s += ",\"peer_offset\":" + std::to_string(t.peer_offset) + ",\"tag\":" + std::to_string(t.tag) +
           ",\"bytes\":" + json_number(t.bytes);
      break;
  }
  return s + "}\n";
}

std::vector<TaskRef> parse_deps(LineReader& reader, int task_index) {
  std::istringstream in(reader.str("deps"));
  std::vector<TaskRef> deps;
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const long task = std::strtol(word.c_str(), &end, 10);
    if (*end || task < 0 || task >= task_index)
      reader.fail("deps", "'" + word + "' is not the index of an earlier task of this rank");
    deps.push_back({0, static_cast<int>(task)});
  }
  return deps;
}

Task read_task(LineReader& reader, int task_index) {
  Task t;
  if (!parse_task_kind(reader.str("kind"), t.kind)) reader.fail("kind", "is not compute, collective, send or recv");
  t.name = reader.str("name");
  t.stream = reader.i32("stream");
  t.step = reader.i32("step");
  t.deps = parse_deps(reader, task_index);
  switch (t.kind) {
    case TaskKind::compute:
      t.duration_s = reader.real("duration_s");
      t.flops = reader.real("flops");
      t.memory_bytes = reader.real("memory_bytes");
      t.op_kind = reader.str("op_kind");
      break;
    case TaskKind::collective:
      if (!parse_collective_op(reader.str("op"), t.op)) reader.fail("op", "is not a collective");
      t.communicator = reader.i32("communicator");
      t.bytes = reader.real("bytes");
      t.dtype = reader.str("dtype");
      t.root = reader.i32("root");
      break;
    case TaskKind::send:
    case TaskKind::recv:
      t.peer_offset = reader.i32("peer_offset");
      t.tag = reader.i32("tag");
      t.bytes = reader.real("bytes");
      break;
  }
  return t;
}

void read_header(LineReader& reader, RankCapture& capture) {
  if (!reader.has("format") || reader.str("format") != kFormat) reader.fail("format", std::string("is not \"") + kFormat + "\"");
  if (reader.i64("version") != kVersion)
    reader.fail("version", "is not " + std::to_string(kVersion) + " (written by another build of the capture library?)");
  capture.rank = reader.i32("rank");
  capture.traced_gpu = reader.str("traced_gpu");
}

RankCommunicator read_communicator(LineReader& reader) {
  RankCommunicator c;
  c.trace_id = reader.i32("id");
  c.stable_id = reader.u64("stable_id");
  c.nranks = reader.i32("nranks");
  c.rank = reader.i32("rank");
  c.collectives = reader.i32("collectives") != 0;
  if (c.nranks < 1 || c.rank < 0 || c.rank >= c.nranks) reader.fail("rank", "must lie in [0, nranks)");
  return c;
}

PeerMessage read_message(LineReader& reader, const RankCapture& capture) {
  PeerMessage m;
  m.task = reader.i32("task");
  m.communicator = reader.i32("communicator");
  m.peer = reader.i32("peer");
  if (m.task < 0 || m.task >= static_cast<int>(capture.tasks.size()) ||
      (capture.tasks[m.task].kind != TaskKind::send && capture.tasks[m.task].kind != TaskKind::recv))
    reader.fail("task", "is not the index of a send or recv task above");
  return m;
}

}  // namespace

std::string rank_sidecar_name(int rank) {
  char text[40];
  std::snprintf(text, sizeof text, "rank-%05d.capture.jsonl", rank);
  return text;
}

void write_rank_capture(const RankCapture& capture, const std::string& folder) {
  std::string text = "{\"format\":" + json_quote(kFormat) + ",\"version\":" + std::to_string(kVersion) +
                     ",\"rank\":" + std::to_string(capture.rank) + ",\"traced_gpu\":" + json_quote(capture.traced_gpu) + "}\n";
  for (const auto& [key, value] : capture.metadata)
    text += "{\"record\":\"metadata\",\"key\":" + json_quote(key) + ",\"value\":" + json_quote(value) + "}\n";
  for (const auto& c : capture.communicators)
    text += "{\"record\":\"communicator\",\"id\":" + std::to_string(c.trace_id) + ",\"stable_id\":" +
            std::to_string(c.stable_id) + ",\"nranks\":" + std::to_string(c.nranks) + ",\"rank\":" + std::to_string(c.rank) +
            ",\"collectives\":" + (c.collectives ? "1" : "0") + "}\n";
  for (const Task& t : capture.tasks) text += task_line(t);
  for (const PeerMessage& m : capture.messages)
    text += "{\"record\":\"message\",\"task\":" + std::to_string(m.task) + ",\"communicator\":" +
            std::to_string(m.communicator) + ",\"peer\":" + std::to_string(m.peer) + "}\n";
  write_file_atomically(folder + "/" + rank_sidecar_name(capture.rank), text);
}

RankCapture read_rank_capture(const std::string& path, bool with_tasks) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot be read");
  RankCapture capture;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    // Tasks are most of the file: the first pass of the merge does not parse them.
    const bool bulk = text.rfind("{\"record\":\"task\"", 0) == 0 || text.rfind("{\"record\":\"message\"", 0) == 0;
    if (bulk && !with_tasks) continue;
    FlatObject object;
    std::string problem;
    if (!parse_flat_object(text, object, problem)) throw InputError(path, "line " + std::to_string(line), problem);
    LineReader reader(path, line, std::move(object));
    if (line == 1) {
      read_header(reader, capture);
    } else {
      const std::string type = reader.str("record");
      if (type == "metadata") capture.metadata[reader.str("key")] = reader.str("value");
      else if (type == "communicator") capture.communicators.push_back(read_communicator(reader));
      else if (type == "task") capture.tasks.push_back(read_task(reader, static_cast<int>(capture.tasks.size())));
      else if (type == "message") capture.messages.push_back(read_message(reader, capture));
      else reader.fail("record", "\"" + type + "\" is not metadata, communicator, task or message");
    }
    reader.check_all_used();
  }
  if (line == 0) throw InputError(path, "", "is empty");
  return capture;
}

}  // namespace scalecast::gpu_trace
