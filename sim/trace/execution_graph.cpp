#include "sim/trace/execution_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"

namespace scalecast {

// ---------------------------------------------------------------------------------------------
// Names of the enums (the spelling used in trace files and on the command line)
// ---------------------------------------------------------------------------------------------

namespace {
constexpr std::pair<TaskKind, const char*> kTaskKindNames[] = {
    {TaskKind::compute, "compute"},
    {TaskKind::collective, "collective"},
    {TaskKind::send, "send"},
    {TaskKind::recv, "recv"},
};
constexpr std::pair<CollectiveOp, const char*> kCollectiveOpNames[] = {
    {CollectiveOp::allreduce, "allreduce"},         {CollectiveOp::allgather, "allgather"},
    {CollectiveOp::reducescatter, "reducescatter"}, {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::reduce, "reduce"},               {CollectiveOp::alltoall, "alltoall"},
};
}  // namespace

const char* to_string(TaskKind kind) {
  for (const auto& [value, name] : kTaskKindNames)
    if (value == kind) return name;
  return "unknown";
}

const char* to_string(CollectiveOp op) {
  for (const auto& [value, name] : kCollectiveOpNames)
    if (value == op) return name;
  return "unknown";
}

bool parse_task_kind(const std::string& text, TaskKind& kind) {
  for (const auto& [value, name] : kTaskKindNames)
    if (text == name) {
      kind = value;
      return true;
    }
  return false;
}

bool parse_collective_op(const std::string& text, CollectiveOp& op) {
  for (const auto& [value, name] : kCollectiveOpNames)
    if (text == name) {
      op = value;
      return true;
    }
  return false;
}

const Communicator* ExecutionGraph::find_communicator(int id) const {
  for (const Communicator& communicator : communicators)
    if (communicator.id == id) return &communicator;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Validation
//
// Ranks that share a program are checked once per program, not once per rank: the checks that
// depend on the rank (offsets reaching outside the world, which program a peer runs, which group
// a rank is in) are done per distinct (program, peer program) or (program, group) combination,
// so a 16,384-rank DP job with one program costs about as much as the program itself.
// Field paths use the names of the JSON trace format (trace_json.h), which users see.
// ---------------------------------------------------------------------------------------------

namespace {

// A task's kernel count (Task::launches): BERT-large's unfused BertAdam launches about 6,600 a
// step; a billion would be a step of hours of launch overhead alone.
constexpr double kMaxLaunchesPerTask = 1e9;

std::string program_path(int program) { return "programs[" + std::to_string(program) + "]"; }

std::string task_path(int program, int task) {
  return program_path(program) + ".tasks[" + std::to_string(task) + "]";
}

std::string communicator_path(int index) { return "communicators[" + std::to_string(index) + "]"; }

// "task 12 'conv1'" for messages; the name helps a user find the task in a long trace.
std::string describe_task(const RankProgram& program, int task) {
  std::string text = "task " + std::to_string(task);
  const std::string& name = program.tasks[task].name;
  if (!name.empty()) text += " '" + name + "'";
  return text;
}

std::string describe_communicator(const Communicator& communicator) {
  std::string text = "communicator " + std::to_string(communicator.id);
  if (!communicator.name.empty()) text += " '" + communicator.name + "'";
  return text;
}

// Shortest readable form: "1048576", "2.5", "1e+20".
std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

class Validator {
 public:
  Validator(const ExecutionGraph& graph, const std::string& source) : graph_(graph), source_(source) {}

  void run() {
    check_rank_programs();
    check_communicators();
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p) {
      check_tasks(p);
      check_cycles(p);
    }
    check_rank_offsets();
    check_cross_rank_dependencies();
    check_collectives();
    check_point_to_point();
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(source_, field, problem);
  }

  int world_size() const { return graph_.world_size(); }

  // --- ranks and their programs --------------------------------------------------------------

  void check_rank_programs() {
    if (graph_.program_of_rank.empty()) fail("rank_programs", "is empty; a trace needs at least one rank");
    if (graph_.program_of_rank.size() > static_cast<size_t>(limits::kMaxWorldSize))
      fail("rank_programs", "has " + std::to_string(graph_.program_of_rank.size()) + " ranks; a trace holds at most 2^24 (" +
                                std::to_string(limits::kMaxWorldSize) + ")");
    const int program_count = static_cast<int>(graph_.programs.size());
    ranks_of_program_.assign(program_count, {});
    for (int rank = 0; rank < world_size(); ++rank) {
      const int program = graph_.program_of_rank[rank];
      if (program < 0 || program >= program_count)
        fail("rank_programs[" + std::to_string(rank) + "]",
             "is " + std::to_string(program) + ", but there are " + std::to_string(program_count) +
                 " programs (valid indices 0.." + std::to_string(program_count - 1) + ")");
      ranks_of_program_[program].push_back(rank);
    }
  }

  // --- communicators: unique ids, disjoint groups inside the world ---------------------------

  void check_communicators() {
    const int count = static_cast<int>(graph_.communicators.size());
    group_of_rank_.assign(count, {});
    for (int c = 0; c < count; ++c) {
      const Communicator& communicator = graph_.communicators[c];
      const std::string path = communicator_path(c);
      if (communicator.id < 0) fail(path + ".id", "is " + std::to_string(communicator.id) + "; ids must be >= 0");
      auto [existing, inserted] = index_of_communicator_.emplace(communicator.id, c);
      if (!inserted)
        fail(path + ".id", "is " + std::to_string(communicator.id) + ", already the id of " +
                               communicator_path(existing->second) + "; communicator ids must be unique");
      if (communicator.groups.empty()) fail(path + ".groups", "is empty; a communicator needs at least one group");
      check_groups(c);
    }
  }

  void check_groups(int c) {
    const Communicator& communicator = graph_.communicators[c];
    std::vector<int>& group_of_rank = group_of_rank_[c];
    group_of_rank.assign(world_size(), -1);
    for (int g = 0; g < static_cast<int>(communicator.groups.size()); ++g) {
      const std::string group_path = communicator_path(c) + ".groups[" + std::to_string(g) + "]";
      const std::vector<int>& group = communicator.groups[g];
      if (group.empty()) fail(group_path, "is empty");
      for (int k = 0; k < static_cast<int>(group.size()); ++k) {
        const int rank = group[k];
        const std::string rank_path = group_path + "[" + std::to_string(k) + "]";
        if (rank < 0 || rank >= world_size())
          fail(rank_path, "is rank " + std::to_string(rank) + ", outside the world of " +
                              std::to_string(world_size()) + " ranks");
        if (group_of_rank[rank] >= 0)
          fail(rank_path, "rank " + std::to_string(rank) + " is already in " + communicator_path(c) + ".groups[" +
                              std::to_string(group_of_rank[rank]) +
                              "]; a rank belongs to at most one group of a communicator");
        group_of_rank[rank] = g;
      }
    }
  }

  // --- one program on its own ------------------------------------------------------------------

  void check_tasks(int p) {
    const RankProgram& program = graph_.programs[p];
    const int task_count = static_cast<int>(program.tasks.size());
    for (int t = 0; t < task_count; ++t) {
      const Task& task = program.tasks[t];
      const std::string path = task_path(p, t);
      if (task.stream < 0) fail(path + ".stream", "is " + std::to_string(task.stream) + "; streams are numbered from 0");
      if (task.step < -1) fail(path + ".step", "is " + std::to_string(task.step) + "; steps are >= 0 (or -1: none)");
      check_task_values(p, t);
      for (int d = 0; d < static_cast<int>(task.deps.size()); ++d) {
        const TaskRef& dep = task.deps[d];
        const std::string dep_path = path + ".deps[" + std::to_string(d) + "]";
        if (dep.task < 0) fail(dep_path, "refers to task " + std::to_string(dep.task) + "; task indices are >= 0");
        if (dep.rank_offset == 0 && dep.task >= task_count)
          fail(dep_path, "refers to task " + std::to_string(dep.task) + ", but the program has " +
                             std::to_string(task_count) + " tasks");
      }
    }
  }

  void check_non_negative(const std::string& field, double value) const {
    if (!std::isfinite(value) || value < 0) fail(field, "is " + format_number(value) + "; expected a finite value >= 0");
  }

  // Finite is not enough: a duration of 1e308 s or a message of 1e308 bytes would reach SimGrid
  // as an infinite time or a byte count beyond 64 bits (sim/core/physical_limits.h).
  void check_range(const std::string& field, double value, const limits::Range& range) const {
    check_non_negative(field, value);
    if (!limits::within(value, range)) fail(field, limits::out_of_range(range, format_number(value)));
  }

  // A task priced kernel by kernel: its parts lie within its duration.
  void check_sequence_parts(const std::string& path, const Task& task) const {
    check_range(path + ".compute_bound_s", task.compute_bound_s, limits::kTaskDuration_s);
    check_range(path + ".memory_bound_s", task.memory_bound_s, limits::kTaskDuration_s);
    const double parts_s = task.compute_bound_s + task.memory_bound_s;
    if (parts_s == 0) return;
    if (task.duration_s < 0)
      fail(path + ".compute_bound_s", "is given without duration_s; the parts of a duration need the duration");
    if (parts_s > task.duration_s * (1 + 1e-9))
      fail(path + ".compute_bound_s", "and memory_bound_s add up to " + format_number(parts_s) +
                                          " s, more than duration_s (" + format_number(task.duration_s) + " s)");
  }

  void check_task_values(int p, int t) {
    const Task& task = graph_.programs[p].tasks[t];
    const std::string path = task_path(p, t);
    switch (task.kind) {
      case TaskKind::compute:
        // A negative duration is the IR's marker for "use the cost model"; only NaN/inf are wrong.
        if (!std::isfinite(task.duration_s)) fail(path + ".duration_s", "is not a finite number");
        if (task.duration_s >= 0) check_range(path + ".duration_s", task.duration_s, limits::kTaskDuration_s);
        check_range(path + ".flops", task.flops, limits::kFlops);
        check_range(path + ".memory_bytes", task.memory_bytes, limits::kBytes);
        check_sequence_parts(path, task);
        if (!std::isfinite(task.launches) || task.launches < 1 || task.launches > kMaxLaunchesPerTask)
          fail(path + ".launches", "is " + format_number(task.launches) + "; expected a kernel count from 1 to " +
                                       format_number(kMaxLaunchesPerTask));
        break;
      case TaskKind::collective: {
        check_range(path + ".bytes", task.bytes, limits::kBytes);
        if (task.root < 0) fail(path + ".root", "is " + std::to_string(task.root) + "; expected an index >= 0");
        if (task.dtype.empty()) fail(path + ".dtype", "is empty");
        auto found = index_of_communicator_.find(task.communicator);
        if (found == index_of_communicator_.end())
          fail(path + ".communicator", "refers to communicator " + std::to_string(task.communicator) +
                                           ", which is not declared in communicators");
        collectives_[{p, task.communicator}].push_back(t);
        break;
      }
      case TaskKind::send:
      case TaskKind::recv:
        check_range(path + ".bytes", task.bytes, limits::kBytes);
        break;
    }
  }

  // A rank runs a task after its same-rank dependencies and after the previous task of its
  // stream; a cycle among those edges would hang the replay, so it is an input error.
  void check_cycles(int p) {
    const RankProgram& program = graph_.programs[p];
    const int task_count = static_cast<int>(program.tasks.size());
    std::vector<int> stream_predecessor(task_count, -1);
    std::unordered_map<int, int> last_on_stream;
    for (int t = 0; t < task_count; ++t) {
      auto [entry, inserted] = last_on_stream.emplace(program.tasks[t].stream, t);
      if (!inserted) {
        stream_predecessor[t] = entry->second;
        entry->second = t;
      }
    }

    // Iterative depth-first search (a recursive one could overflow the stack on long chains).
    // Edges of task u: its same-rank deps, then its stream predecessor.
    enum Colour : char { unvisited, on_path, done };
    std::vector<Colour> colour(task_count, unvisited);
    std::vector<std::pair<int, int>> path;  // (task, next edge to follow)
    for (int start = 0; start < task_count; ++start) {
      if (colour[start] != unvisited) continue;
      path.push_back({start, 0});
      colour[start] = on_path;
      while (!path.empty()) {
        auto& [task, edge] = path.back();
        const std::vector<TaskRef>& deps = program.tasks[task].deps;
        int next = -1;
        if (edge < static_cast<int>(deps.size())) {
          if (deps[edge].rank_offset == 0) next = deps[edge].task;
          ++edge;
        } else if (edge == static_cast<int>(deps.size())) {
          next = stream_predecessor[task];
          ++edge;
        } else {
          colour[task] = done;
          path.pop_back();
          continue;
        }
        if (next < 0 || colour[next] == done) continue;
        if (colour[next] == on_path) report_cycle(p, path, next);
        colour[next] = on_path;
        path.push_back({next, 0});
      }
    }
  }

  // The cycle is the part of the search path from `closing` to its end, closed by an edge back
  // to `closing`. Stream edges always point to an earlier task, so the cycle holds at least one
  // explicit dependency on a task that is not earlier; that dependency is the field we name.
  [[noreturn]] void report_cycle(int p, const std::vector<std::pair<int, int>>& path, int closing) const {
    const RankProgram& program = graph_.programs[p];
    std::vector<int> cycle;
    bool inside = false;
    for (const auto& [task, edge] : path) {
      if (task == closing) inside = true;
      if (inside) cycle.push_back(task);
    }
    std::string chain;
    for (int task : cycle) chain += describe_task(program, task) + " -> ";
    chain += describe_task(program, closing);

    for (size_t i = 0; i < cycle.size(); ++i) {
      const int from = cycle[i];
      const int to = i + 1 < cycle.size() ? cycle[i + 1] : closing;
      if (to < from) continue;
      const std::vector<TaskRef>& deps = program.tasks[from].deps;
      for (size_t d = 0; d < deps.size(); ++d)
        if (deps[d].rank_offset == 0 && deps[d].task == to)
          fail(task_path(p, from) + ".deps[" + std::to_string(d) + "]",
               "closes a dependency cycle (each task waits for the next, including the order of tasks on "
               "a stream): " + chain);
    }
    fail(task_path(p, closing), "is part of a dependency cycle: " + chain);
  }

  // --- offsets to other ranks (cross-rank deps, send/recv peers) -------------------------------

  // Every offset used by a program must land inside the world for every rank running it; it is
  // enough to check the lowest and highest of those ranks.
  void check_rank_offsets() {
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p) {
      const std::vector<int>& ranks = ranks_of_program_[p];
      if (ranks.empty()) continue;
      const RankProgram& program = graph_.programs[p];
      for (int t = 0; t < static_cast<int>(program.tasks.size()); ++t) {
        const Task& task = program.tasks[t];
        if (task.kind == TaskKind::send || task.kind == TaskKind::recv)
          check_offset(task.peer_offset, ranks, task_path(p, t) + ".peer_offset");
        for (int d = 0; d < static_cast<int>(task.deps.size()); ++d)
          check_offset(task.deps[d].rank_offset, ranks, task_path(p, t) + ".deps[" + std::to_string(d) + "]");
      }
    }
  }

  void check_offset(int offset, const std::vector<int>& ranks, const std::string& field) const {
    const int rank = offset < 0 ? ranks.front() : ranks.back();
    const long long target = static_cast<long long>(rank) + offset;
    if (target < 0 || target >= world_size())
      fail(field, "rank offset " + std::to_string(offset) + " from rank " + std::to_string(rank) +
                      " (which runs this program) reaches rank " + std::to_string(target) +
                      ", outside the world of " + std::to_string(world_size()) + " ranks");
  }

  // A dependency on task i of the rank `offset` away needs that rank's program to have task i.
  // Checked once per (program, offset, peer program).
  void check_cross_rank_dependencies() {
    std::set<std::tuple<int, int, int>> checked;
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p) {
      std::map<int, std::vector<std::pair<int, int>>> deps_by_offset;  // offset -> (task, dep index)
      const RankProgram& program = graph_.programs[p];
      for (int t = 0; t < static_cast<int>(program.tasks.size()); ++t)
        for (int d = 0; d < static_cast<int>(program.tasks[t].deps.size()); ++d)
          if (program.tasks[t].deps[d].rank_offset != 0)
            deps_by_offset[program.tasks[t].deps[d].rank_offset].push_back({t, d});
      for (const auto& [offset, deps] : deps_by_offset)
        for (int rank : ranks_of_program_[p]) {
          const int peer_program = graph_.program_of_rank[rank + offset];
          if (!checked.insert({p, offset, peer_program}).second) continue;
          const int peer_task_count = static_cast<int>(graph_.programs[peer_program].tasks.size());
          for (const auto& [t, d] : deps) {
            const int target = program.tasks[t].deps[d].task;
            if (target >= peer_task_count)
              fail(task_path(p, t) + ".deps[" + std::to_string(d) + "]",
                   "refers to task " + std::to_string(target) + " of rank " + std::to_string(rank + offset) +
                       " (offset " + std::to_string(offset) + " from rank " + std::to_string(rank) +
                       "), whose program has " + std::to_string(peer_task_count) + " tasks");
          }
        }
    }
  }

  // --- collectives: membership, and agreement between the ranks of a group ---------------------

  const std::vector<int>& collectives_of(int program, int communicator_id) const {
    static const std::vector<int> none;
    auto found = collectives_.find({program, communicator_id});
    return found == collectives_.end() ? none : found->second;
  }

  void check_collectives() {
    for (int c = 0; c < static_cast<int>(graph_.communicators.size()); ++c) {
      check_membership(c);
      const Communicator& communicator = graph_.communicators[c];
      std::set<std::pair<int, int>> agreeing;  // (program, program) pairs already compared
      for (const std::vector<int>& group : communicator.groups) {
        const int first = graph_.program_of_rank[group.front()];
        check_roots(first, communicator, static_cast<int>(group.size()));
        for (int rank : group) {
          const int program = graph_.program_of_rank[rank];
          if (program == first || !agreeing.insert({first, program}).second) continue;
          check_agreement(communicator, group.front(), rank);
        }
      }
    }
  }

  // Every rank that issues a collective on a communicator must be in one of its groups.
  void check_membership(int c) {
    const Communicator& communicator = graph_.communicators[c];
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p) {
      const std::vector<int>& issued = collectives_of(p, communicator.id);
      if (issued.empty()) continue;
      for (int rank : ranks_of_program_[p])
        if (group_of_rank_[c][rank] < 0)
          fail(task_path(p, issued.front()) + ".communicator",
               "rank " + std::to_string(rank) + " (which runs " + program_path(p) + ") issues a collective on " +
                   describe_communicator(communicator) + " but is in none of its groups");
    }
  }

  void check_roots(int program, const Communicator& communicator, int group_size) {
    if (!roots_checked_.insert({program, communicator.id, group_size}).second) return;
    for (int t : collectives_of(program, communicator.id)) {
      const int root = graph_.programs[program].tasks[t].root;
      if (root >= group_size)
        fail(task_path(program, t) + ".root", "is " + std::to_string(root) + ", but a group of " +
                                                  describe_communicator(communicator) + " has only " +
                                                  std::to_string(group_size) + " ranks");
    }
  }

  static std::string describe_collective(const Task& task) {
    return std::string(to_string(task.op)) + " of " + format_number(task.bytes) + " bytes of " + task.dtype +
           (task.op == CollectiveOp::broadcast || task.op == CollectiveOp::reduce
                ? " with root " + std::to_string(task.root)
                : "");
  }

  static bool same_collective(const Task& a, const Task& b) {
    return a.op == b.op && a.bytes == b.bytes && a.dtype == b.dtype && a.root == b.root;
  }

  // The k-th collective a rank issues on a communicator (in task order) must be the same
  // operation on the same per-rank buffer as the k-th one of every other rank of its group.
  void check_agreement(const Communicator& communicator, int reference_rank, int rank) const {
    const int reference_program = graph_.program_of_rank[reference_rank];
    const int program = graph_.program_of_rank[rank];
    const std::vector<int>& expected = collectives_of(reference_program, communicator.id);
    const std::vector<int>& issued = collectives_of(program, communicator.id);
    const std::string ranks_text = "rank " + std::to_string(rank) + " and rank " + std::to_string(reference_rank) +
                                   " (same group of " + describe_communicator(communicator) + ")";
    const size_t common = std::min(expected.size(), issued.size());
    for (size_t k = 0; k < common; ++k) {
      const Task& mine = graph_.programs[program].tasks[issued[k]];
      const Task& theirs = graph_.programs[reference_program].tasks[expected[k]];
      if (same_collective(mine, theirs)) continue;
      const std::string field = mine.op != theirs.op       ? ".op"
                                : mine.bytes != theirs.bytes ? ".bytes"
                                : mine.dtype != theirs.dtype ? ".dtype"
                                                             : ".root";
      fail(task_path(program, issued[k]) + field,
           ranks_text + " disagree on their collective #" + std::to_string(k) + " on it: " + describe_collective(mine) +
               " here, " + describe_collective(theirs) + " at " + task_path(reference_program, expected[k]));
    }
    if (expected.size() == issued.size()) return;
    const bool mine_longer = issued.size() > expected.size();
    const int longer_program = mine_longer ? program : reference_program;
    const int extra_task = mine_longer ? issued[common] : expected[common];
    fail(task_path(longer_program, extra_task),
         ranks_text + " issue different numbers of collectives on it: rank " + std::to_string(rank) + " issues " +
             std::to_string(issued.size()) + ", rank " + std::to_string(reference_rank) + " issues " +
             std::to_string(expected.size()) + "; this one has no counterpart");
  }

  // --- send/recv matching ------------------------------------------------------------------------

  // The messages of one program to (or from) the rank at one offset, by tag, in task order.
  struct Channel {
    std::map<int, std::vector<int>> sends_by_tag;
    std::map<int, std::vector<int>> recvs_by_tag;
  };

  void check_point_to_point() {
    std::vector<std::map<int, Channel>> channels(graph_.programs.size());  // program -> offset -> channel
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p) {
      const RankProgram& program = graph_.programs[p];
      for (int t = 0; t < static_cast<int>(program.tasks.size()); ++t) {
        const Task& task = program.tasks[t];
        if (task.kind == TaskKind::send) channels[p][task.peer_offset].sends_by_tag[task.tag].push_back(t);
        if (task.kind == TaskKind::recv) channels[p][task.peer_offset].recvs_by_tag[task.tag].push_back(t);
      }
    }
    static const Channel empty;
    std::set<std::tuple<int, int, int>> checked;  // (program, peer program, offset)
    for (int p = 0; p < static_cast<int>(graph_.programs.size()); ++p)
      for (const auto& [offset, channel] : channels[p])
        for (int rank : ranks_of_program_[p]) {
          const int peer = rank + offset;
          const int peer_program = graph_.program_of_rank[peer];
          if (!checked.insert({p, peer_program, offset}).second) continue;
          auto found = channels[peer_program].find(-offset);
          const Channel& peer_channel = found == channels[peer_program].end() ? empty : found->second;
          match_messages(p, rank, channel.sends_by_tag, peer_program, peer, peer_channel.recvs_by_tag, "send");
          match_messages(p, rank, channel.recvs_by_tag, peer_program, peer, peer_channel.sends_by_tag, "recv");
        }
  }

  // The k-th `kind` of `rank` to `peer` with a tag pairs with the peer's k-th opposite message
  // from `rank` with that tag; both must carry the same number of bytes.
  void match_messages(int p, int rank, const std::map<int, std::vector<int>>& mine, int peer_program, int peer,
                      const std::map<int, std::vector<int>>& theirs, const std::string& kind) const {
    const std::string opposite = kind == "send" ? "recv" : "send";
    for (const auto& [tag, tasks] : mine) {
      auto found = theirs.find(tag);
      const size_t counterparts = found == theirs.end() ? 0 : found->second.size();
      for (size_t k = 0; k < tasks.size(); ++k) {
        const Task& task = graph_.programs[p].tasks[tasks[k]];
        const std::string what = kind + " #" + std::to_string(k) + " of rank " + std::to_string(rank) +
                                 (kind == "send" ? " to" : " from") + " rank " + std::to_string(peer) + " with tag " +
                                 std::to_string(tag);
        if (k >= counterparts)
          fail(task_path(p, tasks[k]), what + " has no matching " + opposite + " on rank " + std::to_string(peer) +
                                           " (it posts " + std::to_string(counterparts) + ")");
        const int other = found->second[k];
        const Task& counterpart = graph_.programs[peer_program].tasks[other];
        if (counterpart.bytes != task.bytes)
          fail(task_path(p, tasks[k]) + ".bytes", what + " carries " + format_number(task.bytes) +
                                                      " bytes, but its matching " + opposite + " (" +
                                                      task_path(peer_program, other) + ") expects " +
                                                      format_number(counterpart.bytes));
      }
    }
    // Messages of the peer left without a counterpart here.
    for (const auto& [tag, tasks] : theirs) {
      auto found = mine.find(tag);
      const size_t counterparts = found == mine.end() ? 0 : found->second.size();
      if (tasks.size() > counterparts)
        fail(task_path(peer_program, tasks[counterparts]),
             opposite + " #" + std::to_string(counterparts) + " of rank " + std::to_string(peer) +
                 (opposite == "send" ? " to" : " from") + " rank " + std::to_string(rank) + " with tag " +
                 std::to_string(tag) + " has no matching " + kind + " on rank " + std::to_string(rank));
    }
  }

  const ExecutionGraph& graph_;
  const std::string& source_;
  std::vector<std::vector<int>> ranks_of_program_;
  std::map<int, int> index_of_communicator_;                // id -> index in communicators
  std::vector<std::vector<int>> group_of_rank_;             // communicator index -> rank -> group (-1: none)
  std::map<std::pair<int, int>, std::vector<int>> collectives_;  // (program, communicator id) -> tasks
  std::set<std::tuple<int, int, int>> roots_checked_;       // (program, communicator id, group size)
};

}  // namespace

void validate(const ExecutionGraph& graph, const std::string& source) { Validator(graph, source).run(); }

}  // namespace scalecast
