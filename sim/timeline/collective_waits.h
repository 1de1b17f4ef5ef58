// When each collective's transfer actually began. A timeline event of a collective (or a
// send/recv) runs from the moment its rank reached it to the moment it ended, and the transfer
// cannot begin before every member has arrived: a rank that arrived early spent the first part
// waiting for the others (a straggler's partners wait), which is not communication cost.
//
// Members are recognised as the critical path does (critical_path.h): events of the same
// category and bytes, and for collectives the same name, ending at the same instant (within
// kSameInstant_s); the transfer began when the last of them arrived.
#pragma once

#include <utility>
#include <vector>

#include "sim/timeline/timeline.h"

namespace scalecast {

struct CollectiveWaits {
  // Per class, per event: when the event's work began. For compute, its start; for a
  // collective or send/recv, the latest arrival among its members (>= its own start).
  std::vector<std::vector<double>> transfer_start_s;

  // Per class: the time in collectives and sends/receives before their transfer began, merged.
  std::vector<std::vector<std::pair<double, double>>> waiting;
};

CollectiveWaits collective_waits(const Timeline& timeline);

// Length of `intervals` (sorted, disjoint) inside [from_s, to_s] and outside `except` (sorted,
// disjoint): the waiting time during which no compute ran, for example.
double length_outside(const std::vector<std::pair<double, double>>& intervals,
                      const std::vector<std::pair<double, double>>& except, double from_s, double to_s);

// Sorted, disjoint union of `intervals`.
std::vector<std::pair<double, double>> merge_intervals(std::vector<std::pair<double, double>> intervals);

}  // namespace scalecast
