// Records → rank trace, driven by the record files in tests/data/gpu_trace/ (make_fixtures.py
// says what each holds and why the expected numbers are what they are).
#include <gtest/gtest.h>

#include "gpu_trace/convert.h"
#include "gpu_trace/record_io.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {
namespace {

const std::string kData = std::string(SCALECAST_TEST_DATA) + "/gpu_trace/";

ProcessRecords ddp(int rank) { return read_records(kData + "ddp-2rank-" + std::to_string(rank) + ".records.jsonl"); }

const Task* find_task(const RankCapture& capture, const std::string& name, int step) {
  for (const auto& t : capture.tasks)
    if (t.name == name && t.step == step) return &t;
  return nullptr;
}

int index_of(const RankCapture& capture, const Task* task) { return static_cast<int>(task - capture.tasks.data()); }

TEST(Convert, KernelsInsideAnNvtxRangeBecomeOneTaskWithItsBusyTime) {
  const RankCapture capture = convert(ddp(0), ConvertOptions{}, "ddp-0");
  // Two overlapping kernels (100-150 us, 140-190 us) in the innermost range: 90 us busy, not 100.
  const Task* conv = find_task(capture, "aten::cudnn_convolution", 0);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->kind, TaskKind::compute);
  EXPECT_NEAR(conv->duration_s, 90e-6, 1e-12);
  // The outer range keeps only the kernel launched outside the inner one; emit_nvtx's
  // ", seq = …" suffix is cut from the name.
  const Task* outer = find_task(capture, "aten::conv2d", 0);
  ASSERT_NE(outer, nullptr);
  EXPECT_NEAR(outer->duration_s, 10e-6, 1e-12);
  // A kernel and a memset in one range: busy time of both.
  const Task* optimizer = find_task(capture, "Optimizer.step#SGD.step", 0);
  ASSERT_NE(optimizer, nullptr);
  EXPECT_NEAR(optimizer->duration_s, 60e-6, 1e-12);
  EXPECT_EQ(optimizer->memory_bytes, 1 << 20);
  EXPECT_EQ(optimizer->op_kind, "");  // an operator's kind is not its last activity's
  // Kernels launched on another thread (autograd) fall in that thread's range.
  const Task* backward = find_task(capture, "ConvolutionBackward0", 0);
  ASSERT_NE(backward, nullptr);
  EXPECT_NEAR(backward->duration_s, 300e-6, 1e-12);
  // Work outside any operator range is a task of its own, named after the activity.
  const Task* copy = find_task(capture, "memcpy HtoD", 0);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->op_kind, "memcpy");
  EXPECT_NEAR(copy->duration_s, 20e-6, 1e-12);
}

TEST(Convert, StepsComeFromProfilerStepRangesAndTasksAreInGpuOrder) {
  const RankCapture capture = convert(ddp(0), ConvertOptions{}, "ddp-0");
  ASSERT_EQ(capture.tasks.size(), 24u);  // 4 steps × (copy, 2 conv ops, backward, allreduce, optimizer)
  const char* order[] = {"memcpy HtoD", "aten::cudnn_convolution", "aten::conv2d", "ConvolutionBackward0", "allreduce",
                         "Optimizer.step#SGD.step"};
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(capture.tasks[i].name, order[i % 6]) << "task " << i;
    EXPECT_EQ(capture.tasks[i].step, i / 6) << "task " << i;
  }
  EXPECT_EQ(capture.metadata.at("capture.steps"), "4 of 4 (from step 0)");
  EXPECT_EQ(capture.metadata.at("capture.measured_step_s"), "0.0009");
  EXPECT_EQ(capture.traced_gpu, "NVIDIA H100 80GB HBM3");
}

TEST(Convert, AllreduceIsSizedAndTimedByTheKernelCarryingItsCallId) {
  const RankCapture capture = convert(ddp(1), ConvertOptions{}, "ddp-1");
  EXPECT_EQ(capture.rank, 1);
  const Task* allreduce = find_task(capture, "allreduce", 2);
  ASSERT_NE(allreduce, nullptr);
  EXPECT_EQ(allreduce->kind, TaskKind::collective);
  EXPECT_EQ(allreduce->op, CollectiveOp::allreduce);
  EXPECT_EQ(allreduce->bytes, 4.0 * (1 << 20));  // 2^20 float32
  EXPECT_EQ(allreduce->dtype, "float32");
  EXPECT_EQ(allreduce->communicator, trace_communicator_id(1234567890123456789ull));
  // NCCL's own stream (its kernel's), not the compute stream; and no compute task for the kernel.
  EXPECT_NE(allreduce->stream, find_task(capture, "ConvolutionBackward0", 2)->stream);
  for (const auto& t : capture.tasks) EXPECT_EQ(t.name.find("ncclDevKernel"), std::string::npos);
  // 4 allreduces of 190 us measured on the GPU.
  EXPECT_EQ(capture.metadata.at("capture.nccl_gpu_s"), "0.00076");
  ASSERT_EQ(capture.communicators.size(), 1u);
  EXPECT_EQ(capture.communicators[0].nranks, 2);
  EXPECT_EQ(capture.communicators[0].rank, 1);
}

TEST(Convert, DependenciesFollowWhatTheRunShows) {
  const RankCapture capture = convert(ddp(0), ConvertOptions{}, "ddp-0");
  const Task* allreduce = find_task(capture, "allreduce", 1);
  const Task* backward = find_task(capture, "ConvolutionBackward0", 1);
  const Task* optimizer = find_task(capture, "Optimizer.step#SGD.step", 1);
  // The allreduce waits for the last gradient; the optimizer, launched long before the
  // allreduce ended but started only then, waited for it.
  ASSERT_EQ(allreduce->deps.size(), 1u);
  EXPECT_EQ(allreduce->deps[0].task, index_of(capture, backward));
  ASSERT_EQ(optimizer->deps.size(), 1u);
  EXPECT_EQ(optimizer->deps[0].task, index_of(capture, allreduce));
  // The next step's input copy was launched after the allreduce ended: no edge.
  EXPECT_TRUE(find_task(capture, "memcpy HtoD", 2)->deps.empty());
}

TEST(Convert, StepWindowKeepsChosenStepsRenumberedFromZero) {
  ConvertOptions options;
  parse_step_window("1:3", options, "test", "--steps");
  const RankCapture capture = convert(ddp(0), options, "ddp-0");
  ASSERT_EQ(capture.tasks.size(), 12u);
  EXPECT_EQ(capture.tasks.front().step, 0);
  EXPECT_EQ(capture.tasks.back().step, 1);
  EXPECT_EQ(capture.metadata.at("capture.steps"), "2 of 4 (from step 1)");
  EXPECT_EQ(capture.metadata.at("capture.activities_outside_window"), std::to_string(2 * 7));
  // Dependencies point inside the window.
  for (size_t i = 0; i < capture.tasks.size(); ++i)
    for (const auto& d : capture.tasks[i].deps) EXPECT_LT(d.task, static_cast<int>(i));
}

TEST(Convert, StepWindowBeyondTheRunOrMalformedIsBadInput) {
  ConvertOptions options;
  parse_step_window("2:9", options, "command line", "--steps");
  EXPECT_THROW(convert(ddp(0), options, "ddp-0"), InputError);
  for (const char* bad : {"3", "5:2", "a:b", ":", "3:3", "-1:2"}) {
    ConvertOptions o;
    EXPECT_THROW(parse_step_window(bad, o, "command line", "--steps"), InputError) << bad;
  }
  ConvertOptions open_end;
  parse_step_window("2:", open_end, "command line", "--steps");
  EXPECT_EQ(open_end.first_step, 2);
  EXPECT_EQ(open_end.end_step, -1);
  EXPECT_EQ(convert(ddp(0), open_end, "ddp-0").tasks.size(), 12u);
}

TEST(Convert, CustomStepPatternAndBadPattern) {
  ConvertOptions options;
  options.step_pattern = "no such step";
  const RankCapture capture = convert(ddp(0), options, "ddp-0");
  // No step range and no profiler window: the whole run, steps -1.
  for (const auto& t : capture.tasks) EXPECT_EQ(t.step, -1);
  // ProfilerStep ranges are now operator ranges: the lone memcpy is inside one.
  EXPECT_NE(find_task(capture, "ProfilerStep#0", -1), nullptr);
  options.step_pattern = "(unclosed";
  try {
    convert(ddp(0), options, "ddp-0");
    FAIL() << "a bad regex was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "step pattern");
  }
}

TEST(Convert, GroupedCallsShareTheGroupKernelAndSendRecvBecomeMessages) {
  const ProcessRecords records = read_records(kData + "grouped-2rank-0.records.jsonl");
  const RankCapture capture = convert(records, ConvertOptions{}, "grouped-0");
  EXPECT_EQ(capture.rank, 0);  // no RANK: the rank in the largest communicator
  ASSERT_EQ(capture.tasks.size(), 3u);
  EXPECT_EQ(capture.tasks[0].name, "stage_forward");
  EXPECT_EQ(capture.tasks[0].step, 0);  // the NVTX "step" range, not the profiler window
  const Task& send = capture.tasks[1];
  EXPECT_EQ(send.kind, TaskKind::send);
  EXPECT_EQ(send.peer_offset, 1);
  EXPECT_EQ(send.bytes, 2.0 * (1 << 18));  // bfloat16
  const Task& allgather = capture.tasks[2];
  EXPECT_EQ(allgather.op, CollectiveOp::allgather);
  EXPECT_EQ(allgather.bytes, 1000.0 * 4 * 2);  // output buffer: sendcount × ranks
  // Members of one group run together: the first on the group kernel's stream, the next on a
  // lane of it; both start after the work before the group.
  EXPECT_NE(send.stream, allgather.stream);
  EXPECT_EQ(allgather.deps, (std::vector<TaskRef>{{0, 0}}));
  EXPECT_EQ(send.deps, (std::vector<TaskRef>{{0, 0}}));
  EXPECT_EQ(capture.metadata.at("capture.nccl_gpu_s"), "0.0001");  // one group kernel, counted once
  EXPECT_EQ(capture.metadata.at("capture.dropped_records"), "3");
  const RankCapture peer = convert(read_records(kData + "grouped-2rank-1.records.jsonl"), ConvertOptions{}, "grouped-1");
  EXPECT_EQ(peer.tasks[1].kind, TaskKind::recv);
  EXPECT_EQ(peer.tasks[1].peer_offset, -1);
}

TEST(Convert, ProfilerWindowIsTheStepWhenNoRangeMatches) {
  ProcessRecords records = read_records(kData + "grouped-2rank-0.records.jsonl");
  ConvertOptions options;
  options.step_pattern = "nothing";
  const RankCapture capture = convert(records, options, "grouped-0");
  for (const auto& t : capture.tasks) EXPECT_EQ(t.step, 0);
  EXPECT_EQ(capture.metadata.at("capture.steps"), "1 of 1 (from step 0)");
}

TEST(Convert, FailedCallsAndUnknownCommunicators) {
  ProcessRecords records = ddp(0);
  records.nccl_calls[0].result = 5;  // ncclInvalidUsage: nothing happened on the GPU
  RankCapture capture = convert(records, ConvertOptions{}, "ddp-0");
  EXPECT_EQ(capture.metadata.at("capture.nccl_calls_skipped"), "1");
  EXPECT_EQ(find_task(capture, "allreduce", 0), nullptr);
  records.nccl_calls[1].comm = 99;
  EXPECT_THROW(convert(records, ConvertOptions{}, "ddp-0"), InputError);
}

TEST(Convert, NcclKernelsWithoutCorrelationAreNotCompute) {
  // An older CUPTI without external correlation: NCCL's kernel is told by its name, even when
  // launched inside an operator range.
  ProcessRecords records = ddp(0);
  records.correlations.clear();
  const uint64_t t0 = 1000000000ull;
  records.launches.push_back(CpuLaunch{9999, 100, t0 + 50000, t0 + 51000});  // inside aten::conv2d
  records.activities.push_back(GpuActivity{ActivityKind::kernel, "ncclKernel_AllReduce_RING", 9999, 0, 13, t0 + 150000,
                                           t0 + 400000, 0});
  const RankCapture capture = convert(records, ConvertOptions{}, "ddp-0");
  EXPECT_NEAR(find_task(capture, "aten::conv2d", 0)->duration_s, 10e-6, 1e-12);
  for (const auto& t : capture.tasks) EXPECT_EQ(t.name.find("nccl"), std::string::npos) << t.name;
  // The allreduce is still there, timed by its host call.
  ASSERT_NE(find_task(capture, "allreduce", 0), nullptr);
  EXPECT_EQ(capture.metadata.at("capture.nccl_gpu_s"), "0");
}

TEST(Convert, IncompleteRecordsAreDroppedAndCounted) {
  // A forced flush at exit hands over records CUPTI had not finished: an end of 0 (a kernel still
  // running), a start of 0 (no timestamp collected). Subtracting them would make a duration of
  // about 1.8e10 s; they are left out and counted as dropped.
  ProcessRecords records = ddp(0);
  const uint64_t t0 = 1000000000ull;
  records.launches.push_back(CpuLaunch{9001, 100, t0 + 50000, t0 + 51000});  // inside aten::conv2d
  records.activities.push_back(GpuActivity{ActivityKind::kernel, "unfinished", 9001, 0, 7, t0 + 300000, 0, 0});
  records.launches.push_back(CpuLaunch{9002, 100, t0 + 52000, t0 + 53000});
  records.activities.push_back(GpuActivity{ActivityKind::memcpy, "memcpy DtoD", 9002, 0, 7, 0, 0, 64});
  records.launches.push_back(CpuLaunch{9003, 100, t0 + 54000, 0});  // an API record without its end
  records.ranges.push_back(CpuRange{RangeKind::push_pop, "aten::unfinished", 100, t0 + 41000, 0, 2, ""});
  const RankCapture capture = convert(records, ConvertOptions{}, "ddp-0");
  const RankCapture baseline = convert(ddp(0), ConvertOptions{}, "ddp-0");
  ASSERT_EQ(capture.tasks.size(), baseline.tasks.size());
  for (size_t i = 0; i < capture.tasks.size(); ++i) EXPECT_EQ(capture.tasks[i], baseline.tasks[i]) << "task " << i;
  EXPECT_NEAR(find_task(capture, "aten::conv2d", 0)->duration_s, 10e-6, 1e-12);
  EXPECT_EQ(capture.metadata.at("capture.incomplete_records"), "4");
  EXPECT_EQ(capture.metadata.at("capture.dropped_records"), "4");
  EXPECT_EQ(capture.metadata.at("capture.compute_busy_s"), baseline.metadata.at("capture.compute_busy_s"));
}

TEST(Convert, RangesOfNamedNvtxDomainsAreNotOperators) {
  // NCCL marks each of its calls with a range in its own domain ("NCCL"); one around a launch
  // inside aten::cudnn_convolution must not take the kernel from the operator.
  ProcessRecords records = ddp(0);
  const uint64_t t0 = 1000000000ull;
  records.ranges.push_back(CpuRange{RangeKind::push_pop, "ncclAllReduce", 100, t0 + 45500, t0 + 46500, 3, "NCCL"});
  const RankCapture capture = convert(records, ConvertOptions{}, "ddp-0");
  EXPECT_EQ(find_task(capture, "ncclAllReduce", 0), nullptr);
  EXPECT_NEAR(find_task(capture, "aten::cudnn_convolution", 0)->duration_s, 90e-6, 1e-12);
  // In the default domain the same range is an operator (the innermost one).
  records.ranges.back().domain = "";
  EXPECT_NE(find_task(convert(records, ConvertOptions{}, "ddp-0"), "ncclAllReduce", 0), nullptr);
}

TEST(Convert, CallsOfASimulatedGroupAreLeftOut) {
  ProcessRecords records = ddp(0);
  records.nccl_calls[0].result = NcclCall::kSimulated;  // ncclGroupSimulateEnd: NCCL only estimated it
  const RankCapture capture = convert(records, ConvertOptions{}, "ddp-0");
  EXPECT_EQ(find_task(capture, "allreduce", 0), nullptr);
  EXPECT_NE(find_task(capture, "allreduce", 1), nullptr);
  EXPECT_EQ(capture.metadata.at("capture.nccl_calls_simulated"), "1");
  EXPECT_EQ(capture.metadata.count("capture.nccl_calls_skipped"), 0u);  // not a failure
}

// Rank `rank` of a 3-rank communicator that ran one ungrouped `op` (gather or scatter) with root 0.
ProcessRecords rooted_call(int rank, NcclOp op) {
  ProcessRecords records;
  records.rank = rank;
  records.communicators.push_back(CommunicatorRecord{0x10, 99, 3, rank, 0, "init_rank"});
  NcclCall call;
  call.op = op;
  call.count = 256;
  call.dtype = 7;
  call.root_or_peer = 0;
  call.comm = 0x10;
  call.host_start_ns = 1000;
  call.host_end_ns = 2000;
  records.nccl_calls.push_back(call);
  return records;
}

TEST(Convert, GatherAndScatterBecomeTheMessagesNcclRunsThemAs) {
  const int comm_id = trace_communicator_id(99);
  // Gather: the root receives from every other rank, together (lanes of one stream).
  const RankCapture root = convert(rooted_call(0, NcclOp::gather), ConvertOptions{}, "root");
  ASSERT_EQ(root.tasks.size(), 2u);
  EXPECT_EQ(root.tasks[0].kind, TaskKind::recv);
  EXPECT_EQ(root.tasks[1].kind, TaskKind::recv);
  EXPECT_NE(root.tasks[0].stream, root.tasks[1].stream);
  EXPECT_EQ(root.tasks[0].bytes, 1024.0);
  EXPECT_EQ(root.tasks[0].tag, comm_id);
  ASSERT_EQ(root.messages.size(), 2u);
  EXPECT_EQ(root.messages[0].peer, 1);
  EXPECT_EQ(root.messages[1].peer, 2);
  EXPECT_EQ(root.messages[1].communicator, comm_id);
  ASSERT_EQ(root.communicators.size(), 1u);
  EXPECT_FALSE(root.communicators[0].collectives);
  const RankCapture leaf = convert(rooted_call(2, NcclOp::gather), ConvertOptions{}, "leaf");
  ASSERT_EQ(leaf.tasks.size(), 1u);
  EXPECT_EQ(leaf.tasks[0].kind, TaskKind::send);
  EXPECT_EQ(leaf.tasks[0].peer_offset, -2);
  // Scatter: the other way round.
  EXPECT_EQ(convert(rooted_call(0, NcclOp::scatter), ConvertOptions{}, "root").tasks.at(1).kind, TaskKind::send);
  EXPECT_EQ(convert(rooted_call(1, NcclOp::scatter), ConvertOptions{}, "leaf").tasks.at(0).kind, TaskKind::recv);
}

TEST(Convert, MessagesOnATwoRankCommunicatorNameItsPeer) {
  const RankCapture capture = convert(read_records(kData + "pipeline-4rank-2.records.jsonl"), ConvertOptions{}, "p2");
  // rank 2 is stage 1: recv from rank 0 (rank 0 of their communicator), send to rank 1 (rank 0 of
  // another); peer_offset is provisional (-1 for both) until the merge maps the peers.
  ASSERT_EQ(capture.messages.size(), 2u);
  EXPECT_EQ(capture.tasks[capture.messages[0].task].kind, TaskKind::recv);
  EXPECT_EQ(capture.messages[0].peer, 0);
  EXPECT_EQ(capture.messages[0].communicator, trace_communicator_id(5002));
  EXPECT_EQ(capture.messages[1].communicator, trace_communicator_id(5012));
  EXPECT_EQ(capture.communicators.size(), 3u);  // world, and the two it sent or received on
}

TEST(Convert, OperatorNames) {
  EXPECT_EQ(operator_name("aten::add, seq = 12, op_id = 3"), "aten::add");
  EXPECT_EQ(operator_name("aten::mm, sizes = [[2, 3]]"), "aten::mm");
  EXPECT_EQ(operator_name("forward"), "forward");
}

}  // namespace
}  // namespace scalecast::gpu_trace
