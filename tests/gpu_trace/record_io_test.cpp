// The record file: round trip, and every malformed input named by line and field.
#include <gtest/gtest.h>

#include <sstream>

#include "gpu_trace/record_io.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {
namespace {

const std::string kHeader =
    "{\"format\":\"scalecast-capture-records\",\"version\":1,\"rank\":0,\"gpu_name\":\"g\",\"dropped_records\":0,"
    "\"overhead_s\":0}\n";

std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    read_records(in, "r.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RecordFile, RoundTripKeepsEveryField) {
  const ProcessRecords original = read_records(std::string(SCALECAST_TEST_DATA) + "/gpu_trace/ddp-2rank-0.records.jsonl");
  std::ostringstream out;
  write_records(original, out);
  std::istringstream in(out.str());
  const ProcessRecords back = read_records(in, "round trip");
  std::ostringstream again;
  write_records(back, again);
  EXPECT_EQ(out.str(), again.str());
  EXPECT_EQ(back.activities.size(), 32u);  // 8 per step
  EXPECT_EQ(back.nccl_calls.size(), 4u);
  EXPECT_EQ(back.communicators.at(0).stable_id, 1234567890123456789ull);  // 64 bits survive
  EXPECT_EQ(back.overhead_s, 0.00025);
}

TEST(RecordFile, IncompleteTimingAndDomainsAreKeptAsRecorded) {
  // What CUPTI handed over is written and read back as it was: the conversion drops records whose
  // timing is incomplete (convert_test), the file keeps them for inspection.
  ProcessRecords records;
  records.activities.push_back(GpuActivity{ActivityKind::kernel, "k", 1, 0, 7, 5000, 0, 0});
  CpuRange nccl_range{RangeKind::push_pop, "ncclAllReduce", 1, 10, 20, 0, "NCCL"};
  records.ranges = {nccl_range, CpuRange{RangeKind::push_pop, "forward", 1, 30, 20, 0, ""}};
  std::ostringstream out;
  write_records(records, out);
  std::istringstream in(out.str());
  const ProcessRecords back = read_records(in, "x");
  EXPECT_EQ(back.activities.at(0).end_ns, 0u);
  EXPECT_EQ(back.ranges.at(0).domain, "NCCL");
  EXPECT_EQ(back.ranges.at(1).domain, "");
  EXPECT_EQ(back.ranges.at(1).end_ns, 20u);
  EXPECT_EQ(out.str().find("\"domain\":\"\""), std::string::npos);  // the default domain is left out
}

TEST(RecordFile, NamesHardToPrintStrings) {
  ProcessRecords records;
  records.rank = 3;
  records.ranges.push_back(CpuRange{RangeKind::start_end, "a \"quoted\"\tname\\ é", 1, 2, 3, 0, ""});
  std::ostringstream out;
  write_records(records, out);
  std::istringstream in(out.str());
  EXPECT_EQ(read_records(in, "x").ranges.at(0).name, "a \"quoted\"\tname\\ é");
}

TEST(RecordFile, MalformedInputNamesLineAndField) {
  EXPECT_EQ(error_of(""), "r.jsonl: is empty; expected a capture record file");
  EXPECT_NE(error_of("{\"format\":\"other\"}\n").find("r.jsonl: line 1.format"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"kernel\"}\n").find("line 2.name: is missing"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"bogus\"}\n").find("line 2.record"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"correlation_id\":1,\"external_id\":2,\"extra\":1}\n")
                .find("line 2.extra: is not a field"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"correlation_id\":-1,\"external_id\":2}\n")
                .find("line 2.correlation_id"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"correlation_id\":\"1\",\"external_id\":2}\n")
                .find("is not a number"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"correlation_id\":1,\"correlation_id\":2}\n").find("duplicate"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"range\",\"kind\":\"push_pop\",\"name\":\"r\",\"thread_id\":1,"
                               "\"start_ns\":5,\"end_ns\":4,\"depth\":0,\"domain\":7}\n")
                .find("line 2.domain: is not a string"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"communicator\",\"handle\":1,\"stable_id\":1,\"nranks\":2,\"rank\":2,"
                               "\"device\":0,\"created_by\":\"x\"}\n")
                .find("line 2.rank"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"correlation_id\":1,").find("line 2"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "{\"record\":\"external\",\"nested\":{}}").find("nested"), std::string::npos);
}

}  // namespace
}  // namespace scalecast::gpu_trace
