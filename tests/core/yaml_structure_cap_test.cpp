// YAML inputs are refused before yaml-cpp parses them when they hold more structure characters
// than the cap (input_file.h): a flow list of millions of items would otherwise cost GBs first.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sim/core/input_file.h"
#include "sim/core/yaml_input.h"

namespace scalecast {
namespace {

constexpr std::uint64_t kCapMarks = kMaxYamlBytes / kYamlBytesPerStructureMark;

std::string problem_of(const std::string& text) {
  try {
    yaml::load_yaml(text, "big.yaml");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(YamlStructureCap, IsOnePerThirtyTwoBytesOfTheFileCap) { EXPECT_EQ(kCapMarks, 131072u); }

TEST(YamlStructureCap, ATextAtTheCapLoads) {
  // Every structure character counts, in comments too: cap - 1 here, plus the mapping's ':'.
  const std::string text = "# " + std::string(kCapMarks - 1, '-') + "\nx: 1\n";
  const YAML::Node root = yaml::load_yaml(text, "big.yaml");
  EXPECT_EQ(root["x"].as<int>(), 1);
}

TEST(YamlStructureCap, OneMoreIsRefusedNamingTheFileAndTheCap) {
  const std::string problem = problem_of("# " + std::string(kCapMarks, '-') + "\nx: 1\n");
  EXPECT_NE(problem.find("big.yaml"), std::string::npos) << problem;
  EXPECT_NE(problem.find("more than 131072 YAML structure characters"), std::string::npos) << problem;
  EXPECT_NE(problem.find("4 MiB"), std::string::npos) << problem;
}

TEST(YamlStructureCap, AFlowListOfManyItemsIsRefusedBeforeParsing) {
  std::string list = "nics: [";
  for (std::uint64_t i = 0; i < kCapMarks; ++i) list += "1,";
  list += "1]\n";
  EXPECT_NE(problem_of(list).find("more than 131072"), std::string::npos);
}

TEST(YamlStructureCap, FollowsTheInputCap) {
  ASSERT_EQ(setenv("SCALECAST_MAX_INPUT_MB", "1", 1), 0);  // each test runs in its own process
  EXPECT_NE(problem_of("# " + std::string(32769, '-') + "\n").find("more than 32768"), std::string::npos);
  EXPECT_EQ(problem_of("# " + std::string(32768, '-') + "\n"), "");
}

}  // namespace
}  // namespace scalecast
