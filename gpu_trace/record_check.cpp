#include "gpu_trace/record_check.h"

#include <map>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "gpu_trace/convert.h"

namespace scalecast::gpu_trace {

namespace {

CheckFinding finding(const std::string& check, bool ok, const std::string& detail) { return {check, ok, detail}; }

CheckFinding check_kernels(const ProcessRecords& r) {
  size_t kernels = 0, nccl = 0;
  for (const GpuActivity& a : r.activities) {
    if (a.kind != ActivityKind::kernel) continue;
    ++kernels;
    nccl += a.name.rfind("nccl", 0) == 0;
  }
  return finding("kernels", kernels > nccl,
                 std::to_string(kernels) + " kernel records, " + std::to_string(kernels - nccl) + " of them not NCCL's");
}

CheckFinding check_ranges(const ProcessRecords& r, const std::vector<std::string>& names) {
  std::map<std::string, int> seen;  // by operator name (emit_nvtx's ", seq = …" cut)
  for (const CpuRange& range : r.ranges) ++seen[operator_name(range.name)];
  std::string detail, missing;
  for (const std::string& name : names) {
    detail += (detail.empty() ? "" : ", ") + name + " ×" + std::to_string(seen[name]);
    if (!seen[name]) missing += (missing.empty() ? "" : ", ") + name;
  }
  return finding("ranges", missing.empty(),
                 std::to_string(r.ranges.size()) + " ranges; " + detail + (missing.empty() ? "" : "; missing: " + missing));
}

// External ids that GPU work carried (through the API call that launched it).
std::unordered_set<uint64_t> externals_with_gpu_work(const ProcessRecords& r) {
  std::unordered_set<uint32_t> with_work;
  for (const GpuActivity& a : r.activities) with_work.insert(a.correlation_id);
  std::unordered_set<uint64_t> out;
  for (const ExternalCorrelation& e : r.correlations)
    if (with_work.count(e.correlation_id)) out.insert(e.external_id);
  return out;
}

CheckFinding check_tied(const ProcessRecords& r, NcclOp op, const std::unordered_set<uint64_t>& tied) {
  int calls = 0, with_work = 0;
  for (const NcclCall& c : r.nccl_calls) {
    if (c.op != op || c.result != 0) continue;
    ++calls;
    with_work += tied.count(c.external_id()) != 0;
  }
  return finding(std::string("nccl ") + to_string(op), calls > 0 && with_work == calls,
                 std::to_string(with_work) + " of " + std::to_string(calls) + " calls tied to GPU work by their id");
}

CheckFinding check_timestamps(const ProcessRecords& r) {
  size_t zero = 0, unfinished = 0;
  auto look = [&](uint64_t start, uint64_t end) {
    zero += start == 0;
    unfinished += start != 0 && end < start;
  };
  for (const auto& a : r.activities) look(a.start_ns, a.end_ns);
  for (const auto& l : r.launches) look(l.start_ns, l.end_ns);
  for (const auto& g : r.ranges) look(g.start_ns, g.end_ns);
  for (const auto& c : r.nccl_calls) look(c.host_start_ns, c.host_end_ns);
  return finding("timestamps", zero == 0 && unfinished == 0,
                 std::to_string(zero) + " records with a start of 0, " + std::to_string(unfinished) + " unfinished");
}

CheckFinding check_launches(const ProcessRecords& r) {
  std::unordered_set<uint32_t> launched;
  for (const CpuLaunch& l : r.launches) launched.insert(l.correlation_id);
  size_t without = 0;
  std::set<std::string> names;
  for (const GpuActivity& a : r.activities)
    if (!launched.count(a.correlation_id)) {
      ++without;
      if (names.size() < 5) names.insert(a.name);
    }
  std::string detail = std::to_string(r.activities.size() - without) + " of " + std::to_string(r.activities.size()) +
                       " GPU activities have their launch record";
  for (const std::string& n : names) detail += (n == *names.begin() ? "; without: " : ", ") + n;
  return finding("launches", without == 0, detail);
}

CheckFinding check_count(const std::string& check, size_t found, int expected) {
  return finding(check, static_cast<int>(found) == expected,
                 std::to_string(found) + " found, " + std::to_string(expected) + " expected");
}

}  // namespace

std::vector<CheckFinding> check_records(const ProcessRecords& records, const RecordExpectations& expected) {
  std::vector<CheckFinding> out{check_kernels(records), check_ranges(records, expected.ranges),
                                check_timestamps(records), check_launches(records)};
  const auto tied = externals_with_gpu_work(records);
  for (NcclOp op : expected.tied_ops) out.push_back(check_tied(records, op, tied));
  if (expected.steps >= 0) {
    const std::regex pattern = compile_step_pattern(ConvertOptions{}, "default step pattern");
    size_t steps = 0;
    for (const CpuRange& g : records.ranges) steps += g.kind != RangeKind::profiler && std::regex_match(g.name, pattern);
    out.push_back(check_count("step ranges", steps, expected.steps));
  }
  if (expected.broadcasts >= 0) {
    size_t broadcasts = 0;
    for (const NcclCall& c : records.nccl_calls) broadcasts += c.op == NcclOp::broadcast;
    out.push_back(check_count("broadcast records", broadcasts, expected.broadcasts));
  }
  return out;
}

}  // namespace scalecast::gpu_trace
