#include "sim/strategy/strategy_spec.h"

#include <algorithm>
#include <cctype>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {
// hybrid:M keeps a worker inside one node; no node has more GPUs than this.
constexpr int kMaxGpusPerWorker = 4096;
}  // namespace

std::string StrategySpec::name() const {
  return is_data_parallel() ? "dp" : "hybrid:" + std::to_string(gpus_per_worker);
}

StrategySpec parse_strategy_spec(const std::string& text) {
  if (text == "dp") return {};
  if (text.rfind("hybrid:", 0) == 0) {
    const std::string digits = text.substr(7);
    if (!digits.empty() && digits.size() <= 4 &&
        std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
      const int m = std::stoi(digits);
      if (m >= 1 && m <= kMaxGpusPerWorker) return {m};
    }
  }
  throw RequestError("strategy", "expected dp or hybrid:M with 1 <= M <= " + std::to_string(kMaxGpusPerWorker) +
                                     ", got '" + text + "'");
}

std::vector<StrategySpec> parse_strategy_list(const std::string& text) {
  std::vector<StrategySpec> strategies;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const StrategySpec strategy = parse_strategy_spec(item);
    if (std::find(strategies.begin(), strategies.end(), strategy) != strategies.end())
      throw RequestError("strategy", "'" + item + "' is listed twice");
    strategies.push_back(strategy);
    if (comma == std::string::npos) return strategies;
    start = comma + 1;
  }
}

}  // namespace scalecast
