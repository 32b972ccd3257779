// StateSource and StateReader: a state read back in parts reads as the joined bytes do, a whole
// piece goes from its file straight into the reader's memory, and what cannot be read is reported.
#include "engine/base/state_source.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/base/bytes.h"

namespace seqflow {
namespace state_source_test {

// A piece "in its file": its bytes come from `bytes`, and every fill records where it wrote.
struct FakePiece {
  std::string bytes;
  std::vector<char*> filled_at;
  Status error;
  StateSource::Fill Fill() {
    return [this](char* dest) {
      if (!error.ok()) return error;
      filled_at.push_back(dest);
      std::memcpy(dest, bytes.data(), bytes.size());
      return Status::Ok();
    };
  }
};

// The bytes of ByteWriter: U64 7, then a counted vector of 3 doubles as its own piece, then U8 9.
struct Layout {
  std::string head, vector, tail;
  Layout() {
    ByteWriter w;
    w.U64(7), w.U64(3);
    head = w.Take();
    const double values[3] = {1.5, -2.25, 1e300};
    vector.assign(reinterpret_cast<const char*>(values), sizeof values);
    ByteWriter t;
    t.U8(9);
    tail = t.Take();
  }
};

TEST(StateSource, AWholePieceIsReadFromItsFileIntoTheReadersMemory) {
  const Layout l;
  FakePiece piece{l.vector, {}, Status::Ok()};
  StateSource source;
  source.AddBytes(l.head), source.AddPiece(l.vector.size(), piece.Fill()), source.AddBytes(l.tail);
  EXPECT_EQ(source.size(), l.head.size() + l.vector.size() + l.tail.size());
  StateReader r(source);
  EXPECT_EQ(r.U64(), 7u);
  double values[3];
  ASSERT_TRUE(r.CountedInto(reinterpret_cast<char*>(values), 3, sizeof(double)));
  ASSERT_EQ(piece.filled_at.size(), 1u);
  EXPECT_EQ(piece.filled_at[0], reinterpret_cast<char*>(values));
  EXPECT_EQ(values[1], -2.25);
  EXPECT_EQ(r.U8(), 9);
  EXPECT_TRUE(r.AtEnd());
  r.ExpectEnd();
}

TEST(StateSource, ReadsAcrossPartsAndPartsOfPiecesAsTheJoinedBytes) {
  const Layout l;
  const std::string joined = l.head + l.vector + l.tail;
  // Every split of the joined bytes into three parts, the middle one in its file.
  for (size_t a = 0; a <= joined.size(); ++a) {
    for (size_t b = a; b <= joined.size(); ++b) {
      FakePiece piece{joined.substr(a, b - a), {}, Status::Ok()};
      StateSource source;
      source.AddBytes(joined.substr(0, a)), source.AddPiece(b - a, piece.Fill()), source.AddBytes(joined.substr(b));
      StateReader r(source);
      EXPECT_EQ(r.U64(), 7u) << a << " " << b;
      double values[3] = {0, 0, 0};
      ASSERT_TRUE(r.CountedInto(reinterpret_cast<char*>(values), 3, sizeof(double)));
      EXPECT_EQ(std::memcmp(values, l.vector.data(), sizeof values), 0) << a << " " << b;
      EXPECT_EQ(r.U8(), 9);
      EXPECT_TRUE(r.AtEnd());
      EXPECT_LE(piece.filled_at.size(), 1u);
    }
  }
}

TEST(StateSource, ACountThatIsNotTheCallersReadsNothingMoreAndRunningOutThrows) {
  const Layout l;
  StateSource source(l.head + l.vector + l.tail);
  StateReader r(source);
  r.U64();
  double values[4];
  EXPECT_FALSE(r.CountedInto(reinterpret_cast<char*>(values), 4, sizeof(double)));
  StateSource short_source(l.head + l.vector.substr(0, 10));
  StateReader s(short_source);
  s.U64();
  EXPECT_THROW(s.CountedInto(reinterpret_cast<char*>(values), 3, sizeof(double)), StatusError);
  EXPECT_TRUE(s.read_error().ok());  // the bytes ran out; no piece failed
  EXPECT_THROW(s.ExpectEnd(), StatusError);
}

TEST(StateSource, APieceThatCannotBeReadIsTheReadersError) {
  const Layout l;
  FakePiece piece{l.vector, {}, Status::Corruption("damaged piece P")};
  StateSource source;
  source.AddBytes(l.head), source.AddPiece(l.vector.size(), piece.Fill());
  StateReader r(source);
  r.U64();
  double values[3];
  EXPECT_THROW(r.CountedInto(reinterpret_cast<char*>(values), 3, sizeof(double)), StatusError);
  EXPECT_EQ(r.read_error().code(), StatusCode::kCorruption);
  EXPECT_EQ(r.read_error().message(), "damaged piece P");
}

TEST(StateSource, TakeBackAndJoinGiveTheJoinedBytes) {
  const Layout l;
  FakePiece piece{l.vector, {}, Status::Ok()};
  StateSource source;
  source.AddBytes(l.head), source.AddPiece(l.vector.size(), piece.Fill()), source.AddBytes(l.tail);
  // The tail and the piece's last 5 bytes: the piece is read, the rest of it stays.
  Result<std::string> back = source.TakeBack(l.tail.size() + 5);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, l.vector.substr(l.vector.size() - 5) + l.tail);
  EXPECT_EQ(source.size(), l.head.size() + l.vector.size() - 5);
  EXPECT_FALSE(source.TakeBack(source.size() + 1).ok());
  Result<std::string> joined = std::move(source).Join();
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, l.head + l.vector.substr(0, l.vector.size() - 5));
}

TEST(StateSource, JoinReadsEveryPieceInPlace) {
  const Layout l;
  FakePiece piece{l.vector, {}, Status::Ok()};
  StateSource source;
  source.AddBytes(l.head), source.AddPiece(l.vector.size(), piece.Fill()), source.AddBytes(l.tail);
  Result<std::string> joined = std::move(source).Join();
  ASSERT_TRUE(joined.ok());
  EXPECT_EQ(*joined, l.head + l.vector + l.tail);
  FakePiece bad{l.vector, {}, Status::Io("cannot read P")};
  StateSource failing;
  failing.AddBytes(l.head), failing.AddPiece(l.vector.size(), bad.Fill());
  EXPECT_EQ(std::move(failing).Join().status().code(), StatusCode::kIo);
}

}  // namespace state_source_test
}  // namespace seqflow
