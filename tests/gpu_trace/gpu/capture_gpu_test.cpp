// Capture of a real GPU job (label `gpu`): skipped, saying why, on machines without a GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>

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

TEST(GpuCapture, CublasGemmMemsetAndNcclAllreduceBecomeATrace) {
  std::string why;
  if (gpu_count(why) == 0) GTEST_SKIP() << "needs a GPU: " << why;
  const auto out = std::filesystem::temp_directory_path() / ("gpu-capture-" + std::to_string(getpid()));
  const auto result = testing::run_scalecast("capture --out " + out.string() + " --steps 1:4 -- " + CUDA_CAPTURE_JOB);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ExecutionGraph graph = read_trace(out.string());
  std::filesystem::remove_all(out);
  EXPECT_EQ(graph.world_size(), 1);
  EXPECT_FALSE(graph.traced_gpu.empty());
  int gemm = 0, fill = 0, allreduce = 0;
  for (const Task& t : graph.program(0).tasks) {
    EXPECT_GE(t.step, 0);
    EXPECT_LT(t.step, 3);
    if (t.name == "gemm") {
      ++gemm;
      EXPECT_GT(t.duration_s, 0);
    }
    if (t.name == "fill") ++fill;
    if (t.kind == TaskKind::collective) {
      ++allreduce;
      EXPECT_EQ(t.bytes, 4.0 * 2048 * 2048);
    }
  }
  EXPECT_EQ(gemm, 3);
  EXPECT_EQ(fill, 3);
  EXPECT_EQ(allreduce, 3);
  EXPECT_NE(graph.metadata.at("capture.overhead_s"), "");
}

}  // namespace
}  // namespace scalecast
