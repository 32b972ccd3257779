#include "nodes/features/attribute_index.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>

namespace seqflow {
namespace attribute_index_test {

TEST(AttributeIndex, EmptyFindsNothing) {
  AttributeIndex index;
  EXPECT_EQ(index.size(), 0);
  EXPECT_EQ(index.Find("a"), -1);
}

TEST(AttributeIndex, IdsInInsertionOrderThroughManyGrowths) {
  AttributeIndex index;
  std::unordered_map<std::string, int32_t> oracle;
  for (int i = 0; i < 20000; ++i) {
    // Repeats and the empty key too: every third key was inserted before.
    const std::string key = i % 3 == 0 ? std::to_string(i / 3) : std::to_string(i) + "|x";
    auto [id, added] = index.Insert(key);
    auto [it, oracle_added] = oracle.try_emplace(key, static_cast<int32_t>(oracle.size()));
    ASSERT_EQ(added, oracle_added) << key;
    ASSERT_EQ(id, it->second) << key;
  }
  EXPECT_EQ(index.size(), static_cast<int32_t>(oracle.size()));
  for (const auto& [key, id] : oracle) {
    EXPECT_EQ(index.Find(key), id);
    EXPECT_EQ(index.key(id), key);
  }
  EXPECT_EQ(index.Find("missing"), -1);
  const auto [empty_id, added] = index.Insert("");
  EXPECT_TRUE(added);
  EXPECT_EQ(index.Find(""), empty_id);
}

}  // namespace attribute_index_test
}  // namespace seqflow
