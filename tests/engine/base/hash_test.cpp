#include "engine/base/hash.h"

#include <gtest/gtest.h>

#include <string>

namespace seqflow {
namespace hash_test {

// Reference digests from libxxhash itself (XXH3-128 high64 then low64; XXH64 seed 0). A change
// here invalidates every cache on every machine, so it must be deliberate.
TEST(HashTest, FixedInputsGiveFixedDigests) {
  EXPECT_EQ(HashHex(""), "99aa06d3014798d86001c324468d497f");
  EXPECT_EQ(HashHex("abc"), "06b05ab6733a618578af5f94892f3950");
  EXPECT_EQ(Checksum64("abc"), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(Hasher().Add("abc").HexDigest(), "45bcdc88efffd44520b986a5e7fe1438");
}

TEST(HashTest, AddIsLengthPrefixedLittleEndian) {
  const std::string prefixed("\x03\0\0\0\0\0\0\0abc", 11);
  EXPECT_EQ(Hasher().Add("abc").HexDigest(), HashHex(prefixed));
  EXPECT_EQ(Hasher().AddU64(3).HexDigest(), HashHex(std::string("\x03\0\0\0\0\0\0\0", 8)));
}

TEST(HashTest, BoundariesMatter) {
  EXPECT_NE(Hasher().Add("ab").Add("c").HexDigest(), Hasher().Add("a").Add("bc").HexDigest());
  EXPECT_NE(Hasher().Add("").HexDigest(), Hasher().HexDigest());
  EXPECT_EQ(Hasher().Add("ab").Add("c").HexDigest(), Hasher().Add("ab").Add("c").HexDigest());
}

TEST(HashTest, DigestIs32LowercaseHexDigits) {
  std::string d = Hasher().Add("seqflow").HexDigest();
  ASSERT_EQ(d.size(), 32u);
  for (char c : d) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << d;
}

// AddRaw streams the bytes themselves: chunks of any size give HashHex of the whole.
TEST(HashTest, AddRawInChunksIsHashHexOfTheWhole) {
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>(i * 7);
  for (size_t chunk : {size_t{1}, size_t{63}, size_t{1000}, bytes.size()}) {
    Hasher h;
    for (size_t at = 0; at < bytes.size(); at += chunk) h.AddRaw(std::string_view(bytes).substr(at, chunk));
    EXPECT_EQ(h.HexDigest(), HashHex(bytes)) << chunk;
  }
}

}  // namespace hash_test
}  // namespace seqflow
