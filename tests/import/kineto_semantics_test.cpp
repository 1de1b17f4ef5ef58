// Small handwritten Kineto traces that pin down how CPU-side events become dependencies:
// launches, synchronisations, stream waits, NCCL kernels without metadata.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/import/kineto_to_graph.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

using nlohmann::json;

class KinetoSemantics : public testing::ScratchFolder {
 protected:
  json events = json::array();
  void step(int n, double ts, double dur) {
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(n)}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}});
  }
  void runtime(const std::string& name, double ts, double dur, int correlation, int tid = 1) {
    events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur},
                      {"args", {{"correlation", correlation}}}});
  }
  void gpu(const std::string& cat, const std::string& name, int stream, double ts, double dur, int correlation, json extra = json::object()) {
    json args = {{"stream", stream}, {"device", 0}, {"correlation", correlation}};
    args.update(extra);
    events.push_back({{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", 0}, {"tid", stream}, {"ts", ts}, {"dur", dur}, {"args", args}});
  }
  KinetoImport import(bool per_kernel = true) {
    json doc = {{"schemaVersion", 1}, {"distributedInfo", {{"rank", 0}, {"world_size", 2}}},
                {"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA A100-SXM4-40GB"}}})}, {"traceEvents", events}};
    const std::string file = write_text("trace.json", doc.dump());
    KinetoImportOptions options;
    options.per_kernel = per_kernel;
    return kineto_to_graph({read_kineto_trace(file)}, options);
  }
  static int find(const RankProgram& program, const std::string& name, int nth = 0) {
    for (size_t t = 0; t < program.tasks.size(); ++t)
      if (program.tasks[t].name == name && nth-- == 0) return static_cast<int>(t);
    return -1;
  }
  static bool depends(const Task& task, int on) {
    for (const TaskRef& d : task.deps)
      if (d.task == on && d.rank_offset == 0) return true;
    return false;
  }
};

TEST_F(KinetoSemantics, KernelsWaitForTheirLaunchAndSyncWaitsForTheGpu) {
  step(1, 0, 1000);
  runtime("cudaLaunchKernel", 100, 10, 1);
  gpu("kernel", "gemm", 7, 115, 500, 1);
  runtime("cudaLaunchKernel", 120, 10, 2);
  gpu("kernel", "relu", 7, 615, 100, 2);
  runtime("cudaDeviceSynchronize", 140, 580, 3);  // returns at 720, when relu ended at 715
  const KinetoImport imported = import();
  ASSERT_EQ(imported.graph.world_size(), 2);
  EXPECT_EQ(imported.graph.traced_gpu, "A100-SXM4-40GB");
  EXPECT_EQ(imported.graph.program_of_rank, (std::vector<int>{0, 0}));  // rank 1 by symmetry
  ASSERT_EQ(imported.warnings.size(), 1u);
  EXPECT_NE(imported.warnings[0].find("symmetry"), std::string::npos);
  const RankProgram& p = imported.graph.programs[0];
  const int gemm = find(p, "gemm"), relu = find(p, "relu");
  const int first_launch = find(p, "launch"), second_launch = find(p, "launch", 1);
  const int sync = find(p, "wait cudaDeviceSynchronize");
  ASSERT_GE(gemm, 0);
  ASSERT_GE(relu, 0);
  ASSERT_GE(sync, 0);
  EXPECT_TRUE(depends(p.tasks[gemm], first_launch));
  EXPECT_TRUE(depends(p.tasks[relu], second_launch));
  EXPECT_TRUE(depends(p.tasks[sync], relu));
  EXPECT_NEAR(p.tasks[first_launch].duration_s, 110e-6, 1e-12);   // step start to the first launch's return
  EXPECT_NEAR(p.tasks[second_launch].duration_s, 20e-6, 1e-12);  // host time between the launches
  EXPECT_NEAR(p.tasks[sync].duration_s, 5e-6, 1e-12);            // what the sync took after relu ended
  EXPECT_EQ(p.tasks[sync].op_kind, "host");
  EXPECT_EQ(p.tasks[gemm].op_kind, "matmul");  // its kernel class (sim/cost/kernel_class.h)
  EXPECT_EQ(p.tasks[gemm].step, 1);
  // The main thread runs to the step's end: 720 -> 1000.
  EXPECT_NEAR(p.tasks.back().duration_s, 280e-6, 1e-12);
}

TEST_F(KinetoSemantics, StreamWaitEventOrdersNcclAfterComputeAndInfersSize) {
  step(3, 0, 2000);
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "gemm", 7, 20, 300, 1);
  runtime("cudaMemcpyAsync", 30, 5, 2);
  gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 7, 320, 2, 2, {{"bytes", 4096}});
  runtime("cudaStreamWaitEvent", 40, 1, 3);
  runtime("cudaLaunchKernel", 45, 5, 4);
  gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)", 20, 330, 50, 4);
  runtime("cudaLaunchKernel", 60, 5, 5);
  gpu("kernel", "other", 7, 322, 10, 5);  // no wait before it: runs beside the allreduce
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  int nccl = -1;
  for (size_t t = 0; t < p.tasks.size(); ++t)
    if (p.tasks[t].kind == TaskKind::collective) nccl = static_cast<int>(t);
  ASSERT_GE(nccl, 0);
  EXPECT_EQ(p.tasks[nccl].op, CollectiveOp::allreduce);
  EXPECT_EQ(p.tasks[nccl].dtype, "float16");
  EXPECT_EQ(p.tasks[nccl].bytes, 4096);
  EXPECT_EQ(p.tasks[nccl].stream, 20);
  EXPECT_EQ(imported.stats.inferred_sizes, 1);
  const int copy = find(p, "Memcpy DtoD (Device -> Device)");
  EXPECT_TRUE(depends(p.tasks[nccl], copy));  // the wait: last work launched on stream 7
  EXPECT_FALSE(depends(p.tasks[find(p, "other")], nccl));
  ASSERT_EQ(imported.graph.communicators.size(), 1u);
  EXPECT_EQ(imported.graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1}}));
}

TEST_F(KinetoSemantics, NcclMetadataGivesSizeAndKernelsGroupUnderTheirOperator) {
  step(0, 0, 1000);
  events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::linear"}, {"pid", 1}, {"tid", 1}, {"ts", 5}, {"dur", 40}, {"args", {{"External id", 9}}}});
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "gemm_a", 7, 20, 100, 1);
  runtime("cudaLaunchKernel", 20, 5, 2);
  gpu("kernel", "gemm_b", 7, 120, 50, 2);
  runtime("cudaLaunchKernel", 60, 5, 3);
  gpu("kernel", "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 9, 200, 80, 3,
      {{"Collective name", "allgather"}, {"In msg nelems", 1000}, {"Out msg nelems", 2000}, {"dtype", "BFloat16"},
       {"Group size", 2}, {"Process Group Ranks", "[0, 1]"}});
  const KinetoImport imported = import(/*per_kernel=*/false);
  const RankProgram& p = imported.graph.programs[0];
  const int linear = find(p, "aten::linear");
  ASSERT_GE(linear, 0);
  EXPECT_NEAR(p.tasks[linear].duration_s, 150e-6, 1e-12);  // both kernels, one task
  EXPECT_EQ(find(p, "gemm_b"), -1);
  int nccl = -1;
  for (size_t t = 0; t < p.tasks.size(); ++t)
    if (p.tasks[t].kind == TaskKind::collective) nccl = static_cast<int>(t);
  ASSERT_GE(nccl, 0);
  EXPECT_EQ(p.tasks[nccl].op, CollectiveOp::allgather);
  EXPECT_EQ(p.tasks[nccl].bytes, 4000);  // per-rank output buffer: 2000 bf16 elements
  EXPECT_EQ(p.tasks[nccl].dtype, "bfloat16");
  EXPECT_EQ(imported.stats.inferred_sizes, 0);
}

}  // namespace
}  // namespace scalecast
