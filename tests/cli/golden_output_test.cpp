// Golden outputs (tests/golden/*.tesh, format in tests/support/golden_tesh.h): each file's
// command runs as a user would run it, and its output, as the model resolves it, must be the
// file's. Any user-visible change shows up as a diff. To accept a change on purpose:
//   SCALECAST_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden && git diff tests/golden
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/support/cli_runner.h"
#include "tests/support/golden_tesh.h"

namespace scalecast {
namespace {

const std::string kSource = SCALECAST_SOURCE_DIR;

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, OutputAsRecorded) {
  testing::TeshFile file = testing::read_tesh(GetParam());
  ASSERT_FALSE(file.command.empty()) << GetParam() << ": no '$ scalecast ...' line";
  std::string command = file.command;
  for (size_t at; (at = command.find("${SOURCE}")) != std::string::npos;) command.replace(at, 9, kSource);
  const auto result = testing::run_scalecast(command);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string actual = testing::canonical_output(result.out, kSource);
  if (std::getenv("SCALECAST_UPDATE_GOLDEN")) {
    file.expected = actual;
    testing::write_tesh(file);
  }
  EXPECT_EQ(actual, file.expected) << GetParam() << " differs";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : std::filesystem::path(info.param).stem().string()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Tesh, Golden, ::testing::ValuesIn(testing::tesh_files(kSource + "/tests/golden")), test_name);

}  // namespace
}  // namespace scalecast
