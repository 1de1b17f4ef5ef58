// run_in_processes with readiness: a job starts only once its prerequisite's on_done has run in
// the parent, and inherits what on_done changed there (the sweep's placements).
#include "sim/core/process_pool.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace scalecast {
namespace {

TEST(ProcessPool, DependentJobSeesWhatItsPrerequisiteLeftInTheParent) {
  std::string placement = "none";  // set in the parent when job 0 ends
  std::vector<std::string> outputs(3);
  std::vector<int> order;
  run_in_processes(
      3, 2,
      [&](int i) { return i == 0 ? std::string("placed") : "saw " + placement; },
      [&](int i, const JobOutcome& outcome) {
        ASSERT_EQ(outcome.exit_code, 0);
        if (i == 0) placement = outcome.output;
        outputs[i] = outcome.output;
        order.push_back(i);
      },
      [&](int i) { return i == 0 || placement != "none"; });
  EXPECT_EQ(outputs[1], "saw placed");
  EXPECT_EQ(outputs[2], "saw placed");
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order.front(), 0);
}

TEST(ProcessPool, JobsWhosePrerequisiteFailedNeverStart) {
  bool zero_done = false, failed = false;
  std::vector<int> ran;
  run_in_processes(
      3, 2,
      [&](int i) -> std::string {
        if (i == 0) throw std::runtime_error("solver gave up");
        return "ran";
      },
      [&](int i, const JobOutcome& outcome) {
        if (i == 0) {
          zero_done = true;
          failed = outcome.exit_code != 0;
        }
        ran.push_back(i);
      },
      [&](int i) { return i == 0 || (zero_done && !failed); });
  EXPECT_TRUE(failed);
  EXPECT_EQ(ran, std::vector<int>{0});
}

TEST(ProcessPool, WithoutReadinessEveryJobRuns) {
  std::vector<std::string> outputs(5);
  run_in_processes(
      5, 2, [](int i) { return std::to_string(i * i); },
      [&](int i, const JobOutcome& outcome) { outputs[i] = outcome.output; });
  EXPECT_EQ(outputs, (std::vector<std::string>{"0", "1", "4", "9", "16"}));
}

}  // namespace
}  // namespace scalecast
