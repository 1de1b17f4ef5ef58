#include "sim/core/utf8.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

TEST(Utf8, WellFormedTextPasses) {
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("name: dgx-a100\n"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80 \xF4\x8F\xBF\xBF"), std::nullopt);  // é € 🚀 U+10FFFF
}

TEST(Utf8, FirstBadByteIsFound) {
  EXPECT_EQ(first_invalid_utf8("caf\xE9"), 3u);                // Latin-1 é
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u);                 // a lone continuation byte
  EXPECT_EQ(first_invalid_utf8("\xC3"), 0u);                   // cut short
  EXPECT_EQ(first_invalid_utf8("x\xC0\xAF"), 1u);              // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u);           // overlong, three bytes
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);           // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_utf8("ok \xF4\x90\x80\x80"), 3u);    // beyond U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x82"), 0u);               // € without its last byte
  EXPECT_EQ(first_invalid_utf8("\xFF"), 0u);
}

// ASCII is skipped a word (8 bytes) at a time: a bad byte or a character is found at every
// offset from a word's boundary, and a character that straddles two words is whole.
TEST(Utf8, EveryOffsetAroundWordBoundaries) {
  for (std::size_t at = 0; at < 24; ++at) {
    std::string text(24, 'a');
    text.insert(at, "\xE2\x82\xAC");  // €, three bytes from `at`
    EXPECT_EQ(first_invalid_utf8(text), std::nullopt) << "euro at " << at;
    text[at + 2] = 'x';  // cut it short
    EXPECT_EQ(first_invalid_utf8(text), at) << "cut euro at " << at;
    std::string lone(24, 'b');
    lone[at] = '\x80';
    EXPECT_EQ(first_invalid_utf8(lone), at) << "lone continuation at " << at;
  }
}

}  // namespace
}  // namespace scalecast
