// How many switches a network of the platform's kind needs for a given number of NIC ports, and
// whether the levels the platform asks for can hold them (port arithmetic, no SimGrid).
//
// A leaf switch of radix k has d ports down to NICs and u = k - d up (d/u = oversubscription).
// One level holds k NIC ports (one switch, no uplinks); two levels hold d x k (k leaves under
// spines of k ports); every further level multiplies by k/2 (pods of k/2 switches of the level
// below, non-blocking above the leaves, as in a folded Clos). A platform whose levels cannot
// hold its NICs gets as many more levels as it needs, and the plan says so.
#pragma once

#include <string>
#include <vector>

#include "sim/platform/platform_spec.h"

namespace scalecast {

struct NetworkPlan {
  int requested_levels = 0;
  int levels = 0;  // built: requested, or more when the NICs need them
  int down_ports = 0, up_ports = 0;  // of a leaf switch
  long long nic_ports = 0;
  std::vector<long long> switches_per_level;  // leaf first
  // "3-level fat tree (2 asked for hold 2,048 NIC ports), radix 64, 32 down / 32 up per leaf:
  // 512 leaf, 512 aggregation, 256 core switches"
  std::string summary(NetworkSpec::Topology topology) const;
};

// NIC ports that `levels` levels of this network hold.
long long network_capacity(const NetworkSpec& network, int levels);
NetworkPlan plan_network(const NetworkSpec& network, long long nic_ports);

// Levels scalecast builds at most (radix 4: 4 x 2^4 = 64 ports; radix 36, 3 levels: 11,664).
constexpr int kMaxNetworkLevels = 6;

}  // namespace scalecast
