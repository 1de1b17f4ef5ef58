// Every class of bad input exits 2 with a message naming the file and the field, and never
// leaves a partial output behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

using testing::run_scalecast;

std::string write_file(const std::string& dir, const std::string& name, const std::string& content) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << content;
  return path;
}

void expect_input_error(const std::string& arguments, const std::vector<std::string>& must_mention) {
  auto result = run_scalecast(arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  for (const auto& text : must_mention) EXPECT_NE(result.err.find(text), std::string::npos) << text << " not in: " << result.err;
}

const char* kSmallPlatform = R"(name: tiny
node:
  gpus: 2
  gpu: {model: test, peak_flops: {fp16: 100TFLOPS}, memory_bandwidth: 1TB/s, memory: 16GiB}
  nvlink:
    link: {bandwidth: 25GB/s, latency: 1us}
    connections: [[0, 1]]
)";

class BadInput : public testing::ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    dir = folder_.string();
  }
  std::string dir;
};

TEST_F(BadInput, MissingPlatformFile) {
  expect_input_error("simulate --platform " + dir + "/nope.yaml --workload resnet50", {"nope.yaml"});
}

// A platform GPU no cost-model family matches, with a user cost model whose `uncalibrated`
// default cannot price the workload's precision: the platform's node.gpu.model is named, with
// the models the families know, not the cost model.
// A validation case that times one layer must name a step the layer can be read from.
TEST_F(BadInput, LayerTimeCaseNeedsOneMicrobatchWithoutPipelineAndAKnownPass) {
  const std::string layer = "kind: layer_time, platform: dgx-a100-80gb, workload: gpt3-175b, layers: 4, hidden: 1024, "
                            "heads: 16, vocabulary: 51200, sequence: 512, measured: 1, source: s, ";
  const std::string piped = write_file(dir, "piped.yaml", "cases:\n  - {name: a, " + layer +
                                                              "gpus: 4, global_batch: 4, strategy: \"tp:2,pp:2,mb:4\"}\n");
  expect_input_error("validate --cases " + piped, {"piped.yaml", "cases[0].strategy", "pp:1"});
  const std::string sideways = write_file(dir, "sideways.yaml", "cases:\n  - {name: a, " + layer +
                                                                    "gpus: 2, global_batch: 4, strategy: \"tp:2,pp:1,mb:4\", "
                                                                    "pass: sideways}\n");
  expect_input_error("validate --cases " + sideways, {"sideways.yaml", "cases[0].pass", "forward, backward or both"});
}

// A case whose request the model refuses names the case's own field (algo, not the library's
// "algorithm"; gpus_per_node, not the command line's flag; a dp case's gpus), and its file once.
TEST_F(BadInput, RefusedCaseNamesItsField) {
  const std::string row = "kind: collective_busbw, platform: dgx-h100, gpus: 8, bytes: 4MiB, measured: 1, source: s, ";
  const std::string pat = write_file(dir, "pat.yaml", "cases:\n  - {name: a, " + row + "algo: pat}\n");
  expect_input_error("validate --cases " + pat, {"pat.yaml: a: cases[0].algo: pat runs allgather"});
  const std::string uneven = write_file(dir, "uneven.yaml", "cases:\n  - {name: a, " + row + "gpus_per_node: 3}\n");
  expect_input_error("validate --cases " + uneven,
                     {"uneven.yaml: a: cases[0].gpus_per_node: 3 does not divide the 8 GPUs"});
  EXPECT_EQ(run_scalecast("validate --cases " + uneven).err.find("--gpus"), std::string::npos);
  const std::string wide = write_file(dir, "wide.yaml",
                                      "cases:\n  - {name: d, kind: dp_speedup, workload: resnet50, platform: "
                                      "rtx4090-pcie, gpus: 64, measured: 7, source: s}\n");
  expect_input_error("validate --cases " + wide, {"wide.yaml: d: cases[0].gpus: 64 GPUs need 16 nodes"});
}

TEST_F(BadInput, UnpricedGpuModelNamesThePlatformField) {
  const std::string platform = write_file(dir, "tiny.yaml", std::string(kSmallPlatform) + "nodes: 1\n");
  const std::string cost_model = write_file(dir, "cm.yaml", R"(uncalibrated:
  precisions:
    fp32:
      default: {compute_efficiency: 0.3, memory_efficiency: 0.7, launch_overhead: 5us}
)");
  expect_input_error("simulate --platform " + platform + " --workload resnet50 --gpus 2 --precision fp16 --cost-model " + cost_model,
                     {"tiny.yaml: node.gpu.model", "GPU model 'test' matches no cost-model family", "known models: V100, A100, H100",
                      "no fp16 efficiencies"});
}

TEST_F(BadInput, YamlSyntaxError) {
  auto path = write_file(dir, "broken.yaml", "name: x\nnode: {gpus: 2\n");
  expect_input_error("simulate --platform " + path + " --workload resnet50", {"broken.yaml", "line"});
}

TEST_F(BadInput, UnknownField) {
  std::string text = kSmallPlatform;
  text += "colour: blue\n";
  auto path = write_file(dir, "unknown.yaml", text);
  expect_input_error("simulate --platform " + path + " --workload resnet50", {"unknown.yaml", "colour"});
}

TEST_F(BadInput, ZeroBandwidth) {
  std::string text = kSmallPlatform;
  text.replace(text.find("25GB/s"), 6, "0GB/s");
  auto path = write_file(dir, "zero.yaml", text);
  expect_input_error("simulate --platform " + path + " --workload resnet50", {"zero.yaml", "node.nvlink.link.bandwidth"});
}

TEST_F(BadInput, NegativeBandwidth) {
  std::string text = kSmallPlatform;
  text.replace(text.find("25GB/s"), 6, "-5GB/s");
  auto path = write_file(dir, "negative.yaml", text);
  expect_input_error("simulate --platform " + path + " --workload resnet50", {"negative.yaml", "bandwidth"});
}

TEST_F(BadInput, StrayWordsAfterTheOptions) {
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --gpus 8 junk", {"positional"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 extra", {"positional"});
}

TEST_F(BadInput, NonRegularInputsAndOutputsThatAreInputs) {
  expect_input_error("simulate --platform /dev/zero --workload resnet50", {"/dev/zero", "not a regular file"});
  const std::string trace = dir + "/trace.json";
  std::filesystem::copy_file(SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json", trace);
  const std::string before = testing::read_text(trace);
  expect_input_error("simulate --platform dgx-a100 --trace " + trace + " --output " + trace, {"inputs"});
  EXPECT_EQ(testing::read_text(trace), before);
}

TEST_F(BadInput, SizesWithoutTheirUnit) {
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --bucket 25", {"--bucket", "unit"});
}

TEST_F(BadInput, DdpWrapperSettings) {
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --ddp apex:1e7", {"--ddp", "apex:N", "apex:1e7"});
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --ddp apex --bucket 50MiB", {"--bucket", "elements"});
  // Settings that would be ignored are refused: a trace replays its own allreduces, and tp/pp
  // strategies are not reduced by a DDP wrapper.
  const std::string trace = SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json";
  expect_input_error("simulate --platform dgx-a100 --trace " + trace + " --ddp apex", {"--ddp", "--workload only"});
  expect_input_error("simulate --platform dgx-a100 --trace " + trace + " --bucket 50MiB", {"--bucket", "--workload only"});
  expect_input_error("simulate --platform dgx-a100 --workload gpt --strategy tp:2,pp:2 --ddp apex", {"--ddp", "Megatron"});
  expect_input_error("sweep --platform dgx-a100 --workload gpt --strategies \"dp;tp:2,pp:2\" --gpus 8 --ddp apex",
                     {"--ddp", "Megatron"});
}

TEST_F(BadInput, UnknownPreset) {
  expect_input_error("simulate --platform dgx-z900 --workload resnet50", {"dgx-z900", "dgx-a100"});
}

TEST_F(BadInput, GpusNotAMultipleOfANode) {
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --gpus 12", {"--gpus", "12"});
}

TEST_F(BadInput, GpusBeyondWhatCanBeSimulated) {
  expect_input_error("collective --platform dgx-a100 --gpus 100000000", {"--gpus", "100000000"});
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --gpus 100000000", {"--gpus"});
}

TEST_F(BadInput, PartialNodeIsFine) {
  auto result = run_scalecast("simulate --json --platform dgx-a100 --workload resnet50 --gpus 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

TEST_F(BadInput, TraceWithDanglingDependency) {
  auto path = write_file(dir, "dangling.json", R"({"format":"scalecast-trace","version":1,
    "communicators":[{"id":0,"ranks":[0]}],
    "programs":[{"tasks":[{"kind":"compute","name":"a","duration_s":0.001,"deps":[7]}]}],
    "rank_programs":[0]})");
  expect_input_error("simulate --platform dgx-a100 --trace " + path, {"dangling.json", "deps"});
}

TEST_F(BadInput, CollectiveWhoseRanksDisagreeOnSize) {
  auto path = write_file(dir, "mismatch.json", R"({"format":"scalecast-trace","version":1,
    "communicators":[{"id":0,"ranks":[0,1]}],
    "programs":[{"tasks":[{"kind":"collective","name":"ar","op":"allreduce","communicator":0,"bytes":1000}]},
                {"tasks":[{"kind":"collective","name":"ar","op":"allreduce","communicator":0,"bytes":2000}]}],
    "rank_programs":[0,1]})");
  expect_input_error("simulate --platform dgx-a100 --trace " + path, {"mismatch.json", "bytes"});
}

TEST_F(BadInput, CollectiveWhoseRanksDisagreeOnMembership) {
  auto path = write_file(dir, "membership.json", R"({"format":"scalecast-trace","version":1,
    "communicators":[{"id":0,"ranks":[0]}],
    "programs":[{"tasks":[{"kind":"collective","name":"ar","op":"allreduce","communicator":0,"bytes":1000}]}],
    "rank_programs":[0,0]})");
  expect_input_error("simulate --platform dgx-a100 --trace " + path, {"membership.json", "communicator"});
}

// Each communicator's collectives agree and every send has its recv, yet no order of execution
// meets them: the replay names each waiting rank, its task and whom it waits for (exit 2, not
// an internal error).
TEST_F(BadInput, TraceWhoseRanksWaitForEachOther) {
  auto crossed = write_file(dir, "crossed.json", R"({"format":"scalecast-trace","version":2,
    "communicators":[{"id":0,"name":"a","ranks":[0,1]},{"id":1,"name":"b","ranks":[0,1]}],
    "programs":[{"tasks":[{"kind":"collective","name":"A","op":"allreduce","communicator":0,"bytes":1024},
                          {"kind":"collective","name":"B","op":"allreduce","communicator":1,"bytes":1024,"deps":[0]}]},
                {"tasks":[{"kind":"collective","name":"B","op":"allreduce","communicator":1,"bytes":1024},
                          {"kind":"collective","name":"A","op":"allreduce","communicator":0,"bytes":1024,"deps":[0]}]}],
    "rank_programs":[0,1]})");
  expect_input_error("simulate --platform dgx-a100 --trace " + crossed,
                     {"crossed.json", "programs[0].tasks[0]", "wait for each other",
                      "rank 0 waits in programs[0].tasks[0] ('A', allreduce #0 on communicator 0 (a)) for rank 1",
                      "rank 1 waits in programs[1].tasks[0] ('B', allreduce #0 on communicator 1 (b)) for rank 0"});
  auto receive_first = write_file(dir, "recvfirst.json", R"({"format":"scalecast-trace","version":2,
    "programs":[{"tasks":[{"kind":"recv","name":"r","peer_offset":1,"bytes":64},{"kind":"send","name":"s","peer_offset":1,"bytes":64,"deps":[0]}]},
                {"tasks":[{"kind":"recv","name":"r","peer_offset":-1,"bytes":64},{"kind":"send","name":"s","peer_offset":-1,"bytes":64,"deps":[0]}]}],
    "rank_programs":[0,1]})");
  expect_input_error("sweep --platform dgx-a100 --trace " + receive_first + " --gpus 2 -o " + dir + "/sweep",
                     {"recvfirst.json", "rank 0 waits in programs[0].tasks[0] ('r', recv #0 from rank 1 with tag 0) for rank 1"});
  EXPECT_FALSE(std::filesystem::exists(dir + "/sweep"));
}

// YAML is UTF-8: a stray Latin-1 byte is refused where it is read, not by the JSON writer after
// the simulation. File names are any bytes: they reach JSON outputs with U+FFFD in their place.
TEST_F(BadInput, TextThatIsNotUtf8) {
  std::string text = kSmallPlatform;
  text.replace(text.find("tiny"), 4, "caf\xE9");
  auto path = write_file(dir, "latin1.yaml", text);
  expect_input_error("simulate --platform " + path + " --workload resnet50 --json",
                     {"latin1.yaml", "not UTF-8", "byte 0xE9 at line 1, column 10"});
  const std::string workload = dir + "/resnet-\xE9.yaml";
  std::filesystem::copy_file(std::string(SCALECAST_SOURCE_DIR) + "/workloads/resnet50.yaml", workload);
  const auto result = run_scalecast("simulate --platform dgx-a100 --gpus 2 --workload '" + workload + "' --json");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("resnet-\xEF\xBF\xBD.yaml\""), std::string::npos) << result.out;
}

TEST_F(BadInput, UnwritableTimelineLeavesNoFile) {
  const std::string target = dir + "/missing-folder/timeline.json";
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --timeline " + target, {"timeline.json"});
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_FALSE(std::filesystem::exists(dir + "/missing-folder"));
}

TEST_F(BadInput, ExistingOutputIsNotClobberedOnFailure) {
  const std::string target = write_file(dir, "keep.json", "precious");
  expect_input_error("simulate --platform dgx-z900 --workload resnet50 --timeline " + target, {"dgx-z900"});
  EXPECT_EQ(testing::read_text(target), "precious");
}

TEST_F(BadInput, UnknownOptionAndSubcommand) {
  expect_input_error("simulate --platfrom dgx-a100", {"platfrom"});
  auto result = run_scalecast("simulat");
  EXPECT_EQ(result.exit_code, 2);
}

TEST_F(BadInput, CollectiveBadSizeAndOp) {
  expect_input_error("collective --platform dgx-a100 --gpus 8 --bytes 64parsecs", {"--bytes"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --op allscatter", {"--op", "allscatter"});
  // nccl-tests' -b/-e/-f
  expect_input_error("collective --platform dgx-a100 --gpus 8 -b 1M -e 8", {"-e"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 -b 8 -e 1M -f 1", {"-f"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 -b 8parsecs", {"-b"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --bytes 1MB -b 8", {"--bytes", "-b/-e/-f"});
  // Beyond 2^60 bytes a size no longer fits SimGrid's 64-bit counts (1e20 once ran as 29 µs).
  expect_input_error("collective --platform dgx-a100 --gpus 16 --bytes 1e20", {"--bytes", "at most 2^60 bytes", "1e+20"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --bytes 1MB,2000000TiB", {"--bytes", "2^60"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 -b 8 -e 1e30", {"-e", "2^60"});
  // Ranks per node: 1 to the node's GPUs, dividing --gpus.
  expect_input_error("collective --platform dgx-a100 --gpus 8 --gpus-per-node 9", {"--gpus-per-node", "1 to the node's 8"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --gpus-per-node -1", {"--gpus-per-node", "-1"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --gpus-per-node 3", {"--gpus-per-node", "does not divide"});
  expect_input_error("collective --platform dgx-a100 --gpus 100000000 --gpus-per-node 1", {"--gpus", "simulates"});
}

TEST_F(BadInput, SimGridSettingItDoesNotKnow) {
  setenv("SCALECAST_SIMGRID_CFG", "bogus/thing:1", 1);
  const auto result = run_scalecast("collective --platform dgx-a100 --gpus 8 --bytes 1MB");
  unsetenv("SCALECAST_SIMGRID_CFG");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("SCALECAST_SIMGRID_CFG: Bad config key: bogus/thing"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("Existing config keys"), std::string::npos) << result.err;
}

// Thread contexts hung the replay at its end (simgrid_setup.cpp says why): refused, while the
// factories that work still run.
TEST_F(BadInput, SimGridThreadContextsAreRefused) {
  setenv("SCALECAST_SIMGRID_CFG", "contexts/factory:thread", 1);
  const auto refused = run_scalecast("simulate --workload gnmt --platform dgx1-v100 --gpus 64 --strategy hybrid:4");
  setenv("SCALECAST_SIMGRID_CFG", "contexts/factory:ucontext", 1);
  const auto ucontext = run_scalecast("simulate --workload gnmt --platform dgx1-v100 --gpus 16 --strategy hybrid:4");
  unsetenv("SCALECAST_SIMGRID_CFG");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  EXPECT_NE(refused.err.find("environment: SCALECAST_SIMGRID_CFG: contexts/factory:thread is not supported"), std::string::npos)
      << refused.err;
  EXPECT_EQ(ucontext.exit_code, 0) << ucontext.err;
  EXPECT_NE(ucontext.out.find("step time"), std::string::npos) << ucontext.out;
}

// Permission bits do not tell whether a folder takes new files (root "may write" to /proc):
// outputs are probed before any work, so a long sweep never fails at its end.
TEST_F(BadInput, OutputsWhereNoFileCanBeMadeFailBeforeWork) {
  const auto sweep = run_scalecast("sweep --platform dgx-a100 --workload resnet50 --gpus 8 --out /proc/scalecast-out");
  EXPECT_EQ(sweep.exit_code, 2) << sweep.err;
  EXPECT_NE(sweep.err.find("'/proc' refuses new files"), std::string::npos) << sweep.err;
  EXPECT_EQ(sweep.err.find("dp at 8 GPUs"), std::string::npos) << "simulated before failing:\n" << sweep.err;
  expect_input_error("simulate --platform dgx-a100 --workload resnet50 --gpus 8 --timeline /proc/scalecast.json",
                     {"/proc/scalecast.json", "refuses new files"});
  // A folder that takes files still works, and the probe leaves nothing behind.
  const auto fine = run_scalecast("simulate --platform dgx-a100 --workload resnet50 --gpus 8 --timeline " + dir + "/t.json");
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"t.json"});
}

TEST_F(BadInput, SweepOutputThatIsEmpty) {
  expect_input_error("sweep --platform dgx-a100 --workload resnet50 --gpus 8 --out ''", {"--output", "is empty"});
}

// An algorithm or protocol that does not apply is refused, not replaced by another.
TEST_F(BadInput, CollectivePairThatDoesNotApply) {
  expect_input_error("collective --platform dgx-a100 --gpus 8 --op broadcast --algo tree", {"--algo", "tree", "broadcast"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --algo nvls", {"--algo", "nvls"});
  expect_input_error("collective --platform dgx-h100 --gpus 16 --algo nvls", {"--algo", "nvls", "2 nodes"});
  expect_input_error("collective --platform dgx-h100 --gpus 8 --algo nvls --proto LL", {"--proto", "Simple"});
  expect_input_error("collective --platform pcie-8gpu --gpus 8 --proto LL128", {"--proto", "LL128", "PCIe"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --op alltoall --algo ring", {"--algo", "alltoall"});
  expect_input_error("collective --platform dgx-a100 --gpus 8 --proto LL256", {"--proto", "LL256"});
}

}  // namespace
}  // namespace scalecast
