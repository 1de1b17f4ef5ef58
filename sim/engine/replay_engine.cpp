#include "sim/engine/replay_engine.h"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "sim/core/input_error.h"
#include "sim/engine/collective_catalog.h"
#include "sim/engine/flow_ports.h"
#include "sim/engine/fluid_network.h"
#include "sim/engine/gpu_sharing.h"
#include "sim/engine/link_occupancy.h"
#include "sim/engine/rank_classes.h"
#include "sim/engine/replay_deadlock.h"
#include "sim/engine/simgrid_setup.h"
#include "sim/engine/solver_stack.h"
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
  std::vector<double> interference_s;  // per task: how much longer than alone it ran (gpu_sharing.h)
  std::vector<double> straggler_s;     // per task: the slowest rank's extra time (ReplayOptions::straggler_delay)
  std::vector<bool> done;
  GpuShare share;          // the NCCL kernels resident on the class's GPU
  RunningCompute running;  // its compute tasks in flight
  std::map<int, int> collectives_issued;  // communicator -> count
};

struct PendingInstance {
  std::vector<std::pair<int, int>> arrivals;  // (class, task)
};

// A one-phase collective timed in closed form because no other transfer held its links when
// it started (link_occupancy.h). Its flows arrive at flows_end_s unless another transfer
// reaches its links first: then what is left of them is handed to the flow solver
// (fluid_network.h), and from there on it runs as if its flows had been there from the start
// (alone on its links, the max-min rates are the closed form's).
// No mutex or condition variable: the runner sleeps to flows_end_s; a hand-over starts the
// actor that runs the rest, and the sleeper, waking, leaves the collective to it. Sharing only
// slows flows, so the rest never ends before flows_end_s.
struct ClosedFormFlight {
  LinkOccupancy::Id id = 0;
  PreparedCollective* prepared = nullptr;
  double scale = 0;        // its flows' bytes over the reference flows' (size, wire and GPU sharing)
  double flows_end_s = 0;
  double min_transfer_s = 0, latency_s = 0;
  bool handed_over = false;
  std::vector<std::pair<int, int>> waiters;
  CollectiveRecord record;
  NcclFootprint footprint;
};

class Replay {
 public:
  Replay(const ExecutionGraph& graph, const PlatformSpec& spec, const ReplayOptions& options)
      : graph_(graph), spec_(spec), options_(options) {}

  ReplayResult run();

 private:
  void set_up();
  std::vector<int> node_programs() const;
  void count_dependencies();
  void create_class_states();
  void throw_if_deadlocked() const;
  void assemble_timeline();
  void run_class(int k);
  void launch(int k, int task);
  ComputeTimeParts straggling_parts(int k, int task);
  void complete(int k, int task, std::vector<int>& pending, std::vector<int>& ready);
  void arrive_collective(int k, int task);
  void arrive_point_to_point(int k, int task);
  void start_runner(ResolvedCollective resolved, std::vector<std::pair<int, int>> waiters, CollectiveRecord record);
  void start_flow_runner(const std::vector<PreparedPhase>* phases, std::vector<PreparedPhase> owned,
                         const LinkOccupancy::Links& links, double flow_scale, double min_transfer_s, double latency_s,
                         std::vector<std::pair<int, int>> waiters, CollectiveRecord record, NcclFootprint footprint);
  void start_closed_form_runner(const ResolvedCollective& resolved, double stretch,
                                std::vector<std::pair<int, int>> waiters, CollectiveRecord record, NcclFootprint footprint);
  // Hands every collective timed in closed form that holds one of `links` over to the network.
  void hand_over_closed_forms(const LinkOccupancy::Links& links);
  void finish_closed_form(ClosedFormFlight& flight);
  // Runs a batch of flows on the network (the fluid solver, or SimGrid comms for validation)
  // and returns when the last has arrived. Called from an actor.
  void run_flows(const std::vector<HostFlow>& flows);
  void wait_out_cap_and_latency(CollectiveRecord& record, double min_transfer_s, double latency_s);
  void count_closed_form(const PreparedCollective& prepared);
  void start_timed_runner(double duration_s, std::vector<std::pair<int, int>> waiters, CollectiveRecord record,
                          NcclFootprint footprint);
  void finish_runner(const std::vector<std::pair<int, int>>& waiters, const CollectiveRecord& record,
                     const NcclFootprint& footprint);
  // The busiest GPU's wire bytes in a resolved collective (for its memory traffic).
  double sent_bytes(const ResolvedCollective& resolved);
  // How much slower than alone a kernel starting now on the waiters' GPUs moves data: >= 1.
  double nccl_stretch(const std::vector<std::pair<int, int>>& waiters, const NcclFootprint& footprint) const;
  // Puts a collective's kernel on (or takes it off) the GPUs of the classes taking part; their
  // compute in flight continues at the new pace.
  void share_gpus(const std::vector<std::pair<int, int>>& waiters, const NcclFootprint& footprint, bool resident);
  void check_collectives();
  void notify(int k, Notice notice);
  bool everyone_blocked() const;

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
  FluidNetwork fluid_;
  std::unique_ptr<CollectiveCatalog> catalog_;
  // When no two collectives can ever be in flight together (see collectives_never_overlap),
  // each runs alone on the network and is timed in closed form.
  bool collectives_alone_ = false;
  std::map<const PreparedCollective*, double> sent_reference_bytes_;  // busiest sender at the reference size
  // Otherwise, which transfers hold which links, and the collectives among them timed in
  // closed form (by their occupancy id).
  LinkOccupancy occupancy_;
  std::map<LinkOccupancy::Id, std::shared_ptr<ClosedFormFlight>> closed_form_;
  int active_runners_ = 0;
  bool deadlocked_ = false;
  ReplayResult result_;
};

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

double Replay::sent_bytes(const ResolvedCollective& resolved) {
  auto [it, added] = sent_reference_bytes_.try_emplace(resolved.prepared, 0.0);
  if (added) {
    std::map<int, double> by_rank;
    for (const CollectivePlan& plan : resolved.prepared->plans)
      for (const auto& phase : plan.phases)
        for (const Flow& flow : phase.flows) by_rank[flow.source_rank] += flow.bytes;
    for (const auto& [rank, bytes] : by_rank) it->second = std::max(it->second, bytes);
  }
  return it->second * resolved.flow_scale;
}

double Replay::nccl_stretch(const std::vector<std::pair<int, int>>& waiters, const NcclFootprint& footprint) const {
  double stretch = 1;
  for (auto [k, task] : waiters)
    stretch = std::max(stretch, state_[k].share.nccl_stretch(footprint, state_[k].running.memory_Bps()));
  return stretch;
}

void Replay::share_gpus(const std::vector<std::pair<int, int>>& waiters, const NcclFootprint& footprint, bool resident) {
  const double now = sg::Engine::get_clock();
  std::set<int> classes;
  for (auto [k, task] : waiters) classes.insert(k);
  for (int k : classes) {
    ClassState& s = state_[k];
    if (resident)
      s.share.add(footprint);
    else
      s.share.remove(footprint);
    s.running.reshare(now, s.share);
  }
}

// The kernel moves data more slowly when the compute beside it leaves it too little memory
// bandwidth (the state at its start stands for its whole run): its transfer stretches.
void Replay::start_runner(ResolvedCollective resolved, std::vector<std::pair<int, int>> waiters, CollectiveRecord record) {
  record.flows = resolved.prepared->flow_count;
  const double alone_s = catalog_->alone_s(resolved);
  NcclFootprint footprint = nccl_footprint(resolved.channels, sent_bytes(resolved), alone_s);
  const double stretch = nccl_stretch(waiters, footprint);
  footprint.memory_Bps /= stretch;
  if (collectives_alone_) {
    count_closed_form(*resolved.prepared);
    start_timed_runner(resolved.latency_s + (alone_s - resolved.latency_s) * stretch, std::move(waiters), record, footprint);
    return;
  }
  const std::vector<PreparedPhase>& phases = catalog_->host_phases(*resolved.prepared);
  if (options_.reuse_isolated_collectives && phases.size() == 1 && !occupancy_.any_held(resolved.prepared->links)) {
    start_closed_form_runner(resolved, stretch, std::move(waiters), record, footprint);
    return;
  }
  start_flow_runner(&phases, {}, resolved.prepared->links, resolved.flow_scale * stretch, resolved.min_transfer_s * stretch,
                    resolved.latency_s, std::move(waiters), record, footprint);
}

void Replay::count_closed_form(const PreparedCollective& prepared) {
  ++result_.collectives_reused;
  if (prepared.symmetry_order > 1) {
    ++result_.collectives_symmetry_folded;
    result_.symmetry_order = std::max(result_.symmetry_order, prepared.symmetry_order);
  }
}

void Replay::hand_over_closed_forms(const LinkOccupancy::Links& links) {
  const double now = sg::Engine::get_clock();
  for (LinkOccupancy::Id id : occupancy_.holders(links)) {
    auto it = closed_form_.find(id);
    if (it == closed_form_.end() || it->second->handed_over) continue;
    std::shared_ptr<ClosedFormFlight> flight = it->second;
    flight->handed_over = true;
    ++result_.collectives_handed_over;
    std::vector<HostFlow> flows_left = catalog_->flows_left(*flight->prepared, flight->scale, now - flight->record.start_s);
    flight->record.flows = static_cast<long>(flows_left.size());
    sg::Actor::create("collective", topology_->gpu_host(0), [this, flight, flows_left = std::move(flows_left)]() {
      run_flows(flows_left);
      finish_closed_form(*flight);
    });
  }
}

// Its flows' transfer in closed form, then, as for flows, no faster than the protocol's cap,
// then its latency: the same times as start_flow_runner's while it stays alone on its links.
void Replay::start_closed_form_runner(const ResolvedCollective& resolved, double stretch,
                                      std::vector<std::pair<int, int>> waiters, CollectiveRecord record,
                                      NcclFootprint footprint) {
  ++active_runners_;
  record.start_s = sg::Engine::get_clock();
  share_gpus(waiters, footprint, true);
  auto flight = std::make_shared<ClosedFormFlight>();
  flight->prepared = resolved.prepared;
  flight->scale = resolved.flow_scale * stretch;
  flight->flows_end_s = record.start_s + catalog_->alone_transfer_s(*resolved.prepared) * flight->scale;
  flight->min_transfer_s = resolved.min_transfer_s * stretch;
  flight->latency_s = resolved.latency_s;
  flight->waiters = std::move(waiters);
  flight->record = record;
  flight->footprint = footprint;
  flight->id = occupancy_.add(resolved.prepared->links);
  closed_form_[flight->id] = flight;
  sg::Actor::create("collective", topology_->gpu_host(0), [this, flight]() {
    sg::this_actor::sleep_until(flight->flows_end_s);
    if (flight->handed_over) return;  // the hand-over's actor finishes it
    count_closed_form(*flight->prepared);
    finish_closed_form(*flight);
  });
}

// Called in the actor that saw its flows arrive: frees its links, then waits out the
// protocol's cap and the latency.
void Replay::finish_closed_form(ClosedFormFlight& flight) {
  occupancy_.remove(flight.id);
  closed_form_.erase(flight.id);
  wait_out_cap_and_latency(flight.record, flight.min_transfer_s, flight.latency_s);
  finish_runner(flight.waiters, flight.record, flight.footprint);
}

void Replay::run_flows(const std::vector<HostFlow>& flows) {
  if (options_.flows_in_simgrid)
    ports_.run(flows);
  else
    fluid_.run(flows);
}

// After a transfer's flows have arrived: no faster than the protocol's cap, then the
// collective's latency; the record ends there.
void Replay::wait_out_cap_and_latency(CollectiveRecord& record, double min_transfer_s, double latency_s) {
  const double transfer_s = sg::Engine::get_clock() - record.start_s;
  const double wait_s = std::max(0.0, min_transfer_s - transfer_s) + latency_s;
  if (wait_s > 0) sg::this_actor::sleep_for(wait_s);
  record.end_s = sg::Engine::get_clock();
}

void Replay::start_timed_runner(double duration_s, std::vector<std::pair<int, int>> waiters, CollectiveRecord record,
                                NcclFootprint footprint) {
  ++active_runners_;
  record.start_s = sg::Engine::get_clock();
  share_gpus(waiters, footprint, true);
  sg::Actor::create("collective", topology_->gpu_host(0),
                    [this, duration_s, waiters = std::move(waiters), record, footprint]() mutable {
                      if (duration_s > 0) sg::this_actor::sleep_for(duration_s);
                      record.end_s = sg::Engine::get_clock();
                      finish_runner(waiters, record, footprint);
                    });
}

// The phases' flows on the network (scaled to the instance's wire bytes), no faster than the
// protocol's cap, then the collective's latency.
void Replay::start_flow_runner(const std::vector<PreparedPhase>* phases, std::vector<PreparedPhase> owned,
                               const LinkOccupancy::Links& links, double flow_scale, double min_transfer_s, double latency_s,
                               std::vector<std::pair<int, int>> waiters, CollectiveRecord record,
                               NcclFootprint footprint) {
  ++active_runners_;
  record.start_s = sg::Engine::get_clock();
  share_gpus(waiters, footprint, true);
  hand_over_closed_forms(links);
  const LinkOccupancy::Id id = occupancy_.add(links);
  sg::Actor::create("collective", topology_->gpu_host(0),
                    [this, id, phases, owned = std::move(owned), flow_scale, min_transfer_s, latency_s,
                     waiters = std::move(waiters), record, footprint]() mutable {
                      const std::vector<PreparedPhase>& run = phases ? *phases : owned;
                      long flows = 0;
                      for (const PreparedPhase& phase : run) {
                        std::vector<HostFlow> scaled = phase.flows;
                        for (HostFlow& flow : scaled) flow.bytes *= flow_scale;
                        run_flows(scaled);
                        flows += static_cast<long>(scaled.size());
                      }
                      occupancy_.remove(id);
                      record.flows = flows;
                      wait_out_cap_and_latency(record, min_transfer_s, latency_s);
                      finish_runner(waiters, record, footprint);
                    });
}

// Every waiter's notice is queued before the runner stops counting as active and before any
// class is woken: waking is a simcall, and a class that runs in between must not find this
// collective neither running nor reported (it would take the job for deadlocked).
void Replay::finish_runner(const std::vector<std::pair<int, int>>& waiters, const CollectiveRecord& record,
                           const NcclFootprint& footprint) {
  share_gpus(waiters, footprint, false);
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
  auto waiters = std::move(instance.arrivals);
  pending_collectives_.erase(key);
  if (task.bytes <= 0 || record.ranks < 2) {
    start_timed_runner(0, std::move(waiters), record, NcclFootprint{});
    return;
  }
  ResolvedCollective resolved = catalog_->resolve(*comm, component, comp.groups, task.op, task.bytes, task.root);
  record.algorithm = resolved.choice.algorithm;
  record.protocol = resolved.choice.protocol;
  record.channels = resolved.channels;
  if (resolved.prepared->folded) ++result_.collectives_folded;
  start_runner(std::move(resolved), std::move(waiters), record);
}

// A send/recv pair: one flow, and one step's latency (NCCL's LL step over its path, or the
// route's own where that is longer).
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
  const bool same_node = layout_.node_of(source) == layout_.node_of(destination);
  const StepPath path = !same_node ? StepPath::network : spec_.node.nvlink || spec_.node.nvswitch ? StepPath::nvlink : StepPath::pci;
  const double latency_s = std::max(topology_->route_latency_s(source, destination),
                                    nccl::step_latency_s(path, CollectiveAlgorithm::ring, CollectiveProtocol::ll));
  PreparedPhase phase;
  phase.flows.push_back({topology_->source_host(source, destination), topology_->destination_host(source, destination), task.bytes});
  CollectiveRecord record;
  record.point_to_point = true;
  record.algorithm = CollectiveAlgorithm::direct;
  record.bytes = task.bytes;
  record.ranks = 2;
  record.channels = 1;
  auto waiters = std::move(arrivals);
  pending_p2p_.erase(key);
  // One channel; its memory traffic at the route's narrowest link, the rate it moves at alone.
  const auto route = topology_->route(source, destination);
  double narrowest_Bps = 0;
  for (const sg::Link* link : route)
    narrowest_Bps = narrowest_Bps > 0 ? std::min(narrowest_Bps, link->get_bandwidth()) : link->get_bandwidth();
  const NcclFootprint footprint = nccl_footprint(1, narrowest_Bps, 1);
  start_flow_runner(nullptr, {std::move(phase)}, LinkOccupancy::Links(route.begin(), route.end()), 1, 0, latency_s,
                    std::move(waiters), record, footprint);
}

// A compute task's time parts at the slowest rank's pace: every part of a GPU task (kernels
// and their launches) stretched by the straggler delay; its memory traffic per second falls
// as much. Records the extra time.
ComputeTimeParts Replay::straggling_parts(int k, int task_index) {
  const Task& task = state_[k].program->tasks[task_index];
  ComputeTimeParts parts = compute_time_parts(task, spec_.node.gpu, options_.compute);
  const double delay = options_.straggler_delay;
  if (delay <= 0 || is_host_task(task)) return parts;
  state_[k].straggler_s[task_index] = parts.total_s() * delay;
  parts.compute_s *= 1 + delay;
  parts.memory_s *= 1 + delay;
  parts.fixed_s *= 1 + delay;
  parts.memory_Bps /= 1 + delay;
  return parts;
}

void Replay::launch(int k, int task_index) {
  ClassState& s = state_[k];
  const Task& task = s.program->tasks[task_index];
  const double now = sg::Engine::get_clock();
  s.start_s[task_index] = now;
  switch (task.kind) {
    case TaskKind::compute:
      s.running.start(task_index, straggling_parts(k, task_index), now, s.share);
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
  size_t completed = 0;
  std::unique_lock<sg::Mutex> lock(*s.mutex);
  while (completed < tasks.size() && !deadlocked_) {
    // Launch in task order so that runs are deterministic.
    std::sort(ready.begin(), ready.end());
    std::vector<int> launching;
    launching.swap(ready);
    for (int t : launching) launch(k, t);
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
    if (!s.running.empty()) {
      // A collective starting or ending on this GPU re-times the tasks in flight; a later end
      // wakes the class early (it then waits again), an earlier one comes with a notice.
      const double next_end = s.running.next_end_s();
      if (sg::Engine::get_clock() < next_end) s.wake->wait_until(lock, next_end);
      for (const RunningCompute::Finished& f : s.running.finish_until(sg::Engine::get_clock())) {
        s.interference_s[f.task] = f.interference_s;
        complete(k, f.task, pending, ready);
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

// Per node, which classes its GPUs run, GPU by GPU, as an id: nodes with equal ids run the
// same programs (-1: a node the job fills only in part). Node folding needs it.
std::vector<int> Replay::node_programs() const {
  std::map<std::vector<int>, int> patterns;
  std::vector<int> ids;
  for (int node = 0; node < topology_->nodes(); ++node) {
    std::vector<int> pattern;
    for (int local = 0; local < layout_.gpus_per_node; ++local) {
      const int rank = node * layout_.gpus_per_node + local;
      if (rank < graph_.world_size()) pattern.push_back(classes_.class_of_rank[rank]);
    }
    const bool full = static_cast<int>(pattern.size()) == layout_.gpus_per_node;
    ids.push_back(full ? patterns.emplace(pattern, static_cast<int>(patterns.size())).first->second : -1);
  }
  return ids;
}

// The platform, the rank classes, and the two properties that decide how collectives may be
// simulated (alone on the network; which nodes run alike).
void Replay::set_up() {
  topology_ = ClusterTopology::build(spec_, graph_.world_size());
  check_solver_stack(topology_->link_directions());
  layout_ = ClusterLayout{&spec_, topology_->gpus_per_node()};
  if (topology_->nodes() > 1) result_.network = topology_->network_plan().summary(spec_.network.topology);
  classes_ = build_rank_classes(graph_, options_.per_rank);
  result_.rank_classes = static_cast<int>(classes_.ranks.size());
  collectives_alone_ = options_.reuse_isolated_collectives && collectives_never_overlap(graph_, classes_);
  catalog_ = std::make_unique<CollectiveCatalog>(*topology_, layout_, CollectiveChoice{options_.algorithm, options_.protocol},
                                                 options_.fidelity,
                                                 options_.fold_symmetric_nodes ? node_programs() : std::vector<int>{},
                                                 options_.fold_network_symmetry);
  check_collectives();
}

// A fixed algorithm or protocol is refused (RequestError) when it applies to none of the job's
// collectives, never replaced by another; where it fits only some of them (a hybrid step's
// activation copies are broadcasts), the others choose their own pair and a note says so.
void Replay::check_collectives() {
  std::map<int, std::optional<RequestError>> refusal;  // op -> why the fixed pair does not fit it
  for (const RankProgram& program : graph_.programs)
    for (const Task& task : program.tasks) {
      if (task.kind != TaskKind::collective || refusal.count(static_cast<int>(task.op))) continue;
      try {
        catalog_->check(*graph_.find_communicator(task.communicator), task.op);
        refusal[static_cast<int>(task.op)] = std::nullopt;
      } catch (const RequestError& e) {
        refusal[static_cast<int>(task.op)] = e;
      }
    }
  bool fits_some = false;
  for (const auto& [op, why] : refusal) fits_some = fits_some || !why;
  for (const auto& [op, why] : refusal) {
    if (!why) continue;
    if (!fits_some) throw *why;
    catalog_->choose_freely(static_cast<CollectiveOp>(op));
    result_.notes.push_back(std::string("the requested collective algorithm/protocol does not apply to ") +
                            to_string(static_cast<CollectiveOp>(op)) + " (" + why->problem() + "); those chose their own");
  }
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
    s.interference_s.assign(s.program->tasks.size(), 0);
    s.straggler_s.assign(s.program->tasks.size(), 0);
    s.share = GpuShare(spec_.node.gpu.multiprocessors, spec_.node.gpu.memory_bandwidth_Bps);
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

// Every task a rank reached and its partners never joined: collectives short of some of their
// classes, messages without their other side.
void Replay::throw_if_deadlocked() const {
  if (!deadlocked_) return;
  std::vector<BlockedTask> blocked;
  auto add = [&](int k, int task, const std::string& what, std::vector<int> waiting_for) {
    const Task& t = state_[k].program->tasks[task];
    blocked.push_back({classes_.ranks[k].front(), classes_.program[k], task, t.name, what, std::move(waiting_for)});
  };
  for (const auto& [key, instance] : pending_collectives_) {
    const auto [communicator, component, sequence] = key;
    std::vector<int> missing;
    for (int c : classes_.components.at(communicator)[component].classes)
      if (std::none_of(instance.arrivals.begin(), instance.arrivals.end(), [c](const auto& a) { return a.first == c; }))
        missing.push_back(classes_.ranks[c].front());
    const Communicator* comm = graph_.find_communicator(communicator);
    for (auto [k, task] : instance.arrivals)
      add(k, task,
          std::string(to_string(state_[k].program->tasks[task].op)) + " #" + std::to_string(sequence) + " on communicator " +
              std::to_string(communicator) + (comm && !comm->name.empty() ? " (" + comm->name + ")" : ""),
          missing);
  }
  for (const auto& [key, arrivals] : pending_p2p_) {
    const auto [source, destination, tag, sequence] = key;
    for (auto [k, task] : arrivals) {
      const bool sends = classes_.ranks[k].front() == source;
      add(k, task,
          std::string(sends ? "send #" : "recv #") + std::to_string(sequence) + (sends ? " to rank " : " from rank ") +
              std::to_string(sends ? destination : source) + " with tag " + std::to_string(tag),
          {sends ? destination : source});
    }
  }
  throw deadlock_error(std::move(blocked));
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
      e.category = task.kind == TaskKind::compute      ? (is_host_task(task) ? EventCategory::host : EventCategory::compute)
                   : task.kind == TaskKind::collective ? EventCategory::communication
                                                       : EventCategory::point_to_point;
      e.name = task.name.empty() ? (task.kind == TaskKind::collective ? to_string(task.op) : to_string(task.kind)) : task.name;
      e.start_s = state_[k].start_s[t];
      e.end_s = state_[k].end_s[t];
      e.bytes = task.bytes;
      e.interference_s = state_[k].interference_s[t];
      e.straggler_s = state_[k].straggler_s[t];
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

// On a thread whose stack holds SimGrid's solver at any size (solver_stack.h).
ReplayResult replay(const ExecutionGraph& graph, const PlatformSpec& platform, const ReplayOptions& options) {
  ReplayResult result;
  run_with_solver_stack([&] {
    Replay replay(graph, platform, options);
    result = replay.run();
  });
  return result;
}

}  // namespace scalecast
