#include "sim/import/message_pairing.h"

#include <map>
#include <set>
#include <tuple>

namespace scalecast {

namespace {

using TaskId = std::pair<int, int>;  // (program, task)

bool is_message(const Task& task) { return task.kind == TaskKind::send || task.kind == TaskKind::recv; }

// Tasks of messages that do not pair, on any rank running them.
std::set<TaskId> unpaired(const ExecutionGraph& graph) {
  const int world = graph.world_size();
  std::map<std::tuple<int, int, int>, std::vector<TaskId>> sends, recvs;  // (source, destination, tag)
  std::set<TaskId> out;
  for (int rank = 0; rank < world; ++rank) {
    const int p = graph.program_of_rank[rank];
    const auto& tasks = graph.programs[p].tasks;
    for (size_t t = 0; t < tasks.size(); ++t) {
      const Task& task = tasks[t];
      if (!is_message(task)) continue;
      const int peer = rank + task.peer_offset;
      if (peer < 0 || peer >= world || peer == rank) {
        out.insert({p, static_cast<int>(t)});
        continue;
      }
      const bool send = task.kind == TaskKind::send;
      (send ? sends : recvs)[{send ? rank : peer, send ? peer : rank, task.tag}].push_back({p, static_cast<int>(t)});
    }
  }
  auto bytes = [&](const TaskId& id) { return graph.programs[id.first].tasks[id.second].bytes; };
  std::set<std::tuple<int, int, int>> keys;
  for (const auto& [key, list] : sends) keys.insert(key);
  for (const auto& [key, list] : recvs) keys.insert(key);
  for (const auto& key : keys) {
    const auto& s = sends[key];
    const auto& r = recvs[key];
    for (size_t k = 0; k < std::max(s.size(), r.size()); ++k) {
      if (k < s.size() && k < r.size() && bytes(s[k]) == bytes(r[k])) continue;
      if (k < s.size()) out.insert(s[k]);
      if (k < r.size()) out.insert(r[k]);
    }
  }
  return out;
}

}  // namespace

long demote_unpaired_messages(ExecutionGraph& graph) {
  long demoted = 0;
  // Demoting one message shifts the order in which the later ones pair: repeat until all pair.
  for (std::set<TaskId> bad = unpaired(graph); !bad.empty(); bad = unpaired(graph))
    for (const auto& [p, t] : bad) {
      Task& task = graph.programs[p].tasks[t];
      task.kind = TaskKind::compute;
      task.peer_offset = 0;
      task.tag = 0;
      task.bytes = 0;
      task.name += " (measured: no partner)";
      ++demoted;
    }
  for (RankProgram& program : graph.programs)
    for (Task& task : program.tasks)
      if (is_message(task)) task.duration_s = 0;
  return demoted;
}

}  // namespace scalecast
