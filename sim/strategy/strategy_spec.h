// A parallelisation strategy as users write it (DESIGN.md "Command-line contract"):
//   dp         data parallelism: every GPU holds the whole model (hybrid:1)
//   hybrid:M   workers of M GPUs of one node place the model's operator graph over their GPUs
//              (DLPlacer-style), and data parallelism runs across workers
// A strategy's name is its canonical spelling, so that parse(name()) gives it back and two
// spellings of one strategy compare equal.
#pragma once

#include <string>
#include <vector>

namespace scalecast {

struct StrategySpec {
  int gpus_per_worker = 1;  // M: the GPUs that share one copy of the model

  bool is_data_parallel() const { return gpus_per_worker == 1; }
  std::string name() const;  // "dp", "hybrid:4"
  auto operator<=>(const StrategySpec&) const = default;
};

// Throws RequestError("strategy") on anything else than the forms above.
StrategySpec parse_strategy_spec(const std::string& text);

// A comma-separated list ("dp,hybrid:2,hybrid:4"), in the order given; a strategy listed twice
// is an error.
std::vector<StrategySpec> parse_strategy_list(const std::string& text);

}  // namespace scalecast
