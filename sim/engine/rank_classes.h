// Groups ranks into classes that advance in lockstep, and collectives into instances.
//
// A class is the set of ranks running one program (or a single rank, when its program has
// send/recv or cross-rank dependencies, whose partners differ rank by rank). For each
// communicator, classes and the groups holding their ranks form connected components: the
// k-th collective that a component's classes issue on the communicator is one instance,
// launched when every class of the component has reached it and run for all its groups at
// once, so concurrent groups contend for links as they would for real.
#pragma once

#include <map>
#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast {

struct CommunicatorComponent {
  std::vector<int> classes;
  std::vector<int> groups;  // indices into Communicator::groups
};

struct RankClasses {
  std::vector<std::vector<int>> ranks;  // class -> its ranks, ascending
  std::vector<int> program;              // class -> program index
  std::vector<int> class_of_rank;
  // communicator id -> its components; (communicator id, class) -> component index
  std::map<int, std::vector<CommunicatorComponent>> components;
  std::map<std::pair<int, int>, int> component_of;
};

RankClasses build_rank_classes(const ExecutionGraph& graph, bool one_class_per_rank);

}  // namespace scalecast
