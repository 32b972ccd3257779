// Checkpoints in pieces: a state saved as owned bytes, views and immutable pieces loads as the
// pieces joined; an immutable piece is written once and removed when no save names it any more;
// the one-piece format of earlier builds loads; a missing or damaged piece is Corruption; Remove
// and `cache gc` take the pieces with the checkpoint.
#include "engine/cache/checkpoints.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/hash.h"
#include "engine/cache/entry_format.h"
#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace {

class CheckpointsTest : public CacheTest {
 protected:
  CheckpointsTest() : checkpoints_(dir_, Env::Default()) {}

  // Owned bytes, a view of x, then the pairs as immutable pieces: the form L-BFGS saves.
  static StatePieces State(const std::string& x, const std::vector<std::string>& pairs) {
    StatePieces state;
    state.writer().U64(7);
    state.AppendView(x);
    for (const std::string& pair : pairs) state.writer().U64(pair.size()), state.AppendImmutable(pair);
    state.Append("trace");
    return state;
  }
  static std::string Joined(const std::string& x, const std::vector<std::string>& pairs) {
    return State(x, pairs).Join();
  }
  std::vector<std::string> Files() const {
    auto names = Env::Default()->ListDir(dir_ + "/checkpoints");
    return names.ok() ? *names : std::vector<std::string>{};
  }
  std::string PiecePath(const std::string& piece) const {
    return dir_ + "/checkpoints/" + key_ + "." + HashHex(piece) + ".sfp";
  }

  Checkpoints checkpoints_;
  const std::string x_ = std::string(1000, 'x'), a_ = std::string(3000, 'a'), b_ = std::string(3000, 'b'),
                    c_ = std::string(3000, 'c');
};

TEST_F(CheckpointsTest, PiecesLoadJoined) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  auto loaded = checkpoints_.Load(key_);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, Joined(x_, {a_, b_}));
  EXPECT_EQ(Files().size(), 3u);  // the table and two pieces
  // x is written inline, not as a piece.
  EXPECT_GT(ValueOrThrow(Env::Default()->ReadFile(checkpoints_.PathOf(key_))).size(), x_.size());
}

TEST_F(CheckpointsTest, AnImmutablePieceIsWrittenOnceAndRemovedWhenNoSaveNamesIt) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  Backdate(PiecePath(b_), 3600);
  const int64_t b_written = ValueOrThrow(Env::Default()->Stat(PiecePath(b_))).mtime_ns;
  ASSERT_OK(checkpoints_.Store(key_, State(x_ + "2", {b_, c_})));
  EXPECT_EQ(ValueOrThrow(Env::Default()->Stat(PiecePath(b_))).mtime_ns, b_written);  // not written again
  EXPECT_FALSE(Env::Default()->Exists(PiecePath(a_)));
  EXPECT_TRUE(Env::Default()->Exists(PiecePath(c_)));
  EXPECT_EQ(**checkpoints_.Load(key_), Joined(x_ + "2", {b_, c_}));
  EXPECT_EQ(Files().size(), 3u);
}

TEST_F(CheckpointsTest, TheOnePieceFormatOfEarlierBuildsLoads) {
  const std::string state = Joined(x_, {a_, b_});
  ASSERT_OK(Env::Default()->CreateDirs(dir_ + "/checkpoints"));
  ASSERT_OK(Env::Default()->WriteFileAtomic(checkpoints_.PathOf(key_),
                                            EncodeFrame(std::string_view("SQFLCKP\0", 8), state)));
  auto loaded = checkpoints_.Load(key_);
  ASSERT_OK(loaded);
  EXPECT_EQ(**loaded, state);
}

TEST_F(CheckpointsTest, AMissingOrDamagedPieceIsCorruptionNamingIt) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  ASSERT_OK(Env::Default()->WriteFileAtomic(PiecePath(b_), EncodeFrame(std::string_view("SQFLCKQ\0", 8), c_)));
  auto damaged = checkpoints_.Load(key_);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_NE(damaged.status().message().find(PiecePath(b_)), std::string::npos) << damaged.status().message();
  ASSERT_OK(Env::Default()->RemoveFile(PiecePath(b_)));
  auto missing = checkpoints_.Load(key_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kCorruption);
  EXPECT_NE(missing.status().message().find(PiecePath(b_)), std::string::npos) << missing.status().message();
}

TEST_F(CheckpointsTest, RemoveTakesThePiecesAndLeftoverTemporaryFiles) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  ASSERT_OK(checkpoints_.Store("ffff" + key_.substr(4), State(x_, {a_})));  // another key's
  ASSERT_OK(Env::Default()->WriteFileAtomic(checkpoints_.PathOf(key_) + ".tmp.1.2", "a killed save"));
  ASSERT_OK(checkpoints_.Remove(key_));
  EXPECT_EQ(Files().size(), 2u);
  EXPECT_FALSE(checkpoints_.Load(key_)->has_value());
  EXPECT_TRUE(checkpoints_.Load("ffff" + key_.substr(4))->has_value());
}

TEST_F(CheckpointsTest, GcRemovesThePiecesOfAFinishedEntry) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  ASSERT_EQ(Files().size(), 3u);
  ASSERT_OK(cache_.Store(key_, Entry(0)));
  auto removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->task_files, 3);
  EXPECT_TRUE(Files().empty());
}

}  // namespace
}  // namespace seqflow::testkit
