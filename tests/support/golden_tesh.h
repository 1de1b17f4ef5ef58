// Golden outputs in the spirit of SimGrid's .tesh files: a command and its expected output side
// by side, in tests/golden/*.tesh:
//
//   # what this shows (comment lines start with '#')
//   $ scalecast collective --json --platform dgx-a100 --gpus 16 --bytes 1MB
//   > {
//   >   "platform": "dgx-a100",
//   ...
//
// One command per file. `${SOURCE}` in the command stands for the source tree. What is compared
// is the output as the model resolves it, not to 16 digits: every number is rounded to 4
// significant digits, wall-clock fields and lines are dropped, and the source tree's path is
// written as ${SOURCE}. To accept an intended change: SCALECAST_UPDATE_GOLDEN=1 ctest -R Golden,
// then review `git diff tests/golden`.
#pragma once

#include <string>
#include <vector>

namespace scalecast::testing {

struct TeshFile {
  std::string path;
  std::vector<std::string> comments;  // without the leading "# "
  std::string command;                // after "$ scalecast ", ${SOURCE} not yet substituted
  std::string expected;               // the "> " lines, joined with newlines
};

TeshFile read_tesh(const std::string& path);
void write_tesh(const TeshFile& file);

// What is compared of a command's stdout: JSON re-printed with rounded numbers and without
// wall-clock fields, or text with rounded numbers and without wall-clock lines.
std::string canonical_output(const std::string& stdout_text, const std::string& source_dir);

// Every .tesh file of a folder, sorted.
std::vector<std::string> tesh_files(const std::string& folder);

}  // namespace scalecast::testing
