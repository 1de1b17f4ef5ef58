#include "sim/strategy/rank_layout.h"

#include <set>
#include <stdexcept>

namespace scalecast {

namespace {

int dimension_of(const std::string& name) {
  if (name == "tp") return 0;
  if (name == "pp") return 1;
  if (name == "dp") return 2;
  throw std::invalid_argument("RankLayout: unknown dimension '" + name + "'");
}

}  // namespace

RankLayout::RankLayout(int tensor, int stages, int replicas, const std::string& order)
    : sizes_{tensor, stages, replicas} {
  if (order.size() != 8 || order[2] != '-' || order[5] != '-')
    throw std::invalid_argument("RankLayout: order must read like tp-pp-dp, got '" + order + "'");
  int stride = 1;
  std::set<int> seen;
  for (size_t at = 0; at < order.size(); at += 3) {
    const int dimension = dimension_of(order.substr(at, 2));
    if (!seen.insert(dimension).second) throw std::invalid_argument("RankLayout: order repeats a dimension");
    strides_[dimension] = stride;
    stride *= sizes_[dimension];
  }
}

int RankLayout::rank(const RankCoordinates& at) const {
  return at.tensor * strides_[0] + at.stage * strides_[1] + at.replica * strides_[2];
}

RankCoordinates RankLayout::coordinates(int rank) const {
  auto along = [&](int dimension) { return (rank / strides_[dimension]) % sizes_[dimension]; };
  return {along(0), along(1), along(2)};
}

std::vector<int> RankLayout::tensor_group(const RankCoordinates& at) const {
  std::vector<int> group;
  for (int t = 0; t < tensor(); ++t) group.push_back(rank({t, at.stage, at.replica}));
  return group;
}

std::vector<int> RankLayout::data_group(const RankCoordinates& at) const {
  std::vector<int> group;
  for (int d = 0; d < replicas(); ++d) group.push_back(rank({at.tensor, at.stage, d}));
  return group;
}

std::optional<std::string> RankLayout::tensor_group_warning(int gpus_per_node) const {
  if (tensor() == 1) return std::nullopt;
  const std::vector<int> group = tensor_group({0, 0, 0});
  std::set<int> nodes;
  for (int rank : group) nodes.insert(rank / gpus_per_node);
  if (nodes.size() == 1) return std::nullopt;
  return "each tensor-parallel group of " + std::to_string(tensor()) + " GPUs spans " + std::to_string(nodes.size()) +
         " nodes of " + std::to_string(gpus_per_node) +
         " GPUs: its all-reduces, several per layer and microbatch, leave NVLink for the network";
}

}  // namespace scalecast
