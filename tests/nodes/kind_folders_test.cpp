// A kind lives in the folder its name says: the part of its name before the first dot is its
// folder under nodes/ (hmm.em in nodes/hmm/), and the kinds that read, write, split, join or draw
// corpora (read.*, write.*, split, split.*, concat, draw) live in nodes/io/. The folder is the one
// of the file that calls Registry::AddKind.
#include <gtest/gtest.h>

#include <string>

#include "nodes/registry.h"

namespace seqflow {
namespace kind_folders_test {

std::string FolderOf(const std::string& kind) {
  const std::string prefix = kind.substr(0, kind.find('.'));
  if (prefix == "read" || prefix == "write" || prefix == "split" || prefix == "concat" || prefix == "draw") return "io";
  return prefix;
}

TEST(KindFolders, EveryKindIsRegisteredInTheFolderItsNameSays) {
  Registry registry;
  RegisterAllNodes(registry);
  ASSERT_GT(registry.Kinds().size(), 40u);
  for (const KindSpec* kind : registry.Kinds()) {
    const std::string file(registry.RegisteredIn(kind->name));
    const std::string folder = "nodes/" + FolderOf(kind->name) + "/";
    EXPECT_NE(file.find(folder), std::string::npos)
        << kind->name << " is registered in " << file << ", outside " << folder;
  }
}

TEST(KindFolders, IoHoldsTheKindsThatMoveCorporaInAndOut) {
  EXPECT_EQ(FolderOf("read.conll"), "io");
  EXPECT_EQ(FolderOf("write.conll"), "io");
  EXPECT_EQ(FolderOf("split.classes"), "io");
  EXPECT_EQ(FolderOf("draw"), "io");
  EXPECT_EQ(FolderOf("hmm.em"), "hmm");
  EXPECT_EQ(FolderOf("features.cca"), "features");
}

}  // namespace kind_folders_test
}  // namespace seqflow
