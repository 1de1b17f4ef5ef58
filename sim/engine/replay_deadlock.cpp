#include "sim/engine/replay_deadlock.h"

#include <algorithm>
#include <tuple>

namespace scalecast {

namespace {

constexpr size_t kTasksSpelledOut = 6;  // enough to show a cycle; the rest are counted

std::string task_path(int program, int task) {
  return "programs[" + std::to_string(program) + "].tasks[" + std::to_string(task) + "]";
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size() && i < kTasksSpelledOut; ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > kTasksSpelledOut) text += " and " + std::to_string(ranks.size() - kTasksSpelledOut) + " more";
  return text;
}

}  // namespace

ReplayDeadlock deadlock_error(std::vector<BlockedTask> blocked) {
  if (blocked.empty())
    return ReplayDeadlock("programs", "the ranks' tasks wait for each other and none can run (a cycle of dependencies across ranks)");
  std::sort(blocked.begin(), blocked.end(),
            [](const BlockedTask& a, const BlockedTask& b) { return std::tie(a.rank, a.task) < std::tie(b.rank, b.task); });
  std::string detail = "the ranks wait for each other forever: ";
  for (size_t i = 0; i < blocked.size() && i < kTasksSpelledOut; ++i) {
    const BlockedTask& b = blocked[i];
    detail += (i ? "; " : "") + std::string("rank ") + std::to_string(b.rank) + " waits in " + task_path(b.program, b.task) +
              " ('" + b.task_name + "', " + b.what + ") for " + rank_list(b.waiting_for);
  }
  if (blocked.size() > kTasksSpelledOut) detail += "; and " + std::to_string(blocked.size() - kTasksSpelledOut) + " more";
  detail += ". Every rank must issue its collectives and messages in an order its partners can meet";
  return ReplayDeadlock(task_path(blocked.front().program, blocked.front().task), detail);
}

}  // namespace scalecast
