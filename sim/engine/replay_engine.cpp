#include "sim/engine/replay_engine.h"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "sim/engine/flow_ports.h"
#include "sim/engine/rank_classes.h"
#include "sim/engine/simgrid_setup.h"
#include "sim/platform/cluster_topology.h"

namespace scalecast {

namespace sg = simgrid::s4u;

namespace {

// Something that happened outside a class actor and that it must take into account: a task
// of its own finished (a collective, a send or recv) or a dependency on another rank's task
// was satisfied.
struct Notice {
  int task = 0;
  bool finished = false;  // true: `task` is done; false: one of `task`'s dependencies is
};

struct ClassState {
  const RankProgram* program = nullptr;
  sg::MutexPtr mutex;
  sg::ConditionVariablePtr wake;
  std::deque<Notice> notices;
  bool blocked = false;  // waiting with nothing of its own running
  bool finished = false;
  std::vector<double> start_s, end_s;
  std::vector<bool> done;
  std::map<int, int> collectives_issued;  // communicator -> count
};

struct PendingInstance {
  std::vector<std::pair<int, int>> arrivals;  // (class, task)
};

class Replay {
 public:
  Replay(const ExecutionGraph& graph, const PlatformSpec& spec, const ReplayOptions& options)
      : graph_(graph), spec_(spec), options_(options) {}

  ReplayResult run();

 private:
  void set_up();
  void count_dependencies();
  void create_class_states();
  void throw_if_deadlocked() const;
  void assemble_timeline();
  void run_class(int k);
  using RunningQueue = std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>;
  void launch(int k, int task, RunningQueue& running);
  void complete(int k, int task, std::vector<int>& pending, std::vector<int>& ready);
  void arrive_collective(int k, int task);
  void arrive_point_to_point(int k, int task);
  // A collective lowered all the way to host-to-host flows, for a reference buffer size:
  // flows scale with the buffer, latencies do not, so one preparation serves every size.
  struct PreparedPhase {
    std::vector<HostFlow> flows;
    double latency_s = 0;
  };
  using PreparedCollective = std::vector<PreparedPhase>;
  std::shared_ptr<const PreparedCollective> prepare(const std::vector<CollectivePlan>& plans) const;
  void start_runner(std::shared_ptr<const PreparedCollective> prepared, double byte_scale,
                    std::vector<std::pair<int, int>> waiters, CollectiveRecord record);
  void finish_runner(const std::vector<std::pair<int, int>>& waiters, const CollectiveRecord& record);
  std::vector<Flow> merge_exclusive_flows(const std::vector<const Flow*>& flows) const;
  std::vector<int> groups_to_simulate(const Communicator& comm, const std::vector<int>& groups) const;
  void notify(int k, Notice notice);
  bool everyone_blocked() const;
  double route_latency_s(int from, int to) const;

  const ExecutionGraph& graph_;
  const PlatformSpec& spec_;
  const ReplayOptions& options_;
  std::unique_ptr<ClusterTopology> topology_;
  ClusterLayout layout_;
  RankClasses classes_;
  std::vector<ClassState> state_;
  std::vector<std::vector<std::vector<int>>> dependents_;  // program -> task -> same-rank dependents
  std::vector<std::vector<int>> initial_pending_;          // program -> task -> what it waits for
  std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> remote_subscribers_;  // (class, task) -> (class, task)
  std::map<std::tuple<int, int, int>, PendingInstance> pending_collectives_;  // (communicator, component, sequence)
  std::map<std::tuple<int, int, int, int>, std::vector<std::pair<int, int>>> pending_p2p_;  // (src, dst, tag, seq)
  std::map<std::tuple<int, int, int, int>, int> p2p_sequence_;  // (src, dst, tag, is_recv) -> count
  FlowPorts ports_;
  // (communicator, component, op, root, algorithm) -> (reference bytes, prepared collective)
  struct CachedCollective {
    double reference_bytes = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;  // as plan_collective resolved it
    std::shared_ptr<const PreparedCollective> prepared;
    bool folded = false;  // one node's groups stand for every node's
  };
  std::map<std::tuple<int, int, int, int, int>, CachedCollective> prepared_;
  // When no two collectives can ever be in flight together (see collectives_never_overlap),
  // each runs on an otherwise idle network, where its duration is latency + transfer *
  // byte_scale: its phases' latencies are paid in closed form, its flows carry none and all
  // start together, and max-min rates do not depend on sizes, so every flow's progress scales
  // with the buffer. After one run, later instances of the same prepared collective take that
  // time, scaled, without putting flows on the network: a DP step's buckets cost one
  // collective.
  struct IsolatedRun {
    double byte_scale = 0;
    double transfer_s = 0;  // the run's duration less its phases' latencies
  };
  bool reuse_isolated_runs_ = false;
  bool nodes_alike_ = false;  // every node's GPUs are in the classes of node 0's, GPU by GPU
  std::map<const PreparedCollective*, IsolatedRun> isolated_runs_;
  std::optional<double> predicted_isolated_s(const PreparedCollective* prepared, double byte_scale) const;
  static double phases_latency_s(const PreparedCollective& phases);
  int active_runners_ = 0;
  bool deadlocked_ = false;
  ReplayResult result_;
};

double Replay::route_latency_s(int from, int to) const { return topology_->route_latency_s(from, to); }

void Replay::notify(int k, Notice notice) {
  state_[k].notices.push_back(notice);
  state_[k].wake->notify_all();
}

bool Replay::everyone_blocked() const {
  if (active_runners_ > 0) return false;
  for (const ClassState& s : state_)
    if (!s.finished && (!s.blocked || !s.notices.empty())) return false;
  return true;
}

// Flows between the same two GPUs follow the same route. Where no other flow of the phase
// touches that route's links, they can run as one flow carrying their total: max-min sharing
// gives them the same finish time either way, and SimGrid 3.32's cost per flow completion grows
// with the number of flows in flight (CommImpl::finish), so the phase runs much faster. NCCL
// rings over NVSwitch repeat each intra-node edge in every channel; this folds them.
std::vector<Flow> Replay::merge_exclusive_flows(const std::vector<const Flow*>& flows) const {
  std::map<std::pair<int, int>, std::vector<const Flow*>> by_pair;
  for (const Flow* f : flows) by_pair[{f->source_rank, f->destination_rank}].push_back(f);
  std::map<std::pair<int, int>, std::vector<sg::Link*>> routes;
  std::unordered_map<const sg::Link*, int> pairs_on_link;
  for (const auto& [key, members] : by_pair) {
    auto& links = routes[key];
    links = topology_->route(key.first, key.second);
    for (auto* link : links) ++pairs_on_link[link];
  }
  std::vector<Flow> out;
  out.reserve(flows.size());
  for (const auto& [key, members] : by_pair) {
    bool exclusive = true;
    for (auto* link : routes[key]) exclusive = exclusive && pairs_on_link[link] == 1;
    if (!exclusive) {
      for (const Flow* f : members) out.push_back(*f);
      continue;
    }
    Flow merged = *members.front();
    for (size_t i = 1; i < members.size(); ++i) merged.bytes += members[i]->bytes;
    out.push_back(merged);
  }
  return out;
}

// Node folding. A node's intra-node routes use only that node's links, so when each group
// of a collective lies inside one node, the same groups recur on every node (shifted by whole
// nodes), and every node runs the same programs, each node's copy of the collective meets on
// its links exactly the traffic the other nodes meet on theirs. The flows of one node then
// stand for all: that node's links carry what they would in the full simulation, and the
// traffic that leaves a node (gradient rings and trees, simulated in full) is slowed there as
// everywhere, so a collective spanning nodes still ends with its slowest flows. This is what
// keeps hybrid workers' activation copies affordable: 2,048 workers' copies are 8 flows, not
// 2,048. Returns the groups to simulate: one node's, or all of them.
std::vector<int> Replay::groups_to_simulate(const Communicator& comm, const std::vector<int>& groups) const {
  if (!options_.fold_symmetric_nodes || !nodes_alike_ || groups.size() < 2) return groups;
  const int per_node = layout_.gpus_per_node;
  std::map<int, std::set<std::vector<int>>> shapes_by_node;  // node -> its groups, as local indices
  std::map<int, std::vector<int>> groups_by_node;
  for (int g : groups) {
    const auto& ranks = comm.groups[g];
    const int node = layout_.node_of(ranks.front());
    std::vector<int> shape;
    for (int r : ranks) {
      if (layout_.node_of(r) != node) return groups;
      shape.push_back(r - node * per_node);
    }
    shapes_by_node[node].insert(std::move(shape));
    groups_by_node[node].push_back(g);
  }
  if (static_cast<int>(shapes_by_node.size()) != topology_->nodes()) return groups;
  for (const auto& [node, shapes] : shapes_by_node)
    if (shapes != shapes_by_node.begin()->second) return groups;
  return groups_by_node.begin()->second;
}

std::shared_ptr<const Replay::PreparedCollective> Replay::prepare(const std::vector<CollectivePlan>& plans) const {
  auto prepared = std::make_shared<PreparedCollective>();
  // Concurrent groups run their phases side by side: phase i of every plan at once.
  size_t phases = 0;
  for (const auto& plan : plans) phases = std::max(phases, plan.phases.size());
  for (size_t i = 0; i < phases; ++i) {
    std::vector<const Flow*> flows;
    PreparedPhase phase;
    for (const auto& plan : plans) {
      if (i >= plan.phases.size()) continue;
      phase.latency_s = std::max(phase.latency_s, plan.phases[i].latency_s);
      for (const Flow& f : plan.phases[i].flows)
        if (f.bytes > 0) flows.push_back(&f);
    }
    for (const Flow& flow : merge_exclusive_flows(flows))
      phase.flows.push_back({topology_->source_host(flow.source_rank, flow.destination_rank),
                             topology_->destination_host(flow.source_rank, flow.destination_rank), flow.bytes});
    prepared->push_back(std::move(phase));
  }
  return prepared;
}

// Collectives can only overlap if some rank has two in flight (two communicators, two streams,
// or several components of one communicator progressing independently) or point-to-point
// transfers share the network with them. A DP job has one communicator, one component and
// its collectives on one stream: each instance waits for the previous one on every rank.
bool collectives_never_overlap(const ExecutionGraph& graph, const RankClasses& classes) {
  std::set<int> communicators;
  for (const RankProgram& program : graph.programs) {
    std::set<int> streams;
    for (const Task& task : program.tasks) {
      if (task.kind == TaskKind::send || task.kind == TaskKind::recv) return false;
      if (task.kind != TaskKind::collective) continue;
      communicators.insert(task.communicator);
      streams.insert(task.stream);
    }
    if (streams.size() > 1) return false;
  }
  if (communicators.size() != 1) return communicators.empty();
  return classes.components.at(*communicators.begin()).size() == 1;
}

double Replay::phases_latency_s(const PreparedCollective& phases) {
  double latency_s = 0;
  for (const PreparedPhase& phase : phases) latency_s += phase.latency_s;
  return latency_s;
}

std::optional<double> Replay::predicted_isolated_s(const PreparedCollective* prepared, double byte_scale) const {
  auto run = isolated_runs_.find(prepared);
  if (run == isolated_runs_.end()) return std::nullopt;
  return phases_latency_s(*prepared) + run->second.transfer_s * byte_scale / run->second.byte_scale;
}

void Replay::start_runner(std::shared_ptr<const PreparedCollective> prepared, double byte_scale,
                          std::vector<std::pair<int, int>> waiters, CollectiveRecord record) {
  ++active_runners_;
  record.start_s = sg::Engine::get_clock();
  const bool isolated = reuse_isolated_runs_ && active_runners_ == 1 && !prepared->empty();
  if (isolated) {
    if (auto duration_s = predicted_isolated_s(prepared.get(), byte_scale)) {
      for (const PreparedPhase& phase : *prepared) record.flows += static_cast<long>(phase.flows.size());
      ++result_.collectives_reused;
      sg::Actor::create("collective", topology_->gpu_host(0), [this, duration_s = *duration_s, waiters = std::move(waiters), record]() mutable {
        sg::this_actor::sleep_for(duration_s);
        record.end_s = sg::Engine::get_clock();
        finish_runner(waiters, record);
      });
      return;
    }
  }
  sg::Actor::create("collective", topology_->gpu_host(0), [this, prepared, byte_scale, isolated, waiters = std::move(waiters), record]() mutable {
    for (const PreparedPhase& phase : *prepared) {
      std::vector<HostFlow> flows = phase.flows;
      for (HostFlow& flow : flows) flow.bytes *= byte_scale;
      ports_.run(flows);
      record.flows += static_cast<long>(flows.size());
      if (phase.latency_s > 0) sg::this_actor::sleep_for(phase.latency_s);
    }
    record.end_s = sg::Engine::get_clock();
    if (isolated)
      isolated_runs_.emplace(prepared.get(),
                             IsolatedRun{byte_scale, record.end_s - record.start_s - phases_latency_s(*prepared)});
    finish_runner(waiters, record);
  });
}

// Every waiter's notice is queued before the runner stops counting as active and before any
// class is woken: waking is a simcall, and a class that runs in between must not find this
// collective neither running nor reported (it would take the job for deadlocked).
void Replay::finish_runner(const std::vector<std::pair<int, int>>& waiters, const CollectiveRecord& record) {
  result_.flows += record.flows;
  result_.collectives.push_back(record);
  for (auto [k, task] : waiters) state_[k].notices.push_back({task, true});
  --active_runners_;
  for (auto [k, task] : waiters) state_[k].wake->notify_all();
}

void Replay::arrive_collective(int k, int task_index) {
  const Task& task = state_[k].program->tasks[task_index];
  const int sequence = state_[k].collectives_issued[task.communicator]++;
  const int component = classes_.component_of.at({task.communicator, k});
  auto key = std::make_tuple(task.communicator, component, sequence);
  PendingInstance& instance = pending_collectives_[key];
  instance.arrivals.emplace_back(k, task_index);
  const auto& comp = classes_.components.at(task.communicator)[component];
  if (instance.arrivals.size() < comp.classes.size()) return;

  const Communicator* comm = graph_.find_communicator(task.communicator);
  CollectiveRecord record;
  record.op = task.op;
  record.bytes = task.bytes;
  for (int g : comp.groups) record.ranks = std::max<int>(record.ranks, static_cast<int>(comm->groups[g].size()));
  CollectiveAlgorithm algorithm = options_.algorithm;
  if (algorithm == CollectiveAlgorithm::automatic)
    algorithm = choose_algorithm({task.op, task.bytes, comm->groups[comp.groups.front()], task.root}, layout_);
  auto cache_key = std::make_tuple(task.communicator, component, static_cast<int>(task.op), task.root, static_cast<int>(algorithm));
  auto cached = prepared_.find(cache_key);
  auto waiters = std::move(instance.arrivals);
  pending_collectives_.erase(key);
  if (task.bytes <= 0) {
    record.algorithm = algorithm;
    start_runner(std::make_shared<PreparedCollective>(), 1, std::move(waiters), record);
    return;
  }
  if (cached == prepared_.end()) {
    std::vector<CollectivePlan> plans;
    const std::vector<int> groups = groups_to_simulate(*comm, comp.groups);
    for (int g : groups)
      plans.push_back(plan_collective({task.op, task.bytes, comm->groups[g], task.root}, algorithm, options_.fidelity,
                                      layout_, [this](int a, int b) { return route_latency_s(a, b); }));
    cached = prepared_.emplace(cache_key, CachedCollective{task.bytes, plans.front().algorithm, prepare(plans),
                                                           groups.size() < comp.groups.size()}).first;
  }
  record.algorithm = cached->second.algorithm;
  if (cached->second.folded) ++result_.collectives_folded;
  start_runner(cached->second.prepared, task.bytes / cached->second.reference_bytes, std::move(waiters), record);
}

void Replay::arrive_point_to_point(int k, int task_index) {
  const Task& task = state_[k].program->tasks[task_index];
  const int rank = classes_.ranks[k].front();  // p2p ranks are classes of their own
  const int peer = rank + task.peer_offset;
  const bool is_recv = task.kind == TaskKind::recv;
  const int source = is_recv ? peer : rank, destination = is_recv ? rank : peer;
  const int sequence = p2p_sequence_[{source, destination, task.tag, is_recv}]++;
  auto key = std::make_tuple(source, destination, task.tag, sequence);
  auto& arrivals = pending_p2p_[key];
  arrivals.emplace_back(k, task_index);
  if (arrivals.size() < 2) return;
  CollectivePlan plan;
  CollectivePhase phase;
  phase.flows.push_back({source, destination, task.bytes});
  phase.latency_s = route_latency_s(source, destination) +
                    (layout_.node_of(source) == layout_.node_of(destination) ? spec_.collectives.intra_step_latency_s
                                                                             : spec_.collectives.inter_step_latency_s);
  plan.phases.push_back(phase);
  CollectiveRecord record;
  record.point_to_point = true;
  record.bytes = task.bytes;
  record.ranks = 2;
  auto waiters = std::move(arrivals);
  pending_p2p_.erase(key);
  start_runner(prepare({plan}), 1, std::move(waiters), record);
}

void Replay::launch(int k, int task_index, RunningQueue& running) {
  ClassState& s = state_[k];
  const Task& task = s.program->tasks[task_index];
  const double now = sg::Engine::get_clock();
  s.start_s[task_index] = now;
  switch (task.kind) {
    case TaskKind::compute:
      running.emplace(now + compute_duration_s(task, spec_.node.gpu, options_.compute), task_index);
      break;
    case TaskKind::collective: arrive_collective(k, task_index); break;
    case TaskKind::send:
    case TaskKind::recv: arrive_point_to_point(k, task_index); break;
  }
}

void Replay::complete(int k, int task_index, std::vector<int>& pending, std::vector<int>& ready) {
  ClassState& s = state_[k];
  s.end_s[task_index] = sg::Engine::get_clock();
  s.done[task_index] = true;
  for (int next : dependents_[classes_.program[k]][task_index])
    if (--pending[next] == 0) ready.push_back(next);
  auto subscribers = remote_subscribers_.find({k, task_index});
  if (subscribers != remote_subscribers_.end())
    for (auto [other, task] : subscribers->second) notify(other, {task, false});
}

void Replay::run_class(int k) {
  ClassState& s = state_[k];
  const auto& tasks = s.program->tasks;
  std::vector<int> pending = initial_pending_[classes_.program[k]];
  std::vector<int> ready;
  for (size_t t = 0; t < tasks.size(); ++t)
    if (pending[t] == 0) ready.push_back(static_cast<int>(t));
  RunningQueue running;  // compute tasks in flight: (end time, task)
  size_t completed = 0;
  std::unique_lock<sg::Mutex> lock(*s.mutex);
  while (completed < tasks.size() && !deadlocked_) {
    // Launch in task order so that runs are deterministic.
    std::sort(ready.begin(), ready.end());
    std::vector<int> launching;
    launching.swap(ready);
    for (int t : launching) launch(k, t, running);
    while (!s.notices.empty()) {
      Notice notice = s.notices.front();
      s.notices.pop_front();
      if (notice.finished) {
        complete(k, notice.task, pending, ready);
        ++completed;
      } else if (--pending[notice.task] == 0) {
        ready.push_back(notice.task);
      }
    }
    if (!ready.empty()) continue;
    if (!running.empty()) {
      const double next_end = running.top().first;
      if (sg::Engine::get_clock() < next_end) s.wake->wait_until(lock, next_end);
      const double now = sg::Engine::get_clock();
      while (!running.empty() && running.top().first <= now) {
        complete(k, running.top().second, pending, ready);
        running.pop();
        ++completed;
      }
      continue;
    }
    if (!s.notices.empty() || completed == tasks.size()) continue;
    s.blocked = true;
    if (everyone_blocked()) {
      deadlocked_ = true;
      for (size_t other = 0; other < state_.size(); ++other) state_[other].wake->notify_all();
      break;
    }
    s.wake->wait(lock);
    s.blocked = false;
  }
  s.finished = true;
  s.blocked = false;
}

// The platform, the rank classes, and the two properties that decide how collectives may be
// simulated (alone on the network; every node alike).
void Replay::set_up() {
  topology_ = ClusterTopology::build(spec_, graph_.world_size());
  layout_ = ClusterLayout{&spec_, topology_->gpus_per_node()};
  classes_ = build_rank_classes(graph_, options_.per_rank);
  result_.rank_classes = static_cast<int>(classes_.ranks.size());
  reuse_isolated_runs_ = options_.reuse_isolated_collectives && collectives_never_overlap(graph_, classes_);
  nodes_alike_ = topology_->nodes() > 1 && graph_.world_size() == topology_->nodes() * topology_->gpus_per_node();
  for (int rank = 0; nodes_alike_ && rank < graph_.world_size(); ++rank)
    nodes_alike_ = classes_.class_of_rank[rank] == classes_.class_of_rank[layout_.local_index(rank)];
}

// A task waits for the previous task of its stream and for each of its dependencies; the
// same-rank ones are counted down through dependents_, the others through notices.
void Replay::count_dependencies() {
  dependents_.resize(graph_.programs.size());
  initial_pending_.resize(graph_.programs.size());
  for (size_t p = 0; p < graph_.programs.size(); ++p) {
    const auto& tasks = graph_.programs[p].tasks;
    dependents_[p].resize(tasks.size());
    initial_pending_[p].assign(tasks.size(), 0);
    std::map<int, int> last_on_stream;
    for (size_t t = 0; t < tasks.size(); ++t) {
      auto previous = last_on_stream.find(tasks[t].stream);
      if (previous != last_on_stream.end()) {
        dependents_[p][previous->second].push_back(static_cast<int>(t));
        ++initial_pending_[p][t];
      }
      last_on_stream[tasks[t].stream] = static_cast<int>(t);
      initial_pending_[p][t] += static_cast<int>(tasks[t].deps.size());
      for (const TaskRef& dep : tasks[t].deps)
        if (dep.rank_offset == 0) dependents_[p][dep.task].push_back(static_cast<int>(t));
    }
  }
}

void Replay::create_class_states() {
  state_.resize(classes_.ranks.size());
  for (size_t k = 0; k < state_.size(); ++k) {
    ClassState& s = state_[k];
    s.program = &graph_.programs[classes_.program[k]];
    s.mutex = sg::Mutex::create();
    s.wake = sg::ConditionVariable::create();
    s.start_s.assign(s.program->tasks.size(), 0);
    s.end_s.assign(s.program->tasks.size(), 0);
    s.done.assign(s.program->tasks.size(), false);
  }
  // Dependencies on other ranks' tasks: the other rank's class tells this one when done.
  for (size_t k = 0; k < state_.size(); ++k) {
    const int rank = classes_.ranks[k].front();
    const auto& tasks = state_[k].program->tasks;
    for (size_t t = 0; t < tasks.size(); ++t)
      for (const TaskRef& dep : tasks[t].deps)
        if (dep.rank_offset != 0)
          remote_subscribers_[{classes_.class_of_rank[rank + dep.rank_offset], dep.task}].emplace_back(
              static_cast<int>(k), static_cast<int>(t));
  }
}

void Replay::throw_if_deadlocked() const {
  if (!deadlocked_) return;
  for (size_t k = 0; k < state_.size(); ++k)
    for (size_t t = 0; t < state_[k].program->tasks.size(); ++t)
      if (!state_[k].done[t]) {
        const Task& task = state_[k].program->tasks[t];
        throw std::runtime_error("replay deadlocked: rank " + std::to_string(classes_.ranks[k].front()) +
                                 " never finished task " + std::to_string(t) + " ('" + task.name +
                                 "'): its partners never reached the matching collective or send/recv");
      }
  throw std::runtime_error("replay deadlocked");
}

// Every class's tasks as timeline events, in start order, and the makespan.
void Replay::assemble_timeline() {
  result_.timeline.world_size = graph_.world_size();
  result_.timeline.platform = spec_.name;
  for (size_t k = 0; k < state_.size(); ++k) {
    RankClassTimeline timeline;
    timeline.ranks = classes_.ranks[k];
    const auto& tasks = state_[k].program->tasks;
    for (size_t t = 0; t < tasks.size(); ++t) {
      const Task& task = tasks[t];
      TimelineEvent e;
      e.stream = task.stream;
      e.step = task.step;
      e.category = task.kind == TaskKind::compute      ? EventCategory::compute
                   : task.kind == TaskKind::collective ? EventCategory::communication
                                                       : EventCategory::point_to_point;
      e.name = task.name.empty() ? (task.kind == TaskKind::collective ? to_string(task.op) : to_string(task.kind)) : task.name;
      e.start_s = state_[k].start_s[t];
      e.end_s = state_[k].end_s[t];
      e.bytes = task.bytes;
      result_.makespan_s = std::max(result_.makespan_s, e.end_s);
      timeline.events.push_back(std::move(e));
    }
    std::stable_sort(timeline.events.begin(), timeline.events.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start_s, a.stream) < std::tie(b.start_s, b.stream);
    });
    result_.timeline.classes.push_back(std::move(timeline));
  }
}

ReplayResult Replay::run() {
  auto& engine = start_simgrid();
  set_up();
  count_dependencies();
  create_class_states();
  for (size_t k = 0; k < state_.size(); ++k)
    sg::Actor::create("rank-class-" + std::to_string(k), topology_->gpu_host(classes_.ranks[k].front()),
                      [this, k]() { run_class(static_cast<int>(k)); });
  engine.run();
  throw_if_deadlocked();
  assemble_timeline();
  return std::move(result_);
}

}  // namespace

ReplayResult replay(const ExecutionGraph& graph, const PlatformSpec& platform, const ReplayOptions& options) {
  Replay replay(graph, platform, options);
  return replay.run();
}

}  // namespace scalecast
