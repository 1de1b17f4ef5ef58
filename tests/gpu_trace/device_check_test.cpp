// tools/capture/device-check.sh on CPU: with no GPU visible its GPU stages fail or are skipped,
// and what must hold for the one-shot device run holds here too: every stage reports a status and
// the script goes on after a failure, the capture library it uses links CUPTI, and $OUT ends with
// exactly two files (the device tool brings back at most 8), an archive with the logs and a
// summary. shellcheck, where installed, finds nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

const std::string kScript = std::string(SCALECAST_SOURCE_DIR) + "/tools/capture/device-check.sh";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using DeviceCheck = testing::ScratchFolder;

TEST_F(DeviceCheck, WithoutAGpuEveryStageReportsAndTwoFilesComeOut) {
  const std::string out = path("out");
  const std::string build = std::filesystem::path(SCALECAST_BINARY).parent_path().string();
  // No GPU visible even where there is one: the CPU path of the script, quickly.
  const int status = run("CUDA_VISIBLE_DEVICES= OUT=" + out + " CAPTURE_BUILD=" + build + " " + kScript + " >" +
                         path("stdout.txt") + " 2>&1");
  EXPECT_EQ(status, 1) << read_file(path("stdout.txt"));  // the GPU stages could not pass
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(out)) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"device-check.tar.gz", "summary.txt"}));
  const std::string summary = read_file(out + "/summary.txt");
  for (const char* line : {"versions           ok", "build              skipped", "torch-job-capture  skipped",
                           "overhead           skipped", "stages failed: "})
    EXPECT_NE(summary.find(line), std::string::npos) << line << "\n" << summary;
  // The library of this build links CUPTI (else: STOP) where CUDA was found; the C++ job then
  // fails to run, and the script carries on to pack.
  if (summary.find("STOP:") == std::string::npos) {
    EXPECT_NE(summary.find("cuda-job-build"), std::string::npos) << summary;
  }
  EXPECT_EQ(run("tar -tzf " + out + "/device-check.tar.gz | grep -q versions.log"), 0);
}

TEST(DeviceCheckScript, ShellcheckFindsNothing) {
  if (run("command -v shellcheck >/dev/null") != 0) GTEST_SKIP() << "shellcheck is not installed";
  EXPECT_EQ(run("shellcheck " + kScript), 0);
}

}  // namespace
}  // namespace scalecast
