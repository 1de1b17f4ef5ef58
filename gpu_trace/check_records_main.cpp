// scalecast-check-records: checks a capture's raw record file (SCALECAST_CAPTURE_RAW=1) against
// what the job did (record_check.h). Built with the capture (the capture-only build too), for
// tools/capture/device-check.sh. Prints one PASS/FAIL line per check; exit 0 when all pass, 1
// when one fails, 2 on bad input.
#include <cstring>
#include <iostream>
#include <sstream>

#include "gpu_trace/record_check.h"
#include "gpu_trace/record_io.h"
#include "sim/core/input_error.h"

namespace {

using namespace scalecast::gpu_trace;

const char* const kUsage =
    "usage: scalecast-check-records RECORDS.jsonl [--steps N] [--broadcasts N] [--tied OP,OP...] [--ranges NAME,NAME...]\n"
    "  --steps N        step ranges expected (default step pattern)\n"
    "  --broadcasts N   broadcast records expected (one per ncclBcast/ncclBroadcast the job made)\n"
    "  --tied OPS       NCCL operations whose every call must have GPU work carrying its id\n"
    "  --ranges NAMES   NVTX ranges that must appear\n";

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

int count(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || value < 0) throw scalecast::InputError("command line", option, "'" + text + "' is not a count");
  return static_cast<int>(value);
}

RecordExpectations parse(int argc, char** argv, std::string& file) {
  RecordExpectations expected;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      file = arg;
      continue;
    }
    if (i + 1 >= argc) throw scalecast::InputError("command line", arg, "needs a value");
    const std::string value = argv[++i];
    if (arg == "--steps") expected.steps = count(arg, value);
    else if (arg == "--broadcasts") expected.broadcasts = count(arg, value);
    else if (arg == "--ranges") expected.ranges = split(value);
    else if (arg == "--tied")
      for (const std::string& name : split(value)) {
        NcclOp op;
        if (!parse_nccl_op(name, op)) throw scalecast::InputError("command line", "--tied", "'" + name + "' is not an NCCL operation");
        expected.tied_ops.push_back(op);
      }
    else throw scalecast::InputError("command line", arg, "is not an option");
  }
  if (file.empty()) throw scalecast::InputError("command line", "RECORDS.jsonl", "is missing");
  return expected;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  try {
    std::string file;
    const RecordExpectations expected = parse(argc, argv, file);
    bool all = true;
    for (const CheckFinding& f : check_records(read_records(file), expected)) {
      std::cout << (f.ok ? "PASS " : "FAIL ") << f.check << ": " << f.detail << "\n";
      all = all && f.ok;
    }
    return all ? 0 : 1;
  } catch (const scalecast::InputError& e) {
    std::cerr << "scalecast-check-records: error: " << e.what() << "\n" << kUsage;
    return 2;
  }
}
