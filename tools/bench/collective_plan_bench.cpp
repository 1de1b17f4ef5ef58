// Google Benchmark micro-benchmarks of the planning work a collective costs before SimGrid
// sees it: ordering rings and lowering algorithms to flows, at cluster scale. No simulation.
#include <benchmark/benchmark.h>

#include "sim/collectives/collective_cost.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

void plan(benchmark::State& state, const char* preset, CollectiveAlgorithm algorithm) {
  static const PlatformSpec spec_h100 = load_platform("dgx-h100");
  static const PlatformSpec spec_dgx1 = load_platform("dgx1-v100");
  const PlatformSpec& spec = std::string(preset) == "dgx-h100" ? spec_h100 : spec_dgx1;
  const int gpus = static_cast<int>(state.range(0));
  ClusterLayout layout{&spec, spec.node.gpus};
  CollectiveRequest request{CollectiveOp::allreduce, 64e6, {}, 0};
  for (int r = 0; r < gpus; ++r) request.group.push_back(r);
  size_t flows = 0;
  for (auto _ : state) {
    const GroupShape shape = group_shape(request, layout);  // NCCL's channel search is part of planning
    auto result = plan_collective(request, algorithm, CollectiveFidelity::steady_state, layout, shape.graph);
    flows = result.phases.front().flows.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["flows"] = static_cast<double>(flows);
}

void BM_RingPlanH100(benchmark::State& state) { plan(state, "dgx-h100", CollectiveAlgorithm::ring); }
void BM_TreePlanH100(benchmark::State& state) { plan(state, "dgx-h100", CollectiveAlgorithm::tree); }
void BM_RingPlanDgx1(benchmark::State& state) { plan(state, "dgx1-v100", CollectiveAlgorithm::ring); }

BENCHMARK(BM_RingPlanH100)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TreePlanH100)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RingPlanDgx1)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace scalecast

BENCHMARK_MAIN();
