// The NCCL interposer against the fake NCCL (tests/gpu_trace/fake_nccl/): this executable links
// the capture library before the fake, so its NCCL functions are the ones called and it finds the
// fake through dlsym(RTLD_NEXT), as it finds libnccl in a real job.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu_trace/nccl_abi.h"
#include "gpu_trace/record_io.h"
#include "tests/gpu_trace/fake_nccl/fake_nccl.h"

extern "C" {
void scalecast_gpu_trace_test_enable(void (*push)(uint64_t), void (*pop)());
void scalecast_gpu_trace_test_clear();
int scalecast_gpu_trace_test_write_records(const char* path);
}

namespace scalecast::gpu_trace {
namespace {

// The external correlation ids pushed and popped (0 marks a pop), in order.
std::vector<uint64_t> correlation_log;
void push(uint64_t id) { correlation_log.push_back(id); }
void pop() { correlation_log.push_back(0); }

class NcclInterpose : public ::testing::Test {
 protected:
  void SetUp() override {
    scalecast_gpu_trace_test_enable(push, pop);
    scalecast_gpu_trace_test_clear();
    fake_nccl_reset();
    correlation_log.clear();
  }
  ProcessRecords recorded() {
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("nccl-interpose-" + std::to_string(getpid()) + ".jsonl")).string();
    EXPECT_EQ(scalecast_gpu_trace_test_write_records(file.c_str()), 0);
    ProcessRecords records = read_records(file);
    std::filesystem::remove(file);
    return records;
  }
  std::vector<FakeNcclCall> received() {
    size_t n = 0;
    const FakeNcclCall* calls = fake_nccl_calls(&n);
    return std::vector<FakeNcclCall>(calls, calls + n);
  }
  ncclComm_t init(int nranks, int rank, char id_byte) {
    ncclUniqueId id;
    std::memset(&id, id_byte, sizeof id);
    ncclComm_t comm = nullptr;
    EXPECT_EQ(ncclCommInitRank(&comm, nranks, id, rank), 0);
    return comm;
  }
};

auto* const kStream = reinterpret_cast<cudaStream_t>(0xabc);
float send_buffer[64], recv_buffer[64];

TEST_F(NcclInterpose, EveryCollectiveIsForwardedWithItsArgumentsAndRecordedOnce) {
  ncclComm_t comm = init(4, 2, 9);
  fake_nccl_reset();
  EXPECT_EQ(ncclAllReduce(send_buffer, recv_buffer, 11, 7, 2, comm, kStream), 0);
  EXPECT_EQ(ncclBroadcast(send_buffer, recv_buffer, 12, 9, 3, comm, kStream), 0);
  EXPECT_EQ(ncclBcast(recv_buffer, 13, 6, 1, comm, kStream), 0);
  EXPECT_EQ(ncclReduce(send_buffer, recv_buffer, 14, 8, 4, 0, comm, kStream), 0);
  EXPECT_EQ(ncclAllGather(send_buffer, recv_buffer, 15, 2, comm, kStream), 0);
  EXPECT_EQ(ncclReduceScatter(send_buffer, recv_buffer, 16, 4, 1, comm, kStream), 0);
  EXPECT_EQ(ncclAlltoAll(send_buffer, recv_buffer, 17, 0, comm, kStream), 0);
  EXPECT_EQ(ncclSend(send_buffer, 18, 1, 3, comm, kStream), 0);
  EXPECT_EQ(ncclRecv(recv_buffer, 19, 3, 1, comm, kStream), 0);
  EXPECT_EQ(ncclGather(send_buffer, recv_buffer, 20, 7, 2, comm, kStream), 0);
  EXPECT_EQ(ncclScatter(send_buffer, recv_buffer, 21, 7, 1, comm, kStream), 0);

  struct Expected {
    const char* function;
    const void* send;
    const void* recv;
    size_t count;
    int dtype, red_op, root_or_peer;
    NcclOp op;
  };
  const Expected expected[] = {
      {"ncclAllReduce", send_buffer, recv_buffer, 11, 7, 2, -1, NcclOp::allreduce},
      {"ncclBroadcast", send_buffer, recv_buffer, 12, 9, -1, 3, NcclOp::broadcast},
      {"ncclBcast", recv_buffer, recv_buffer, 13, 6, -1, 1, NcclOp::broadcast},
      {"ncclReduce", send_buffer, recv_buffer, 14, 8, 4, 0, NcclOp::reduce},
      {"ncclAllGather", send_buffer, recv_buffer, 15, 2, -1, -1, NcclOp::allgather},
      {"ncclReduceScatter", send_buffer, recv_buffer, 16, 4, 1, -1, NcclOp::reducescatter},
      {"ncclAlltoAll", send_buffer, recv_buffer, 17, 0, -1, -1, NcclOp::alltoall},
      {"ncclSend", send_buffer, nullptr, 18, 1, -1, 3, NcclOp::send},
      {"ncclRecv", nullptr, recv_buffer, 19, 3, -1, 1, NcclOp::recv},
      {"ncclGather", send_buffer, recv_buffer, 20, 7, -1, 2, NcclOp::gather},
      {"ncclScatter", send_buffer, recv_buffer, 21, 7, -1, 1, NcclOp::scatter},
  };
  constexpr size_t n = std::size(expected);
  auto calls = received();
  // ncclBcast forwards to ncclBroadcast inside "NCCL", as NCCL 2.28 does: NCCL sees both, the
  // capture records the program's one call.
  ASSERT_EQ(calls.size(), n + 1);
  EXPECT_STREQ(calls[3].function, "ncclBroadcast");
  EXPECT_EQ(calls[3].recvbuff, recv_buffer);
  calls.erase(calls.begin() + 3);
  const ProcessRecords records = recorded();
  ASSERT_EQ(records.nccl_calls.size(), n);
  for (size_t i = 0; i < n; ++i) {
    const Expected& e = expected[i];
    SCOPED_TRACE(e.function);
    EXPECT_STREQ(calls[i].function, e.function);  // forwarded to the same function, once
    EXPECT_EQ(calls[i].sendbuff, e.send);
    EXPECT_EQ(calls[i].recvbuff, e.recv);
    EXPECT_EQ(calls[i].count, e.count);
    EXPECT_EQ(calls[i].dtype, e.dtype);
    EXPECT_EQ(calls[i].red_op, e.red_op);
    EXPECT_EQ(calls[i].root_or_peer, e.root_or_peer);
    EXPECT_EQ(calls[i].comm, comm);
    EXPECT_EQ(calls[i].stream, kStream);
    const NcclCall& r = records.nccl_calls[i];
    EXPECT_EQ(r.sequence, i);
    EXPECT_EQ(r.op, e.op);
    EXPECT_EQ(r.count, e.count);
    EXPECT_EQ(r.dtype, e.dtype);
    EXPECT_EQ(r.red_op, e.red_op);
    EXPECT_EQ(r.root_or_peer, e.root_or_peer);
    EXPECT_EQ(r.comm, reinterpret_cast<uint64_t>(comm));
    EXPECT_EQ(r.stream, reinterpret_cast<uint64_t>(kStream));
    EXPECT_EQ(r.group_id, 0u);
    EXPECT_LE(r.host_start_ns, r.host_end_ns);
  }
  // Each ungrouped call pushed its own id around the real call, once (not again for the
  // ncclBroadcast inside ncclBcast).
  ASSERT_EQ(correlation_log.size(), 2 * n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(correlation_log[2 * i], records.nccl_calls[i].external_id());
    EXPECT_EQ(correlation_log[2 * i + 1], 0u);
  }
  ncclCommDestroy(comm);
}

TEST_F(NcclInterpose, GroupSimulateEndMarksTheGroupsCallsAsNeverRun) {
  ncclComm_t comm = init(2, 0, 4);
  ncclAllReduce(send_buffer, recv_buffer, 4, 7, 0, comm, kStream);
  ASSERT_EQ(ncclGroupStart(), 0);
  ncclAllGather(send_buffer, recv_buffer, 4, 7, comm, kStream);
  ASSERT_EQ(ncclGroupStart(), 0);
  ncclSend(send_buffer, 4, 7, 1, comm, kStream);
  ASSERT_EQ(ncclGroupSimulateEnd(nullptr), 0);  // inner: the group goes on
  ncclRecv(recv_buffer, 4, 7, 1, comm, kStream);
  ASSERT_EQ(ncclGroupSimulateEnd(nullptr), 0);
  ncclBroadcast(send_buffer, recv_buffer, 4, 7, 0, comm, kStream);  // after it: a real call again
  const ProcessRecords records = recorded();
  ASSERT_EQ(records.nccl_calls.size(), 5u);
  EXPECT_EQ(records.nccl_calls[0].result, 0);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(records.nccl_calls[i].result, NcclCall::kSimulated) << i;
  EXPECT_EQ(records.nccl_calls[4].result, 0);
  EXPECT_EQ(records.nccl_calls[4].group_id, 0u);
  // Nothing was launched for the simulated group: only the two real calls pushed their ids.
  const std::vector<uint64_t> pushed = {records.nccl_calls[0].external_id(), 0, records.nccl_calls[4].external_id(), 0};
  EXPECT_EQ(correlation_log, pushed);
  const std::vector<FakeNcclCall> calls = received();
  const auto simulate_ends = std::count_if(calls.begin(), calls.end(), [](const FakeNcclCall& call) {
    return std::string(call.function) == "ncclGroupSimulateEnd";
  });
  EXPECT_EQ(simulate_ends, 2);
  ncclCommDestroy(comm);
}

TEST_F(NcclInterpose, GroupsNestAndTheOutermostEndCarriesTheGroupId) {
  ncclComm_t comm = init(2, 0, 1);
  ASSERT_EQ(ncclGroupStart(), 0);
  ncclSend(send_buffer, 8, 7, 1, comm, kStream);
  ASSERT_EQ(ncclGroupStart(), 0);  // nested, as PyTorch's coalescing manager does
  ncclRecv(recv_buffer, 8, 7, 1, comm, kStream);
  ASSERT_EQ(ncclGroupEnd(), 0);
  EXPECT_TRUE(correlation_log.empty());  // inner end: NCCL launches nothing yet
  ncclAllGather(send_buffer, recv_buffer, 4, 7, comm, kStream);
  ASSERT_EQ(ncclGroupEnd(), 0);
  ncclAllReduce(send_buffer, recv_buffer, 4, 7, 0, comm, kStream);  // after the group
  ncclGroupStart();
  ncclBroadcast(send_buffer, recv_buffer, 4, 7, 0, comm, kStream);
  ncclGroupEnd();

  const ProcessRecords records = recorded();
  ASSERT_EQ(records.nccl_calls.size(), 5u);
  const auto& c = records.nccl_calls;
  EXPECT_NE(c[0].group_id, 0u);
  EXPECT_EQ(c[1].group_id, c[0].group_id);
  EXPECT_EQ(c[2].group_id, c[0].group_id);
  EXPECT_EQ(c[0].group_depth, 1);
  EXPECT_EQ(c[1].group_depth, 2);
  EXPECT_EQ(c[2].group_depth, 1);
  EXPECT_EQ(c[3].group_id, 0u);
  EXPECT_NE(c[4].group_id, 0u);
  EXPECT_NE(c[4].group_id, c[0].group_id);
  // Pushed: first group's id at its outermost end, the allreduce's own id, the second group's.
  EXPECT_EQ(correlation_log, (std::vector<uint64_t>{c[0].group_id, 0, c[3].external_id(), 0, c[4].group_id, 0}));
  // Group calls reached NCCL as made: 2 starts, 2 ends around the first group.
  std::vector<std::string> names;
  for (const auto& call : received()) names.push_back(call.function);
  EXPECT_EQ(names, (std::vector<std::string>{"ncclCommInitRank", "ncclGroupStart", "ncclSend", "ncclGroupStart",
                                             "ncclRecv", "ncclGroupEnd", "ncclAllGather", "ncclGroupEnd",
                                             "ncclAllReduce", "ncclGroupStart", "ncclBroadcast", "ncclGroupEnd"}));
  ncclCommDestroy(comm);
}

TEST_F(NcclInterpose, CommunicatorsGetIdsSharedByTheirRanks) {
  // Two "ranks" of one communicator (same unique id) in this process, and another communicator.
  ncclComm_t a0 = init(2, 0, 5);
  ncclComm_t a1 = init(2, 1, 5);
  ncclComm_t b = init(2, 0, 6);
  ncclComm_t split = nullptr, none = nullptr;
  ASSERT_EQ(ncclCommSplit(a0, 3, 0, &split, nullptr), 0);
  ASSERT_EQ(ncclCommSplit(a0, -1, 0, &none, nullptr), 0);  // NCCL_SPLIT_NOCOLOR: no communicator
  ncclComm_t all[2] = {};
  const int devices[2] = {0, 1};
  ASSERT_EQ(ncclCommInitAll(all, 2, devices), 0);
  const ProcessRecords records = recorded();
  ASSERT_EQ(records.communicators.size(), 6u);
  const auto& c = records.communicators;
  EXPECT_EQ(c[0].stable_id, c[1].stable_id);
  EXPECT_NE(c[0].stable_id, c[2].stable_id);
  EXPECT_EQ(c[0].nranks, 2);
  EXPECT_EQ(c[1].rank, 1);
  EXPECT_EQ(c[0].created_by, "init_rank");
  EXPECT_EQ(c[3].created_by, "split");
  EXPECT_EQ(c[3].handle, reinterpret_cast<uint64_t>(split));
  EXPECT_NE(c[3].stable_id, c[0].stable_id);
  EXPECT_EQ(c[4].created_by, "init_all");
  EXPECT_EQ(c[4].stable_id, c[5].stable_id);
  EXPECT_EQ(c[5].rank, 1);
  EXPECT_EQ(none, nullptr);
  // The forwarded init got the caller's arguments.
  const auto calls = received();
  EXPECT_EQ(calls[1].rank, 1);
  EXPECT_EQ(calls[1].nranks, 2);
  EXPECT_EQ(calls[2].id_first_byte, 6);
  EXPECT_EQ(calls[3].color, 3);
  for (ncclComm_t comm : {a0, a1, b, split, all[0], all[1]}) ncclCommDestroy(comm);
}

TEST_F(NcclInterpose, ShrunkCommunicatorsGetAnIdSharedByTheirRanks) {
  // Ranks 0 and 2 of a 3-rank communicator both drop rank 1; another parent drops rank 1 too.
  ncclComm_t r0 = init(3, 0, 8), r2 = init(3, 2, 8), other = init(3, 0, 9);
  int excluded[] = {1};
  ncclComm_t s0 = nullptr, s2 = nullptr, s_other = nullptr;
  ASSERT_EQ(ncclCommShrink(r0, excluded, 1, &s0, nullptr, 0), 0);
  ASSERT_EQ(ncclCommShrink(r2, excluded, 1, &s2, nullptr, 0), 0);
  ASSERT_EQ(ncclCommShrink(other, excluded, 1, &s_other, nullptr, 0), 0);
  const ProcessRecords records = recorded();
  ASSERT_EQ(records.communicators.size(), 6u);
  const auto& c = records.communicators;
  EXPECT_EQ(c[3].created_by, "shrink");
  EXPECT_EQ(c[3].stable_id, c[4].stable_id);
  EXPECT_NE(c[3].stable_id, c[0].stable_id);
  EXPECT_NE(c[3].stable_id, c[5].stable_id);
  EXPECT_EQ(c[3].nranks, 2);
  EXPECT_EQ(c[4].rank, 1);  // rank 2 of the parent is rank 1 of the shrunk communicator
  // A call on it is recorded against it (a shrunk communicator used to make the rank unconvertible).
  ncclAllReduce(send_buffer, recv_buffer, 4, 7, 0, s0, kStream);
  EXPECT_EQ(recorded().nccl_calls.at(0).comm, reinterpret_cast<uint64_t>(s0));
  for (ncclComm_t comm : {r0, r2, other, s0, s2, s_other}) ncclCommDestroy(comm);
}

TEST_F(NcclInterpose, FailedCallsReturnNcclsResultAndAreRecordedAsFailed) {
  ncclComm_t comm = init(1, 0, 2);
  fake_nccl_set_result(5);  // ncclInvalidUsage
  EXPECT_EQ(ncclAllReduce(send_buffer, recv_buffer, 4, 7, 0, comm, kStream), 5);
  fake_nccl_set_result(0);
  const ProcessRecords records = recorded();
  ASSERT_EQ(records.nccl_calls.size(), 1u);
  EXPECT_EQ(records.nccl_calls[0].result, 5);
  ncclCommDestroy(comm);
}

}  // namespace
}  // namespace scalecast::gpu_trace
