// Checkpoints in pieces: a state saved as owned bytes, views and immutable pieces loads as the
// pieces joined; an immutable piece is written once and becomes a spare when no save names it any
// more, and the next save writes its new pieces over the spares (a spare with mixed bytes too);
// the one-piece format of earlier builds loads; a missing or damaged piece is Corruption; Remove
// and `cache gc` take the pieces with the checkpoint.
#include "engine/cache/checkpoints.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "engine/base/hash.h"
#include "engine/cache/entry_format.h"
#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace checkpoints_test {

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
  // The checkpoint's bytes joined, as a resume that wants one string reads them.
  Result<std::optional<std::string>> Load() const {
    SEQFLOW_ASSIGN_OR_RETURN(std::optional<StateSource> source, checkpoints_.LoadSource(key_));
    if (!source) return std::optional<std::string>();
    SEQFLOW_ASSIGN_OR_RETURN(std::string state, std::move(*source).Join());
    return std::optional<std::string>(std::move(state));
  }
  static std::string Joined(const std::string& x, const std::vector<std::string>& pairs) {
    return State(x, pairs).Join();
  }
  std::vector<std::string> Files() const {
    auto names = Env::Default()->ListDir(dir_ + "/checkpoints");
    return names.ok() ? *names : std::vector<std::string>{};
  }
  std::string PieceName(const std::string& piece) const { return key_ + "." + HashHex(piece) + ".sfp"; }
  std::string PiecePath(const std::string& piece) const { return dir_ + "/checkpoints/" + PieceName(piece); }
  uint64_t Inode(const std::string& file) const {
    struct stat st {};
    EXPECT_EQ(::stat((dir_ + "/checkpoints/" + file).c_str(), &st), 0) << file;
    return st.st_ino;
  }

  Checkpoints checkpoints_;
  const std::string x_ = std::string(1000, 'x'), a_ = std::string(3000, 'a'), b_ = std::string(3000, 'b'),
                    c_ = std::string(3000, 'c');
};

// An immutable piece with an identity is named by the first save that holds it: a later save
// of that identity reuses the name without reading the bytes (here, on purpose, other bytes), until
// a save leaves the identity out or the key is removed.
TEST_F(CheckpointsTest, AnIdentifiedPieceIsHashedForItsNameOnlyByItsFirstSave) {
  auto save = [&](const std::string& pair, uint64_t identity) {
    StatePieces state;
    state.AppendImmutable(pair, identity);
    return checkpoints_.Store(key_, std::move(state));
  };
  auto loaded = [&] {
    auto state = Load();
    return state.ok() && state->has_value() ? **state : std::string("(none)");
  };
  const uint64_t identity = NewPieceIdentity();
  ASSERT_OK(save(a_, identity));
  ASSERT_OK(save(b_, identity));
  EXPECT_EQ(loaded(), a_);
  ASSERT_OK(save(c_, NewPieceIdentity()));  // leaves `identity` out: forgotten
  ASSERT_OK(save(b_, identity));
  EXPECT_EQ(loaded(), b_);
  ASSERT_OK(checkpoints_.Remove(key_));
  ASSERT_OK(save(c_, identity));
  EXPECT_EQ(loaded(), c_);
  EXPECT_NE(NewPieceIdentity(), 0u);
}

TEST_F(CheckpointsTest, PiecesLoadJoined) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  auto loaded = Load();
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, Joined(x_, {a_, b_}));
  EXPECT_EQ(Files().size(), 3u);  // the table and two pieces
  // x is written inline, not as a piece.
  EXPECT_GT(ValueOrThrow(Env::Default()->ReadFile(checkpoints_.PathOf(key_))).size(), x_.size());
}

TEST_F(CheckpointsTest, AnImmutablePieceIsWrittenOnceAndBecomesASpareWhenNoSaveNamesIt) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  Backdate(PiecePath(b_), 3600);
  const int64_t b_written = ValueOrThrow(Env::Default()->Stat(PiecePath(b_))).mtime_ns;
  ASSERT_OK(checkpoints_.Store(key_, State(x_ + "2", {b_, c_})));
  EXPECT_EQ(ValueOrThrow(Env::Default()->Stat(PiecePath(b_))).mtime_ns, b_written);  // not written again
  EXPECT_FALSE(Env::Default()->Exists(PiecePath(a_)));
  EXPECT_TRUE(Env::Default()->Exists(PiecePath(c_)));
  EXPECT_EQ(**Load(), Joined(x_ + "2", {b_, c_}));
  // The table, b, c, and a's file kept to be written over (this save wrote one piece).
  EXPECT_EQ(Files(), (std::vector<std::string>{key_ + ".0.spare", PieceName(b_), PieceName(c_), key_ + ".sfc"}));
}

// A large piece that changes at every save (x) has a file of its own, and a save writes its new
// pieces over the files the previous save released: the same inodes, no new files.
TEST_F(CheckpointsTest, LargePiecesAreWrittenOverTheFilesTheLastSaveReleased) {
  auto big = [](char c) { return std::string((size_t{1} << 20) + 10, c); };
  ASSERT_OK(checkpoints_.Store(key_, State(big('1'), {a_})));
  ASSERT_OK(checkpoints_.Store(key_, State(big('2'), {b_})));  // 1 and a released
  std::set<uint64_t> released;
  for (const std::string& file : Files())
    if (file.size() > 6 && file.substr(file.size() - 6) == ".spare") released.insert(Inode(file));
  ASSERT_EQ(released.size(), 2u);
  ASSERT_OK(checkpoints_.Store(key_, State(big('3'), {c_})));
  EXPECT_EQ(released.count(Inode(PieceName(big('3')))), 1u);
  EXPECT_EQ(released.count(Inode(PieceName(c_))), 1u);
  EXPECT_EQ(**Load(), Joined(big('3'), {c_}));
  EXPECT_LT(ValueOrThrow(Env::Default()->ReadFile(checkpoints_.PathOf(key_))).size(), size_t{1000});  // x not inline
  EXPECT_EQ(Files().size(), 5u);  // the table, two pieces, two spares
}

// A save killed while writing over a spare leaves it with mixed bytes and any length: it is
// never read, and the next save writes over it and cuts it to length.
TEST_F(CheckpointsTest, ASpareWithMixedBytesIsWrittenOverToTheRightBytes) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_})));
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {b_})));
  ASSERT_TRUE(Env::Default()->Exists(dir_ + "/checkpoints/" + key_ + ".0.spare"));
  ASSERT_OK(Env::Default()->WriteFileAtomic(dir_ + "/checkpoints/" + key_ + ".0.spare", std::string(9000, '?')));
  EXPECT_EQ(**Load(), Joined(x_, {b_}));
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {c_})));
  EXPECT_EQ(**Load(), Joined(x_, {c_}));
  Result<std::string> c_file = Env::Default()->ReadFile(PiecePath(c_));
  ASSERT_OK(c_file);
  EXPECT_LT(c_file->size(), size_t{9000});
}

TEST_F(CheckpointsTest, TheOnePieceFormatOfEarlierBuildsLoads) {
  const std::string state = Joined(x_, {a_, b_});
  ASSERT_OK(Env::Default()->CreateDirs(dir_ + "/checkpoints"));
  ASSERT_OK(Env::Default()->WriteFileAtomic(checkpoints_.PathOf(key_),
                                            EncodeFrame(std::string_view("SQFLCKP\0", 8), state)));
  auto loaded = Load();
  ASSERT_OK(loaded);
  EXPECT_EQ(**loaded, state);
}

// LoadSource gives the bytes Load joins, its pieces checked at load but read only where a reader
// puts them: a whole piece straight into the reader's memory, from its file.
TEST_F(CheckpointsTest, LoadSourceReadsEachPieceWhereTheReaderPutsIt) {
  auto counted_state = [&] {
    StatePieces state;
    state.writer().U64(7), state.writer().U64(x_.size());
    state.AppendView(x_);
    for (const std::string* pair : {&a_, &b_}) state.writer().U64(pair->size()), state.AppendImmutable(*pair);
    return state;
  };
  ASSERT_OK(checkpoints_.Store(key_, counted_state()));
  auto source = checkpoints_.LoadSource(key_);
  ASSERT_OK(source);
  ASSERT_TRUE(source->has_value());
  EXPECT_EQ((*source)->size(), counted_state().Join().size());
  // The pieces' files go before the reads: read from the file, b's bytes arrive as b's.
  StateReader r(**source);
  EXPECT_EQ(r.U64(), 7u);
  std::string x(x_.size(), '-'), a(a_.size(), '-'), b(b_.size(), '-');
  ASSERT_TRUE(r.CountedInto(x.data(), x.size(), 1));
  ASSERT_TRUE(r.CountedInto(a.data(), a.size(), 1));
  ASSERT_TRUE(r.CountedInto(b.data(), b.size(), 1));
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(x, x_);
  EXPECT_EQ(a, a_);
  EXPECT_EQ(b, b_);
  auto whole = Load();
  ASSERT_OK(whole);
  EXPECT_EQ(**whole, counted_state().Join());
  // A damaged piece is found at load, before any reader: the node starts over, as with Load.
  ASSERT_OK(Env::Default()->WriteFileAtomic(PiecePath(b_), EncodeFrame(std::string_view("SQFLCKN\0", 8), c_)));
  auto damaged = checkpoints_.LoadSource(key_);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_NE(damaged.status().message().find(PiecePath(b_)), std::string::npos) << damaged.status().message();
}

TEST_F(CheckpointsTest, AMissingOrDamagedPieceIsCorruptionNamingIt) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  ASSERT_OK(Env::Default()->WriteFileAtomic(PiecePath(b_), EncodeFrame(std::string_view("SQFLCKQ\0", 8), c_)));
  auto damaged = Load();
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_NE(damaged.status().message().find(PiecePath(b_)), std::string::npos) << damaged.status().message();
  ASSERT_OK(Env::Default()->RemoveFile(PiecePath(b_)));
  auto missing = Load();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kCorruption);
  EXPECT_NE(missing.status().message().find(PiecePath(b_)), std::string::npos) << missing.status().message();
}

TEST_F(CheckpointsTest, RemoveTakesThePiecesSparesAndLeftoverTemporaryFiles) {
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {a_, b_})));
  ASSERT_OK(checkpoints_.Store("ffff" + key_.substr(4), State(x_, {a_})));  // another key's
  ASSERT_OK(checkpoints_.Store(key_, State(x_, {c_})));                     // a's or b's file becomes a spare
  ASSERT_OK(Env::Default()->WriteFileAtomic(checkpoints_.PathOf(key_) + ".tmp.1.2", "a killed save"));
  ASSERT_OK(checkpoints_.Remove(key_));
  EXPECT_EQ(Files().size(), 2u);
  EXPECT_FALSE(Load()->has_value());
  EXPECT_TRUE(checkpoints_.LoadSource("ffff" + key_.substr(4))->has_value());
}

TEST_F(CheckpointsTest, RemoveTakesAFileAnotherWorkerRemovedFirstButReportsAFailedRemoval) {
  testutil::FaultEnv env;
  Checkpoints checkpoints(dir_, &env);
  ASSERT_OK(checkpoints.Store(key_, State(x_, {a_, b_})));
  bool raced = false;
  env.SetHook([&](testutil::FileOp op, const std::string& path) {
    if (op != testutil::FileOp::kRemove || raced || path.find(".sfp") == std::string::npos) return;
    raced = true;
    ::unlink(path.c_str());  // the other worker's removal, just before this one's
  });
  ASSERT_OK(checkpoints.Remove(key_));
  EXPECT_TRUE(raced);
  EXPECT_TRUE(Files().empty());

  env.SetHook(nullptr);
  ASSERT_OK(checkpoints.Store(key_, State(x_, {a_})));
  env.Inject({.op = testutil::FileOp::kRemove, .path_contains = ".sfp", .nth = 0, .error = EIO});
  EXPECT_FALSE(checkpoints.Remove(key_).ok()) << "the piece is still there";
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

}  // namespace checkpoints_test
}  // namespace seqflow::testkit
