// What the replay says when a graph's ranks wait for each other forever: collectives or
// messages that no order of execution can match (two communicators' collectives issued in
// crossed orders, both ranks receiving before they send). Per-communicator agreement and
// send/recv pairing are checked when a trace is read (execution_graph.h); a cycle through
// several communicators, messages and dependencies shows only when the ranks run, so the
// replay reports it with every rank that waits, where, and for whom.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace scalecast {

// One task a rank reached and cannot finish: a collective or send/recv its partners never join.
struct BlockedTask {
  int rank = 0;
  int program = 0;
  int task = 0;
  std::string task_name;
  std::string what;              // "allreduce #0 on communicator 1 (tp)", "send to rank 1 (tag 0)"
  std::vector<int> waiting_for;  // ranks that never reached it
};

// `field()`: the first blocked task ("programs[0].tasks[3]"); what(): every blocked task. A
// trace's reader maps it to an InputError naming the file (the trace is at fault); for a graph
// scalecast built itself it stays an internal error.
class ReplayDeadlock : public std::runtime_error {
 public:
  ReplayDeadlock(std::string field, const std::string& detail) : std::runtime_error(detail), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Blocked tasks sorted by rank, at most the first few spelled out.
ReplayDeadlock deadlock_error(std::vector<BlockedTask> blocked);

}  // namespace scalecast
