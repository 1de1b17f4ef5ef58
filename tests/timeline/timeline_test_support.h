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

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `scalecast ARGUMENTS` (shell text) and collects its exit code, stdout and stderr.
inline CommandResult run_scalecast(const std::string& arguments, const std::string& scratch_folder) {
  const std::string err_path = scratch_folder + "/stderr.txt";
  const std::string command = std::string(SCALECAST_BINARY) + " " + arguments + " 2>'" + err_path + "'";
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_text(err_path);
  return result;
}

}  // namespace scalecast::timeline_testing
