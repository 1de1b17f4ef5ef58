#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/input_file.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

namespace fs = std::filesystem;

class InputFiles : public testing::ScratchFolder {};

std::string problem_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& error) {
    return error.problem();
  }
  return "(no error)";
}

TEST_F(InputFiles, ReadsRegularFilesAndRemembersThem) {
  const std::string file = write_text("a.yaml", "x: 1\n");
  EXPECT_EQ(read_input_file(file, "a YAML file", kMaxYamlBytes), "x: 1\n");
  EXPECT_TRUE(is_remembered_input(file));
  EXPECT_TRUE(is_remembered_input(folder_.string() + "/./a.yaml"));  // the same file, another spelling
  EXPECT_FALSE(is_remembered_input(path("b.yaml")));
}

TEST_F(InputFiles, RefusesPipesDevicesFoldersAndMissingFiles) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_NE(problem_of([&] { read_input_file(path("fifo"), "a YAML file", kMaxYamlBytes); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(problem_of([&] { read_input_file("/dev/zero", "a YAML file", kMaxYamlBytes); }).find("not a regular file"),
            std::string::npos);
  EXPECT_NE(problem_of([&] { read_input_file(folder_.string(), "a YAML file", kMaxYamlBytes); }).find("folder"),
            std::string::npos);
  EXPECT_EQ(problem_of([&] { read_input_file(path("absent"), "a YAML file", kMaxYamlBytes); }), "no such file");
}

TEST_F(InputFiles, CapIsCheckedAndCanBeChanged) {
  const std::string file = write_text("big.yaml", std::string(2000, 'x'));
  EXPECT_NE(problem_of([&] { read_input_file(file, "a YAML file", 1000); }).find("larger than the 1000 bytes"),
            std::string::npos);
  EXPECT_EQ(read_input_file(file, "a YAML file", 2000).size(), 2000u);
  ::setenv("SCALECAST_MAX_INPUT_MB", "0.5", 1);
  EXPECT_EQ(input_cap_bytes(kMaxYamlBytes), 524288u);
  ::setenv("SCALECAST_MAX_INPUT_MB", "lots", 1);
  EXPECT_EQ(input_cap_bytes(kMaxYamlBytes), kMaxYamlBytes);  // not a number: the default stays
  ::unsetenv("SCALECAST_MAX_INPUT_MB");
}

class OutputFiles : public testing::ScratchFolder {};

TEST_F(OutputFiles, ASymlinkIsWrittenThroughToItsTarget) {
  const std::string target = write_text("target.json", "old");
  fs::create_symlink(target, path("link.json"));
  write_file_atomically(path("link.json"), "new");
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_EQ(testing::read_text(target), "new");
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"link.json", "target.json"}));
}

TEST_F(OutputFiles, PipesInputsAndFoldersAreRefusedAndNothingIsWritten) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_NE(problem_of([&] { write_file_atomically(path("fifo"), "x"); }).find("not a regular file"), std::string::npos);
  const std::string input = write_text("trace.json", "{}");
  read_input_file(input, "a JSON file", kMaxJsonBytes);
  EXPECT_NE(problem_of([&] { write_file_atomically(input, "x"); }).find("inputs"), std::string::npos);
  EXPECT_EQ(testing::read_text(input), "{}");
  fs::create_symlink(input, path("alias.json"));  // an input reached through a link is still an input
  EXPECT_NE(problem_of([&] { write_file_atomically(path("alias.json"), "x"); }).find("inputs"), std::string::npos);
  EXPECT_NE(problem_of([&] { write_file_atomically(folder_.string(), "x"); }).find("directory"), std::string::npos);
  EXPECT_EQ(folder_entries(), (std::vector<std::string>{"alias.json", "fifo", "trace.json"}));
}

TEST_F(OutputFiles, AFolderIsWrittenWholeOrNotAtAll) {
  const std::string out = path("sweep");
  write_folder_atomically(out, [](const std::string& staging) { std::ofstream(staging + "/a.csv") << "first"; });
  EXPECT_EQ(testing::read_text(out + "/a.csv"), "first");
  // A failure half-way leaves the earlier folder as it was, and no staging folder behind.
  EXPECT_THROW(write_folder_atomically(out,
                                       [](const std::string& staging) {
                                         std::ofstream(staging + "/a.csv") << "second";
                                         throw InputError("x", "", "failed half-way");
                                       }),
               InputError);
  EXPECT_EQ(testing::read_text(out + "/a.csv"), "first");
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"sweep"});
  // A complete second write replaces it, old files included.
  write_folder_atomically(out, [](const std::string& staging) { std::ofstream(staging + "/b.csv") << "second"; });
  EXPECT_FALSE(fs::exists(out + "/a.csv"));
  EXPECT_EQ(testing::read_text(out + "/b.csv"), "second");
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"sweep"});
  const std::string file = write_text("plain", "x");
  EXPECT_THROW(write_folder_atomically(file, [](const std::string&) {}), InputError);
}

}  // namespace
}  // namespace scalecast
