#include "sim/platform/network_plan.h"

#include <algorithm>
#include <cmath>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// Leaf switch ports: d down, u up, d/u = oversubscription.
void leaf_ports(const NetworkSpec& network, int& down, int& up) {
  down = static_cast<int>(std::lround(network.switch_radix * network.oversubscription / (1 + network.oversubscription)));
  down = std::clamp(down, 1, std::max(1, network.switch_radix - 1));
  up = std::max(1, network.switch_radix - down);
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

std::string with_commas(long long n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

long long network_capacity(const NetworkSpec& network, int levels) {
  const long long radix = network.switch_radix;
  if (levels <= 1) return radix;
  int down = 0, up = 0;
  leaf_ports(network, down, up);
  long long capacity = down * radix;
  for (int level = 3; level <= levels && capacity < (1LL << 50); ++level) capacity *= std::max(1LL, radix / 2);
  return capacity;
}

NetworkPlan plan_network(const NetworkSpec& network, long long nic_ports) {
  NetworkPlan plan;
  plan.requested_levels = network.levels;
  plan.nic_ports = nic_ports;
  leaf_ports(network, plan.down_ports, plan.up_ports);
  plan.levels = network.levels;
  while (network_capacity(network, plan.levels) < nic_ports) {
    if (++plan.levels > kMaxNetworkLevels)
      throw RequestError("gpus", with_commas(nic_ports) + " NIC ports need more than " + std::to_string(kMaxNetworkLevels) +
                                     " switch levels of radix " + std::to_string(network.switch_radix));
  }
  if (plan.levels == 1) {
    plan.switches_per_level = {1};
    return plan;
  }
  const long long radix = network.switch_radix, half = std::max(1LL, radix / 2);
  plan.switches_per_level.push_back(ceil_div(nic_ports, plan.down_ports));
  if (plan.switches_per_level.back() == 1) return plan;  // one leaf holds them all: nothing above it
  long long uplinks = plan.switches_per_level.back() * plan.up_ports;
  for (int level = 2; level <= plan.levels; ++level) {
    // Middle levels use half their ports down, the top all of them.
    const long long switches = ceil_div(uplinks, level == plan.levels ? radix : half);
    plan.switches_per_level.push_back(switches);
    uplinks = switches * half;
  }
  return plan;
}

std::string NetworkPlan::summary(NetworkSpec::Topology topology) const {
  if (switches_per_level.size() == 1)
    return "one switch holds all " + with_commas(nic_ports) + " NIC ports (radix " + std::to_string(down_ports + up_ports) + ")";
  std::string text = std::to_string(levels) + "-level " + (topology == NetworkSpec::Topology::rail_optimized ? "rail-optimised " : "") +
                     "fat tree";
  if (levels != requested_levels)
    text += " (the " + std::to_string(requested_levels) + " asked for hold fewer than its " + with_commas(nic_ports) + " NIC ports)";
  text += ", " + std::to_string(down_ports) + " down / " + std::to_string(up_ports) + " up per leaf:";
  for (size_t i = 0; i < switches_per_level.size(); ++i) {
    const bool top = i + 1 == switches_per_level.size();
    const std::string name = i == 0 ? "leaf" : top ? (levels == 2 ? "spine" : "core") : i == 1 ? "aggregation" : "level-" + std::to_string(i + 1);
    text += std::string(i ? ", " : " ") + with_commas(switches_per_level[i]) + " " + name;
  }
  return text + " switches";
}

}  // namespace scalecast
