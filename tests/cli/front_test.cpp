// scalecast and scalecast-sim (tools/scalecast/front_main.cpp): the binary users run imports
// without loading SimGrid or CBC, and hands every other subcommand to scalecast-sim beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

const std::string kFront = SCALECAST_BINARY;
const std::string kSimulator = std::filesystem::path(SCALECAST_BINARY).parent_path() / "scalecast-sim";
const std::string kKinetoTrace = std::string(SCALECAST_SHARED_DATA) + "/kineto/a100x2_allreduce_rank0.json.gz";

// Every shared library the dynamic loader maps for `binary`, its dependencies' included (what
// ldd prints: LD_TRACE_LOADED_OBJECTS makes ld.so list them and exit before main).
std::string loaded_libraries(const std::string& binary) {
  return testing::run_command("LD_TRACE_LOADED_OBJECTS=1 " + binary).out;
}

TEST(Front, LoadsNeitherSimGridNorCbc) {
  const std::string front = loaded_libraries(kFront);
  ASSERT_NE(front.find("libc.so"), std::string::npos) << front;
  EXPECT_EQ(front.find("libsimgrid"), std::string::npos) << front;
  EXPECT_EQ(front.find("libns3"), std::string::npos) << front;
  EXPECT_EQ(front.find("libCbc"), std::string::npos) << front;
  // The probe sees them where they are.
  const std::string simulator = loaded_libraries(kSimulator);
  EXPECT_NE(simulator.find("libsimgrid"), std::string::npos) << simulator;
  EXPECT_NE(simulator.find("libCbc"), std::string::npos) << simulator;
}

TEST(Front, HandsOtherSubcommandsToScalecastSimWithTheirExitCodes) {
  auto version = testing::run_scalecast("--version");
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_NE(version.out.find("SimGrid"), std::string::npos) << version.out;
  auto unknown = testing::run_scalecast("no-such-subcommand");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown subcommand 'no-such-subcommand'"), std::string::npos) << unknown.err;
  auto bad = testing::run_scalecast("simulate --platform dgx-a100 --workload resnet50 --gpus 0");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

class FrontAlone : public testing::ScratchFolder {};

TEST_F(FrontAlone, ImportsWithoutScalecastSimAndSaysWhatIsMissingForTheRest) {
  const std::string copy = path("scalecast");
  std::filesystem::copy_file(kFront, copy);
  auto imported = testing::run_command(copy + " import kineto " + kKinetoTrace + " -o " + path("trace.json"));
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_TRUE(std::filesystem::exists(path("trace.json")));
  auto simulate = testing::run_command(copy + " simulate --help");
  EXPECT_EQ(simulate.exit_code, 1);
  EXPECT_NE(simulate.err.find("cannot run " + path("scalecast-sim")), std::string::npos) << simulate.err;
}

TEST_F(FrontAlone, FindsScalecastSimBesideTheRealFileThroughASymlink) {
  const std::string link = path("scalecast");
  std::filesystem::create_symlink(kFront, link);
  auto help = testing::run_command(link + " simulate --help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("--platform"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace scalecast
