#include "sim/engine/isolated_transfer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/engine/max_min_rates.h"

namespace scalecast {

namespace {

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
    max_min_rates([&](int f) -> const std::vector<int>& { return flows[f].links; }, [](int) { return 1; }, active,
                  flows_on_link, capacity_Bps, rate);
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
