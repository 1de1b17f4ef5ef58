// How a hybrid worker's placement is reported: method, MP speedup (1-GPU step / M-GPU step)
// and the operators each GPU holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/strategy/hybrid_parallel.h"

namespace scalecast {

nlohmann::ordered_json placement_json(const ModelGraph& model, const WorkerPlan& plan);
// One line: "cbc (optimal), MP speedup 1.43x: step 80.1 ms on 4 GPUs vs 114.6 ms on 1".
std::string placement_line(const WorkerPlan& plan);

}  // namespace scalecast
