// Helpers shared by the timeline tests: hand-made timelines, scratch folders, running the binary.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/timeline/timeline.h"
#include "tests/support/cli_runner.h"

namespace scalecast::timeline_testing {

namespace fs = std::filesystem;

inline const std::string kSmallTimeline = std::string(SCALECAST_TEST_DATA) + "/timeline-small.json";
inline const std::string kGoldenFolder = std::string(SCALECAST_TEST_DATA) + "/../golden";
inline const std::string kSampleTrace = std::string(SCALECAST_SOURCE_DIR) + "/traces/sample-2rank-dp.json";

inline TimelineEvent event(EventCategory category, int stream, double start_s, double end_s, int step = 0,
                           const std::string& name = "task", double bytes = 0) {
  TimelineEvent e;
  e.category = category;
  e.stream = stream;
  e.start_s = start_s;
  e.end_s = end_s;
  e.step = step;
  e.name = name;
  e.bytes = bytes;
  return e;
}

using scalecast::testing::read_text;
using scalecast::testing::CommandResult;

// A fresh folder per test (ctest runs tests in parallel processes), removed afterwards.
class ScratchFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    folder_ = fs::temp_directory_path() /
              ("scalecast-timeline-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }
  std::string write_text(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder_)) ++n;
    return n;
  }

  fs::path folder_;
};

}  // namespace scalecast::timeline_testing
