#include "sim/engine/isolated_transfer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace scalecast {

namespace {

// Max-min fair rates of the active flows by progressive filling: repeatedly saturate the link
// that offers the least per unfrozen flow, freeze its flows at that share, and charge it to
// every link they cross.
void max_min_rates(const std::vector<SolverFlow>& flows, const std::vector<char>& active,
                   const std::vector<std::vector<int>>& flows_on_link, const std::vector<double>& capacity_Bps,
                   std::vector<double>& rate) {
  const size_t links = capacity_Bps.size();
  std::vector<double> left(capacity_Bps);
  std::vector<int> unfrozen(links, 0);
  for (size_t l = 0; l < links; ++l)
    for (int f : flows_on_link[l]) unfrozen[l] += active[f] ? 1 : 0;
  using Entry = std::pair<double, int>;  // (share per flow, link)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (size_t l = 0; l < links; ++l)
    if (unfrozen[l] > 0) heap.emplace(left[l] / unfrozen[l], static_cast<int>(l));
  std::vector<char> frozen(flows.size(), 0);
  while (!heap.empty()) {
    auto [share, l] = heap.top();
    heap.pop();
    if (unfrozen[l] == 0 || share != left[l] / unfrozen[l]) continue;  // stale entry
    share = std::max(0.0, share);
    for (int f : flows_on_link[l]) {
      if (!active[f] || frozen[f]) continue;
      frozen[f] = 1;
      rate[f] = share;
      for (int m : flows[f].links) {
        left[m] -= share;
        if (--unfrozen[m] > 0 && m != l) heap.emplace(left[m] / unfrozen[m], m);
      }
    }
  }
}

// Progressive filling from the start until every flow has arrived or `stop_s` has passed;
// `remaining` ends as each flow's bytes still to move. Returns the time reached: the last
// arrival, stop_s, or infinity when a flow on a link of no capacity never arrives.
double advance(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity_Bps, double stop_s,
               std::vector<double>& remaining) {
  std::vector<std::vector<int>> flows_on_link(capacity_Bps.size());
  remaining.assign(flows.size(), 0);
  std::vector<char> active(flows.size(), 0);
  size_t active_count = 0;
  for (size_t f = 0; f < flows.size(); ++f) {
    if (flows[f].links.empty() || flows[f].bytes <= 0) continue;
    active[f] = 1;
    ++active_count;
    remaining[f] = flows[f].bytes;
    for (int l : flows[f].links) flows_on_link[l].push_back(static_cast<int>(f));
  }
  std::vector<double> rate(flows.size(), 0);
  double now_s = 0;
  while (active_count > 0) {
    max_min_rates(flows, active, flows_on_link, capacity_Bps, rate);
    double step_s = std::numeric_limits<double>::infinity();
    for (size_t f = 0; f < flows.size(); ++f)
      if (active[f] && rate[f] > 0) step_s = std::min(step_s, remaining[f] / rate[f]);
    if (!std::isfinite(step_s) && !std::isfinite(stop_s)) return step_s;  // never arrives
    const bool stops = now_s + step_s >= stop_s;
    if (stops) step_s = stop_s - now_s;
    now_s += step_s;
    // Flows finishing within a relative 1e-9 of the earliest end together (rounding).
    for (size_t f = 0; f < flows.size(); ++f) {
      if (!active[f]) continue;
      remaining[f] -= rate[f] * step_s;
      if (remaining[f] <= flows[f].bytes * 1e-9) {
        remaining[f] = 0;
        active[f] = 0;
        --active_count;
      }
    }
    if (stops) break;
  }
  return now_s;
}

}  // namespace

double isolated_transfer_s(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity_Bps) {
  std::vector<double> remaining;
  return advance(flows, capacity_Bps, std::numeric_limits<double>::infinity(), remaining);
}

std::vector<double> remaining_bytes_after(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity_Bps,
                                          double elapsed_s) {
  std::vector<double> remaining;
  advance(flows, capacity_Bps, elapsed_s, remaining);
  return remaining;
}

}  // namespace scalecast
