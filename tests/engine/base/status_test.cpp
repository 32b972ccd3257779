#include "engine/base/status.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace status_test {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_TRUE(s.Annotate("context").ok());
}

TEST(StatusTest, CarriesCodeMessageAndPlace) {
  Status s = Status::Invalid("expected a number", SourceLoc{"p.yaml", 14, 11});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.message(), "expected a number");
  EXPECT_EQ(s.loc().line, 14);
  EXPECT_EQ(s.ToString(), "p.yaml:14:11: expected a number");
  EXPECT_EQ(Status::Io("disk").ToString(), "disk");
  EXPECT_EQ(Status::Cancelled("stop").code(), StatusCode::kCancelled);
  EXPECT_STREQ(StatusCodeName(StatusCode::kCorruption), "corruption");
}

TEST(StatusTest, SourceLocPrintsWhatIsKnown) {
  EXPECT_EQ((SourceLoc{"f.yaml", 3, 4}).ToString(), "f.yaml:3:4");
  EXPECT_EQ((SourceLoc{"f.yaml", 3, 0}).ToString(), "f.yaml:3");
  EXPECT_EQ((SourceLoc{"f.yaml", 0, 0}).ToString(), "f.yaml");
  EXPECT_EQ(SourceLoc{}.ToString(), "");
  EXPECT_FALSE(SourceLoc{}.known());
}

TEST(StatusTest, AnnotatePrefixesAndKeepsCodeAndPlace) {
  Status s = Status::Numerical("diverged", SourceLoc{"p.yaml", 2, 1}).Annotate("node 'em' (hmm.em)");
  EXPECT_EQ(s.code(), StatusCode::kNumerical);
  EXPECT_EQ(s.message(), "node 'em' (hmm.em): diverged");
  EXPECT_EQ(s.loc().file, "p.yaml");
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::Invalid(std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  SEQFLOW_ASSIGN_OR_RETURN(int half, Half(x));
  return Half(half);
}

Status CheckEven(int x) {
  SEQFLOW_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(ResultTest, ValueOrStatusAndPropagation) {
  Result<int> q = Quarter(8);
  ASSERT_OK(q);
  EXPECT_EQ(*q, 2);
  Result<int> bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "3 is odd");
  EXPECT_OK(CheckEven(4));
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalid);
}

TEST(ResultTest, ThrowHelpersRoundTripTheStatus) {
  EXPECT_EQ(ValueOrThrow(Half(4)), 2);
  try {
    ValueOrThrow(Half(3));
    FAIL() << "no throw";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_STREQ(e.what(), "3 is odd");
  }
  EXPECT_NO_THROW(ThrowIfError(Status::Ok()));
  EXPECT_THROW(ThrowIfError(Status::Internal("x")), StatusError);
}

}  // namespace status_test
}  // namespace seqflow
