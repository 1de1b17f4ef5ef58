// Rank files and the merge: what the capture library writes per rank becomes a trace directory
// that sim/trace reads (so simulate --trace and inspect accept it), and inconsistent sets of rank
// files are bad input naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu_trace/convert.h"
#include "gpu_trace/rank_files.h"
#include "gpu_trace/record_io.h"
#include "sim/core/input_error.h"
#include "sim/trace/trace_json.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast::gpu_trace {
namespace {

using scalecast::testing::ScratchFolder;

const std::string kData = std::string(SCALECAST_TEST_DATA) + "/gpu_trace/";

class Merge : public ScratchFolder {
 protected:
  // Converts the fixture's ranks and writes their files into a fresh trace folder.
  std::string capture(const std::string& fixture, int ranks, const ConvertOptions& options = {}) {
    const std::string folder = path(fixture);
    std::filesystem::create_directories(folder);
    for (int r = 0; r < ranks; ++r) {
      const std::string file = kData + fixture + "-" + std::to_string(r) + ".records.jsonl";
      write_rank_capture(convert(read_records(file), options, file), folder);
    }
    return folder;
  }
  std::string merge_error(const std::string& folder) {
    try {
      write_manifest(folder, {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  }
};

TEST_F(Merge, TwoRankDdpCaptureReadsBackAsATrace) {
  const std::string folder = capture("ddp-2rank", 2);
  const MergeSummary summary = write_manifest(folder, {{"capture.command", "torchrun train.py"}});
  EXPECT_EQ(summary.world_size, 2);
  EXPECT_EQ(summary.communicators, 1);
  const ExecutionGraph graph = read_trace(folder);  // every FORMAT.md rule checked here
  EXPECT_EQ(graph.origin, "capture");
  EXPECT_EQ(graph.traced_gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(graph.world_size(), 2);
  EXPECT_EQ(graph.programs.size(), 1u);  // both ranks did the same work: one shared program
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_EQ(graph.metadata.at("capture.command"), "torchrun train.py");
  EXPECT_EQ(graph.metadata.at("capture.overhead_s"), "0.00025");
  EXPECT_EQ(graph.program(0).tasks.size(), 24u);
}

TEST_F(Merge, GroupedSendRecvAndAllgatherMatchAcrossRanks) {
  const std::string folder = capture("grouped-2rank", 2);
  write_manifest(folder, {});
  const ExecutionGraph graph = read_trace(folder);
  EXPECT_EQ(graph.programs.size(), 2u);  // a sender and a receiver
  EXPECT_EQ(graph.metadata.at("capture.dropped_records"), "6");  // summed over ranks
}

// The first task of `kind` in `rank`'s program.
const Task* first_task(const ExecutionGraph& graph, int rank, TaskKind kind) {
  for (const Task& t : graph.program(rank).tasks)
    if (t.kind == kind) return &t;
  return nullptr;
}

TEST_F(Merge, PipelinePeersOnTwoRankCommunicatorsBecomeGlobalRanks) {
  // Stages on ranks 0, 2, 1, 3, each pair of neighbours on its own 2-rank communicator: a peer
  // is rank 0 or 1 of that communicator, not a global rank.
  const std::string folder = capture("pipeline-4rank", 4);
  const MergeSummary summary = write_manifest(folder, {});
  EXPECT_EQ(summary.world_size, 4);
  EXPECT_EQ(summary.communicators, 1);  // the world; the 2-rank communicators carry messages only
  const ExecutionGraph graph = read_trace(folder);  // every send pairs with its recv (FORMAT.md)
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  struct Hop {
    int rank;
    TaskKind kind;
    int peer_offset;
  };
  for (const Hop& hop : {Hop{0, TaskKind::send, 2}, Hop{2, TaskKind::recv, -2}, Hop{2, TaskKind::send, -1},
                         Hop{1, TaskKind::recv, 1}, Hop{1, TaskKind::send, 2}, Hop{3, TaskKind::recv, -2}}) {
    const Task* task = first_task(graph, hop.rank, hop.kind);
    ASSERT_NE(task, nullptr) << "rank " << hop.rank;
    EXPECT_EQ(task->peer_offset, hop.peer_offset) << "rank " << hop.rank << " " << to_string(hop.kind);
    EXPECT_EQ(task->bytes, 2.0 * (1 << 18));
  }
  EXPECT_EQ(first_task(graph, 0, TaskKind::recv), nullptr);  // the first stage receives nothing
  EXPECT_EQ(first_task(graph, 3, TaskKind::send), nullptr);
}

TEST_F(Merge, MessagePeerOutsideItsCommunicatorIsNamed) {
  const std::string folder = capture("pipeline-4rank", 4);
  // Rank 0's message names rank 5 of a 2-rank communicator.
  RankCapture rank0 = read_rank_capture(folder + "/rank-00000.capture.jsonl", true);
  ASSERT_EQ(rank0.messages.size(), 1u);
  rank0.messages[0].peer = 5;
  write_rank_capture(rank0, folder);
  EXPECT_NE(merge_error(folder).find("its peer, rank 5 of communicator"), std::string::npos) << merge_error(folder);
}

TEST_F(Merge, CapturedTraceSimulatesAtScale) {
  const std::string folder = capture("ddp-2rank", 2);
  write_manifest(folder, {});
  const auto result = scalecast::testing::run_scalecast("simulate --trace " + folder + " --platform dgx-h100 --gpus 64 --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"gpus\": 64"), std::string::npos) << result.out;
}

TEST_F(Merge, MissingRankIsNamed) {
  const std::string folder = path("partial");
  std::filesystem::create_directories(folder);
  write_rank_capture(convert(read_records(kData + "ddp-2rank-1.records.jsonl"), {}, "r1"), folder);
  EXPECT_NE(merge_error(folder).find("rank-00000.capture.jsonl: is missing"), std::string::npos) << merge_error(folder);
}

TEST_F(Merge, CommunicatorCapturedOnOneRankOnlyIsNamed) {
  const std::string folder = path("one-of-two");
  std::filesystem::create_directories(folder);
  // Rank 0 of a 2-rank communicator, alone: the job's other process was not captured.
  ProcessRecords records = read_records(kData + "ddp-2rank-0.records.jsonl");
  write_rank_capture(convert(records, {}, "r0"), folder);
  const std::string error = merge_error(folder);
  EXPECT_NE(error.find("has 2 ranks but only 1 of them were captured"), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(folder + "/manifest.json"));
}

TEST_F(Merge, DisagreeingCommunicatorSizesAndEmptyFolders) {
  EXPECT_NE(merge_error(path("")).find("holds no rank files"), std::string::npos);
  const std::string folder = path("sizes");
  std::filesystem::create_directories(folder);
  for (int r = 0; r < 2; ++r) {
    ProcessRecords records = read_records(kData + "ddp-2rank-" + std::to_string(r) + ".records.jsonl");
    if (r == 1) records.communicators[0].nranks = 3;
    write_rank_capture(convert(records, {}, "r"), folder);
  }
  EXPECT_NE(merge_error(folder).find("has 3 ranks here but 2 on another rank"), std::string::npos) << merge_error(folder);
}

TEST_F(Merge, RankFileFollowsTheFormat) {
  RankCapture capture;
  capture.rank = 7;
  Task compute;
  compute.name = "op";
  compute.duration_s = 0.5;
  compute.step = 2;
  Task send;
  send.kind = TaskKind::send;
  send.peer_offset = -1;
  send.bytes = 4096;
  send.deps = {{0, 0}};
  capture.tasks = {compute, send};
  EXPECT_EQ(rank_file_text(capture),
            "{\n  \"format\": \"scalecast-trace-rank\",\n  \"version\": 1,\n  \"rank\": 7,\n  \"tasks\": [\n"
            "    {\"kind\":\"compute\",\"name\":\"op\",\"step\":2,\"duration_s\":0.5},\n"
            "    {\"kind\":\"send\",\"deps\":[0],\"peer_offset\":-1,\"bytes\":4096}\n  ]\n}\n");
}

}  // namespace
}  // namespace scalecast::gpu_trace
