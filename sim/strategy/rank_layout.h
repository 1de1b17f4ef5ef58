// Where a tp/pp strategy's GPUs sit: each rank's (tensor, pipeline stage, data replica)
// coordinates. The order names the dimensions innermost first ("tp-pp-dp": rank =
// t + T*(p + P*d)), so by default a tensor-parallel group is T consecutive GPUs (inside one
// NVLink/NVSwitch domain when T divides the node), pipeline neighbours sit on neighbouring
// nodes, and data-parallel replicas are outermost. Megatron-LM's own default is "tp-dp-pp".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace scalecast {

struct RankCoordinates {
  int tensor = 0;
  int stage = 0;
  int replica = 0;
};

class RankLayout {
 public:
  // `order`: a permutation of tp, pp and dp joined by '-', innermost first (strategy_spec.h).
  RankLayout(int tensor, int stages, int replicas, const std::string& order);

  int tensor() const { return sizes_[0]; }
  int stages() const { return sizes_[1]; }
  int replicas() const { return sizes_[2]; }
  int world_size() const { return sizes_[0] * sizes_[1] * sizes_[2]; }

  int rank(const RankCoordinates& at) const;
  RankCoordinates coordinates(int rank) const;

  // Ranks varying along one dimension with the others fixed at `at`'s: the tensor-parallel
  // group, the data-parallel group, ...
  std::vector<int> tensor_group(const RankCoordinates& at) const;
  std::vector<int> data_group(const RankCoordinates& at) const;

  // Why the layout splits a tensor-parallel group over nodes (its all-reduces then leave
  // NVLink), or nothing.
  std::optional<std::string> tensor_group_warning(int gpus_per_node) const;

 private:
  std::array<int, 3> sizes_;    // by dimension: tensor, stage, replica
  std::array<int, 3> strides_;  // rank distance between neighbours along each dimension
};

}  // namespace scalecast
