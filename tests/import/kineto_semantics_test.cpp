// Small handwritten Kineto traces that pin down how CPU-side events become dependencies:
// launches, synchronisations, stream waits, NCCL kernels without metadata.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/engine/replay_engine.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/platform/platform_yaml.h"
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
  void cpu_op(const std::string& name, double ts, double dur, int tid = 1) {
    events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur}});
  }
  // A synchronisation CUPTI recorded (enable_cuda_sync_events).
  void cuda_sync(const std::string& kind, int stream, int correlation, int wait_on_stream, int record_correlation) {
    events.push_back({{"ph", "X"}, {"cat", "cuda_sync"}, {"name", kind}, {"pid", 0}, {"tid", stream}, {"ts", 0}, {"dur", 0},
                      {"args", {{"cuda_sync_kind", kind}, {"stream", stream}, {"correlation", correlation},
                                {"wait_on_stream", wait_on_stream}, {"wait_on_cuda_event_record_corr_id", record_correlation}}}});
  }
  void record_param_comms(double ts, const json& args, int tid = 1) {
    events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "record_param_comms"}, {"pid", 1}, {"tid", tid}, {"ts", ts},
                      {"dur", 1}, {"args", args}});
  }
  // Imports several ranks' event lists, each its own file, in a world of `world` ranks.
  KinetoImport import_ranks(const std::vector<json>& ranks, int world) {
    std::vector<KinetoTrace> traces;
    for (size_t r = 0; r < ranks.size(); ++r) {
      json doc = {{"schemaVersion", 1}, {"distributedInfo", {{"rank", r}, {"world_size", world}}},
                  {"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA A100-SXM4-40GB"}}})}, {"traceEvents", ranks[r]}};
      traces.push_back(read_kineto_trace(write_text("rank" + std::to_string(r) + ".json", doc.dump())));
    }
    return kineto_to_graph(std::move(traces), {});
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
  static int last_collective(const RankProgram& program) {
    int found = -1;
    for (size_t t = 0; t < program.tasks.size(); ++t)
      if (program.tasks[t].kind == TaskKind::collective) found = static_cast<int>(t);
    return found;
  }
  static int count(const RankProgram& program, const std::string& name) {
    int n = 0;
    for (const Task& task : program.tasks) n += task.name == name;
    return n;
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
  const int nccl = last_collective(p);
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
  const int nccl = last_collective(p);
  ASSERT_GE(nccl, 0);
  EXPECT_EQ(p.tasks[nccl].op, CollectiveOp::allgather);
  EXPECT_EQ(p.tasks[nccl].bytes, 4000);  // per-rank output buffer: 2000 bf16 elements
  EXPECT_EQ(p.tasks[nccl].dtype, "bfloat16");
  EXPECT_EQ(imported.stats.inferred_sizes, 0);
}

// A synchronisation's measured time is mostly waiting: it replays as a wait for the GPU work
// plus the fixed cost of the same call when it did not wait (3 us, the first one, when the
// GPU was idle), never as its measured 500 us.
TEST_F(KinetoSemantics, SyncsWaitForTheGpuThenPayTheOverheadOfACallThatDidNotWait) {
  step(1, 0, 2000);
  runtime("cudaStreamSynchronize", 10, 3, 1);  // nothing launched: did not wait
  runtime("cudaLaunchKernel", 20, 5, 2);
  gpu("kernel", "gemm", 7, 30, 500, 2);
  runtime("cudaStreamSynchronize", 30, 510, 3);  // released when gemm ends at 530, returns at 540
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  ASSERT_EQ(count(p, "wait cudaStreamSynchronize"), 2);
  const int first = find(p, "wait cudaStreamSynchronize"), second = find(p, "wait cudaStreamSynchronize", 1);
  EXPECT_NEAR(p.tasks[first].duration_s, 3e-6, 1e-12);
  EXPECT_NEAR(p.tasks[second].duration_s, 3e-6, 1e-12);
  EXPECT_TRUE(depends(p.tasks[second], find(p, "gemm")));
  EXPECT_EQ(imported.stats.blocking_waits, 2);
}

// cudaDeviceSynchronize waits for the last work launched on every stream, whichever ended last.
TEST_F(KinetoSemantics, DeviceSynchronizeWaitsForEveryStream) {
  step(1, 0, 2000);
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "long", 7, 20, 900, 1);
  runtime("cudaLaunchKernel", 20, 5, 2);
  gpu("kernel", "short", 9, 30, 10, 2);
  runtime("cudaDeviceSynchronize", 40, 890, 3);
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  const int sync = find(p, "wait cudaDeviceSynchronize");
  ASSERT_GE(sync, 0);
  EXPECT_TRUE(depends(p.tasks[sync], find(p, "long")));
  EXPECT_TRUE(depends(p.tasks[sync], find(p, "short")));
}

// A device-to-host copy into pageable memory returns only once the copy is done (CUDA's API
// synchronization behavior), as .item() does: the host waits for the copy, then pays the
// call's cost after the copy. A copy between device buffers does not block.
TEST_F(KinetoSemantics, CopyToPageableMemoryBlocksTheHostACopyOnTheDeviceDoesNot) {
  step(1, 0, 2000);
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "loss", 7, 20, 400, 1);
  cpu_op("aten::_local_scalar_dense", 30, 410);
  runtime("cudaMemcpyAsync", 32, 400, 2);  // waits for loss (ends 420), copies [420,422], returns 432
  gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 7, 420, 2, 2, {{"bytes", 4}});
  runtime("cudaMemcpyAsync", 500, 4, 3);
  gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 7, 510, 2, 3, {{"bytes", 4096}});
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  ASSERT_EQ(count(p, "wait cudaMemcpyAsync"), 1);
  const int wait = find(p, "wait cudaMemcpyAsync");
  EXPECT_TRUE(depends(p.tasks[wait], find(p, "Memcpy DtoH (Device -> Pageable)")));
  EXPECT_NEAR(p.tasks[wait].duration_s, 10e-6, 1e-12);  // 422 -> 432
  EXPECT_EQ(imported.stats.blocking_waits, 1);
}

// A stream's launch queue seen full: 40 launches of 100 us kernels, 8 us of CPU work apart, on
// a queue 4 deep. From the fifth on, each launch returns 5 us after the kernel four launches
// earlier has finished. They replay as a wait for that kernel plus the 2 us a launch costs when
// the queue has room, and the replayed host keeps pace with the GPU as the measured one did.
TEST_F(KinetoSemantics, FullLaunchQueueMakesALaunchWaitForTheWorkItsSlotHeld) {
  step(1, 0, 10000);
  std::vector<double> kernel_end;
  double host_us = 0, gpu_us = 0;
  for (int k = 0; k < 40; ++k) {
    const double start = host_us + 8;
    const double returned = k >= 4 ? std::max(start + 2, kernel_end[k - 4] + 5) : start + 2;
    runtime("cudaLaunchKernel", start, returned - start, k + 1);
    gpu_us = std::max(gpu_us, returned);
    gpu("kernel", "k" + std::to_string(k), 7, gpu_us, 100, k + 1);
    gpu_us += 100;
    kernel_end.push_back(gpu_us);
    host_us = returned;
  }
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  EXPECT_EQ(imported.stats.launch_queue_waits, 36);
  ASSERT_EQ(count(p, "launch (queue full)"), 36);
  const int held = find(p, "launch (queue full)");  // the fifth launch
  EXPECT_NEAR(p.tasks[held].duration_s, 2e-6, 1e-12);
  EXPECT_TRUE(depends(p.tasks[held], find(p, "k0")));
  EXPECT_TRUE(depends(p.tasks[find(p, "k4")], held));
}

// A queue that never filled gives no evidence of its depth: no launch waits for a slot.
TEST_F(KinetoSemantics, QueueNeverSeenFullIsNotModelled) {
  step(1, 0, 10000);
  for (int k = 0; k < 40; ++k) {
    runtime("cudaLaunchKernel", 100 * k, 5, k + 1);
    gpu("kernel", "k" + std::to_string(k), 7, 100 * k + 10, 50, k + 1);
  }
  const KinetoImport imported = import();
  EXPECT_EQ(imported.stats.launch_queue_waits, 0);
  EXPECT_EQ(count(imported.graph.programs[0], "launch (queue full)"), 0);
}

// Stream waits CUPTI recorded (cuda_sync events) order streams exactly: the allreduce waits for
// the gemm recorded before the cudaEventRecord, not for the relu launched after it.
TEST_F(KinetoSemantics, RecordedStreamWaitsOrderTheStreamsExactly) {
  step(1, 0, 2000);
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "gemm", 7, 20, 100, 1);
  runtime("cudaEventRecord", 16, 1, 2);
  runtime("cudaLaunchKernel", 18, 5, 3);
  gpu("kernel", "relu", 7, 120, 10, 3);
  runtime("cudaStreamWaitEvent", 24, 1, 4);
  runtime("cudaLaunchKernel", 26, 5, 5);
  gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 20, 130, 50, 5,
      {{"Collective name", "allreduce"}, {"In msg nelems", 256}, {"dtype", "Float"}, {"Group size", 2},
       {"Process Group Ranks", "[0, 1]"}});
  cuda_sync("Stream Wait Event", 20, 4, 7, 2);
  const KinetoImport imported = import();
  const RankProgram& p = imported.graph.programs[0];
  const int nccl = last_collective(p);
  ASSERT_GE(nccl, 0);
  EXPECT_TRUE(depends(p.tasks[nccl], find(p, "gemm")));
  EXPECT_FALSE(depends(p.tasks[nccl], find(p, "relu")));
  EXPECT_EQ(imported.stats.recorded_stream_waits, 1);
}

// The main thread hands the backward pass to another thread and waits for it (autograd): the
// other thread starts from the fork, the main thread resumes once its last task is done, and
// the main thread's idle wait in between is no host task.
TEST_F(KinetoSemantics, ThreadForkAndJoinReplaceTheMainThreadsWait) {
  step(1, 0, 1000);
  runtime("cudaLaunchKernel", 10, 5, 1);  // forward
  gpu("kernel", "forward", 7, 20, 100, 1);
  cpu_op("autograd::engine::evaluate_function", 100, 300, 2);
  runtime("cudaLaunchKernel", 110, 5, 2, 2);  // backward, on thread 2
  gpu("kernel", "backward", 7, 120, 100, 2);
  runtime("cudaLaunchKernel", 300, 5, 3, 2);
  gpu("kernel", "backward2", 7, 305, 100, 3);
  runtime("cudaLaunchKernel", 420, 5, 4);  // optimizer, main thread again
  gpu("kernel", "optimizer", 7, 425, 10, 4);
  const KinetoImport imported = import();
  EXPECT_EQ(imported.stats.thread_forks, 1);
  const RankProgram& p = imported.graph.programs[0];
  const int join = find(p, "wait thread 2");
  ASSERT_GE(join, 0);
  const int backward2 = find(p, "backward2");
  int last_on_thread_2 = -1;
  for (const TaskRef& d : p.tasks[backward2].deps) last_on_thread_2 = d.task;
  EXPECT_TRUE(depends(p.tasks[join], last_on_thread_2));
  // Main thread's host time: [0,100) to the fork, [305,425) from the join to its next launch's
  // return, then to the step's end: 100 + 120 + 575 = 795 us; not the 1000 us of the step.
  double main_s = 0;
  for (const Task& task : p.tasks)
    if (is_host_task(task) && task.stream == p.tasks[join].stream) main_s += task.duration_s;
  EXPECT_NEAR(main_s, 795e-6, 1e-9);
}

// A pipeline's point-to-point: rank 0 sends, rank 1 receives, both traced. NCCL's SendRecv
// kernels name no peer; ProcessGroupNCCL's operators ("nccl:send 0->1") and record_param_comms
// give peer and size, so both replay as one flow on the platform.
TEST_F(KinetoSemantics, PeerlessSendRecvKernelsBecomeMessagesBetweenTracedRanks) {
  const char* const kernel = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)";
  std::vector<json> ranks;
  for (int r = 0; r < 2; ++r) {
    events = json::array();
    step(1, 0, 1000);
    record_param_comms(5, {{"Collective name", r == 0 ? "send" : "recv"}, {"In msg nelems", 1 << 20}, {"Out msg nelems", 1 << 20},
                           {"dtype", "Float"}, {"Group size", 2}, {"Process Group Ranks", "[0, 1]"}});
    cpu_op(r == 0 ? "nccl:send 0->1" : "nccl:recv 1<-0", 8, 20);
    runtime("cudaLaunchKernel", 10, 5, 1);
    gpu("kernel", kernel, 30, 20, 400, 1);
    ranks.push_back(events);
  }
  const KinetoImport imported = import_ranks(ranks, 2);
  EXPECT_EQ(imported.stats.inferred_point_to_point, 2);
  EXPECT_EQ(imported.stats.point_to_point, 0);
  ASSERT_EQ(imported.graph.programs.size(), 2u);
  const RankProgram& sender = imported.graph.programs[imported.graph.program_of_rank[0]];
  const RankProgram& receiver = imported.graph.programs[imported.graph.program_of_rank[1]];
  const int send = find(sender, "send to 1"), recv = find(receiver, "recv from 0");
  ASSERT_GE(send, 0);
  ASSERT_GE(recv, 0);
  EXPECT_EQ(sender.tasks[send].kind, TaskKind::send);
  EXPECT_EQ(sender.tasks[send].peer_offset, 1);
  EXPECT_EQ(sender.tasks[send].bytes, 4 << 20);
  EXPECT_EQ(receiver.tasks[recv].kind, TaskKind::recv);
  EXPECT_EQ(receiver.tasks[recv].peer_offset, -1);
  // Replayed, the message is a flow on the platform's links: 4 MiB over NVLink, not the
  // measured 400 us.
  const ReplayResult replayed = replay(imported.graph, load_platform("dgx-a100"), {});
  ASSERT_EQ(replayed.collectives.size(), 1u);
  EXPECT_TRUE(replayed.collectives[0].point_to_point);
  EXPECT_EQ(replayed.collectives[0].bytes, 4 << 20);
  const double transfer_s = replayed.collectives[0].end_s - replayed.collectives[0].start_s;
  EXPECT_GT(transfer_s, 0);
  EXPECT_LT(transfer_s, 200e-6);
}

// Only the sender traced: the untraced rank replays the sender's program, so the message has no
// partner and keeps its measured duration, and the import says so.
TEST_F(KinetoSemantics, MessageWithoutPartnerKeepsItsMeasuredDuration) {
  step(1, 0, 1000);
  record_param_comms(5, {{"Collective name", "send"}, {"In msg nelems", 256}, {"dtype", "Float"}, {"Dst Rank", 1}});
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 30, 20, 400, 1);
  const KinetoImport imported = import();
  EXPECT_EQ(imported.stats.point_to_point, 1);
  EXPECT_EQ(imported.stats.inferred_point_to_point, 0);
  const RankProgram& p = imported.graph.programs[0];
  const int measured = find(p, "send to 1 (measured: no partner)");
  ASSERT_GE(measured, 0);
  EXPECT_EQ(p.tasks[measured].kind, TaskKind::compute);
  EXPECT_NEAR(p.tasks[measured].duration_s, 400e-6, 1e-12);
  bool warned = false;
  for (const std::string& w : imported.warnings) warned = warned || w.find("1 NCCL send/recv kernel(s) keep their measured") == 0;
  EXPECT_TRUE(warned);
}

// An all-to-all launched as a SendRecv kernel replays as an alltoall collective of the size
// record_param_comms recorded: it needs no partner's trace, and it scales when extrapolated.
TEST_F(KinetoSemantics, AllToAllFromCpuSideOpsBecomesACollective) {
  step(1, 0, 1000);
  record_param_comms(5, {{"Collective name", "all_to_all"}, {"In msg nelems", 1000}, {"Out msg nelems", 1000},
                         {"dtype", "Half"}, {"Group size", 2}, {"Process Group Ranks", "[0, 1]"}});
  cpu_op("nccl:all_to_all", 8, 20);
  runtime("cudaLaunchKernel", 10, 5, 1);
  gpu("kernel", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 30, 20, 400, 1);
  const KinetoImport imported = import();
  EXPECT_EQ(imported.stats.inferred_point_to_point, 1);
  const RankProgram& p = imported.graph.programs[0];
  const int a2a = find(p, "alltoall");
  ASSERT_GE(a2a, 0);
  EXPECT_EQ(p.tasks[a2a].kind, TaskKind::collective);
  EXPECT_EQ(p.tasks[a2a].op, CollectiveOp::alltoall);
  EXPECT_EQ(p.tasks[a2a].bytes, 2000);
  EXPECT_EQ(p.tasks[a2a].dtype, "float16");
}

}  // namespace
}  // namespace scalecast
