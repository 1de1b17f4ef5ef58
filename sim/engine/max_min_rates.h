// Max-min fair rates of flows sharing links, as SimGrid's CM02 network model gives them with
// every flow weighted alike (simgrid_setup.cpp: TCP-gamma 0, no cross-traffic): progressive
// filling. Shared by the closed form of a batch alone (isolated_transfer.h) and the fluid
// network that runs overlapping batches (fluid_sharing.h).
#pragma once

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace scalecast {

// Sets rate[f] for every active flow f: repeatedly saturate the link that offers the least
// per unfrozen flow, freeze its flows at that share, and charge it to every link they cross.
// `route_of(f)`: flow f's links, indices into capacity_Bps; a link listed twice is charged
// twice. `weight_of(f)`: how many identical flows f stands for (same links, same bytes, same
// start: max-min gives them one rate), each counted and charged. `flows_on_link[l]`: the flows crossing link l, inactive ones included (skipped).
// Inactive flows' rates are left as they were.
template <class RouteOf, class WeightOf>
void max_min_rates(RouteOf route_of, WeightOf weight_of, const std::vector<char>& active,
                   const std::vector<std::vector<int>>& flows_on_link, const std::vector<double>& capacity_Bps,
                   std::vector<double>& rate) {
  const size_t links = capacity_Bps.size();
  std::vector<double> left(capacity_Bps);
  std::vector<int> unfrozen(links, 0);
  for (size_t l = 0; l < links; ++l)
    for (int f : flows_on_link[l]) unfrozen[l] += active[f] ? weight_of(f) : 0;
  using Entry = std::pair<double, int>;  // (share per flow, link)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (size_t l = 0; l < links; ++l)
    if (unfrozen[l] > 0) heap.emplace(left[l] / unfrozen[l], static_cast<int>(l));
  std::vector<char> frozen(active.size(), 0);
  // The links whose share moved while freezing one link's flows: each gets one new heap entry
  // after that link is done, not one per flow that crossed it (no pop happens in between).
  std::vector<char> moved(links, 0);
  std::vector<int> moved_links;
  while (!heap.empty()) {
    auto [share, l] = heap.top();
    heap.pop();
    if (unfrozen[l] == 0 || share != left[l] / unfrozen[l]) continue;  // stale entry
    share = std::max(0.0, share);
    for (int f : flows_on_link[l]) {
      if (!active[f] || frozen[f]) continue;
      frozen[f] = 1;
      rate[f] = share;
      const int weight = weight_of(f);
      for (int m : route_of(f)) {
        left[m] -= share * weight;
        unfrozen[m] -= weight;
        if (m != l && !moved[m]) {
          moved[m] = 1;
          moved_links.push_back(m);
        }
      }
    }
    for (int m : moved_links) {
      moved[m] = 0;
      if (unfrozen[m] > 0) heap.emplace(left[m] / unfrozen[m], m);
    }
    moved_links.clear();
  }
}

}  // namespace scalecast
