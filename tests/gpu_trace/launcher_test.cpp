// scalecast capture: options, the environment the job gets, and the whole path on CPU — a
// two-process job (the fake NCCL job, run through a shell as torchrun would run workers) with the
// capture library preloaded, its rank files merged and read back as a trace.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpu_trace/launcher.h"
#include "sim/core/input_error.h"
#include "sim/trace/trace_json.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast::gpu_trace {
namespace {

using scalecast::testing::run_scalecast;
using scalecast::testing::ScratchFolder;

std::string field_of_error(const std::vector<std::string>& args) {
  try {
    parse_capture_args(args);
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(CaptureArgs, OptionsAndTheCommandAfterTheSeparator) {
  const CaptureRequest r = parse_capture_args({"--out", "t", "--steps", "10:15", "--", "torchrun", "--nproc-per-node", "8", "train.py"});
  EXPECT_EQ(r.out, "t");
  EXPECT_EQ(r.steps, "10:15");
  EXPECT_EQ(r.command, (std::vector<std::string>{"torchrun", "--nproc-per-node", "8", "train.py"}));
  EXPECT_EQ(parse_capture_args({"--out=u", "--", "x"}).out, "u");
  EXPECT_EQ(parse_capture_args({"--", "x"}).out, "scalecast-capture");
  // -o and --output: the spellings of sweep and import.
  EXPECT_EQ(parse_capture_args({"-o", "v", "--", "x"}).out, "v");
  EXPECT_EQ(parse_capture_args({"--output", "w", "--", "x"}).out, "w");
  EXPECT_EQ(parse_capture_args({"--output=y", "--", "x"}).out, "y");
  EXPECT_TRUE(parse_capture_args({"--help"}).help);
}

TEST(CaptureArgs, BadInputNamesTheOption) {
  EXPECT_EQ(field_of_error({"--out", "t"}), "COMMAND");
  EXPECT_EQ(field_of_error({"--"}), "COMMAND");
  EXPECT_EQ(field_of_error({"--frobnicate", "--", "x"}), "--frobnicate");
  EXPECT_EQ(field_of_error({"--steps", "15:10", "--", "x"}), "--steps");
  EXPECT_EQ(field_of_error({"--steps", "--", "x"}), "--steps");
  EXPECT_EQ(field_of_error({"--step-pattern", "(", "--", "x"}), "step pattern");
  EXPECT_EQ(field_of_error({"--out", "", "--", "x"}), "--out");
  EXPECT_EQ(field_of_error({"--out", "a", "-o", "b", "--", "x"}), "-o");
  EXPECT_EQ(field_of_error({"--output=a", "--out=b", "--", "x"}), "--out");
}

TEST(CaptureEnvironment, InjectsTheLibraryForTheJobAndItsChildren) {
  CaptureRequest request;
  request.steps = "2:4";
  const CaptureLibraries libs{"/opt/sc/libscalecast_gpu_trace.so", "/cuda/lib/libcupti.so"};
  auto env = capture_environment(request, libs, "/tmp/stage", {{"LD_PRELOAD", "/x/libfoo.so"}, {"PATH", "/bin"}});
  EXPECT_EQ(env.at("CUDA_INJECTION64_PATH"), libs.gpu_trace);
  EXPECT_EQ(env.at("LD_PRELOAD"), libs.gpu_trace + ":/x/libfoo.so");  // first: its NCCL symbols win
  EXPECT_EQ(env.at("NVTX_INJECTION64_PATH"), libs.cupti);
  EXPECT_EQ(env.at("SCALECAST_CAPTURE_DIR"), "/tmp/stage");
  EXPECT_EQ(env.at("SCALECAST_CAPTURE_STEPS"), "2:4");
  EXPECT_EQ(env.count("SCALECAST_CAPTURE_STEP_PATTERN"), 0u);
  EXPECT_EQ(env.count("PATH"), 0u);  // the rest is inherited, not set
  // Nested captures (a job that runs scalecast capture again) do not preload twice.
  env = capture_environment(request, libs, "/tmp/stage", {{"LD_PRELOAD", libs.gpu_trace + " /y.so"}});
  EXPECT_EQ(env.at("LD_PRELOAD"), libs.gpu_trace + " /y.so");
  env = capture_environment(request, libs, "/tmp/stage", {});
  EXPECT_EQ(env.at("LD_PRELOAD"), libs.gpu_trace);
}

TEST(CaptureEnvironment, AnotherProfilersInjectionIsBadInput) {
  const CaptureLibraries libs{"/opt/libscalecast_gpu_trace.so", "/cuda/libcupti.so"};
  try {
    capture_environment({}, libs, "/s", {{"CUDA_INJECTION64_PATH", "/nsys/libToolsInjection64.so"}});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "environment");
    EXPECT_EQ(e.field(), "CUDA_INJECTION64_PATH");
  }
  EXPECT_THROW(capture_environment({}, libs, "/s", {{"NVTX_INJECTION64_PATH", "/other.so"}}), InputError);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

class CaptureRun : public ScratchFolder {
 protected:
  void SetUp() override {
    // The capture library, built with ASan too, is preloaded into the job's programs (sh, true,
    // the fake jobs): ASan refuses to start a process whose LD_PRELOAD does not list its runtime
    // first, so every job would fail. The launcher's own logic is tested above (CaptureArgs,
    // CaptureEnvironment) in the sanitized build as well.
    ScratchFolder::SetUp();
    if (kAddressSanitizer) GTEST_SKIP() << "jobs with an ASan-built library preloaded cannot start under ASan";
  }
  // Two ranks of the fake job, started by one shell as a launcher starts workers.
  std::string job(const std::string& exit_status = "0") const {
    const std::string j = std::string(FAKE_NCCL_JOB) + " 2 " + exit_status;
    return "sh -c 'RANK=1 " + j + " & RANK=0 " + j + "; s=$?; wait $! || exit $?; exit $s'";
  }
};

TEST_F(CaptureRun, TwoProcessJobBecomesOneTrace) {
  const std::string out = path("trace");
  const auto result = run_scalecast("capture --out " + out + " -- " + job());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ExecutionGraph graph = read_trace(out);
  EXPECT_EQ(graph.world_size(), 2);
  EXPECT_EQ(graph.origin, "capture");
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1}}));
  const auto& tasks = graph.program(0).tasks;
  ASSERT_EQ(tasks.size(), 12u);  // 3 × (allreduce, send, recv, broadcast)
  EXPECT_EQ(tasks[0].kind, TaskKind::collective);
  EXPECT_EQ(tasks[0].bytes, 4.0 * (1 << 16));
  EXPECT_EQ(tasks[1].kind, TaskKind::send);
  EXPECT_EQ(tasks[1].bytes, 2048);
  EXPECT_EQ(tasks[3].op, CollectiveOp::broadcast);
  EXPECT_NE(graph.metadata.at("capture.command").find("fake_nccl_job"), std::string::npos);
  // Only the trace is left: no staging folder.
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"trace"});
  // The grouped send and recv of a rank run side by side (lanes), as NCCL runs a group.
  EXPECT_NE(tasks[1].stream, tasks[2].stream);
  // inspect accepts it. (Simulating it waits for the replay engine's point-to-point fix: sends
  // and recvs after the first task of a stream deadlock in the replay, see the capture report;
  // Merge.CapturedTraceSimulatesAtScale simulates a captured DDP trace.)
  const auto inspected = run_scalecast("inspect " + out + " --json");
  EXPECT_EQ(inspected.exit_code, 0) << inspected.err;
  EXPECT_NE(inspected.out.find("\"ranks\": 2"), std::string::npos) << inspected.out;
}

TEST_F(CaptureRun, SingleFileOutputAndReplacingAnEarlierTrace) {
  ASSERT_EQ(run_scalecast("capture --out " + path("t.json") + " -- " + job()).exit_code, 0);
  EXPECT_EQ(read_trace(path("t.json")).world_size(), 2);
  ASSERT_EQ(run_scalecast("capture --out " + path("d") + "/ -- " + job()).exit_code, 0);
  const auto again = run_scalecast("capture --out " + path("d") + " -- " + job());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_trace(path("d")).world_size(), 2);
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"d", "t.json"}));
}

TEST_F(CaptureRun, FailingJobKeepsItsStatusAndWhatItsRanksWrote) {
  const auto result = run_scalecast("capture --out " + path("t") + " -- " + job("3"));
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("exited with status 3"), std::string::npos) << result.err;
  EXPECT_EQ(read_trace(path("t")).world_size(), 2);
}

TEST_F(CaptureRun, RanksStoppedBySigtermStillWriteTheirFiles) {
  // Each rank's SIGTERM handler writes its files, then the signal ends it (status 128 + 15).
  const auto result = run_scalecast("capture --out " + path("t") + " -- " + job("term"));
  EXPECT_EQ(result.exit_code, 143) << result.err;
  const ExecutionGraph graph = read_trace(path("t"));
  EXPECT_EQ(graph.world_size(), 2);
  EXPECT_EQ(graph.program(0).tasks.size(), 12u);
}

TEST_F(CaptureRun, NcclLoadedByALocallyOpenedLibraryIsStillInterposed) {
  // As Python imports PyTorch: the library calling NCCL, and NCCL with it, are opened with
  // RTLD_LOCAL. The calls still reach the preloaded capture first; it finds libnccl by name
  // (SCALECAST_NCCL_LIBRARY stands for libnccl.so.2 here) and forwards to it.
  const std::string j = std::string("SCALECAST_NCCL_LIBRARY=") + FAKE_NCCL_LIBRARY + " " + FAKE_NCCL_PLUGIN_JOB + " 2 " +
                        FAKE_NCCL_PLUGIN;
  const auto result = run_scalecast("capture --out " + path("t") + " -- sh -c 'RANK=1 " + j + " & RANK=0 " + j +
                                    " || exit 1; wait $! || exit 1'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ExecutionGraph graph = read_trace(path("t"));
  EXPECT_EQ(graph.world_size(), 2);
  const auto& tasks = graph.program(0).tasks;
  ASSERT_EQ(tasks.size(), 6u);  // 2 × (allreduce, allgather, reducescatter)
  EXPECT_EQ(tasks[1].op, CollectiveOp::allgather);
  EXPECT_EQ(tasks[1].bytes, 16.0 * 4 * 2);
  EXPECT_EQ(tasks[2].op, CollectiveOp::reducescatter);
}

TEST_F(CaptureRun, BadInputExitsTwoBeforeRunningAnything) {
  write_text("not-a-trace/notes.txt", "");
  std::filesystem::create_directories(path("not-a-trace"));
  write_text("not-a-trace/notes.txt", "mine");
  auto result = run_scalecast("capture --out " + path("not-a-trace") + " -- true");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--out"), std::string::npos) << result.err;
  result = run_scalecast("capture --steps 4:2 -- true");
  EXPECT_EQ(result.exit_code, 2);
  // A job that never used NCCL or the GPU: nothing to merge, said plainly.
  result = run_scalecast("capture --out " + path("empty") + " -- true");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("holds no rank files"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("stay in"), std::string::npos) << result.err;  // nothing worth keeping
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"not-a-trace"});
  // A library path that does not exist.
  result = run_scalecast("capture --out " + path("x") + " -- true");
  setenv("SCALECAST_GPU_TRACE_LIBRARY", "/nonexistent/lib.so", 1);
  result = run_scalecast("capture --out " + path("x") + " -- true");
  unsetenv("SCALECAST_GPU_TRACE_LIBRARY");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("SCALECAST_GPU_TRACE_LIBRARY"), std::string::npos) << result.err;
}

TEST_F(CaptureRun, MissingProgramIsBadInputAndLeavesNothing) {
  auto result = run_scalecast("capture -o " + path("new/sub/t") + " -- /nonexistent/train-program --epochs 1");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("COMMAND: cannot run '/nonexistent/train-program': No such file or directory"), std::string::npos)
      << result.err;
  result = run_scalecast("capture --output " + path("t") + " -- scalecast-no-such-program-on-the-path");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("cannot run 'scalecast-no-such-program-on-the-path'"), std::string::npos) << result.err;
  // A failing job that wrote no rank files: its status, and no folder made for the output.
  result = run_scalecast("capture -o " + path("new/sub/t") + " -- sh -c 'exit 5'");
  EXPECT_EQ(result.exit_code, 5) << result.err;
  EXPECT_EQ(folder_entries(), std::vector<std::string>{});
}

}  // namespace
}  // namespace scalecast::gpu_trace
