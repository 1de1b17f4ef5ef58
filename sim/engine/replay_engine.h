// Replays an execution graph on a platform with SimGrid: compute on GPUs, collectives and
// send/recv as flows sharing the platform's links (max-min fair rates, run by the engine's
// flow solver on SimGrid's clock: fluid_network.h). docs/ARCHITECTURE.md.
//
// Ranks that run the same program and meet in the same collectives advance in lockstep (every
// collective ends at once for all its members), so the engine runs one actor per such rank
// class, not per GPU, while every collective still puts all of its flows, for all ranks, on
// the network -- except a collective whose groups each lie inside one node and repeat node
// after node while every node runs the same programs: its flows run on one node only (the
// other nodes' copies would load only their own links, identically). Options.per_rank turns
// classes off (one class per rank), and with them that folding, for validation.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/collective_cost.h"
#include "sim/cost/compute_cost.h"
#include "sim/engine/replay_deadlock.h"
#include "sim/platform/platform_spec.h"
#include "sim/timeline/timeline.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

struct ReplayOptions {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  CollectiveProtocol protocol = CollectiveProtocol::automatic;
  CollectiveFidelity fidelity = CollectiveFidelity::steady_state;
  ComputeCostModel compute;
  bool per_rank = false;
  // A collective that no other transfer shares a link with runs as if alone: compute its
  // time in closed form (collective_catalog.h: max-min sharing solved directly, the same rates
  // SimGrid gives) instead of putting its flows on the network. When no two collectives can be
  // in flight together, every instance is timed so; otherwise one whose links are free when it
  // starts is, until another transfer reaches them, when what is left of its flows goes to
  // the flow solver (link_occupancy.h). Exact either way. Off only for validation.
  bool reuse_isolated_collectives = true;
  // Put only one node's flows on the network for collectives that every node runs alike on
  // its own GPUs (see replay_engine.cpp). Off only for validation.
  bool fold_symmetric_nodes = true;
  // Solve those closed forms on one rail and one block of nodes when the rails carry identical
  // traffic and the blocks see identical traffic (network_symmetry.h): the same times from a
  // fraction of the flows. Off only for validation.
  bool fold_network_symmetry = true;
  // Run the flows of collectives that share links (and of point-to-point transfers) as SimGrid
  // comms instead of in the engine's fluid solver (fluid_network.h), which gives SimGrid's
  // max-min rates without an actor and comm per flow. On only for validation.
  bool flows_in_simgrid = false;
  // How much longer than alone every GPU task takes because the job advances at the pace of
  // its slowest rank: the expected relative delay of the slowest of the job's ranks
  // (sim/cost/compute_variability.h). 0: every rank takes its expected time. Host tasks keep
  // theirs.
  double straggler_delay = 0;
};

struct CollectiveRecord {
  bool point_to_point = false;  // a send/recv pair rather than a collective
  CollectiveOp op = CollectiveOp::allreduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  int channels = 0;
  double bytes = 0;  // per-rank buffer
  int ranks = 0;     // size of the largest group involved
  double start_s = 0;
  double end_s = 0;
  long flows = 0;
};

struct ReplayResult {
  Timeline timeline;
  double makespan_s = 0;
  std::vector<CollectiveRecord> collectives;
  long flows = 0;
  int rank_classes = 0;
  int collectives_reused = 0;  // instances alone on the network (or their links), timed in closed form
  int collectives_handed_over = 0;  // instances timed so until another transfer reached their links
  int collectives_folded = 0;  // instances whose flows ran on one node for every node
  int collectives_symmetry_folded = 0;  // of collectives_reused: solved on one rail / block of nodes
  long symmetry_order = 1;              // the largest fold among them: 1/this of the flows solved
  std::string network;         // the switches built between nodes (network_plan.h); empty on one node
  std::vector<std::string> notes;  // what the user should know about how the run was made
};

// Runs SimGrid in this process (once per process: the engine is a singleton). Throws
// ReplayDeadlock when the ranks wait for each other forever.
ReplayResult replay(const ExecutionGraph& graph, const PlatformSpec& platform, const ReplayOptions& options);

}  // namespace scalecast
