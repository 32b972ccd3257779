// Feature templates on CoNLL-2000 train (under DataDir()). Missing data fails this test.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/base/env.h"
#include "nodes/features/feature_templates.h"
#include "nodes/io/conll_reader.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace feature_templates_real_data_test {

// CRF++, CRFsuite (dense) and Wapiti report 7,448,606 features on this file with chunk.tpl:
// attributes x 22 labels + 22 x 22 label bigrams, so 338,551 attributes, padding included.
constexpr int32_t kPeerAttributes = (7448606 - 22 * 22) / 22;

TEST(FeatureTemplatesRealData, StandardChunkingOnConll2000TrainMatchesThePeers) {
  const std::string path = JoinPath(testutil::DataDir(), "conll2000/train.txt");
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  ASSERT_OK(bytes);
  ConllOptions options;
  options.columns = {"word", "pos", "chunk"};
  Result<Corpus> corpus = ParseConll(*bytes, path, options);
  ASSERT_OK(corpus);
  ASSERT_EQ(corpus->label_names.size(), 22u);

  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), corpus->columns));
  ThrowIfError(dict.Fit(*corpus, 1));
  std::printf("standard_chunking on CoNLL-2000 train: %d attributes\n", dict.num_attributes());
  EXPECT_EQ(dict.num_attributes(), kPeerAttributes);

  std::vector<SentenceFeatures> features = ValueOrThrow(dict.ExtractCorpus(*corpus, 2));
  size_t ids = 0;
  for (const SentenceFeatures& f : features) ids += f.ids.size();
  EXPECT_EQ(ids, 211727u * 19u);  // every attribute of the fitted corpus is known
}

}  // namespace feature_templates_real_data_test
}  // namespace seqflow
