#include "nodes/io/corpus.h"

#include <gtest/gtest.h>

#include "nodes/io/tags.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace corpus_test {

Corpus SmallCorpus() {
  Corpus c;
  c.columns = {"word", "POS"};
  c.label_names = {"B-NP", "I-NP", "O"};
  c.encoding = TagEncoding::kIob1;
  c.source = "small.conll";
  c.sentences.push_back(Sentence{{{"The", "caf\xC3\xA9"}, {"DT", "NN"}}, {0, 1}});
  c.sentences.push_back(Sentence{{{}, {}}, {}});
  c.sentences.push_back(Sentence{{{"."}, {"."}}, {2}});
  return c;
}

std::string Bytes(const Artifact& a) {
  ByteWriter w;
  a.Save(w);
  return w.Take();
}

TEST(Corpus, RoundTripIsExact) {
  Corpus c = SmallCorpus();
  std::string bytes = Bytes(c);
  ByteReader r(bytes);
  auto back = Corpus::Load(r);
  EXPECT_EQ(back->columns, c.columns);
  EXPECT_EQ(back->label_names, c.label_names);
  EXPECT_EQ(back->encoding, TagEncoding::kIob1);
  EXPECT_EQ(back->source, "small.conll");
  ASSERT_EQ(back->sentences.size(), 3u);
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(back->sentences[s].cols, c.sentences[s].cols);
    EXPECT_EQ(back->sentences[s].labels, c.sentences[s].labels);
  }
  EXPECT_EQ(Bytes(*back), bytes);
}

TEST(Corpus, UnlabeledRoundTrip) {
  Corpus c;
  c.columns = {"word"};
  c.sentences.push_back(Sentence{{{"a", "b"}}, {}});
  std::string bytes = Bytes(c);
  ByteReader r(bytes);
  auto back = Corpus::Load(r);
  EXPECT_FALSE(back->labeled());
  EXPECT_EQ(Bytes(*back), bytes);
}

TEST(Corpus, LoadRejectsDamage) {
  std::string bytes = Bytes(SmallCorpus());
  for (size_t cut : {size_t{0}, size_t{9}, bytes.size() / 2, bytes.size() - 1}) {
    ByteReader r(std::string_view(bytes).substr(0, cut));
    EXPECT_THROW(Corpus::Load(r), StatusError) << "cut at " << cut;
  }
  std::string extra = bytes + "x";
  ByteReader r(extra);
  EXPECT_THROW(Corpus::Load(r), StatusError);
}

TEST(Corpus, LoadRejectsLabelIdOutOfRange) {
  Corpus c = SmallCorpus();
  c.sentences[0].labels[1] = 3;
  std::string bytes = Bytes(c);
  ByteReader r(bytes);
  try {
    Corpus::Load(r);
    FAIL() << "loaded";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().ToString(), "Corpus: label id 3 out of range");
    EXPECT_EQ(e.status().code(), StatusCode::kCorruption);
  }
}

TEST(Corpus, Lookups) {
  Corpus c = SmallCorpus();
  EXPECT_EQ(c.ColumnIndex("POS"), 1);
  EXPECT_EQ(c.ColumnIndex("chunk"), -1);
  EXPECT_EQ(c.LabelId("O"), 2);
  EXPECT_EQ(c.LabelId("B-VP"), -1);
  EXPECT_EQ(c.num_tokens(), 3u);
  EXPECT_EQ(c.Describe(), "3 sentences, 3 tokens, 3 labels (iob1) from small.conll");
}

TEST(Tags, ProblemsByEncoding) {
  EXPECT_EQ(TagProblem("B-NP", TagEncoding::kIob2), "");
  EXPECT_EQ(TagProblem("I-foo-bar", TagEncoding::kIob1), "");
  EXPECT_EQ(TagProblem("O", TagEncoding::kIob1), "");
  EXPECT_EQ(TagProblem("I-", TagEncoding::kIob1), "invalid tag 'I-' for encoding iob1 (expected O, B-TYPE or I-TYPE)");
  EXPECT_EQ(TagProblem("E-NP", TagEncoding::kIob2),
            "invalid tag 'E-NP' for encoding iob2 (expected O, B-TYPE or I-TYPE)");
  EXPECT_EQ(TagProblem("anything", TagEncoding::kRuns), "");
}

}  // namespace corpus_test
}  // namespace seqflow
