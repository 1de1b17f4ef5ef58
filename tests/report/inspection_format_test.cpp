#include <gtest/gtest.h>

#include <string>

#include "sim/report/inspection_format.h"

namespace scalecast {
namespace {

TEST(InspectionFormat, AppendfAppendsTextLongerThanAnyFixedBuffer) {
  std::string out = "head ";
  const std::string long_name(5000, 'x');
  appendf(out, "%s|%d|%-6s|", long_name.c_str(), 42, "ab");
  EXPECT_EQ(out, "head " + long_name + "|42|ab    |");
  appendf(out, "%s", "");  // nothing to add leaves the text as it is
  EXPECT_EQ(out.size(), 5 + 5000 + 11u);
}

TEST(InspectionFormat, DurationsTakeTheLargestUnitThatKeepsTheNumberAtLeastOne) {
  EXPECT_EQ(format_duration(0), "0.000 s");
  EXPECT_EQ(format_duration(2.5), "2.500 s");
  EXPECT_EQ(format_duration(0.012345), "12.345 ms");
  EXPECT_EQ(format_duration(3.2e-6), "3.200 us");
}

TEST(InspectionFormat, LongTextIsCutToItsColumnAndSaysSo) {
  EXPECT_EQ(fit_to_width("aten::convolution", 32), "aten::convolution");
  EXPECT_EQ(fit_to_width("aten::cudnn_convolution_backward", 12), "aten::cud...");
  EXPECT_EQ(fit_to_width("aten::cudnn_convolution_backward", 12).size(), 12u);
}

TEST(InspectionFormat, PercentOfNothingIsZero) {
  EXPECT_EQ(percent_text(1, 4), " 25.0%");
  EXPECT_EQ(percent_text(1, 4, false), "25.0%");
  EXPECT_EQ(percent_text(1, 0), "  0.0%");
}

TEST(InspectionFormat, OnlyATimelinesOperatorsSayHowLongTheyWaited) {
  OperatorTotal op;
  op.name = "allreduce";
  op.count = 3;
  op.total_s = 0.3;
  op.mean_s = 0.1;
  op.waiting_s = 0.05;
  EXPECT_DOUBLE_EQ(top_operators_json({op}, true)[0]["waiting_s"].get<double>(), 0.05);
  EXPECT_FALSE(top_operators_json({op}, false)[0].contains("waiting_s"));
  EXPECT_EQ(top_operators_json({op}, false)[0]["count"], 3);
}

}  // namespace
}  // namespace scalecast
