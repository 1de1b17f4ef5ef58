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

TEST(StrategySpec, ParsesTensorPipelineStrategiesWithDefaultsAndCanonicalNames) {
  const StrategySpec s = parse_strategy_spec("tp:8,pp:16");
  ASSERT_TRUE(s.is_tensor_pipeline());
  EXPECT_EQ(s.gpus_per_worker, 128);  // one model replica: T x P GPUs
  EXPECT_EQ(s.tp_pp->zero_stage, 0);
  EXPECT_EQ(s.tp_pp->microbatch, 1);
  EXPECT_EQ(s.tp_pp->schedule, PipelineSchedule::one_f_one_b);
  EXPECT_EQ(s.tp_pp->recompute, Recompute::automatic);
  EXPECT_EQ(s.tp_pp->order, "tp-pp-dp");
  EXPECT_EQ(s.name(), "tp:8,pp:16");
  // Options in any order name the same strategy; the name lists them in one order.
  const StrategySpec full =
      parse_strategy_spec("accum:add,schedule:interleaved:3,mb:2,pp:4,zero:1,tp:2,sp:on,recompute:full,order:tp-dp-pp");
  EXPECT_EQ(full.name(), "tp:2,pp:4,zero:1,mb:2,schedule:interleaved:3,recompute:full,sp:on,order:tp-dp-pp,accum:add");
  EXPECT_FALSE(full.tp_pp->fused_gradient_accumulation);
  EXPECT_TRUE(s.tp_pp->fused_gradient_accumulation);
  EXPECT_EQ(parse_strategy_spec(full.name()), full);
  EXPECT_EQ(full.tp_pp->virtual_stages, 3);
  EXPECT_EQ(parse_strategy_spec("tp:4").name(), "tp:4,pp:1");
  EXPECT_EQ(parse_strategy_spec("zero:3").name(), "tp:1,pp:1,zero:3");  // FSDP
  EXPECT_EQ(parse_strategy_spec("tp:8,pp:2,schedule:1f1b,sp:off,recompute:auto,accum:fused"), parse_strategy_spec("pp:2,tp:8"));
}

TEST(StrategySpec, RefusesMalformedTensorPipelineStrategies) {
  for (const char* bad : {"tp:0", "tp:x", "tp:8,pp:", "tp:8,tp:4", "tp:2,zero:4", "tp:2,mb:0", "tp:2,schedule:zigzag",
                          "tp:2,pp:1,schedule:interleaved:2", "pp:4,schedule:interleaved:1", "tp:1,sp:on",
                          "tp:2,order:tp-pp", "tp:2,order:tp-tp-dp", "tp:2,recompute:some", "mb:4", "tp:2,ep:4",
                          "tp:4096,pp:4096,zero:1", "tp:2,accum:sometimes", "tp:2,accum:add,accum:fused"}) {
    try {
      parse_strategy_spec(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const RequestError& error) {
      EXPECT_EQ(error.parameter(), "strategy") << bad;
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
}

TEST(StrategySpec, ListsSplitTensorPipelineStrategiesWhereAnOptionRepeats) {
  const auto list = parse_strategy_list("dp,tp:8,pp:4,tp:4,pp:8,zero:1,hybrid:2;pp:2");
  ASSERT_EQ(list.size(), 5u);
  EXPECT_EQ(list[0].name(), "dp");
  EXPECT_EQ(list[1].name(), "tp:8,pp:4");
  EXPECT_EQ(list[2].name(), "tp:4,pp:8,zero:1");
  EXPECT_EQ(list[3].name(), "hybrid:2");
  EXPECT_EQ(list[4].name(), "tp:1,pp:2");
  EXPECT_THROW(parse_strategy_list("tp:8,pp:4;pp:4,tp:8"), RequestError);  // the same strategy twice
}

}  // namespace
}  // namespace scalecast
