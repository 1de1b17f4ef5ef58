// The fuzzed entry points: each takes arbitrary bytes as one kind of user input and runs the
// code that reads it. Bad input must end in InputError or RequestError (exit 2 in the tool);
// anything else -- another exception, a crash, a sanitizer report, a hang -- is a finding.
//
// The same functions run in three places: the libFuzzer targets (*_fuzz.cpp, built by
// tools/fuzz.sh with clang), and fuzz_regression_test.cpp, which replays every input kept under
// tests/fuzz/regressions/<target>/ in the ordinary test suite.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scalecast::fuzz {

void platform_yaml(const std::uint8_t* data, std::size_t size);
void workload_yaml(const std::uint8_t* data, std::size_t size);
void cost_model_yaml(const std::uint8_t* data, std::size_t size);
void trace_json(const std::uint8_t* data, std::size_t size);
void kineto(const std::uint8_t* data, std::size_t size);  // plain JSON or gzip, as the reader sees a file
void kineto_import(const std::uint8_t* data, std::size_t size);  // the same, read and lowered to an execution graph
void quantities(const std::uint8_t* data, std::size_t size);

struct Target {
  const char* name;  // also the folder of its regression inputs
  void (*run)(const std::uint8_t*, std::size_t);
};
const std::vector<Target>& targets();

}  // namespace scalecast::fuzz
