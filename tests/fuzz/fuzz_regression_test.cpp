// Every input kept under tests/fuzz/regressions/<target>/ (inputs that once crashed a fuzz
// target, fuzz_targets.h) runs through its target again: it must end as bad input (or be
// accepted), never crash. A crash aborts this test's process, which CTest reports as a failure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "sim/import/kineto_to_graph.h"
#include "tests/fuzz/fuzz_targets.h"

namespace scalecast {
namespace {

namespace fs = std::filesystem;

struct Kept {
  std::string target;
  std::string file;
};

std::vector<Kept> kept_inputs() {
  std::vector<Kept> kept;
  const fs::path root = fs::path(SCALECAST_SOURCE_DIR) / "tests/fuzz/regressions";
  for (const auto& target : fuzz::targets()) {
    std::error_code error;
    for (fs::directory_iterator it(root / target.name, error), end; !error && it != end; it.increment(error))
      if (it->is_regular_file() && it->path().filename() != "README.md") kept.push_back({target.name, it->path().string()});
  }
  std::sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) { return a.file < b.file; });
  return kept;
}

TEST(FuzzRegressions, EveryKeptInputIsHandledAsInput) {
  const auto kept = kept_inputs();
  for (const Kept& input : kept) {
    std::ifstream in(input.file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& target : fuzz::targets())
      if (input.target == target.name) target.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  SUCCEED() << kept.size() << " kept inputs";
}

// The targets themselves on the repository's own files and a few hostile ones: the entry
// points must accept good input and reject bad input without crashing.
TEST(FuzzRegressions, TargetsRunOnGoodAndBadInput) {
  auto run = [](void (*target)(const std::uint8_t*, std::size_t), const std::string& bytes) {
    target(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  };
  std::ifstream platform(std::string(SCALECAST_SOURCE_DIR) + "/platforms/dgx-a100.yaml");
  run(fuzz::platform_yaml, std::string((std::istreambuf_iterator<char>(platform)), std::istreambuf_iterator<char>()));
  for (const std::string& bad : {std::string(""), std::string("\xff\xfe"), std::string("[[[[[[[["),
                                 std::string("name: x\nnode: {gpus: 1e308}"), std::string(100, '{')}) {
    for (const auto& target : fuzz::targets()) run(target.run, bad);
  }
}

// The Kineto seeds (cut from the real traces by tests/fuzz/seeds/cut_kineto_seeds.py) must stay
// traces the importer accepts whole: a seed rejected at its first event would leave the fuzzer
// exploring error paths only.
TEST(FuzzSeeds, KinetoSeedsImport) {
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SCALECAST_SOURCE_DIR) / "tests/fuzz/seeds/kineto")) {
    std::vector<KinetoTrace> traces;
    traces.push_back(read_kineto_trace(entry.path().string()));
    EXPECT_GT(traces.back().gpu_ops.size(), 0u) << entry.path();
    EXPECT_GT(traces.back().steps.size(), 0u) << entry.path();
    const KinetoImport imported = kineto_to_graph(std::move(traces), {});
    EXPECT_GT(imported.stats.collectives + imported.stats.kernels, 0) << entry.path();
    ++seeds;
  }
  EXPECT_EQ(seeds, 6);  // three traces, plain and gzip
}

}  // namespace
}  // namespace scalecast
