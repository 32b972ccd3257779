// gtest helpers for Status / Result<T>.
#pragma once

#include <gtest/gtest.h>

#include "engine/base/status.h"

#define ASSERT_OK(expr)                                      \
  do {                                                       \
    const auto& seqflow_s_ = (expr);                         \
    ASSERT_TRUE(::seqflow::testutil::IsOk(seqflow_s_))       \
        << ::seqflow::testutil::StatusText(seqflow_s_);      \
  } while (0)
#define EXPECT_OK(expr) EXPECT_TRUE(::seqflow::testutil::IsOk(expr)) << ::seqflow::testutil::StatusText(expr)

namespace seqflow::testutil {

inline bool IsOk(const Status& s) { return s.ok(); }
template <class T>
bool IsOk(const Result<T>& r) {
  return r.ok();
}
inline std::string StatusText(const Status& s) { return s.ToString(); }
template <class T>
std::string StatusText(const Result<T>& r) {
  return r.status().ToString();
}

// The project root (SEQFLOW_SOURCE_DIR, set by ctest) and the data root (SEQFLOW_DATA, else
// <root>/../shared/data). Tests on real data fail, never skip, when it is missing.
std::string SourceDir();
std::string DataDir();
// A fresh empty directory under the system temp dir, unique per call; removed with everything in it
// when the test binary exits (SEQFLOW_KEEP_TEST_DIRS=1 keeps it).
std::string MakeTempDir(const std::string& prefix);

}  // namespace seqflow::testutil
