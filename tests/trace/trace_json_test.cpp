#include "sim/trace/trace_json.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/input_error.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {
namespace {

namespace fs = std::filesystem;

const std::string kSampleTrace = std::string(SCALECAST_SOURCE_DIR) + "/traces/sample-2rank-dp.json";

class TraceFiles : public testing::ScratchFolder {};

using testing::read_text;

Task compute(const std::string& name, double duration_s, std::vector<TaskRef> deps = {}) {
  Task task;
  task.name = name;
  task.step = 0;
  task.duration_s = duration_s;
  task.deps = std::move(deps);
  return task;
}

Task collective(CollectiveOp op, int communicator, double bytes, std::vector<TaskRef> deps = {}) {
  Task task;
  task.kind = TaskKind::collective;
  task.name = to_string(op);
  task.stream = 1;
  task.op = op;
  task.communicator = communicator;
  task.bytes = bytes;
  task.deps = std::move(deps);
  return task;
}

Task message(TaskKind kind, int peer_offset, double bytes, int tag = 0) {
  Task task;
  task.kind = kind;
  task.stream = 2;
  task.peer_offset = peer_offset;
  task.bytes = bytes;
  task.tag = tag;
  return task;
}

Communicator communicator(int id, std::string name, std::vector<std::vector<int>> groups) {
  return Communicator{id, std::move(name), std::move(groups)};
}

// Four ranks as two pipeline stages of two DP replicas: ranks 0 and 2 run stage 0 and send
// activations to ranks 1 and 3 (stage 1), which depend on them; each stage's gradients are
// allreduced among its replicas (communicator 1, two groups), and a world barrier-like
// allreduce uses communicator 0. Every field kind of the format appears at a non-default value.
ExecutionGraph two_stage_graph() {
  ExecutionGraph graph;
  graph.origin = "generated";
  graph.traced_gpu = "H100-SXM5-80GB";
  graph.metadata = {{"model", "test"}, {"batch", "8"}};
  graph.communicators = {communicator(0, "world", {{0, 1, 2, 3}}), communicator(1, "dp", {{0, 2}, {1, 3}})};

  RankProgram stage0;
  stage0.tasks.push_back(compute("forward 0", 0.0015));
  Task cost_model = compute("forward 0b", -1, {{0, 0}});
  cost_model.flops = 3.5e12;
  cost_model.memory_bytes = 1.25e9;
  cost_model.op_kind = "matmul";
  cost_model.launches = 12;  // runs as 12 kernels (Task::launches)
  stage0.tasks.push_back(cost_model);
  Task send = message(TaskKind::send, 1, 4194304, 7);
  send.deps = {{0, 1}};
  stage0.tasks.push_back(send);
  stage0.tasks.push_back(collective(CollectiveOp::allreduce, 1, 1048576, {{0, 1}}));
  Task broadcast = collective(CollectiveOp::broadcast, 0, 2.5, {{0, 3}});
  broadcast.root = 3;
  broadcast.dtype = "bfloat16";
  stage0.tasks.push_back(broadcast);

  RankProgram stage1;
  stage1.tasks.push_back(message(TaskKind::recv, -1, 4194304, 7));
  Task backward = compute("backward 1", 0.002, {{0, 0}, {-1, 1}});
  backward.stream = 3;
  backward.step = 4;
  backward.compute_bound_s = 0.0012;  // priced as a sequence of kernels (Task::compute_bound_s)
  backward.memory_bound_s = 0.0005;
  backward.memory_bytes = 9e8;
  stage1.tasks.push_back(backward);
  stage1.tasks.push_back(collective(CollectiveOp::allreduce, 1, 1048576, {{0, 1}}));
  Task broadcast1 = broadcast;
  broadcast1.deps = {{0, 2}};
  stage1.tasks.push_back(broadcast1);

  graph.programs = {stage0, stage1};
  graph.program_of_rank = {0, 1, 0, 1};
  return graph;
}

void expect_input_error(const std::function<void()>& action, const std::string& source, const std::string& field,
                        const std::string& problem_part) {
  try {
    action();
    ADD_FAILURE() << "expected an InputError at " << source << ": " << field;
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.source(), source) << message;
    EXPECT_EQ(error.field(), field) << message;
    EXPECT_NE(message.find(source), std::string::npos) << message;
    EXPECT_NE(message.find(field), std::string::npos) << message;
    EXPECT_NE(message.find(problem_part), std::string::npos) << message;
  }
}

void expect_invalid(const ExecutionGraph& graph, const std::string& field, const std::string& problem_part) {
  expect_input_error([&] { validate(graph, "in-memory"); }, "in-memory", field, problem_part);
}

// --- names -------------------------------------------------------------------------------------

TEST(TraceNames, KindsAndOpsRoundTripThroughTheirNames) {
  for (TaskKind kind : {TaskKind::compute, TaskKind::collective, TaskKind::send, TaskKind::recv}) {
    TaskKind parsed = TaskKind::compute;
    ASSERT_TRUE(parse_task_kind(to_string(kind), parsed));
    EXPECT_EQ(parsed, kind);
  }
  for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::reducescatter,
                          CollectiveOp::broadcast, CollectiveOp::reduce, CollectiveOp::alltoall}) {
    CollectiveOp parsed = CollectiveOp::allreduce;
    ASSERT_TRUE(parse_collective_op(to_string(op), parsed));
    EXPECT_EQ(parsed, op);
  }
  EXPECT_STREQ(to_string(CollectiveOp::reducescatter), "reducescatter");
  TaskKind kind = TaskKind::recv;
  EXPECT_FALSE(parse_task_kind("Compute", kind));
  EXPECT_EQ(kind, TaskKind::recv);
  CollectiveOp op = CollectiveOp::reduce;
  EXPECT_FALSE(parse_collective_op("all_reduce", op));
}

TEST(TraceNames, FindCommunicatorById) {
  const ExecutionGraph graph = two_stage_graph();
  ASSERT_NE(graph.find_communicator(1), nullptr);
  EXPECT_EQ(graph.find_communicator(1)->name, "dp");
  EXPECT_EQ(graph.find_communicator(7), nullptr);
}

// --- round trips -------------------------------------------------------------------------------

TEST_F(TraceFiles, SingleFileRoundTripIsExactAndDeterministic) {
  const ExecutionGraph graph = two_stage_graph();
  write_trace(graph, path("a.json"));
  const ExecutionGraph read = read_trace(path("a.json"));
  EXPECT_EQ(read, graph);
  EXPECT_EQ(read.programs[0].tasks[1].duration_s, -1);
  EXPECT_EQ(read.programs[0].tasks[1].flops, 3.5e12);

  write_trace(read, path("b.json"));
  EXPECT_EQ(read_text(path("a.json")), read_text(path("b.json")));
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"a.json", "b.json"}));  // no temporaries left
}

TEST_F(TraceFiles, SingleFileHasOneTaskPerLineAndIntegralSizes) {
  write_trace(two_stage_graph(), path("a.json"));
  const std::string text = read_text(path("a.json"));
  EXPECT_EQ(text.rfind("{\n  \"format\": \"scalecast-trace\",\n  \"version\": 2,\n", 0), 0u) << text;
  EXPECT_NE(text.find("\n        {\"kind\":\"collective\",\"name\":\"allreduce\",\"stream\":1,\"op\":\"allreduce\","
                      "\"communicator\":1,\"bytes\":1048576,\"deps\":[1]},\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"rank_programs\": [0,1,0,1]\n}\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\"groups\": [\n        [0,2],\n        [1,3]\n      ]"), std::string::npos) << text;
}

TEST(TraceJson, DefaultValuedFieldsAreOmitted) {
  ExecutionGraph graph;
  graph.programs = {RankProgram{{compute("", 0)}}};
  graph.programs[0].tasks[0].step = -1;
  graph.program_of_rank = {0};
  const nlohmann::json document = to_json(graph);
  EXPECT_EQ(document, nlohmann::json::parse(R"({"format":"scalecast-trace","version":2,
      "programs":[{"tasks":[{"kind":"compute","duration_s":0}]}],"rank_programs":[0]})"));
  EXPECT_EQ(from_json(document, "memory"), graph);
}

TEST_F(TraceFiles, DirectoryRoundTripIsExactAndDeterministic) {
  const ExecutionGraph graph = two_stage_graph();
  write_trace(graph, path("trace"));
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"trace"}));
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path("trace"))) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"manifest.json", "rank-00000.json", "rank-00001.json",
                                             "rank-00002.json", "rank-00003.json"}));
  EXPECT_EQ(read_trace(path("trace")), graph);
  EXPECT_EQ(read_trace(path("trace/manifest.json")), graph);

  write_trace(graph, path("again"));
  for (const std::string& file : files)
    EXPECT_EQ(read_text(path("trace/" + file)), read_text(path("again/" + file))) << file;
  EXPECT_NE(read_text(path("trace/rank-00002.json")).find("\"rank\": 2,"), std::string::npos);

  write_trace(graph, path("slash") + "/");  // names the folder "slash", not a file inside it
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"again", "slash", "trace"}));
  EXPECT_EQ(read_trace(path("slash") + "/"), graph);
}

TEST_F(TraceFiles, DirectoryReadSharesIdenticalProgramsAndReplacesOldTrace) {
  ExecutionGraph graph = two_stage_graph();
  write_trace(graph, path("trace"));
  // Overwrite with a graph whose replicas were stored as separate, identical programs.
  ExecutionGraph unshared;
  unshared.communicators = {communicator(0, "world", {{0, 1, 2}})};
  RankProgram program{{compute("a", 0.001), collective(CollectiveOp::allgather, 0, 64, {{0, 0}})}};
  unshared.programs = {program, program, program};
  unshared.program_of_rank = {0, 1, 2};
  write_trace(unshared, path("trace"));
  EXPECT_FALSE(fs::exists(path("trace/rank-00003.json")));  // the old trace is gone whole

  const ExecutionGraph read = read_trace(path("trace"));
  EXPECT_EQ(read.programs.size(), 1u);
  EXPECT_EQ(read.program_of_rank, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(read.programs[0], program);
}

// --- the sample trace --------------------------------------------------------------------------

TEST_F(TraceFiles, SampleTraceLoadsAndIsInCanonicalForm) {
  const ExecutionGraph graph = read_trace(kSampleTrace);
  EXPECT_EQ(graph.world_size(), 2);
  EXPECT_EQ(graph.origin, "handwritten");
  ASSERT_EQ(graph.programs.size(), 1u);
  ASSERT_EQ(graph.programs[0].tasks.size(), 10u);
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1}}));
  const Task& bucket0 = graph.programs[0].tasks[7];
  EXPECT_EQ(bucket0.kind, TaskKind::collective);
  EXPECT_EQ(bucket0.op, CollectiveOp::allreduce);
  EXPECT_EQ(bucket0.stream, 1);
  EXPECT_EQ(bucket0.bytes, 16384000);
  EXPECT_EQ(bucket0.deps, (std::vector<TaskRef>{{0, 4}}));
  EXPECT_DOUBLE_EQ(graph.programs[0].tasks[0].duration_s, 0.0012);
  EXPECT_LT(graph.programs[0].tasks[9].duration_s, 0);  // the optimizer step uses the cost model

  // Written by hand, but exactly as write_trace lays it out.
  write_trace(graph, path("sample.json"));
  EXPECT_EQ(read_text(path("sample.json")), read_text(kSampleTrace));
}

// --- bad files -----------------------------------------------------------------------------------

// A one-program, two-rank trace whose single program is `tasks` (a JSON array text).
std::string trace_text(const std::string& tasks, const std::string& communicators = "[{\"id\":0,\"ranks\":[0,1]}]") {
  return "{\"format\":\"scalecast-trace\",\"version\":1,\"communicators\":" + communicators +
         ",\n\"programs\":[{\"tasks\":" + tasks + "}],\"rank_programs\":[0,0]}";
}

TEST_F(TraceFiles, DanglingDependency) {
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"compute","duration_s":1},
      {"kind":"compute","duration_s":1,"deps":[0,5]}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[1].deps[1]", "refers to task 5");
}

TEST_F(TraceFiles, DependencyCycleAcrossStreams) {
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"compute","duration_s":1,"deps":[2]},
      {"kind":"compute","duration_s":1,"stream":1,"deps":[0]},
      {"kind":"compute","duration_s":1,"stream":2,"deps":[1]}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].deps[0]",
                     "task 0 -> task 2 -> task 1 -> task 0");
}

TEST_F(TraceFiles, DependencyCycleThroughStreamOrder) {
  // Task 0 waits for task 1, which runs after task 0 on the same stream.
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"compute","name":"a","duration_s":1,"deps":[1]},
      {"kind":"compute","name":"b","duration_s":1}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].deps[0]", "task 0 'a' -> task 1 'b'");
}

TEST_F(TraceFiles, CollectiveSizeMismatchBetweenRanksOfAGroup) {
  const std::string file = write_text(
      "t.json", R"({"format":"scalecast-trace","version":1,"communicators":[{"id":3,"name":"dp","ranks":[0,1]}],
      "programs":[{"tasks":[{"kind":"collective","op":"allreduce","communicator":3,"bytes":1024}]},
                  {"tasks":[{"kind":"collective","op":"allreduce","communicator":3,"bytes":2048}]}],
      "rank_programs":[0,1]})");
  expect_input_error([&] { read_trace(file); }, file, "programs[1].tasks[0].bytes",
                     "rank 1 and rank 0 (same group of communicator 3 'dp') disagree");
}

TEST_F(TraceFiles, CollectiveByARankOutsideTheCommunicator) {
  const std::string file = write_text(
      "t.json", trace_text(R"([{"kind":"collective","op":"allgather","communicator":0,"bytes":8}])",
                           R"([{"id":0,"ranks":[0]}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].communicator",
                     "rank 1 (which runs programs[0]) issues a collective on communicator 0 but is in none");
}

TEST_F(TraceFiles, UnknownField) {
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"compute","duraton_s":1}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].duraton_s",
                     "is not a field of a compute task");
}

TEST_F(TraceFiles, FieldOfAnotherKindIsUnknown) {
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"send","peer_offset":0,"bytes":1,"flops":3},
      {"kind":"recv","peer_offset":0,"bytes":1}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].flops", "is not a field of a send task");
}

TEST_F(TraceFiles, WrongTypesAndMissingFields) {
  std::string file = write_text("a.json", trace_text(R"([{"kind":"compute","stream":"1"}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].stream", "must be an integer, got string");
  file = write_text("b.json", trace_text(R"([{"kind":"collective","op":"allreduce","bytes":4}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].communicator", "is missing");
  file = write_text("c.json", trace_text(R"([{"kind":"collective","op":"allsum","communicator":0,"bytes":4}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].op", "is \"allsum\"");
  file = write_text("d.json", trace_text(R"([{"kind":"compute","deps":[0.5]}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[0].deps[0]", "must be an integer");
}

TEST_F(TraceFiles, BadFormatAndVersion) {
  std::string file = write_text("a.json", R"({"format":"scalecast-trace","version":3,"programs":[],"future":1})");
  expect_input_error([&] { read_trace(file); }, file, "version", "is 3, but this scalecast reads versions 1 to 2");
  file = write_text("b.json", R"({"traceEvents":[]})");
  expect_input_error([&] { read_trace(file); }, file, "", "a PyTorch profiler (Kineto) trace");
  expect_input_error([&] { read_trace(file); }, file, "", "scalecast import kineto " + file);
  file = write_text("d.json", R"({"programs":[]})");
  expect_input_error([&] { read_trace(file); }, file, "format", "is missing; a scalecast trace file starts with");
  file = write_text("e.json.gz", std::string("\x1f\x8b\x08\x00", 4) + "compressed bytes");
  expect_input_error([&] { read_trace(file); }, file, "", "is gzip-compressed, not a scalecast trace (plain JSON); if this is a PyTorch profiler");
  file = write_text("c.json", R"({"format":"chrome-trace","version":1})");
  expect_input_error([&] { read_trace(file); }, file, "format", "expected \"scalecast-trace\"");
}

TEST_F(TraceFiles, JsonSyntaxErrorNamesLineAndByte) {
  const std::string file = write_text("t.json", "{\n  \"format\": \"scalecast-trace\",\n  \"version\": 1,,\n}");
  expect_input_error([&] { read_trace(file); }, file, "", "invalid JSON at line 3, column 16 (byte offset 48): syntax error");
}

TEST_F(TraceFiles, TruncatedFile) {
  const std::string text = read_text(kSampleTrace);
  const size_t cut = text.find("{\"kind\":\"compute\",\"name\":\"loss\"");
  ASSERT_NE(cut, std::string::npos);
  const std::string file = write_text("t.json", text.substr(0, cut));
  expect_input_error([&] { read_trace(file); }, file, "", "unexpected end of input");
}

TEST_F(TraceFiles, DuplicateKeyAndMissingFile) {
  const std::string file = write_text("t.json", R"({"format":"scalecast-trace","version":1,"version":1})");
  expect_input_error([&] { read_trace(file); }, file, "", "key \"version\" appears twice");
  expect_input_error([&] { read_trace(path("absent.json")); }, path("absent.json"), "", "no such file");
}

TEST_F(TraceFiles, DirectoryErrorsNameTheRankFile) {
  ExecutionGraph graph = two_stage_graph();
  write_trace(graph, path("trace"));
  // Rank 1 (program 1) now depends on a task rank 0 does not have.
  std::string rank1 = read_text(path("trace/rank-00001.json"));
  const std::string from = "\"deps\":[0,{\"rank_offset\":-1,\"task\":1}]";
  ASSERT_NE(rank1.find(from), std::string::npos) << rank1;
  rank1.replace(rank1.find(from), from.size(), "\"deps\":[0,{\"rank_offset\":-1,\"task\":9}]");
  std::ofstream(path("trace/rank-00001.json"), std::ios::binary) << rank1;
  expect_input_error([&] { read_trace(path("trace")); }, path("trace/rank-00001.json"), "tasks[1].deps[1]",
                     "refers to task 9 of rank 0");

  std::ofstream(path("trace/rank-00003.json"), std::ios::binary) << "{\"format\":\"scalecast-trace-rank\",\"version\":1,"
                                                                     "\"rank\":3,\"tasks\":[{\"kind\":\"compute\",\"x\":1}]}";
  expect_input_error([&] { read_trace(path("trace")); }, path("trace/rank-00003.json"), "tasks[0].x",
                     "is not a field");
}

TEST_F(TraceFiles, DirectoryManifestMustListEveryRank) {
  fs::create_directories(path("trace"));
  write_text("trace/manifest.json",
             R"({"format":"scalecast-trace","version":1,"world_size":2,"rank_files":["rank-00000.json"]})");
  expect_input_error([&] { read_trace(path("trace")); }, path("trace/manifest.json"), "rank_files",
                     "lists 1 files, but world_size is 2");
  write_text("trace/manifest.json",
             R"({"format":"scalecast-trace","version":1,"world_size":1,"rank_files":["../elsewhere.json"]})");
  expect_input_error([&] { read_trace(path("trace")); }, path("trace/manifest.json"), "rank_files[0]",
                     "inside the trace directory");
}

// --- validation of in-memory graphs ----------------------------------------------------------------

TEST(TraceValidation, TheTestGraphIsValid) { EXPECT_NO_THROW(validate(two_stage_graph(), "in-memory")); }

TEST(TraceValidation, RankPrograms) {
  ExecutionGraph graph = two_stage_graph();
  graph.program_of_rank[2] = 2;
  expect_invalid(graph, "rank_programs[2]", "is 2, but there are 2 programs");
  graph.program_of_rank.clear();
  expect_invalid(graph, "rank_programs", "is empty");
}

TEST(TraceValidation, TaskValues) {
  ExecutionGraph graph = two_stage_graph();
  graph.programs[1].tasks[1].stream = -1;
  expect_invalid(graph, "programs[1].tasks[1].stream", "is -1");
  graph = two_stage_graph();
  graph.programs[0].tasks[1].flops = -5;
  expect_invalid(graph, "programs[0].tasks[1].flops", "is -5");
  graph = two_stage_graph();
  graph.programs[0].tasks[3].communicator = 9;
  expect_invalid(graph, "programs[0].tasks[3].communicator", "communicator 9, which is not declared");
}

// A duration's parts (a task priced kernel by kernel) lie within it, and need it.
TEST(TraceValidation, SequencePartsFitTheirDuration) {
  ExecutionGraph graph = two_stage_graph();
  graph.programs[1].tasks[1].compute_bound_s = 0.0016;  // + 0.0005 > 0.002
  expect_invalid(graph, "programs[1].tasks[1].compute_bound_s", "add up to 0.0021 s, more than duration_s (0.002 s)");
  graph = two_stage_graph();
  graph.programs[1].tasks[1].memory_bound_s = -1e-3;
  expect_invalid(graph, "programs[1].tasks[1].memory_bound_s", "is -0.001");
  graph = two_stage_graph();
  graph.programs[0].tasks[1].compute_bound_s = 1e-3;  // a task the cost model prices
  expect_invalid(graph, "programs[0].tasks[1].compute_bound_s", "without duration_s");
  graph = two_stage_graph();
  graph.programs[1].tasks[1].compute_bound_s = 0.0015;  // exactly the duration
  EXPECT_NO_THROW(validate(graph, "in-memory"));
}

// A task's kernel count is at least one kernel and a physical number of them.
TEST(TraceValidation, LaunchesAreAKernelCount) {
  for (double bad : {0.0, -3.0, 1e12, std::nan("")}) {
    ExecutionGraph graph = two_stage_graph();
    graph.programs[0].tasks[1].launches = bad;
    expect_invalid(graph, "programs[0].tasks[1].launches", "expected a kernel count from 1");
  }
}

// Values in their physical ranges (sim/core/physical_limits.h): a duration of 1e308 s aborted
// SimGrid, collectives and messages of 1e308 bytes replayed in 1.6 µs (the size overflowed).
TEST(TraceValidation, ValuesOutsideTheirPhysicalRanges) {
  ExecutionGraph graph = two_stage_graph();
  graph.programs[0].tasks[0].duration_s = 1e308;
  expect_invalid(graph, "programs[0].tasks[0].duration_s", "between 0 and 1e6 s");
  graph = two_stage_graph();
  graph.programs[0].tasks[3].bytes = 1e308;
  graph.programs[1].tasks[2].bytes = 1e308;
  expect_invalid(graph, "programs[0].tasks[3].bytes", "at most 2^60 bytes");
  graph = two_stage_graph();
  graph.programs[0].tasks[2].bytes = 1e19;
  expect_invalid(graph, "programs[0].tasks[2].bytes", "at most 2^60 bytes");
  graph = two_stage_graph();
  graph.programs[0].tasks[1].flops = 1e30;
  expect_invalid(graph, "programs[0].tasks[1].flops", "at most 1e24 FLOPs");
  graph = two_stage_graph();
  graph.programs[0].tasks[1].memory_bytes = 1e300;
  expect_invalid(graph, "programs[0].tasks[1].memory_bytes", "2^60");
  graph = two_stage_graph();
  graph.programs[1].tasks[1].memory_bound_s = 1e300;
  expect_invalid(graph, "programs[1].tasks[1].memory_bound_s", "between 0 and 1e6 s");
  graph = two_stage_graph();
  graph.program_of_rank.assign((1 << 24) + 1, 0);
  expect_invalid(graph, "rank_programs", "at most 2^24");
}

// A number beyond a double (nlohmann's "number overflow") is an input error naming its field.
TEST_F(TraceFiles, NumberBeyondADoubleNamesItsField) {
  const std::string file = write_text("t.json", trace_text(R"([{"kind":"compute","duration_s":1},
      {"kind":"compute","name":"big","duration_s":1e400}])"));
  expect_input_error([&] { read_trace(file); }, file, "programs[0].tasks[1].duration_s", "1e400 is outside the range");
}

TEST(TraceValidation, Communicators) {
  ExecutionGraph graph = two_stage_graph();
  graph.communicators[1].id = 0;
  expect_invalid(graph, "communicators[1].id", "already the id of communicators[0]");
  graph = two_stage_graph();
  graph.communicators[1].groups[1] = {1, 4};
  expect_invalid(graph, "communicators[1].groups[1][1]", "is rank 4, outside the world of 4 ranks");
  graph = two_stage_graph();
  graph.communicators[1].groups[1] = {1, 2};
  expect_invalid(graph, "communicators[1].groups[1][1]", "rank 2 is already in communicators[1].groups[0]");
}

TEST(TraceValidation, GroupsMustIssueTheSameCollectives) {
  ExecutionGraph graph = two_stage_graph();
  // Ranks 0 and 1 share the world communicator but rank 1's program skips the broadcast.
  graph.programs[1].tasks.pop_back();
  expect_invalid(graph, "programs[0].tasks[4]", "issue different numbers of collectives on it");
  graph = two_stage_graph();
  graph.programs[1].tasks[3].op = CollectiveOp::reduce;
  expect_invalid(graph, "programs[1].tasks[3].op", "broadcast of 2.5");
  graph = two_stage_graph();
  graph.programs[1].tasks[3].root = 4;
  expect_invalid(graph, "programs[1].tasks[3].root", "with root 4 here");
}

TEST(TraceValidation, PointToPoint) {
  ExecutionGraph graph = two_stage_graph();
  graph.programs[1].tasks[0].bytes = 8;
  expect_invalid(graph, "programs[0].tasks[2].bytes", "carries 4194304 bytes, but its matching recv");
  graph = two_stage_graph();
  graph.programs[1].tasks[0].tag = 8;
  expect_invalid(graph, "programs[0].tasks[2]", "send #0 of rank 0 to rank 1 with tag 7 has no matching recv");
  graph = two_stage_graph();
  graph.programs[0].tasks[2].peer_offset = 2;  // rank 2 + 2 is outside the world
  expect_invalid(graph, "programs[0].tasks[2].peer_offset", "reaches rank 4, outside the world of 4 ranks");
  graph = two_stage_graph();
  graph.programs[1].tasks[1].deps[1].rank_offset = -2;  // rank 1 - 2
  expect_invalid(graph, "programs[1].tasks[1].deps[1]", "reaches rank -1");
}

// 16,384 DP ranks share one program of 300 tasks: validation accepts it (its speed, which must
// not grow as ranks x tasks, is a benchmark matter, not asserted here).
TEST(TraceValidation, SixteenThousandRanksSharingAProgram) {
  const int world = 16384;
  ExecutionGraph graph;
  std::vector<int> everyone(world);
  for (int rank = 0; rank < world; ++rank) everyone[rank] = rank;
  std::vector<std::vector<int>> pairs;
  for (int rank = 0; rank < world; rank += 2) pairs.push_back({rank, rank + 1});
  graph.communicators = {communicator(0, "world", {everyone}), communicator(1, "pairs", pairs)};
  RankProgram program;
  for (int t = 0; t < 300; ++t) {
    if (t % 10 == 9)
      program.tasks.push_back(collective(t % 20 == 9 ? CollectiveOp::allreduce : CollectiveOp::allgather,
                                         t % 20 == 9 ? 0 : 1, 1 << 20, {{0, t - 1}}));
    else
      program.tasks.push_back(compute("op", 1e-4, t > 0 ? std::vector<TaskRef>{{0, t - 1}} : std::vector<TaskRef>{}));
  }
  graph.programs = {program};
  graph.program_of_rank.assign(world, 0);

  EXPECT_NO_THROW(validate(graph, "in-memory"));

  graph.programs[0].tasks[19].bytes = 5;  // still consistent: every rank runs the same program
  EXPECT_NO_THROW(validate(graph, "in-memory"));
  graph.programs.push_back(program);
  graph.program_of_rank[16383] = 1;
  expect_invalid(graph, "programs[1].tasks[19].bytes", "rank 16383 and rank 16382");
}

// --- writing -------------------------------------------------------------------------------------

TEST_F(TraceFiles, UnwritablePathLeavesNothingBehind) {
  write_text("plain-file", "not a folder");
  expect_input_error([&] { write_trace(two_stage_graph(), path("plain-file/t.json")); }, path("plain-file/t.json"),
                     "", "cannot be written");
  EXPECT_THROW(write_trace(two_stage_graph(), path("plain-file/trace")), InputError);
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"plain-file"}));
  EXPECT_EQ(read_text(path("plain-file")), "not a folder");
}

TEST_F(TraceFiles, DoesNotReplaceAFolderThatIsNotATrace) {
  fs::create_directories(path("photos"));
  write_text("photos/cat.jpg", "meow");
  expect_input_error([&] { write_trace(two_stage_graph(), path("photos")); }, path("photos"), "",
                     "is not a scalecast trace directory");
  EXPECT_EQ(read_text(path("photos/cat.jpg")), "meow");
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"photos"}));
}

TEST_F(TraceFiles, InvalidGraphIsNotWritten) {
  ExecutionGraph graph = two_stage_graph();
  graph.programs[0].tasks[0].deps = {{0, 0}};
  expect_input_error([&] { write_trace(graph, path("t.json")); }, path("t.json"), "programs[0].tasks[0].deps[0]",
                     "cycle");
  EXPECT_TRUE(folder_entries().empty());
}

}  // namespace
}  // namespace scalecast
