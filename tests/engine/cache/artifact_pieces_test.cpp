// ArtifactPieces: pieces of an artifact beside the entries. The cache refuses an entry whose
// pieces are missing or damaged (its node recomputes, replacing the damaged piece) and gc removes
// pieces no entry names once they are older than a writer can be.
#include "engine/cache/artifact_pieces.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/cache/cache.h"
#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace artifact_pieces_test {

// An artifact whose bodies are pieces: their names.
class PiecedValue final : public Artifact {
 public:
  static constexpr std::string_view kType = "PiecedValue";
  static constexpr uint32_t kVersion = 1;
  std::vector<std::string> names;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override { w.Strs(names); }
  static std::shared_ptr<const PiecedValue> Load(ByteReader& r) {
    auto v = std::make_shared<PiecedValue>();
    v->names = r.Strs();
    return v;
  }
  std::vector<std::string> PieceNames() const override { return names; }
};

const Registry& PiecesRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    r->AddArtifactType<PiecedValue>();
    return r;
  }();
  return *registry;
}

constexpr double kTwoHours = 2 * 3600;

class ArtifactPiecesTest : public ::testing::Test {
 protected:
  ArtifactPiecesTest() : dir_(testutil::MakeTempDir("seqflow-pieces")), cache_(dir_, &PiecesRegistry(), Env::Default()) {}
  ~ArtifactPiecesTest() override { std::filesystem::remove_all(dir_); }

  // Stores an entry under `key` whose artifact names pieces holding `bodies`, written first.
  std::vector<std::string> StoreWithPieces(const std::string& key, const std::vector<std::string>& bodies) {
    ArtifactPieces store(dir_, key, Env::Default());
    auto value = std::make_shared<PiecedValue>();
    for (const std::string& body : bodies) value->names.push_back(ValueOrThrow(store.Put(body)));
    CacheEntry entry;
    entry.kind = "pieced";
    entry.artifact = value;
    EXPECT_OK(cache_.Store(key, entry));
    return value->names;
  }
  std::string PathOf(const std::string& name) { return ArtifactPieces(dir_, "", Env::Default()).PathOf(name); }
  void Damage(const std::string& name) {
    std::string bytes = ValueOrThrow(Env::Default()->ReadFile(PathOf(name)));
    bytes.back() ^= 1;
    std::ofstream(PathOf(name), std::ios::binary | std::ios::trunc) << bytes;
  }

  std::string dir_;
  Cache cache_;
  const std::string key_ = "0123456789abcdef0123456789abcdef";
  const std::string other_ = "fedcba9876543210fedcba9876543210";
};

TEST_F(ArtifactPiecesTest, PutGetRoundTripNamedByOwnerAndContent) {
  ArtifactPieces store(dir_, key_, Env::Default());
  const std::string name = ValueOrThrow(store.Put(std::string("shard\0body", 10)));
  EXPECT_EQ(name.substr(0, key_.size() + 1), key_ + ".");
  EXPECT_EQ(ValueOrThrow(store.Get(name)), std::string("shard\0body", 10));
  EXPECT_EQ(ValueOrThrow(store.Put(std::string("shard\0body", 10))), name);  // written once
  EXPECT_EQ(ArtifactPieces::OwnerOf(name + ".sfp"), key_);
  EXPECT_EQ(ArtifactPieces::OwnerOf(name + ".sfp.tmp.1.2"), "");
}

TEST_F(ArtifactPiecesTest, DamagedOrMissingPieceIsCorruptionNamingTheFile) {
  const auto names = StoreWithPieces(key_, {"first", "second"});
  ASSERT_OK(cache_.Load(key_).status());
  ArtifactPieces store(dir_, "", Env::Default());

  Damage(names[1]);
  Status damaged = store.Get(names[1]).status();
  EXPECT_EQ(damaged.code(), StatusCode::kCorruption);
  EXPECT_NE(damaged.message().find(PathOf(names[1])), std::string::npos) << damaged.ToString();
  auto entry = cache_.Load(key_);
  EXPECT_EQ(entry.status().code(), StatusCode::kCorruption);
  EXPECT_NE(entry.status().message().find(PathOf(names[1])), std::string::npos) << entry.status().ToString();

  // The node recomputes: its Put replaces the damaged piece, and the entry loads again.
  StoreWithPieces(key_, {"first", "second"});
  EXPECT_OK(cache_.Load(key_).status());

  std::filesystem::remove(PathOf(names[0]));
  entry = cache_.Load(key_);
  EXPECT_EQ(entry.status().code(), StatusCode::kCorruption);
  EXPECT_NE(entry.status().message().find(PathOf(names[0])), std::string::npos) << entry.status().ToString();
}

TEST_F(ArtifactPiecesTest, GcRemovesPiecesNoEntryNamesOnceOld) {
  const auto live = StoreWithPieces(key_, {"kept"});
  const auto orphan = StoreWithPieces(other_, {"orphan", "young"});
  ASSERT_OK(cache_.Remove(other_));
  const std::string temp = PathOf(live[0]) + ".tmp.1.1";
  std::ofstream(temp) << "half";
  Backdate(PathOf(live[0]), kTwoHours);
  Backdate(PathOf(orphan[0]), kTwoHours);
  Backdate(temp, kTwoHours);
  // orphan[1] is young: its owner may still be computing.

  auto counts = cache_.Gc(7);
  ASSERT_OK(counts.status());
  EXPECT_EQ(counts->task_files, 2);
  EXPECT_TRUE(std::filesystem::exists(PathOf(live[0])));
  EXPECT_FALSE(std::filesystem::exists(PathOf(orphan[0])));
  EXPECT_TRUE(std::filesystem::exists(PathOf(orphan[1])));
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_OK(cache_.Load(key_).status());

  // Once the live entry is pruned, its pieces go with the next gc.
  ASSERT_OK(cache_.Remove(key_));
  counts = cache_.Gc(7);
  ASSERT_OK(counts.status());
  EXPECT_FALSE(std::filesystem::exists(PathOf(live[0])));
}

}  // namespace artifact_pieces_test
}  // namespace seqflow::testkit
