#include "sim/core/quantity_parse.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

TEST(QuantityParse, SizesUseDecimalAndBinaryPrefixes) {
  EXPECT_DOUBLE_EQ(*parse_bytes("64MB"), 64e6);
  EXPECT_DOUBLE_EQ(*parse_bytes("1GiB"), 1073741824.0);
  EXPECT_DOUBLE_EQ(*parse_bytes("4096"), 4096);
  EXPECT_DOUBLE_EQ(*parse_bytes(" 2 KiB "), 2048);
  EXPECT_FALSE(parse_bytes("64 parsecs"));
  EXPECT_FALSE(parse_bytes(""));
  EXPECT_FALSE(parse_bytes("MB"));
}

TEST(QuantityParse, BandwidthsInBytesAndBits) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("25GB/s"), 25e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("100Gbps"), 12.5e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_Bps("200Gb/s"), 25e9);
  EXPECT_FALSE(parse_bandwidth_Bps("25GB"));
}

TEST(QuantityParse, Times) {
  EXPECT_DOUBLE_EQ(*parse_seconds("1.5us"), 1.5e-6);
  EXPECT_DOUBLE_EQ(*parse_seconds("2ms"), 2e-3);
  EXPECT_DOUBLE_EQ(*parse_seconds("3s"), 3);
  EXPECT_FALSE(parse_seconds("3"));
}

TEST(QuantityParse, Lists) {
  EXPECT_EQ(*parse_int_list("8-64"), (std::vector<int>{8, 16, 32, 64}));
  EXPECT_EQ(*parse_int_list("8,24"), (std::vector<int>{8, 24}));
  EXPECT_EQ(*parse_int_list("1:100:x10"), (std::vector<int>{1, 10, 100}));
  EXPECT_FALSE(parse_int_list("8-4"));
  EXPECT_FALSE(parse_int_list("a"));
  EXPECT_EQ(parse_bytes_list("1KB-4KB")->size(), 3u);
}

}  // namespace
}  // namespace scalecast
