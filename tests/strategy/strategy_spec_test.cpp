#include "sim/strategy/strategy_spec.h"

#include <gtest/gtest.h>

#include "sim/core/input_error.h"

namespace scalecast {
namespace {

TEST(StrategySpec, ParsesDpAndHybridAndNamesThemCanonically) {
  EXPECT_EQ(parse_strategy_spec("dp").gpus_per_worker, 1);
  EXPECT_EQ(parse_strategy_spec("hybrid:4").gpus_per_worker, 4);
  EXPECT_EQ(parse_strategy_spec("hybrid:1"), parse_strategy_spec("dp"));  // hybrid:1 is DP
  EXPECT_EQ(parse_strategy_spec("hybrid:1").name(), "dp");
  EXPECT_EQ(StrategySpec{8}.name(), "hybrid:8");
}

TEST(StrategySpec, RefusesOtherFormsNamingTheParameter) {
  for (const char* bad : {"", "hybrid:", "hybrid:0", "hybrid:x", "mp", "hybrid:-2", "hybrid:99999", "hybrid:4 "}) {
    try {
      parse_strategy_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const RequestError& error) {
      EXPECT_EQ(error.parameter(), "strategy");
    }
  }
}

TEST(StrategySpec, ListKeepsOrderAndRefusesDuplicates) {
  const auto list = parse_strategy_list("hybrid:4,dp,hybrid:2");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name(), "hybrid:4");
  EXPECT_EQ(list[1].name(), "dp");
  EXPECT_THROW(parse_strategy_list("dp,hybrid:1"), RequestError);  // the same strategy twice
  EXPECT_THROW(parse_strategy_list("dp,"), RequestError);
}

}  // namespace
}  // namespace scalecast
