#include "tests/fuzz/fuzz_targets.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/cost/cost_model_table.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/import/kineto_trace.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/apex_ddp.h"
#include "sim/trace/trace_json.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/training_graph.h"

namespace scalecast::fuzz {

namespace {

std::string text(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// Bad input is expected; any other way out is a finding, reported and aborted so that
// libFuzzer keeps the input (and a regression test fails loudly).
template <typename F>
void expect_clean(const char* target, F&& run) {
  try {
    run();
  } catch (const InputError&) {
  } catch (const RequestError&) {
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fuzz %s: unexpected exception: %s\n", target, error.what());
    std::abort();
  }
}

// The Kineto reader streams a file (zlib passes plain files through): the input goes through
// one, in $TMPDIR (tools/fuzz.sh points it at /dev/shm: a disk file is flushed at every rewrite).
// The file is removed when the process exits.
const std::string& kineto_file(const std::uint8_t* data, std::size_t size) {
  struct TempFile {
    std::string path;
    ~TempFile() { std::remove(path.c_str()); }
  };
  static const TempFile file{
      (std::filesystem::temp_directory_path() / ("scalecast-fuzz-kineto-" + std::to_string(::getpid()) + ".json.gz")).string()};
  std::ofstream(file.path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
  return file.path;
}

}  // namespace

void platform_yaml(const std::uint8_t* data, std::size_t size) {
  expect_clean("platform_yaml", [&] { parse_platform_yaml(text(data, size), "fuzz.yaml"); });
}

void workload_yaml(const std::uint8_t* data, std::size_t size) {
  expect_clean("workload_yaml", [&] {
    const ModelGraph model = parse_model_graph_yaml(text(data, size), "fuzz.yaml");
    training_graph(model, model.batch_per_gpu);
    model.statistical_efficiency.epochs(1024);
  });
}

void cost_model_yaml(const std::uint8_t* data, std::size_t size) {
  expect_clean("cost_model_yaml", [&] { parse_cost_model_yaml(text(data, size), "fuzz.yaml"); });
}

void trace_json(const std::uint8_t* data, std::size_t size) {
  expect_clean("trace_json", [&] {
    const auto document = nlohmann::json::parse(text(data, size), nullptr, false);
    if (document.is_discarded()) return;  // the JSON syntax is nlohmann's; the schema is ours
    from_json(document, "fuzz.json");
  });
}

void kineto(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kineto_file(data, size);
  expect_clean("kineto", [&] { read_kineto_trace(path); });
}

void kineto_import(const std::uint8_t* data, std::size_t size) {
  const std::string& path = kineto_file(data, size);
  expect_clean("kineto_import", [&] {
    std::vector<KinetoTrace> traces;
    traces.push_back(read_kineto_trace(path));
    kineto_to_graph(std::move(traces), {});
  });
}

void quantities(const std::uint8_t* data, std::size_t size) {
  const std::string input = text(data, size);
  expect_clean("quantities", [&] {
    parse_bytes(input);
    parse_bytes_with_unit(input);
    parse_bandwidth_Bps(input);
    parse_seconds(input);
    parse_bytes_list(input);
    parse_int_list(input);
    parse_flops_per_s(input);
    parse_ddp_wrapper(input);  // --ddp and a validation case's ddp:
  });
}

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {{"platform_yaml", platform_yaml}, {"workload_yaml", workload_yaml},
                                          {"cost_model_yaml", cost_model_yaml}, {"trace_json", trace_json},
                                          {"kineto", kineto}, {"kineto_import", kineto_import},
                                          {"quantities", quantities}};
  return all;
}

}  // namespace scalecast::fuzz
