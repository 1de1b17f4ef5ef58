// `scalecast import kineto`: outputs, extrapolation of an imported trace, and bad input (exit 2,
// a message naming the file and the field, nothing written).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/trace/trace_json.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

const std::string kA100 = std::string(SCALECAST_SHARED_DATA) + "/kineto/a100x2_allreduce_rank0.json.gz";

class ImportCli : public testing::ScratchFolder {
 protected:
  // Runs a failing import into this folder and checks that it failed cleanly.
  void expect_rejected(const std::string& files, const std::vector<std::string>& message_parts) {
    const auto before = folder_entries();
    const auto result = testing::run_scalecast("import kineto " + files + " -o " + path("out.json"));
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    for (const auto& part : message_parts) EXPECT_NE(result.err.find(part), std::string::npos) << "'" << part << "' not in: " << result.err;
    EXPECT_EQ(folder_entries(), before);  // no partial output
  }
  std::string kernel_event(const std::string& args) const {
    return R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{)" + args + "}}";
  }
  std::string trace_text(const std::string& distributed, const std::string& events) const {
    return R"({"schemaVersion":1,"distributedInfo":)" + distributed + R"(,"traceEvents":[)" + events + "]}";
  }
};

TEST_F(ImportCli, ImportsAndWarnsAboutMissingRanks) {
  const auto result = testing::run_scalecast("import kineto " + kA100 + " -o " + path("a100.json") + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("warning: traced 1 of 2 ranks"), std::string::npos) << result.err;
  const auto out = nlohmann::json::parse(result.out);  // stdout holds the JSON object only
  EXPECT_EQ(out["kernels"], 2700);
  EXPECT_EQ(out["collectives"], 21);
  const ExecutionGraph graph = read_trace(path("a100.json"));
  EXPECT_EQ(graph.origin, "import:kineto");
  EXPECT_EQ(graph.world_size(), 2);
}

TEST_F(ImportCli, DirectoryOutput) {
  const auto result = testing::run_scalecast("import kineto " + kA100 + " -o " + path("a100-trace"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::filesystem::exists(path("a100-trace/manifest.json")));
  EXPECT_EQ(read_trace(path("a100-trace")).world_size(), 2);
}

// Issue 5, item 4: an imported trace simulated at larger scale on dgx-a100.
TEST_F(ImportCli, ImportedTraceExtrapolatesByDataParallelism) {
  ASSERT_EQ(testing::run_scalecast("import kineto " + kA100 + " -o " + path("a100.json")).exit_code, 0);
  double previous_comm_s = 0;
  for (int gpus : {8, 64}) {
    const auto result = testing::run_scalecast("simulate --json --platform dgx-a100 --trace " + path("a100.json") + " --gpus " + std::to_string(gpus));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto out = nlohmann::json::parse(result.out);
    EXPECT_EQ(out["gpus"], gpus);
    EXPECT_EQ(out["steps"], 3);
    EXPECT_EQ(out["collectives"], 21);
    EXPECT_GT(out["comm_s"].get<double>(), previous_comm_s);  // the allreduces span more GPUs
    EXPECT_GE(out["step_time_s"].get<double>(), 0.2);
    previous_comm_s = out["comm_s"].get<double>();
  }
}

// Both ranks traced (rank 1's file: the A100 trace with distributedInfo.rank set to 1, written
// plain rather than gzip): no symmetry warning, and identical programs are stored once.
TEST_F(ImportCli, EveryRankTraced) {
  gzFile in = gzopen(kA100.c_str(), "rb");
  ASSERT_TRUE(in);
  std::string text;
  char buffer[1 << 16];
  int got;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, got);
  gzclose(in);
  const std::string rank0 = R"("distributedInfo": {"backend": "nccl", "rank": 0,)";
  const size_t at = text.find(rank0);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, rank0.size(), R"("distributedInfo": {"backend": "nccl", "rank": 1,)");
  const std::string rank1_file = write_text("rank1.json", text);
  const auto result = testing::run_scalecast("import kineto " + rank1_file + " " + kA100 + " -o " + path("both.json") + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("symmetry"), std::string::npos) << result.err;
  EXPECT_EQ(nlohmann::json::parse(result.out)["traced_ranks"], 2);
  const ExecutionGraph graph = read_trace(path("both.json"));
  EXPECT_EQ(graph.world_size(), 2);
  EXPECT_EQ(graph.programs.size(), 1u);
  EXPECT_EQ(graph.program_of_rank, (std::vector<int>{0, 0}));
}

TEST_F(ImportCli, GoldenOutput) {
  const auto result = testing::run_scalecast("import kineto " + kA100 + " -o " + path("a100.json") + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::ordered_json::parse(result.out);
  json.erase("wall_s");
  json.erase("output");  // a scratch path
  const std::string actual = json.dump(2) + "\n";
  const std::string golden = std::string(SCALECAST_SOURCE_DIR) + "/tests/golden/import-kineto-a100.json";
  if (std::getenv("SCALECAST_UPDATE_GOLDEN")) std::ofstream(golden) << actual;
  EXPECT_EQ(actual, testing::read_text(golden)) << "golden file " << golden << " differs";
}

TEST_F(ImportCli, TruncatedGzip) {
  const std::string whole = testing::read_text(kA100);
  const std::string file = write_text("cut.json.gz", whole.substr(0, whole.size() / 2));
  expect_rejected(file, {"cut.json.gz", "truncated gzip"});
}

TEST_F(ImportCli, NotJson) {
  expect_rejected(write_text("notes.txt", "this is not JSON\n"), {"notes.txt", "invalid JSON at byte"});
}

TEST_F(ImportCli, JsonThatIsNotAKinetoTrace) {
  expect_rejected(write_text("other.json", R"({"format": "scalecast-trace", "version": 1})"), {"other.json", "traceEvents", "not a Kineto trace"});
  expect_rejected(write_text("array.json", "[1, 2, 3]"), {"array.json", "not a Kineto trace"});
}

TEST_F(ImportCli, EventMissingARequiredField) {
  const std::string events = kernel_event(R"("device":0,"correlation":1)");  // no stream
  expect_rejected(write_text("nostream.json", trace_text(R"({"rank":0,"world_size":1})", events)),
                  {"nostream.json", "traceEvents[0].args.stream", "missing"});
  const std::string no_ts = R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","tid":1,"dur":3,"args":{"correlation":1}})";
  expect_rejected(write_text("nots.json", trace_text(R"({"rank":0,"world_size":1})", no_ts)), {"nots.json", "traceEvents[0].ts"});
  expect_rejected(write_text("textdur.json", trace_text(R"({"rank":0,"world_size":1})",
                                                         R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":"5","args":{"stream":7,"correlation":1}})")),
                  {"textdur.json", "traceEvents[0].dur", "expected a number"});
}

TEST_F(ImportCli, RankOutsideTheWorld) {
  const std::string events = kernel_event(R"("stream":7,"correlation":1)");
  expect_rejected(write_text("rank3.json", trace_text(R"({"rank":3,"world_size":2})", events)),
                  {"rank3.json", "distributedInfo.rank", "outside the world of 2"});
}

TEST_F(ImportCli, SameRankTwice) {
  expect_rejected(kA100 + " " + kA100, {"distributedInfo.rank", "rank 0 is also traced"});
}

TEST_F(ImportCli, WorldSizesDisagree) {
  const std::string events = kernel_event(R"("stream":7,"correlation":1)");
  const std::string a = write_text("a.json", trace_text(R"({"rank":0,"world_size":2})", events));
  const std::string b = write_text("b.json", trace_text(R"({"rank":1,"world_size":4})", events));
  expect_rejected(a + " " + b, {"b.json", "distributedInfo.world_size", "is 4 but"});
}

// Numbers a double holds but no machine reaches are refused where they are read, naming the
// field and the range, instead of replaying as a 40 µs collective or aborting in SimGrid.
TEST_F(ImportCli, NumbersOutsidePhysicalRanges) {
  const std::string world1 = R"({"rank":0,"world_size":1})";
  auto nccl_kernel = [&](const std::string& extra) {
    return R"j({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)","pid":0,"tid":7,"ts":10,"dur":5,)j"
           R"("args":{"stream":7,"correlation":1,"Collective name":"allreduce","dtype":"Float",)" + extra + "}}";
  };
  expect_rejected(write_text("nelems.json", trace_text(world1, nccl_kernel(R"("In msg nelems":1e300)"))),
                  {"nelems.json", "args.In msg nelems", "at most 2^60"});
  // Within 2^60 elements, but not bytes once each element is 4 of them.
  expect_rejected(write_text("bytes.json", trace_text(world1, nccl_kernel(R"("In msg nelems":1e18)"))),
                  {"bytes.json", "args.In msg nelems", "at most 2^60 bytes", "4e+18 bytes"});
  expect_rejected(write_text("world.json", trace_text(R"({"rank":0,"world_size":1e9})", kernel_event(R"("stream":7,"correlation":1)"))),
                  {"world.json", "distributedInfo.world_size", "at most 131072"});
  expect_rejected(write_text("dur.json", trace_text(world1, R"({"ph":"X","cat":"kernel","name":"k","tid":7,"ts":10,"dur":1e308,"args":{"stream":7,"correlation":1}})")),
                  {"dur.json", "traceEvents[0].dur", "at most 1e12"});
  expect_rejected(write_text("tid.json", trace_text(world1, R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","tid":1e300,"ts":1,"dur":3,"args":{"correlation":1}})")),
                  {"tid.json", "traceEvents[0].tid"});
  expect_rejected(write_text("corr.json", trace_text(world1, kernel_event(R"("stream":7,"correlation":1e300)"))),
                  {"corr.json", "traceEvents[0].args.correlation"});
  expect_rejected(write_text("device.json", trace_text(world1, kernel_event(R"("stream":7,"device":1e100,"correlation":1)"))),
                  {"device.json", "traceEvents[0].args.device"});
  expect_rejected(write_text("group.json", trace_text(world1, nccl_kernel(R"("In msg nelems":4,"Group size":1e12)"))),
                  {"group.json", "args.Group size"});
}

// The import gives each rank of the claimed world an entry (untraced ranks replay rank 0's
// program), so the claim is held to the GPUs a simulation runs: a 1 kB trace claiming 2^24 ranks
// took 26 s and 900 MB (and wrote 173 MB) before this; it is now refused where it is read.
TEST_F(ImportCli, ClaimedWorldIsHeldToTheGpusASimulationRuns) {
  const std::string allreduce =
      R"j({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)","pid":0,"tid":8,"ts":20,"dur":5,)j"
      R"("args":{"stream":8,"correlation":2,"Collective name":"allreduce","dtype":"Float","In msg nelems":1000}})";
  const std::string events = kernel_event(R"("stream":7,"correlation":1)") + "," + allreduce;
  expect_rejected(write_text("huge.json", trace_text(R"({"rank":0,"world_size":16777216})", events)),
                  {"huge.json", "distributedInfo.world_size", "at most 131072", "16777216"});
  expect_rejected(write_text("rank.json", trace_text(R"({"rank":131073,"world_size":2})", events)),
                  {"rank.json", "distributedInfo.rank", "at most 131072"});
  // The largest claim allowed: one program for all ranks, and the world communicator once.
  const auto result = testing::run_scalecast("import kineto " + write_text("max.json", trace_text(R"({"rank":0,"world_size":131072})", events)) +
                                             " -o " + path("max-out.json"));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const ExecutionGraph graph = read_trace(path("max-out.json"));
  EXPECT_EQ(graph.world_size(), 131072);
  EXPECT_EQ(graph.programs.size(), 1u);
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups.at(0).size(), 131072u);
}

TEST_F(ImportCli, ProcessGroupListingARankTwice) {
  const std::string event =
      R"j({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)","pid":0,"tid":7,"ts":10,"dur":5,)j"
      R"("args":{"stream":7,"correlation":1,"Collective name":"allreduce","dtype":"Float","In msg nelems":4,"Process Group Ranks":"[0, 0]"}})";
  expect_rejected(write_text("twice.json", trace_text(R"({"rank":0,"world_size":2})", event)),
                  {"twice.json", "Process Group Ranks", "rank 0 is listed twice"});
}

TEST_F(ImportCli, NoGpuWork) {
  const std::string step = R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","tid":1,"ts":0,"dur":100})";
  expect_rejected(write_text("cpuonly.json", trace_text(R"({"rank":0,"world_size":1})", step)), {"cpuonly.json", "no GPU kernels"});
}

TEST_F(ImportCli, BadCommandLines) {
  expect_rejected("", {"files"});
  const auto result = testing::run_scalecast("import nsys " + kA100 + " -o " + path("x.json"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown input format 'nsys'"), std::string::npos) << result.err;
  expect_rejected(path("missing.json.gz"), {"missing.json.gz", "no such file"});
  expect_rejected("/dev/zero", {"/dev/zero", "not a regular file"});
}

// A small gzip that inflates far beyond what a trace deflates from (13-17x) is refused while
// streaming, once past the cap, whether it holds whitespace (nothing kept) or one string (held
// whole by the parser).
TEST_F(ImportCli, DecompressionBombsAreCutOffWhileStreaming) {
  auto gzip = [&](const std::string& name, const std::string& head, char fill, size_t fill_bytes) {
    const std::string file = path(name);
    gzFile out = gzopen(file.c_str(), "wb9");
    gzwrite(out, head.data(), static_cast<unsigned>(head.size()));
    const std::string chunk(1 << 20, fill);
    for (size_t written = 0; written < fill_bytes; written += chunk.size()) gzwrite(out, chunk.data(), static_cast<unsigned>(chunk.size()));
    gzclose(out);
    return file;
  };
  const size_t bomb_bytes = size_t{20} << 20;  // over the 16 MiB that any gzip may inflate to
  const std::string spaces = gzip("spaces.json.gz", R"({"traceEvents":[)", ' ', bomb_bytes);
  EXPECT_LT(std::filesystem::file_size(spaces), size_t{1} << 20);
  expect_rejected(spaces, {"spaces.json.gz", "decompresses to more than 16 MiB", "SCALECAST_MAX_INFLATE_RATIO"});
  expect_rejected(gzip("string.json.gz", R"({"traceEvents":[{"name":")", 'a', bomb_bytes), {"string.json.gz", "decompression bomb"});
  // The same trace, allowed a higher ratio, reads past the cap to its real error (truncated JSON).
  setenv("SCALECAST_MAX_INFLATE_RATIO", "100000", 1);
  const auto result = testing::run_scalecast("import kineto " + spaces + " -o " + path("out.json"));
  unsetenv("SCALECAST_MAX_INFLATE_RATIO");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.find("decompresses to"), std::string::npos) << result.err;
  // A plain file is held to the absolute cap ($SCALECAST_MAX_INPUT_MB: every input's).
  write_text("big.json", R"({"traceEvents":[)" + std::string(size_t{3} << 20, ' ') + "]}");
  setenv("SCALECAST_MAX_INPUT_MB", "2", 1);
  expect_rejected(path("big.json"), {"big.json", "is more than the 2 MiB scalecast reads for a Kineto trace"});
  unsetenv("SCALECAST_MAX_INPUT_MB");
}

}  // namespace
}  // namespace scalecast
