// The device check's record checks (record_check.h) against the fixture of what the one-GPU
// C++ job should record (make_fixtures.py, device_job): it passes with the expectations
// tools/capture/device-check.sh uses, and each defect the review found fails its own check.
#include <gtest/gtest.h>

#include "gpu_trace/convert.h"
#include "gpu_trace/record_check.h"
#include "gpu_trace/record_io.h"

namespace scalecast::gpu_trace {
namespace {

ProcessRecords device_job() { return read_records(std::string(SCALECAST_TEST_DATA) + "/gpu_trace/device-job.records.jsonl"); }

// What device-check.sh asks of the C++ job's records.
RecordExpectations cuda_job_expectations() {
  RecordExpectations e;
  e.steps = 5;
  e.broadcasts = 10;
  e.tied_ops = {NcclOp::allreduce, NcclOp::allgather, NcclOp::send, NcclOp::recv};
  e.ranges = {"step", "fill", "gemm", "allreduce_avg", "allgather", "broadcast", "sendrecv"};
  return e;
}

// The findings that failed, by check name.
std::vector<std::string> failed(const ProcessRecords& records, const RecordExpectations& e = cuda_job_expectations()) {
  std::vector<std::string> names;
  for (const CheckFinding& f : check_records(records, e))
    if (!f.ok) names.push_back(f.check);
  return names;
}

TEST(RecordCheck, AGoodOneGpuCapturePassesEveryCheck) {
  const auto findings = check_records(device_job(), cuda_job_expectations());
  EXPECT_EQ(findings.size(), 10u);
  for (const CheckFinding& f : findings) EXPECT_TRUE(f.ok) << f.check << ": " << f.detail;
  // And its NCCL calls are timed by their GPU work (a one-rank in-place SUM allreduce would not be).
  const RankCapture capture = convert(device_job(), ConvertOptions{}, "device-job");
  EXPECT_NE(capture.metadata.at("capture.nccl_gpu_s"), "0");
}

TEST(RecordCheck, EachDefectFailsItsCheck) {
  ProcessRecords twice = device_job();
  twice.nccl_calls.push_back(twice.nccl_calls[2]);  // ncclBcast recorded again through ncclBroadcast
  EXPECT_EQ(failed(twice), std::vector<std::string>{"broadcast records"});

  ProcessRecords host_timed = device_job();
  host_timed.correlations.erase(host_timed.correlations.begin());  // the first allreduce's kernel lost its id
  EXPECT_EQ(failed(host_timed), std::vector<std::string>{"nccl allreduce"});

  ProcessRecords zero = device_job();
  zero.activities[3].start_ns = 0;
  EXPECT_EQ(failed(zero), std::vector<std::string>{"timestamps"});
  ProcessRecords unfinished = device_job();
  unfinished.activities[3].end_ns = 0;
  EXPECT_EQ(failed(unfinished), std::vector<std::string>{"timestamps"});

  ProcessRecords untraced = device_job();  // a launching API call that was not traced
  untraced.launches.erase(untraced.launches.begin() + 1);
  const auto findings = check_records(untraced, cuda_job_expectations());
  EXPECT_EQ(failed(untraced), std::vector<std::string>{"launches"});
  EXPECT_NE(findings[3].detail.find("without: sm90_xmma_gemm_f32"), std::string::npos) << findings[3].detail;

  ProcessRecords no_ranges = device_job();  // NVTX ranges never reached CUPTI
  no_ranges.ranges.clear();
  EXPECT_EQ(failed(no_ranges), (std::vector<std::string>{"ranges", "step ranges"}));

  ProcessRecords nccl_only = device_job();  // only NCCL's kernels
  std::erase_if(nccl_only.activities, [](const GpuActivity& a) { return a.name == "sm90_xmma_gemm_f32"; });
  for (auto& a : nccl_only.activities)
    if (a.name == "oneRankReduce") a.name = "ncclDevKernel_oneRankReduce";
  EXPECT_EQ(failed(nccl_only), std::vector<std::string>{"kernels"});
}

TEST(RecordCheck, AnOperationWithNoCallAtAllFails) {
  RecordExpectations e;
  e.tied_ops = {NcclOp::reducescatter};
  EXPECT_EQ(failed(device_job(), e), std::vector<std::string>{"nccl reducescatter"});
}

}  // namespace
}  // namespace scalecast::gpu_trace
