// The CUPTI side of the capture (gpu_trace/cupti_glue.cpp) on CPU: built against a fake libcupti
// (tests/gpu_trace/fake_cupti/) and driven by fake_cupti_job, under AddressSanitizer where the
// compiler has it. It covers what a GPU run would hit first: the flush at exit going through the
// glue's tables after other objects were destroyed, the API calls enabled, NVTX domains,
// peer-to-peer copies, unfinished records, and another CUPTI client holding CUPTI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gpu_trace/rank_files.h"
#include "gpu_trace/record_io.h"
#include "sim/trace/trace_json.h"
#include "tests/support/scratch_folder.h"

namespace scalecast::gpu_trace {
namespace {

#ifdef FAKE_CUPTI_JOB

}  // namespace
}  // namespace scalecast::gpu_trace
#include <cupti.h>
namespace scalecast::gpu_trace {
namespace {

struct JobResult {
  int exit_code = -1;
  std::string err;
};

// Runs the job as rank 0 of a capture into `folder`, with `env` ("NAME=value …") added.
JobResult run_job(const std::string& folder, const std::string& env) {
  const std::string err_path = folder + "/job.stderr";
  const std::string command = "env SCALECAST_CAPTURE_DIR=" + folder + " SCALECAST_CAPTURE_RAW=1 RANK=0 " +
                              "FAKE_CUPTI_LOG=" + folder + "/cupti.log ASAN_OPTIONS=detect_leaks=0 " + env + " " +
                              FAKE_CUPTI_JOB + " 2>" + err_path;
  JobResult result;
  const int status = std::system(command.c_str());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  std::stringstream text;
  text << in.rdbuf();
  result.err = text.str();
  return result;
}

std::set<std::string> log_lines(const std::string& folder) {
  std::ifstream in(folder + "/cupti.log");
  std::set<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.insert(line);
  return lines;
}

using CuptiGlue = scalecast::testing::ScratchFolder;

TEST_F(CuptiGlue, ExitFlushGoesThroughTablesMadeBeforeItsHandler) {
  const std::string folder = path("capture");
  std::filesystem::create_directories(folder);
  const JobResult job = run_job(folder, "");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(job.err.find("AddressSanitizer"), std::string::npos) << job.err;
  // The records of all three steps: the first step's came in a buffer during the run, the rest
  // in the flush at exit.
  const ProcessRecords records = read_records(folder + "/rank-0.records.jsonl");
  int gemms = 0, nccl_kernels = 0, peer_copies = 0;
  for (const GpuActivity& a : records.activities) {
    gemms += a.name == "sm90_gemm";
    nccl_kernels += a.name == "ncclDevKernel_ncclAllReduce";
    peer_copies += a.kind == ActivityKind::memcpy && a.name == "memcpy PtoP" && a.bytes == 4096;
  }
  EXPECT_EQ(gemms, 3);
  EXPECT_EQ(nccl_kernels, 3);
  EXPECT_EQ(peer_copies, 3);
  EXPECT_EQ(records.activities.size(), 10u);  // and the kernel still running at exit
  EXPECT_EQ(records.launches.size(), 10u);    // launches and copies only: not cudaGetDevice
  EXPECT_EQ(records.nccl_calls.size(), 3u);
  EXPECT_EQ(records.correlations.size(), 3u);  // each NCCL kernel carries its call's id
  EXPECT_EQ(records.gpu_name, "NVIDIA H200 (fake CUPTI)");
  int nccl_domain = 0;
  for (const CpuRange& r : records.ranges) nccl_domain += r.domain == "NCCL";
  EXPECT_EQ(nccl_domain, 3);

  // The merged trace: steps from the NVTX ranges, the allreduce timed by its kernel, NCCL's own
  // ranges not operators, the unfinished kernel dropped and counted.
  write_manifest(folder, {});
  const ExecutionGraph graph = read_trace(folder);
  EXPECT_EQ(graph.metadata.at("capture.steps"), "3 of 3 (from step 0)");
  EXPECT_EQ(graph.metadata.at("capture.incomplete_records"), "1");
  EXPECT_NE(graph.metadata.at("capture.nccl_gpu_s"), "0");
  int allreduces = 0;
  for (const Task& t : graph.program(0).tasks) {
    EXPECT_NE(t.name, "ncclAllReduce");
    EXPECT_NE(t.name, "still_running");
    allreduces += t.kind == TaskKind::collective;
  }
  EXPECT_EQ(allreduces, 3);
}

TEST_F(CuptiGlue, OnlyTheApiCallsThatLaunchWorkAreTraced) {
  const std::string folder = path("capture");
  std::filesystem::create_directories(folder);
  ASSERT_EQ(run_job(folder, "").exit_code, 0);
  const std::set<std::string> log = log_lines(folder);
  EXPECT_TRUE(log.count("callbacks 1"));
  // GPU work, peer-to-peer copies included; no whole API domain.
  for (int kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                   CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    EXPECT_TRUE(log.count("kind " + std::to_string(kind))) << kind;
  EXPECT_FALSE(log.count("kind " + std::to_string(CUPTI_ACTIVITY_KIND_RUNTIME)));
  EXPECT_FALSE(log.count("kind " + std::to_string(CUPTI_ACTIVITY_KIND_DRIVER)));
  // Launches, copies, sets and the profiler window, one call at a time.
  for (int cbid : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
                   CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000})
    EXPECT_TRUE(log.count("runtime " + std::to_string(cbid))) << cbid;
  EXPECT_FALSE(log.count("runtime " + std::to_string(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020)));
  EXPECT_TRUE(log.count("driver " + std::to_string(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx)));
  const auto runtime_calls = std::count_if(log.begin(), log.end(), [](auto& l) { return l.rfind("runtime ", 0) == 0; });
  EXPECT_EQ(runtime_calls, 6);
}

TEST_F(CuptiGlue, AnotherCuptiClientHoldingCuptiIsNamedAndNcclStillRecorded) {
  const std::string folder = path("capture");
  std::filesystem::create_directories(folder);
  const JobResult job = run_job(folder, "FAKE_CUPTI_HOLDER='CUPTI for Nsight Systems'");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_NE(job.err.find("CUPTI is held by another client (CUPTI for Nsight Systems)"), std::string::npos) << job.err;
  // Its buffers are not taken: no callbacks registered, no activity enabled (no log written).
  EXPECT_FALSE(std::filesystem::exists(folder + "/cupti.log"));
  const ProcessRecords records = read_records(folder + "/rank-0.records.jsonl");
  EXPECT_TRUE(records.activities.empty());
  EXPECT_EQ(records.nccl_calls.size(), 3u);
  write_manifest(folder, {});
  const ExecutionGraph graph = read_trace(folder);
  EXPECT_EQ(graph.metadata.at("capture.cupti"), "held by another client (CUPTI for Nsight Systems)");
  EXPECT_EQ(graph.program(0).tasks.size(), 3u);  // the allreduces, timed by their host calls
}

#else

TEST(CuptiGlue, NeedsCuptiHeaders) { GTEST_SKIP() << "this build found no CUPTI: the fake-CUPTI job is not built"; }

#endif

}  // namespace
}  // namespace scalecast::gpu_trace
