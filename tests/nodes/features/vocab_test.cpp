#include "nodes/features/vocab.h"

#include <gtest/gtest.h>

#include "nodes/features/features_nodes.h"
#include "nodes/features/unknown_words.h"
#include "nodes/features/vocab_builder.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace vocab_test {

Corpus WordsCorpus(std::vector<std::vector<std::string>> sentences) {
  Corpus c;
  c.columns = {"word"};
  for (auto& words : sentences) c.sentences.push_back(Sentence{{std::move(words)}, {}});
  return c;
}

std::string Bytes(const Vocab& v) {
  ByteWriter w;
  v.Save(w);
  return w.Take();
}

TEST(Vocab, KnownWordsThenUnknownClasses) {
  Vocab v({"cat", "the"}, UnknownScheme::kShape, false);
  const int32_t classes = static_cast<int32_t>(UnknownClassNames(UnknownScheme::kShape).size());
  EXPECT_EQ(v.num_known(), 2);
  EXPECT_EQ(v.size(), 2 + classes);
  EXPECT_EQ(v.Id("cat"), 0);
  EXPECT_EQ(v.Id("the"), 1);
  EXPECT_EQ(v.Name(v.Id("Haffari")), "<UNK-Xx>");
  EXPECT_EQ(v.Name(v.Id("The")), "<UNK-Xx>");  // case-sensitive without lowercase
  EXPECT_EQ(v.Name(v.Id("1994")), "<UNK-4digits>");
  EXPECT_EQ(v.Ids({"the", "cat", "dogs"}), (std::vector<int32_t>{1, 0, v.Id("dogs")}));
  EXPECT_EQ(v.Name(v.Id("dogs")), "<UNK-x-s>");
  EXPECT_THROW(v.Name(v.size()), StatusError);
}

TEST(Vocab, LowercaseLooksUpLowercasedButClassifiesTheOriginal) {
  Vocab v({"caf\xC3\xA9", "the"}, UnknownScheme::kShape, true);
  EXPECT_EQ(v.Id("The"), 1);
  EXPECT_EQ(v.Id("CAF\xC3\x89"), 0);
  EXPECT_EQ(v.Name(v.Id("Haffari")), "<UNK-Xx>");
}

TEST(Vocab, SingleScheme) {
  Vocab v({"a"}, UnknownScheme::kSingle, false);
  EXPECT_EQ(v.size(), 2);
  EXPECT_EQ(v.Id("b"), 1);
  EXPECT_EQ(v.Name(1), "<UNK>");
  EXPECT_EQ(v.Describe(), "1 words + 1 unknown classes (single)");
}

TEST(Vocab, RoundTripIsExact) {
  for (UnknownScheme scheme : {UnknownScheme::kSingle, UnknownScheme::kShape}) {
    Vocab v({"\xC3\xA9t\xC3\xA9", "a", "b"}, scheme, scheme == UnknownScheme::kShape);
    std::string bytes = Bytes(v);
    ByteReader r(bytes);
    auto back = Vocab::Load(r);
    EXPECT_EQ(back->words(), v.words());
    EXPECT_EQ(back->unknown_classes(), v.unknown_classes());
    EXPECT_EQ(back->scheme(), scheme);
    EXPECT_EQ(back->lowercase(), v.lowercase());
    EXPECT_EQ(back->Id("b"), 2);
    EXPECT_EQ(Bytes(*back), bytes);
  }
}

TEST(Vocab, LoadRejectsDamage) {
  std::string bytes = Bytes(Vocab({"a", "b"}, UnknownScheme::kShape, false));
  ByteReader truncated(std::string_view(bytes).substr(0, bytes.size() - 3));
  EXPECT_THROW(Vocab::Load(truncated), StatusError);

  ByteWriter w;  // a vocabulary saved by a build with other unknown classes
  w.U8(static_cast<uint8_t>(UnknownScheme::kSingle));
  w.U8(0);
  w.Strs({"a"});
  w.Strs({"<UNK-old>"});
  std::string stale = w.Take();
  ByteReader r(stale);
  try {
    Vocab::Load(r);
    FAIL() << "loaded";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().message(), "Vocab: unknown-word classes differ from this build's");
  }
}

TEST(VocabBuilder, MinCountOverAllCorpora) {
  Corpus a = WordsCorpus({{"the", "cat", "The"}, {"a", "cat"}});
  Corpus b = WordsCorpus({{"the", "dog"}});
  EXPECT_EQ(KnownWords({&a, &b}, 1, false), (std::vector<std::string>{"The", "a", "cat", "dog", "the"}));
  EXPECT_EQ(KnownWords({&a, &b}, 2, false), (std::vector<std::string>{"cat", "the"}));
  EXPECT_EQ(KnownWords({&a, &b}, 3, true), (std::vector<std::string>{"the"}));
  EXPECT_EQ(KnownWords({&a}, 2, false), (std::vector<std::string>{"cat"}));

  Vocab v = BuildVocab({&a, &b}, {2, UnknownScheme::kSingle, false});
  EXPECT_EQ(v.Id("dog"), 2);  // seen once: below min_count, so the unknown class
  EXPECT_EQ(v.Id("cat"), 0);
}

TEST(VocabNode, CountsEveryInput) {
  Registry registry;
  RegisterFeaturesNodes(registry);
  EXPECT_TRUE(registry.HasArtifactType("Vocab"));
  const KindSpec* kind = registry.FindKind("features.vocab");
  ASSERT_NE(kind, nullptr);
  EXPECT_TRUE(kind->FindPort("data")->list);

  testutil::FakeNodeContext ctx(*kind, {{"min_count", int64_t{2}}, {"lowercase", true}});
  ctx.AddInput("data", std::make_shared<Corpus>(WordsCorpus({{"The", "cat"}})));
  ctx.AddInput("data", std::make_shared<Corpus>(WordsCorpus({{"the", "dog"}})));
  auto vocab = std::dynamic_pointer_cast<const Vocab>(kind->run(ctx));
  ASSERT_NE(vocab, nullptr);
  EXPECT_EQ(vocab->words(), (std::vector<std::string>{"the"}));
  EXPECT_EQ(vocab->scheme(), UnknownScheme::kShape);
  EXPECT_EQ(ctx.metrics().at("known_words"), 1);
}

}  // namespace vocab_test
}  // namespace seqflow
