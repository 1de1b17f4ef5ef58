#include "gpu_trace/rank_files.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gpu_trace/flat_json.h"
#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

namespace {

constexpr const char* kSidecarFormat = "scalecast-capture-rank";

std::string padded(int rank) {
  char text[16];
  std::snprintf(text, sizeof text, "%05d", rank);
  return text;
}

// One task in the trace format, fields in FORMAT.md's order, defaults left out.
std::string task_text(const Task& t) {
  std::string s = "{\"kind\":" + json_quote(to_string(t.kind));
  if (!t.name.empty()) s += ",\"name\":" + json_quote(t.name);
  if (t.stream != 0) s += ",\"stream\":" + std::to_string(t.stream);
  if (t.step != -1) s += ",\"step\":" + std::to_string(t.step);
  if (!t.deps.empty()) {
    s += ",\"deps\":[";
    for (size_t i = 0; i < t.deps.size(); ++i) {
      if (i) s += ",";
      if (t.deps[i].rank_offset == 0) s += std::to_string(t.deps[i].task);
      else s += "{\"rank_offset\":" + std::to_string(t.deps[i].rank_offset) + ",\"task\":" + std::to_string(t.deps[i].task) + "}";
    }
    s += "]";
  }
  switch (t.kind) {
    case TaskKind::compute:
      s += ",\"duration_s\":" + json_number(t.duration_s);
      if (t.flops) s += ",\"flops\":" + json_number(t.flops);
      if (t.memory_bytes) s += ",\"memory_bytes\":" + json_number(t.memory_bytes);
      if (!t.op_kind.empty()) s += ",\"op_kind\":" + json_quote(t.op_kind);
      break;
    case TaskKind::collective:
      s += ",\"op\":" + json_quote(to_string(t.op)) + ",\"communicator\":" + std::to_string(t.communicator) +
           ",\"bytes\":" + json_number(t.bytes);
      if (t.dtype != "float32") s += ",\"dtype\":" + json_quote(t.dtype);
      if (t.root) s += ",\"root\":" + std::to_string(t.root);
      break;
    case TaskKind::send:
    case TaskKind::recv:
      s += ",\"peer_offset\":" + std::to_string(t.peer_offset);
      if (t.tag) s += ",\"tag\":" + std::to_string(t.tag);
      s += ",\"bytes\":" + json_number(t.bytes);
      break;
  }
  return s + "}";
}

struct Sidecar {
  std::string path;
  int rank = -1;
  std::string traced_gpu;
  std::map<std::string, std::string> metadata;
  std::vector<RankCommunicator> communicators;
};

Sidecar read_sidecar(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot be read");
  Sidecar sidecar;
  sidecar.path = path;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    FlatObject object;
    std::string problem;
    if (!parse_flat_object(text, object, problem)) throw InputError(path, "line " + std::to_string(line), problem);
    LineReader reader(path, line, std::move(object));
    if (line == 1) {
      if (!reader.has("format") || reader.str("format") != kSidecarFormat)
        reader.fail("format", std::string("is not \"") + kSidecarFormat + "\"");
      if (reader.i64("version") != 1) reader.fail("version", "is not 1");
      sidecar.rank = reader.i32("rank");
      sidecar.traced_gpu = reader.str("traced_gpu");
    } else {
      const std::string type = reader.str("record");
      if (type == "metadata") {
        sidecar.metadata[reader.str("key")] = reader.str("value");
      } else if (type == "communicator") {
        RankCommunicator c;
        c.trace_id = reader.i32("id");
        c.stable_id = reader.u64("stable_id");
        c.nranks = reader.i32("nranks");
        c.rank = reader.i32("rank");
        if (c.nranks < 1 || c.rank < 0 || c.rank >= c.nranks) reader.fail("rank", "must lie in [0, nranks)");
        sidecar.communicators.push_back(c);
      } else {
        reader.fail("record", "\"" + type + "\" is not metadata or communicator");
      }
    }
    reader.check_all_used();
  }
  if (line == 0) throw InputError(path, "", "is empty");
  return sidecar;
}

}  // namespace

std::string rank_file_name(int rank) { return "rank-" + padded(rank) + ".json"; }
std::string rank_sidecar_name(int rank) { return "rank-" + padded(rank) + ".capture.jsonl"; }

std::string rank_file_text(const RankCapture& capture) {
  std::string s = "{\n  \"format\": \"scalecast-trace-rank\",\n  \"version\": 1,\n  \"rank\": " + std::to_string(capture.rank) +
                  ",\n  \"tasks\": [";
  for (size_t i = 0; i < capture.tasks.size(); ++i) s += (i ? ",\n    " : "\n    ") + task_text(capture.tasks[i]);
  s += capture.tasks.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

void write_rank_files(const RankCapture& capture, const std::string& folder) {
  std::string sidecar = "{\"format\":" + json_quote(kSidecarFormat) + ",\"version\":1,\"rank\":" +
                        std::to_string(capture.rank) + ",\"traced_gpu\":" + json_quote(capture.traced_gpu) + "}\n";
  for (const auto& [key, value] : capture.metadata)
    sidecar += "{\"record\":\"metadata\",\"key\":" + json_quote(key) + ",\"value\":" + json_quote(value) + "}\n";
  for (const auto& c : capture.communicators)
    sidecar += "{\"record\":\"communicator\",\"id\":" + std::to_string(c.trace_id) + ",\"stable_id\":" +
               std::to_string(c.stable_id) + ",\"nranks\":" + std::to_string(c.nranks) + ",\"rank\":" +
               std::to_string(c.rank) + "}\n";
  // The rank file first: the sidecar's presence is what tells the merge that the rank is done.
  write_file_atomically(folder + "/" + rank_file_name(capture.rank), rank_file_text(capture));
  write_file_atomically(folder + "/" + rank_sidecar_name(capture.rank), sidecar);
}

MergeSummary write_manifest(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& extra_metadata) {
  namespace fs = std::filesystem;
  std::map<int, Sidecar> ranks;
  const std::regex sidecar_name("rank-(\\d{5,})\\.capture\\.jsonl");
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, sidecar_name)) continue;
    Sidecar sidecar = read_sidecar(entry.path().string());
    if (sidecar.rank != std::stoi(match[1])) throw InputError(sidecar.path, "rank", "does not match the file name");
    ranks[sidecar.rank] = std::move(sidecar);
  }
  if (error) throw InputError(folder, "", "cannot be listed: " + error.message());
  if (ranks.empty())
    throw InputError(folder, "", "holds no rank files: the command made no CUDA or NCCL calls that the capture saw "
                                 "(is the program using the GPU? was it started through scalecast capture?)");
  const int world = static_cast<int>(ranks.size());
  for (int r = 0; r < world; ++r) {
    if (!ranks.count(r))
      throw InputError(folder, rank_sidecar_name(r),
                       "is missing: " + std::to_string(world) + " ranks wrote files but not ranks 0…" + std::to_string(world - 1) +
                           " (a rank that crashed, or ranks taken from a variable that is not the global rank)");
    if (!fs::exists(fs::path(folder) / rank_file_name(r))) throw InputError(folder, rank_file_name(r), "is missing");
  }

  // Communicators: members in communicator-rank order; every rank agrees on the size.
  struct Group {
    uint64_t stable_id = 0;
    int nranks = 0;
    std::map<int, int> global_of;  // communicator rank → global rank
  };
  std::map<int, Group> groups;
  for (const auto& [rank, sidecar] : ranks) {
    for (const auto& c : sidecar.communicators) {
      Group& g = groups[c.trace_id];
      if (g.nranks == 0) {
        g.stable_id = c.stable_id;
        g.nranks = c.nranks;
      }
      if (g.stable_id != c.stable_id)
        throw InputError(sidecar.path, "communicator " + std::to_string(c.trace_id),
                         "two different communicators share this id (a hash collision); capture again");
      if (g.nranks != c.nranks)
        throw InputError(sidecar.path, "communicator " + std::to_string(c.trace_id),
                         "has " + std::to_string(c.nranks) + " ranks here but " + std::to_string(g.nranks) + " on another rank");
      if (!g.global_of.emplace(c.rank, rank).second)
        throw InputError(sidecar.path, "communicator " + std::to_string(c.trace_id),
                         "rank " + std::to_string(c.rank) + " of it is claimed by two processes");
    }
  }
  std::string communicators;
  for (const auto& [id, g] : groups) {
    if (static_cast<int>(g.global_of.size()) != g.nranks)
      throw InputError(folder, "communicator " + std::to_string(id),
                       "has " + std::to_string(g.nranks) + " ranks but only " + std::to_string(g.global_of.size()) +
                           " of them were captured (capture every process of the job)");
    std::string members;
    for (const auto& [comm_rank, global] : g.global_of) {
      if (!members.empty()) members += ",";
      members += std::to_string(global);
    }
    communicators += std::string(communicators.empty() ? "\n    " : ",\n    ") + "{\"id\": " + std::to_string(id) +
                     ", \"name\": \"nccl-" + std::to_string(g.stable_id % 100000) + "\", \"ranks\": [" + members + "]}";
  }

  // Metadata: rank 0's, with the largest overhead and drops over all ranks.
  std::map<std::string, std::string> metadata = ranks[0].metadata;
  double overhead_max = 0;
  unsigned long long dropped = 0;
  for (const auto& [rank, sidecar] : ranks) {
    auto o = sidecar.metadata.find("capture.overhead_s");
    if (o != sidecar.metadata.end()) overhead_max = std::max(overhead_max, std::strtod(o->second.c_str(), nullptr));
    auto d = sidecar.metadata.find("capture.dropped_records");
    if (d != sidecar.metadata.end()) dropped += std::strtoull(d->second.c_str(), nullptr, 10);
  }
  char overhead_text[32];
  std::snprintf(overhead_text, sizeof overhead_text, "%.9g", overhead_max);
  metadata["capture.overhead_s"] = overhead_text;
  metadata["capture.dropped_records"] = std::to_string(dropped);
  for (const auto& [key, value] : extra_metadata) metadata[key] = value;

  std::string text = "{\n  \"format\": \"scalecast-trace\",\n  \"version\": 1,\n  \"origin\": \"capture\",\n";
  if (!ranks[0].traced_gpu.empty()) text += "  \"traced_gpu\": " + json_quote(ranks[0].traced_gpu) + ",\n";
  text += "  \"metadata\": {";
  bool first = true;
  for (const auto& [key, value] : metadata) {
    text += std::string(first ? "\n    " : ",\n    ") + json_quote(key) + ": " + json_quote(value);
    first = false;
  }
  text += "\n  },\n  \"communicators\": [" + communicators + (communicators.empty() ? "],\n" : "\n  ],\n");
  text += "  \"world_size\": " + std::to_string(world) + ",\n  \"rank_files\": [";
  for (int r = 0; r < world; ++r) text += (r ? ", " : "") + json_quote(rank_file_name(r));
  text += "]\n}\n";
  write_file_atomically(folder + "/manifest.json", text);

  MergeSummary summary;
  summary.world_size = world;
  summary.communicators = static_cast<int>(groups.size());
  return summary;
}

}  // namespace scalecast::gpu_trace
