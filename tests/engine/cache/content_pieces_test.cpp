// Content-named pieces: what is written reads back, appended where a joining reader wants it, and
// a damaged piece leaves the reader's bytes as they were.
#include "engine/cache/content_pieces.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace {

class ContentPiecesTest : public ::testing::Test {
 protected:
  ContentPiecesTest() : dir_(testutil::MakeTempDir("seqflow-pieces")) {}
  ~ContentPiecesTest() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  Env* env_ = Env::Default();
};

TEST_F(ContentPiecesTest, AppendsThePieceAfterWhatTheReaderHolds) {
  const std::string a(100000, 'a'), b = "the second piece";
  const std::string path_a = dir_ + "/a", path_b = dir_ + "/b";
  ASSERT_OK(WriteContentPiece(env_, path_a, a));
  ASSERT_OK(WriteContentPiece(env_, path_b, b));
  std::string joined = "head:";
  ASSERT_OK(AppendContentPiece(env_, path_a, ContentPieceName(a), static_cast<int64_t>(a.size()), &joined));
  ASSERT_OK(AppendContentPiece(env_, path_b, ContentPieceName(b), -1, &joined));
  EXPECT_EQ(joined, "head:" + a + b);
  Result<std::string> alone = ReadContentPiece(env_, path_b, ContentPieceName(b));
  ASSERT_OK(alone);
  EXPECT_EQ(*alone, b);
}

TEST_F(ContentPiecesTest, ADamagedOrMisnamedOrMissingPieceLeavesTheReadersBytes) {
  const std::string bytes = "piece bytes";
  const std::string path = dir_ + "/p";
  ASSERT_OK(WriteContentPiece(env_, path, bytes));
  std::string joined = "kept";
  // Named for other bytes, or of another length.
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName("other"), -1, &joined).code(), StatusCode::kCorruption);
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName(bytes), 3, &joined).code(), StatusCode::kCorruption);
  // A flipped byte fails the frame's checksum.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('X');
  }
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName(bytes), -1, &joined).code(), StatusCode::kCorruption);
  EXPECT_EQ(AppendContentPiece(env_, dir_ + "/missing", ContentPieceName(bytes), -1, &joined).code(), StatusCode::kIo);
  EXPECT_EQ(joined, "kept");
}

}  // namespace
}  // namespace seqflow
