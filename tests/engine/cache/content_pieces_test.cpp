// Content-named pieces: what is written reads back, appended where a joining reader wants it, and
// a damaged piece leaves the reader's bytes as they were.
#include "engine/cache/content_pieces.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/base/bytes.h"
#include "engine/base/hash.h"
#include "engine/cache/entry_format.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace content_pieces_test {

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
  ASSERT_OK(WriteContentPiece(env_, path_a, ContentPieceName(a), a));
  ASSERT_OK(WriteContentPiece(env_, path_b, ContentPieceName(b), b));
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
  ASSERT_OK(WriteContentPiece(env_, path, ContentPieceName(bytes), bytes));
  std::string joined = "kept";
  // Named for other bytes, or of another length.
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName("other"), -1, &joined).code(), StatusCode::kCorruption);
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName(bytes), 3, &joined).code(), StatusCode::kCorruption);
  // A flipped byte fails the check against the name.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('X');
  }
  EXPECT_EQ(AppendContentPiece(env_, path, ContentPieceName(bytes), -1, &joined).code(), StatusCode::kCorruption);
  EXPECT_EQ(AppendContentPiece(env_, dir_ + "/missing", ContentPieceName(bytes), -1, &joined).code(), StatusCode::kIo);
  EXPECT_EQ(joined, "kept");
}

// The frame carries the name's low 64 bits where an entry has its XXH64: the name is the check.
TEST_F(ContentPiecesTest, TheFrameCarriesTheNameNotASecondHash) {
  const std::string bytes(5000, 'p');
  const std::string name = ContentPieceName(bytes), path = dir_ + "/p";
  ASSERT_OK(WriteContentPiece(env_, path, name, bytes));
  Result<std::string> file = env_->ReadFile(path);
  ASSERT_OK(file);
  Result<FramePayload> frame = DecodeFrameHeader(*file, std::string_view("SQFLCKN\0", 8));
  ASSERT_OK(frame);
  EXPECT_EQ(frame->payload, bytes);
  EXPECT_EQ(frame->checksum, std::stoull(name.substr(16), nullptr, 16));
  // The same bytes under another piece's frame checksum: the frame disagrees with the name.
  ByteWriter header;
  header.U32(kEntryFormatVersion), header.U64(bytes.size()), header.U64(frame->checksum ^ 1);
  ASSERT_OK(env_->WriteFileAtomic(path, std::string("SQFLCKN\0", 8) + header.bytes() + bytes));
  std::string joined;
  EXPECT_EQ(AppendContentPiece(env_, path, name, -1, &joined).code(), StatusCode::kCorruption);
}

TEST_F(ContentPiecesTest, APieceOfTheEarlierChecksummedFrameStillReads) {
  const std::string bytes = "written by an earlier build";
  const std::string path = dir_ + "/old";
  ASSERT_OK(env_->WriteFileAtomic(path, EncodeFrame(std::string_view("SQFLCKQ\0", 8), bytes)));
  Result<std::string> read = ReadContentPiece(env_, path, ContentPieceName(bytes));
  ASSERT_OK(read);
  EXPECT_EQ(*read, bytes);
  // Its XXH64 is still checked.
  std::string damaged = EncodeFrame(std::string_view("SQFLCKQ\0", 8), bytes);
  damaged[kEntryHeaderSize - 1] ^= 1;
  ASSERT_OK(env_->WriteFileAtomic(path, damaged));
  EXPECT_EQ(ReadContentPiece(env_, path, ContentPieceName(bytes)).status().code(), StatusCode::kCorruption);
}

}  // namespace content_pieces_test
}  // namespace seqflow
