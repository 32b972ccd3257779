// Entry format: round trips, misses, and every way an entry can be damaged.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace cache_test {

// Same type and payload layout as TestValue, but a newer version than this build registers.
class FutureValue final : public Artifact {
 public:
  std::string_view type() const override { return TestValue::kType; }
  uint32_t version() const override { return TestValue::kVersion + 1; }
  void Save(ByteWriter& w) const override { TestValue("future", 1).Save(w); }
};

TEST_F(CacheTest, RoundTripIsBitExact) {
  CacheEntry in = Entry(std::nextafter(1.0, 2.0));
  ASSERT_OK(cache_.Store(key_, in));
  EXPECT_TRUE(cache_.Contains(key_));
  auto out = cache_.Load(key_);
  ASSERT_OK(out);
  ASSERT_TRUE(out->has_value());
  const CacheEntry& e = **out;
  EXPECT_EQ(e.kind, "const");
  EXPECT_EQ(e.seconds, 0.25);
  EXPECT_EQ(e.metrics, in.metrics);
  EXPECT_EQ(e.attachments, in.attachments);
  EXPECT_EQ(BytesOf(*e.artifact), BytesOf(*in.artifact));
  const auto& v = static_cast<const TestValue&>(*e.artifact);
  EXPECT_EQ(v.number, std::nextafter(1.0, 2.0));
  EXPECT_TRUE(std::signbit(v.data[1]));
}

TEST_F(CacheTest, AnEntryKnowsItsKeyAndIsDamagedUnderAnother) {
  ASSERT_OK(cache_.Store(key_, Entry(1.5)));
  EXPECT_EQ(ValueOrThrow(cache_.Load(key_))->key, key_);
  // A valid entry copied under another key of the same kind: never served as that key's result.
  const std::string other(key_.size(), 'e');
  const std::string from = dir_ + "/" + key_.substr(0, 2) + "/" + key_ + ".sfa";
  const std::string to = dir_ + "/" + other.substr(0, 2) + "/" + other + ".sfa";
  std::filesystem::create_directories(dir_ + "/" + other.substr(0, 2));
  std::filesystem::copy_file(from, to);
  auto loaded = cache_.Load(other);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_NE(loaded.status().message().find("the entry of key " + key_), std::string::npos) << loaded.status().message();
}

TEST_F(CacheTest, AFolderInAnEntrysPlaceIsDamageThatTheNextStoreHeals) {
  const std::string path = dir_ + "/" + key_.substr(0, 2) + "/" + key_ + ".sfa";
  std::filesystem::create_directories(path);
  auto loaded = cache_.Load(key_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  ASSERT_OK(cache_.Gc(0));  // passes it by, without failing
  EXPECT_TRUE(std::filesystem::is_directory(path));
  ASSERT_OK(cache_.Store(key_, Entry(2.5)));
  EXPECT_EQ(ValueOrThrow(cache_.Load(key_))->metrics, Entry(2.5).metrics);
}

TEST_F(CacheTest, MissIsNulloptNotAnError) {
  auto out = cache_.Load(key_);
  ASSERT_OK(out);
  EXPECT_FALSE(out->has_value());
  EXPECT_FALSE(cache_.Contains(key_));
}

TEST_F(CacheTest, BadKeysAreRejected) {
  for (const char* key : {"", "ab", "../../etc/passwd", "ABCDEF0123", "01/23456"}) {
    EXPECT_EQ(cache_.Store(key, Entry(1)).code(), StatusCode::kInvalid) << key;
    EXPECT_EQ(cache_.Load(key).status().code(), StatusCode::kInvalid) << key;
  }
}

TEST_F(CacheTest, TruncatedEntryIsCorruption) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  std::string bytes = Read(key_);
  Write(key_, bytes.substr(0, bytes.size() - 1));
  ExpectCorrupt(key_, "truncated: header says");
  Write(key_, bytes.substr(0, 10));
  ExpectCorrupt(key_, "truncated: 10 bytes");
  Write(key_, bytes + "x");
  ExpectCorrupt(key_, "length mismatch");
}

TEST_F(CacheTest, EveryFlippedByteIsDetected) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  const std::string bytes = Read(key_);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    Write(key_, damaged);
    auto loaded = cache_.Load(key_);
    ASSERT_FALSE(loaded.ok()) << "flipped byte " << i << " loaded";
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  }
  std::string payload_flip = bytes;
  payload_flip.back() = static_cast<char>(payload_flip.back() ^ 1);
  Write(key_, payload_flip);
  ExpectCorrupt(key_, "checksum mismatch");
}

TEST_F(CacheTest, BadMagicAndUnknownFormatVersion) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  std::string bytes = Read(key_);
  std::string magic = bytes;
  magic[0] = 'X';
  Write(key_, magic);
  ExpectCorrupt(key_, "bad magic");
  std::string version = bytes;
  version[8] = 7;  // the u32 format version follows the 8-byte magic
  Write(key_, version);
  ExpectCorrupt(key_, "unknown format version 7");
}

TEST_F(CacheTest, UnknownArtifactVersionIsCorruption) {
  CacheEntry e = Entry(1);
  e.artifact = std::make_shared<FutureValue>();
  ASSERT_OK(cache_.Store(key_, e));
  ExpectCorrupt(key_, "artifact TestValue failed to load: artifact TestValue has format version 2");
}

TEST_F(CacheTest, UnknownArtifactTypeIsCorruption) {
  CacheEntry e = Entry(1);
  e.artifact = std::make_shared<Metrics>();  // not registered in TestRegistry
  ASSERT_OK(cache_.Store(key_, e));
  ExpectCorrupt(key_, "unknown artifact type 'Metrics'");
}

TEST_F(CacheTest, RemoveDeletesAndIsIdempotent) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  ASSERT_OK(cache_.Remove(key_));
  EXPECT_FALSE(cache_.Contains(key_));
  EXPECT_OK(cache_.Remove(key_));
}

}  // namespace cache_test
}  // namespace seqflow::testkit
