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
#include "tests/support/scratch_folder.h"

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

using ScratchFolder = scalecast::testing::ScratchFolder;

}  // namespace scalecast::timeline_testing
