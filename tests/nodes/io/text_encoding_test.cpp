#include "nodes/io/text_encoding.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace text_encoding_test {

TEST(Utf8, FindsFirstInvalidByte) {
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("caf\xE9"), 3u);           // Latin-1 byte
  EXPECT_EQ(FindInvalidUtf8("a\xC1\xBF"), 1u);         // overlong 2-byte
  EXPECT_EQ(FindInvalidUtf8("a\xE0\x9F\xBF"), 1u);     // overlong 3-byte
  EXPECT_EQ(FindInvalidUtf8("ab\xED\xB0\x80"), 2u);    // surrogate
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("ok\x80"), 2u);            // lone continuation
  EXPECT_EQ(FindInvalidUtf8("ok\xE2\x82"), 2u);        // truncated
}

TEST(Utf8, Latin1Conversion) {
  std::string all;
  for (int b = 0xA0; b <= 0xFF; ++b) all.push_back(static_cast<char>(b));
  std::string utf8 = Latin1ToUtf8(all);
  EXPECT_EQ(utf8.size(), 2 * all.size());
  EXPECT_EQ(FindInvalidUtf8(utf8), std::string_view::npos);
  size_t pos = 0;
  for (int b = 0xA0; b <= 0xFF; ++b) EXPECT_EQ(NextCodePoint(utf8, &pos), static_cast<char32_t>(b));
  EXPECT_EQ(Latin1ToUtf8("Espa\xF1"
                         "a"),
            "Espa\xC3\xB1"
            "a");
}

TEST(Utf8, DecodeFileText) {
  Result<std::string> bom = DecodeFileText("\xEF\xBB\xBFx", "f", FileEncoding::kUtf8);
  ASSERT_OK(bom);
  EXPECT_EQ(*bom, "x");
  EXPECT_EQ(DecodeFileText("a\nb\n\xFF", "f", FileEncoding::kUtf8).status().ToString(),
            "f:3:1: invalid UTF-8 (byte 0xFF); if the file is Latin-1, set file_encoding: latin-1");
}

TEST(Utf8, NextCodePoint) {
  std::string s = "a\xC3\xA9\xE2\x80\x94\xF0\x9F\x98\x80";
  size_t pos = 0;
  EXPECT_EQ(NextCodePoint(s, &pos), U'a');
  EXPECT_EQ(NextCodePoint(s, &pos), U'\u00E9');
  EXPECT_EQ(NextCodePoint(s, &pos), U'\u2014');
  EXPECT_EQ(NextCodePoint(s, &pos), U'\U0001F600');
  EXPECT_EQ(pos, s.size());
}

TEST(Utf8, CaseOfLatinLetters) {
  EXPECT_TRUE(IsUpperLetter(U'\u00C9'));
  EXPECT_FALSE(IsUpperLetter(U'\u00D7'));  // multiplication sign
  EXPECT_TRUE(IsLowerLetter(U'\u00DF'));
  EXPECT_FALSE(IsLowerLetter(U'\u00F7'));  // division sign
  EXPECT_EQ(LowercaseUtf8("\xC3\x89tienne MIT \xC3\x97 \xE2\x80\x94"), "\xC3\xA9tienne mit \xC3\x97 \xE2\x80\x94");
}

}  // namespace text_encoding_test
}  // namespace seqflow
