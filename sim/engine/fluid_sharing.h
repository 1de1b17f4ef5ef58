// Batches of flows that start at different times on shared links, in the fluid model SimGrid's
// network runs (CM02, every flow weighted alike, links without latency; simgrid_setup.cpp):
// at every moment the flows in flight have their max-min fair rates (max_min_rates.h),
// re-solved whenever a flow starts or arrives. The engine runs overlapping collectives here
// instead of as SimGrid comms (fluid_network.h): the same rates, without an actor and a
// mailbox comm per flow. Flows of a batch with the same route and bytes (a ring's channels
// between two GPUs) move alike, so they share one slot that counts for all of them.
// No SimGrid in this file: the caller gives the time.
//
// Invariants: time only moves forward; after every call each flow in flight arrives more than
// kMergeS from now at the current rates (flows due sooner count as arrived), so
// next_arrival_s() always lies in the future.
#pragma once

#include <unordered_map>
#include <vector>

namespace scalecast {

class FluidSharing {
 public:
  using BatchId = long;
  struct Flow {
    const std::vector<int>* route = nullptr;  // link indices; must outlive the flow
    double bytes = 0;
  };

  // Flows due within this of now arrive now: SimGrid ends a sleep within 0.1 us of its end
  // (surf/precision, simgrid_setup.cpp), so the actor that drives this may wake that early.
  static constexpr double kMergeS = 1e-7;

  // Link l (numbered 0, 1, ... in the order added) carries capacity_Bps.
  int add_link(double capacity_Bps);
  int links() const { return static_cast<int>(capacity_Bps_.size()); }
  // Moves time to now_s (>= the time of the last call): flows progress at their rates.
  void advance_to(double now_s);
  // Advances to now_s, then starts a batch. A flow without links or bytes arrives at once;
  // so does a batch of such flows.
  BatchId start(double now_s, const std::vector<Flow>& flows);
  // The batches whose last flow has arrived since the last call, in the order they arrived.
  std::vector<BatchId> take_arrived();
  bool in_flight(BatchId id) const { return flows_left_.count(id) > 0; }
  // When the next flow arrives at the current rates; infinity when none is in flight (or
  // none can move: a link of no capacity). Every other call leaves the rates solved.
  double next_arrival_s() const;
  double now_s() const { return now_s_; }
  long flows_in_flight() const { return live_flows_; }

 private:
  void settle();
  void solve_rates();
  bool complete_due_flows();
  void arrive(int flow);
  void compact();

  double now_s_ = 0;
  std::vector<double> capacity_Bps_;
  // Per flow slot (struct of arrays; slots of arrived flows stay until compact()).
  std::vector<const std::vector<int>*> route_;
  std::vector<double> remaining_bytes_;
  std::vector<double> rate_Bps_;
  std::vector<double> tolerance_bytes_;  // rounding allowance: 1e-9 of the flow's bytes
  std::vector<BatchId> batch_of_;
  std::vector<int> weight_;  // how many identical flows the slot stands for
  std::vector<char> active_;
  std::vector<std::vector<int>> flows_on_link_;
  long live_ = 0;        // slots in flight
  long live_flows_ = 0;  // flows in flight (their weights)
  bool rates_stale_ = false;
  BatchId next_batch_ = 0;
  std::unordered_map<BatchId, long> flows_left_;
  std::vector<BatchId> arrived_;
};

}  // namespace scalecast
