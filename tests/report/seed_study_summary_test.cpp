// tools/seed-study-summary.py, the main job's closing tables, on a small real sweep (BigLSTM,
// 8-32 GPUs, dp and hybrid:2): its answer repeats sweep.json's best strategies, crossover and
// hybrid's gain; DP's breakdown at the largest scale splits the step into parts that are the
// sweep's own figures and add up to the step; --versus prints what moved; a missing sweep is
// an error naming it (exit 2) before any table is printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

const std::string kScript = std::string(SCALECAST_SOURCE_DIR) + "/tools/seed-study-summary.py";

testing::CommandResult run_shell(const std::string& command, const std::string& err_path) {
  testing::CommandResult result;
  FILE* pipe = ::popen((command + " 2>" + err_path).c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = testing::read_text(err_path);
  std::remove(err_path.c_str());
  return result;
}

// The line of `text` that starts with `first_word`, after the line holding `after`.
std::string line_starting(const std::string& text, const std::string& after, const std::string& first_word) {
  std::istringstream in(text.substr(text.find(after)));
  for (std::string line; std::getline(in, line);)
    if (line.rfind(first_word + " ", 0) == 0) return line;
  return "";
}

std::vector<double> numbers_in(const std::string& line) {
  std::vector<double> values;
  const std::regex number(R"([-+]?[0-9]+(\.[0-9]+)?)");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), number); it != std::sregex_iterator(); ++it)
    values.push_back(std::stod(it->str()));
  return values;
}

class SeedStudySummary : public testing::ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    const auto sweep = testing::run_scalecast("sweep --platform dgx1-v100 --workload biglstm --gpus 8-32 --strategies "
                                              "dp,hybrid:2 --jobs 2 --out " + path("biglstm"));
    ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
    json_ = nlohmann::json::parse(testing::read_text(path("biglstm/sweep.json")));
  }
  testing::CommandResult summarize(const std::string& arguments) {
    return run_shell("python3 " + kScript + " " + folder_.string() + " " + arguments, path("summary.err"));
  }
  nlohmann::json json_;
};

TEST_F(SeedStudySummary, AnswerRepeatsTheSweep) {
  const auto summary = summarize("biglstm");
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const std::string line = line_starting(summary.out, "best at smallest", "biglstm");
  const auto& best = json_["best"];
  EXPECT_NE(line.find(best.front()["strategy"].get<std::string>() + " @8"), std::string::npos) << line;
  EXPECT_NE(line.find(best.back()["strategy"].get<std::string>() + " @32"), std::string::npos) << line;
  const std::string crossover = json_["crossover_gpus"].is_null() ? "none" : std::to_string(json_["crossover_gpus"].get<int>());
  EXPECT_NE(line.find(" " + crossover + " "), std::string::npos) << line;
  char gain[32];
  std::snprintf(gain, sizeof gain, "%+.1f%%", json_["hybrid_speedup_at_largest"].get<double>() * 100);
  EXPECT_NE(line.find(gain), std::string::npos) << line << " lacks " << gain;
}

TEST_F(SeedStudySummary, DpBreakdownIsTheSweepsPartsAndAddsUpToTheStep) {
  const auto summary = summarize("biglstm");
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const std::vector<double> cells = numbers_in(line_starting(summary.out, "DP's step", "biglstm"));
  // GPUs, step, then four parts each with its percentage.
  ASSERT_EQ(cells.size(), 10u);
  nlohmann::json dp;
  for (const auto& row : json_["rows"])
    if (row["strategy"] == "dp" && row["gpus"] == 32) dp = row;
  ASSERT_FALSE(dp.is_null());
  const double step_ms = dp["step_time_s"].get<double>() * 1e3;
  EXPECT_EQ(cells[0], 32);
  EXPECT_NEAR(cells[1], step_ms, 0.05);
  EXPECT_NEAR(cells[4], dp["exposed_comm_s"].get<double>() * 1e3, 0.05);
  EXPECT_NEAR(cells[6], dp["interference_s"].get<double>() * 1e3, 0.05);
  EXPECT_NEAR(cells[8], dp["straggler_s"].get<double>() * 1e3, 0.05);
  EXPECT_NEAR(cells[2] + cells[4] + cells[6] + cells[8], step_ms, 0.2);
  EXPECT_NEAR(cells[3] + cells[5] + cells[7] + cells[9], 100, 0.2);
}

TEST_F(SeedStudySummary, VersusItselfMovesNothing) {
  const auto summary = summarize("biglstm --versus " + folder_.string());
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const std::string line = line_starting(summary.out, "What DP's overheads move", "biglstm");
  const std::string crossover = json_["crossover_gpus"].is_null() ? "none" : std::to_string(json_["crossover_gpus"].get<int>());
  EXPECT_NE(line.find(crossover + " -> " + crossover), std::string::npos) << line;
}

TEST_F(SeedStudySummary, MissingSweepIsAnErrorNamingIt) {
  const auto summary = summarize("biglstm gnmt");
  EXPECT_EQ(summary.exit_code, 2);
  EXPECT_EQ(summary.out, "");  // nothing printed before the error
  EXPECT_NE(summary.err.find("gnmt/sweep.json"), std::string::npos) << summary.err;
}

}  // namespace
}  // namespace scalecast
