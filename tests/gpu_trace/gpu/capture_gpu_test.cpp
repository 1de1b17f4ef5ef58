// Capture of a real GPU job (label `gpu`): skipped, saying why, on machines without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "sim/trace/trace_json.h"
#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

// Asks the CUDA driver directly (no CUDA runtime linked here): how many GPUs, or why none.
int gpu_count(std::string& why) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    why = "no CUDA driver (libcuda.so.1 not found)";
    return 0;
  }
  auto* init = reinterpret_cast<int (*)(unsigned)>(dlsym(driver, "cuInit"));
  auto* count = reinterpret_cast<int (*)(int*)>(dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  if (!init || !count || init(0) != 0 || count(&devices) != 0) {
    why = "the CUDA driver found no usable GPU";
    return 0;
  }
  return devices;
}

TEST(GpuCapture, CublasGemmMemsetAndOneRankNcclCallsThatRunOnTheGpuBecomeATrace) {
  std::string why;
  if (gpu_count(why) == 0) GTEST_SKIP() << "needs a GPU: " << why;
  const auto out = std::filesystem::temp_directory_path() / ("gpu-capture-" + std::to_string(getpid()));
  const auto result = testing::run_scalecast("capture --out " + out.string() + " --steps 1:4 -- " + CUDA_CAPTURE_JOB);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ExecutionGraph graph = read_trace(out.string());
  std::filesystem::remove_all(out);
  EXPECT_EQ(graph.world_size(), 1);
  EXPECT_FALSE(graph.traced_gpu.empty());
  const double bytes = 4.0 * 2048 * 2048;
  std::map<std::string, int> seen;
  for (const Task& t : graph.program(0).tasks) {
    EXPECT_GE(t.step, 0);
    EXPECT_LT(t.step, 3);
    if (t.kind == TaskKind::compute) {
      ++seen[t.name];
      EXPECT_GT(t.duration_s, 0) << t.name;
      EXPECT_NE(t.name.rfind("nccl", 0), 0u) << "NCCL's work is not compute: " << t.name;
      continue;
    }
    ++seen[t.name];
    EXPECT_EQ(t.bytes, bytes) << t.name;
    if (t.kind == TaskKind::send || t.kind == TaskKind::recv) {
      EXPECT_EQ(t.peer_offset, 0);  // to itself
    }
  }
  // 3 steps of: fill, gemm, allreduce (AVG), allgather, 2 broadcasts (ncclBcast once, not twice),
  // send, recv.
  EXPECT_EQ(seen, (std::map<std::string, int>{{"fill", 3}, {"gemm", 3}, {"allreduce", 3}, {"allgather", 3},
                                              {"broadcast", 6}, {"send", 3}, {"recv", 3}}));
  // The collectives were timed by the GPU work they launched, not by their host calls.
  EXPECT_GT(std::stod(graph.metadata.at("capture.nccl_gpu_s")), 0);
  EXPECT_NE(graph.metadata.at("capture.overhead_s"), "");
  EXPECT_EQ(graph.metadata.count("capture.cupti"), 0u);  // no other client held CUPTI
}

}  // namespace
}  // namespace scalecast
