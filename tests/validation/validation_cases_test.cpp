// Every case of the fidelity table is a test: it fails when the prediction leaves the case's
// tolerance (or a known gap's accepted error), and when a known gap's bookkeeping is stale (the
// gap closed, or its accepted error loose). Each test runs in its own process (SimGrid).
#include <gtest/gtest.h>

#include <cmath>

#include "sim/report/validation.h"

namespace scalecast {
namespace {

std::vector<ValidationCase> all_cases() { return load_validation_cases(); }

}  // namespace

// GoogleTest prints a parameter in the test list; a case's name says which it is.
void PrintTo(const ValidationCase& c, std::ostream* os) { *os << c.name; }

namespace {

class FidelityTable : public ::testing::TestWithParam<ValidationCase> {};

TEST_P(FidelityTable, PredictionWithinTolerance) {
  const ValidationCase& c = GetParam();
  const ValidationResult result = judge(c, simulate_case(c));
  EXPECT_TRUE(result.within_accepted)
      << c.name << ": measured " << c.measured << ", simulated " << result.simulated << " ("
      << validation_kind(c.kind).unit << "), error " << result.error * 100 << "%"
      << (c.known_gap.empty() ? "" : "; known gap: " + c.known_gap);
  const std::string bookkeeping = stale_gap_bookkeeping(c, result);
  EXPECT_TRUE(bookkeeping.empty()) << c.name << " (error " << result.error * 100 << "%): " << bookkeeping;
}

std::string test_name(const ::testing::TestParamInfo<ValidationCase>& info) {
  std::string name;
  for (char ch : info.param.name) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, FidelityTable, ::testing::ValuesIn(all_cases()), test_name);

}  // namespace
}  // namespace scalecast
