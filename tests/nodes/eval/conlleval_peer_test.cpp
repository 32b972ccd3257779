// eval.segments against the reference scorer ../shared/bench/peers/conlleval.py (--json), on
// real gold files and seeded corruptions of them. Counts must be equal, P/R/F and accuracy
// agree to 4 decimals (conlleval reports percentages). Missing data or python3 fails the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/base/env.h"
#include "nodes/eval/segments.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/conll_writer.h"
#include "tests/nodes/eval/eval_fixtures.h"
#include "tests/testutil/conlleval.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace conlleval_peer_test {

using nlohmann::json;
using testutil::TagSeqs;

constexpr double kTolerance = 1e-4;  // percentage points

TagSeqs TagsOf(const Corpus& c) {
  TagSeqs out;
  for (const auto& s : c.sentences) {
    out.emplace_back();
    for (int32_t id : s.labels) out.back().push_back(c.label_names[id]);
  }
  return out;
}

// conlleval.py's JSON summary of a CoNLL text whose last two columns are gold and guess.
json RunConllevalOn(const std::string& text) {
  std::string dir = testutil::MakeTempDir("seqflow-conlleval");
  std::string path = dir + "/pairs.txt";
  std::ofstream(path) << text;
  json summary = testutil::ConllevalJson(path);
  std::filesystem::remove_all(dir);
  return summary;
}

// The same of "x GOLD PRED" lines, a blank line after each sentence.
json RunConlleval(const TagSeqs& gold, const TagSeqs& predicted) {
  std::string text;
  for (size_t s = 0; s < gold.size(); ++s) {
    for (size_t t = 0; t < gold[s].size(); ++t) text += "x " + gold[s][t] + ' ' + predicted[s][t] + '\n';
    text += '\n';
  }
  return RunConllevalOn(text);
}

// Compares everything conlleval reports; accuracy only where both count the same tags.
void ExpectAgrees(const SegmentScores& ours, const json& peer, bool compare_accuracy) {
  EXPECT_EQ(ours.total.gold, peer["gold_chunks"].get<int64_t>());
  EXPECT_EQ(ours.total.predicted, peer["found_chunks"].get<int64_t>());
  EXPECT_EQ(ours.total.correct, peer["correct_chunks"].get<int64_t>());
  std::map<std::string, double> metrics = SegmentMetrics(ours);
  EXPECT_NEAR(100 * metrics["precision"], peer["precision"].get<double>(), kTolerance);
  EXPECT_NEAR(100 * metrics["recall"], peer["recall"].get<double>(), kTolerance);
  EXPECT_NEAR(100 * metrics["f1"], peer["f1"].get<double>(), kTolerance);
  EXPECT_EQ(ours.tokens.tokens, peer["tokens"].get<int64_t>());
  if (compare_accuracy) {
    EXPECT_NEAR(100 * ours.tokens.accuracy(), peer["accuracy"].get<double>(), kTolerance);
  }
  size_t our_types = 0;
  for (size_t t = 1; t < ours.types.size(); ++t) {
    const ChunkCounts& c = ours.per_type[t];
    if (c.gold == 0 && c.predicted == 0) continue;
    ++our_types;
    ASSERT_TRUE(peer["per_type"].contains(ours.types[t])) << ours.types[t];
    const json& p = peer["per_type"][ours.types[t]];
    EXPECT_EQ(c.gold, p["gold"].get<int64_t>()) << ours.types[t];
    EXPECT_EQ(c.predicted, p["found"].get<int64_t>()) << ours.types[t];
    EXPECT_EQ(c.correct, p["correct"].get<int64_t>()) << ours.types[t];
    EXPECT_NEAR(100 * metrics["precision." + ours.types[t]], p["precision"].get<double>(), kTolerance) << ours.types[t];
    EXPECT_NEAR(100 * metrics["recall." + ours.types[t]], p["recall"].get<double>(), kTolerance) << ours.types[t];
    EXPECT_NEAR(100 * metrics["f1." + ours.types[t]], p["f1"].get<double>(), kTolerance) << ours.types[t];
  }
  EXPECT_EQ(our_types, peer["per_type"].size());
}

SegmentScores Ours(const Corpus& gold, const TagSeqs& predicted) {
  auto p = testutil::PredictionsOf(predicted, TagEncoding::kNone);
  Result<AlignedLabels> aligned = AlignLabels(gold, *p);
  EXPECT_TRUE(aligned.ok()) << aligned.status().ToString();
  Result<SegmentScores> scores = ScoreSegments(*aligned, gold.encoding);
  EXPECT_TRUE(scores.ok()) << scores.status().ToString();
  return *scores;
}

double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

// Each token is corrupted with probability `rate`: a random label (sometimes one the gold never
// uses), its B-/I- prefix flipped (making I- after O and IOB1-style starts), or O.
TagSeqs Corrupt(const TagSeqs& gold, std::vector<std::string> labels, double rate, uint64_t seed, bool prefixed) {
  std::mt19937_64 rng(seed);
  labels.push_back(prefixed ? "I-ZZZ" : "zzz");
  TagSeqs out = gold;
  for (auto& seq : out)
    for (auto& tag : seq) {
      if (Uniform(rng) >= rate) continue;
      uint64_t kind = prefixed ? rng() % 3 : 0;
      if (kind == 0) tag = labels[rng() % labels.size()];
      if (kind == 1 && tag.size() > 2) tag[0] = tag[0] == 'B' ? 'I' : 'B';
      if (kind == 2) tag = "O";
    }
  return out;
}

Corpus ReadGold(const std::string& relative, const ConllOptions& options) {
  std::string path = JoinPath(testutil::DataDir(), relative);
  Result<std::string> bytes = Env::Default()->ReadFile(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!bytes.ok()) return Corpus();
  Result<Corpus> c = ParseConll(*bytes, path, options);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : Corpus();
}

TEST(ConllevalPeer, Conll2000TestIob2) {
  Corpus gold = ReadGold("conll2000/test.txt", {});
  ASSERT_EQ(gold.sentences.size(), 2012u);
  TagSeqs tags = TagsOf(gold);
  ExpectAgrees(Ours(gold, tags), RunConlleval(tags, tags), true);
  uint64_t seed = 1;
  for (double rate : {0.02, 0.1, 0.3, 0.6}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    TagSeqs predicted = Corrupt(tags, gold.label_names, rate, seed++, true);
    ExpectAgrees(Ours(gold, predicted), RunConlleval(tags, predicted), true);
  }
}

TEST(ConllevalPeer, Conll2003TestaIob1) {
  ConllOptions o;
  o.columns = {"word", "POS", "chunk", "NE"};
  o.encoding = TagEncoding::kIob1;
  Corpus gold = ReadGold("conll2003_en/eng.testa", o);
  ASSERT_EQ(gold.sentences.size(), 3250u);
  TagSeqs tags = TagsOf(gold);
  uint64_t seed = 11;
  for (double rate : {0.0, 0.05, 0.2}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    TagSeqs predicted = Corrupt(tags, gold.label_names, rate, seed++, true);
    ExpectAgrees(Ours(gold, predicted), RunConlleval(tags, predicted), true);
  }
}

// write.conll's file (word, POS, gold, guess) is conlleval's input as it stands.
TEST(ConllevalPeer, WrittenConllFileScoresAlike) {
  Corpus gold = ReadGold("conll2000/test.txt", {});
  ASSERT_EQ(gold.columns.size(), 2u) << "word and POS besides the chunk labels";
  TagSeqs predicted = Corrupt(TagsOf(gold), gold.label_names, 0.1, 31, true);
  auto guess = testutil::PredictionsOf(predicted, TagEncoding::kIob2);
  Result<std::string> text = FormatConll(gold, {guess.get()}, ConllSeparator::kSpace);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ExpectAgrees(Ours(gold, predicted), RunConllevalOn(*text), true);
}

// Runs rewritten as IOB2 (B- at each run start) for conlleval.
TagSeqs RunsAsIob2(const TagSeqs& tags) {
  TagSeqs out = tags;
  for (size_t s = 0; s < tags.size(); ++s)
    for (size_t t = 0; t < tags[s].size(); ++t)
      out[s][t] = (t == 0 || tags[s][t - 1] != tags[s][t] ? "B-" : "I-") + tags[s][t];
  return out;
}

TEST(ConllevalPeer, CoraTestRuns) {
  ConllOptions o;
  o.encoding = TagEncoding::kRuns;
  Corpus gold = ReadGold("citations/cora.test", o);
  ASSERT_EQ(gold.sentences.size(), 100u);
  TagSeqs tags = TagsOf(gold);
  uint64_t seed = 21;
  for (double rate : {0.0, 0.05, 0.2, 0.5}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    TagSeqs predicted = Corrupt(tags, gold.label_names, rate, seed++, false);
    SegmentScores ours = Ours(gold, predicted);
    // conlleval's accuracy would count B-/I- of the rewritten tags; ours is label accuracy.
    ExpectAgrees(ours, RunConlleval(RunsAsIob2(tags), RunsAsIob2(predicted)), false);
    EXPECT_EQ(ours.tokens.tokens, 2204);
  }
}

// Short random sequences over every prefix the rules name and some they do not ('S', bare
// tags, an empty type), where conlleval's rules are least obvious.
TEST(ConllevalPeer, RandomOddTags) {
  const std::vector<std::string> alphabet = {"O",   "B-A", "I-A", "B-B", "I-B", "E-A", "E-B",
                                             "S-A", "X",   ".",   "[-A", "]-B", "I-",  "B-A-x"};
  std::mt19937_64 rng(42);
  TagSeqs gold_tags, predicted;
  for (int s = 0; s < 400; ++s) {
    size_t length = 1 + rng() % 8;
    gold_tags.emplace_back();
    predicted.emplace_back();
    for (size_t t = 0; t < length; ++t) {
      gold_tags.back().push_back(alphabet[rng() % alphabet.size()]);
      predicted.back().push_back(rng() % 3 == 0 ? alphabet[rng() % alphabet.size()] : gold_tags.back().back());
    }
  }
  auto gold = testutil::GoldCorpus(gold_tags, TagEncoding::kIob2);
  ExpectAgrees(Ours(*gold, predicted), RunConlleval(gold_tags, predicted), true);
}

}  // namespace conlleval_peer_test
}  // namespace seqflow
