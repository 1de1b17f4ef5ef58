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

// A communicator across the ranks that use it: members in communicator-rank order.
struct Group {
  uint64_t stable_id = 0;
  int nranks = 0;
  bool collectives = false;      // some rank ran collectives on it: a trace communicator
  std::map<int, int> global_of;  // communicator rank → global rank
};

std::string sidecar_path(const std::string& folder, int rank) { return folder + "/" + rank_sidecar_name(rank); }

// Every rank's capture file (communicators and metadata only), by rank; ranks 0…N-1 each once.
std::map<int, RankCapture> read_ranks(const std::string& folder) {
  namespace fs = std::filesystem;
  std::map<int, RankCapture> ranks;
  const std::regex sidecar_name("rank-(\\d{5,})\\.capture\\.jsonl");
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, match, sidecar_name)) continue;
    RankCapture rank = read_rank_capture(entry.path().string(), false);
    if (rank.rank != std::stoi(match[1])) throw InputError(entry.path().string(), "rank", "does not match the file name");
    ranks[rank.rank] = std::move(rank);
  }
  if (error) throw InputError(folder, "", "cannot be listed: " + error.message());
  if (ranks.empty())
    throw InputError(folder, "", "holds no rank files: the command made no CUDA or NCCL calls that the capture saw "
                                 "(is the program using the GPU? was it started through scalecast capture?)");
  const int world = static_cast<int>(ranks.size());
  for (int r = 0; r < world; ++r)
    if (!ranks.count(r))
      throw InputError(folder, rank_sidecar_name(r),
                       "is missing: " + std::to_string(world) + " ranks wrote files but not ranks 0…" + std::to_string(world - 1) +
                           " (a rank that crashed, or ranks taken from a variable that is not the global rank)");
  return ranks;
}

// The communicators by trace id; every rank agrees on each one's size, and each of its ranks is
// one captured process.
std::map<int, Group> communicator_groups(const std::string& folder, const std::map<int, RankCapture>& ranks) {
  std::map<int, Group> groups;
  for (const auto& [rank, capture] : ranks) {
    const std::string path = sidecar_path(folder, rank);
    for (const auto& c : capture.communicators) {
      Group& g = groups[c.trace_id];
      if (g.nranks == 0) {
        g.stable_id = c.stable_id;
        g.nranks = c.nranks;
      }
      const std::string field = "communicator " + std::to_string(c.trace_id);
      if (g.stable_id != c.stable_id)
        throw InputError(path, field, "two different communicators share this id (a hash collision); capture again");
      if (g.nranks != c.nranks)
        throw InputError(path, field,
                         "has " + std::to_string(c.nranks) + " ranks here but " + std::to_string(g.nranks) + " on another rank");
      if (!g.global_of.emplace(c.rank, rank).second)
        throw InputError(path, field, "rank " + std::to_string(c.rank) + " of it is claimed by two processes");
      g.collectives |= c.collectives;
    }
  }
  for (const auto& [id, g] : groups)
    if (static_cast<int>(g.global_of.size()) != g.nranks)
      throw InputError(folder, "communicator " + std::to_string(id),
                       "has " + std::to_string(g.nranks) + " ranks but only " + std::to_string(g.global_of.size()) +
                           " of them were captured (capture every process of the job)");
  return groups;
}

// Writes rank `rank`'s trace file: its tasks, each message's peer_offset from the global rank of
// its peer (a communicator rank until now). Returns the number of tasks.
size_t write_rank_file(const std::string& folder, int rank, const std::map<int, Group>& groups) {
  const std::string path = sidecar_path(folder, rank);
  RankCapture capture = read_rank_capture(path, true);
  for (const PeerMessage& m : capture.messages) {
    auto group = groups.find(m.communicator);
    auto peer = group == groups.end() ? std::map<int, int>::const_iterator{} : group->second.global_of.find(m.peer);
    if (group == groups.end() || peer == group->second.global_of.end())
      throw InputError(path, "message of task " + std::to_string(m.task),
                       "its peer, rank " + std::to_string(m.peer) + " of communicator " + std::to_string(m.communicator) +
                           ", is not a rank of a communicator this rank declared");
    capture.tasks[m.task].peer_offset = peer->second - rank;
  }
  write_file_atomically(folder + "/" + rank_file_name(rank), rank_file_text(capture));
  return capture.tasks.size();
}

std::string communicators_text(const std::map<int, Group>& groups) {
  std::string text;
  for (const auto& [id, g] : groups) {
    if (!g.collectives) continue;  // messages only: no collective refers to it
    std::string members;
    for (const auto& [comm_rank, global] : g.global_of) members += (members.empty() ? "" : ",") + std::to_string(global);
    text += std::string(text.empty() ? "\n    " : ",\n    ") + "{\"id\": " + std::to_string(id) + ", \"name\": \"nccl-" +
            std::to_string(g.stable_id % 100000) + "\", \"ranks\": [" + members + "]}";
  }
  return text;
}

// Rank 0's metadata, with the largest overhead and the drops summed over all ranks, and `extra`.
std::map<std::string, std::string> merged_metadata(const std::map<int, RankCapture>& ranks,
                                                   const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> metadata = ranks.at(0).metadata;
  double overhead_max = 0;
  unsigned long long dropped = 0;
  for (const auto& [rank, capture] : ranks) {
    auto o = capture.metadata.find("capture.overhead_s");
    if (o != capture.metadata.end()) overhead_max = std::max(overhead_max, std::strtod(o->second.c_str(), nullptr));
    auto d = capture.metadata.find("capture.dropped_records");
    if (d != capture.metadata.end()) dropped += std::strtoull(d->second.c_str(), nullptr, 10);
  }
  char overhead_text[32];
  std::snprintf(overhead_text, sizeof overhead_text, "%.9g", overhead_max);
  metadata["capture.overhead_s"] = overhead_text;
  metadata["capture.dropped_records"] = std::to_string(dropped);
  for (const auto& [key, value] : extra) metadata[key] = value;
  return metadata;
}

std::string manifest_text(const std::string& traced_gpu, const std::map<std::string, std::string>& metadata,
                          const std::string& communicators, int world) {
  std::string text = "{\n  \"format\": \"scalecast-trace\",\n  \"version\": 1,\n  \"origin\": \"capture\",\n";
  if (!traced_gpu.empty()) text += "  \"traced_gpu\": " + json_quote(traced_gpu) + ",\n";
  text += "  \"metadata\": {";
  bool first = true;
  for (const auto& [key, value] : metadata) {
    text += std::string(first ? "\n    " : ",\n    ") + json_quote(key) + ": " + json_quote(value);
    first = false;
  }
  text += "\n  },\n  \"communicators\": [" + communicators + (communicators.empty() ? "],\n" : "\n  ],\n");
  text += "  \"world_size\": " + std::to_string(world) + ",\n  \"rank_files\": [";
  for (int r = 0; r < world; ++r) text += (r ? ", " : "") + json_quote(rank_file_name(r));
  return text + "]\n}\n";
}

}  // namespace

std::string rank_file_name(int rank) { return "rank-" + padded(rank) + ".json"; }

std::string rank_file_text(const RankCapture& capture) {
  std::string s = "{\n  \"format\": \"scalecast-trace-rank\",\n  \"version\": 1,\n  \"rank\": " + std::to_string(capture.rank) +
                  ",\n  \"tasks\": [";
  for (size_t i = 0; i < capture.tasks.size(); ++i) s += (i ? ",\n    " : "\n    ") + task_text(capture.tasks[i]);
  s += capture.tasks.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

MergeSummary write_manifest(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& extra_metadata) {
  const std::map<int, RankCapture> ranks = read_ranks(folder);
  const std::map<int, Group> groups = communicator_groups(folder, ranks);
  MergeSummary summary;
  summary.world_size = static_cast<int>(ranks.size());
  for (const auto& [rank, capture] : ranks) summary.tasks += static_cast<int>(write_rank_file(folder, rank, groups));
  const std::string communicators = communicators_text(groups);
  for (const auto& [id, g] : groups) summary.communicators += g.collectives;
  write_file_atomically(folder + "/manifest.json", manifest_text(ranks.at(0).traced_gpu, merged_metadata(ranks, extra_metadata),
                                                                 communicators, summary.world_size));
  return summary;
}

}  // namespace scalecast::gpu_trace
