// StateTable: the bytes are the fields' in declaration order (so a table reproduces a format
// written by hand), a state reads back to the same values from a string or a StateSource, and a
// state that does not fit — another run's value, a wrong count, a failed check, bytes missing or
// left over — is Status::Invalid.
#include "nodes/common/state_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace state_table_test {

struct Row {
  int index = 0;
  double value = 0;
};

struct State {
  int64_t steps = 0;
  bool flag = false;
  double objective = 0;
  std::vector<double> trace;
  Eigen::VectorXd tangent;
  Eigen::MatrixXd table = Eigen::MatrixXd::Zero(2, 3);
  std::vector<Row> rows;
  std::string name;
  double extra = 0;  // written only when flag is set
};

StateTable<Row> RowTable() { return StateTable<Row>("toy").I64(&Row::index).F64(&Row::value); }

StateTable<State> Table(int64_t shape = 7) {
  return StateTable<State>("toy")
      .Tag(0x1122334455667788)
      .Fits(shape)
      .I64(&State::steps)
      .U8(&State::flag)
      .F64(&State::objective)
      .Doubles(&State::trace)
      .Doubles(&State::tangent)
      .DoublesInPlace(&State::table)
      .Records(&State::rows, RowTable(), {.min = 1, .max = 10})
      .Check([](const State& s) { return s.rows.size() == static_cast<size_t>(s.steps); })
      .Str(&State::name)
      .When([](const State& s) { return s.flag; }, StateTable<State>("toy").F64(&State::extra));
}

State Example() {
  State s;
  s.steps = 2;
  s.flag = true;
  s.objective = -1.5;
  s.trace = {3, 2.5};
  s.tangent = Eigen::Vector2d(0.6, 0.8);
  s.table << 1, 2, 3, 4, 5, 6;
  s.rows = {{1, 0.25}, {2, 0.5}};
  s.name = "em";
  s.extra = 9;
  return s;
}

TEST(StateTable, WritesTheFieldsInDeclarationOrder) {
  const State s = Example();
  ByteWriter w;
  w.U64(0x1122334455667788), w.I64(7), w.I64(2), w.U8(1), w.F64(-1.5);
  w.F64s(s.trace.data(), 2), w.F64s(s.tangent.data(), 2), w.F64s(s.table.data(), 6);
  w.U64(2), w.I64(1), w.F64(0.25), w.I64(2), w.F64(0.5);
  w.Str("em"), w.F64(9);
  EXPECT_EQ(Table().Encode(s).Join(), w.Take());
}

void ExpectSame(const State& a, const State& b) {
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.flag, b.flag);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.tangent, b.tangent);
  EXPECT_EQ(a.table, b.table);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].index, b.rows[i].index);
    EXPECT_EQ(a.rows[i].value, b.rows[i].value);
  }
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.extra, b.extra);
}

TEST(StateTable, ReadsBackWhatItWroteFromBytesOrPieces) {
  const State s = Example();
  const std::string bytes = Table().Encode(s).Join();
  State from_bytes;
  ASSERT_OK(Table().Decode(bytes, from_bytes));
  ExpectSame(from_bytes, s);
  StateSource source(bytes);
  State from_source;
  ASSERT_OK(Table().Decode(source, from_source));
  ExpectSame(from_source, s);
  // Without the flag the optional field is neither written nor read.
  State plain = Example();
  plain.flag = false;
  State read;
  ASSERT_OK(Table().Decode(Table().Encode(plain).Join(), read));
  EXPECT_EQ(read.extra, 0);
}

TEST(StateTable, InPlaceValuesAreViewsOfTheMember) {
  const State s = Example();
  StatePieces pieces = Table().Encode(s);
  bool viewed = false;
  for (const StatePieces::Piece& piece : pieces.Pieces())
    viewed = viewed || piece.bytes.data() == reinterpret_cast<const char*>(s.table.data());
  EXPECT_TRUE(viewed) << "the table's values are written from where they live";
}

TEST(StateTable, AStateThatDoesNotFitIsInvalid) {
  const std::string bytes = Table().Encode(Example()).Join();
  auto invalid = [](const StateTable<State>& table, const std::string& b, State into = {}) {
    const Status s = table.Decode(b, into);
    EXPECT_EQ(s.code(), StatusCode::kInvalid) << s.ToString();
  };
  invalid(Table(8), bytes);  // another run's value
  State wide;
  wide.table = Eigen::MatrixXd::Zero(3, 3);
  invalid(Table(), bytes, wide);                             // a table of another shape
  invalid(Table(), bytes.substr(0, bytes.size() - 1));       // bytes missing
  invalid(Table(), bytes + "x");                             // bytes left over
  invalid(Table(), std::string(8, '\0') + bytes.substr(8));  // another format
  State one_row = Example();
  one_row.rows.pop_back();
  invalid(Table(), Table().Encode(one_row).Join());  // the check fails
  State none = Example();
  none.rows.clear();
  none.steps = 0;
  invalid(Table(), Table().Encode(none).Join());  // below the records' minimum
}

}  // namespace state_table_test
}  // namespace seqflow
