// HybridModel (hybrid_model.h): the artifact's bit-exact round trip and its corruption checks
// (STYLE §8), the HMMs' symbol tables, the construction of a HybridCorpus from a Corpus, and
// decoding with the merged potentials — against a single CRF, and against enumeration of all
// K^T labellings of tiny sentences (STYLE §6).
#include "nodes/crf/hybrid_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "nodes/decode/decode_nodes.h"
#include "tests/nodes/crf/random_theta.h"

namespace seqflow {
namespace hybrid_model_test {

using testutil::RandomTheta;

using ::testing::HasSubstr;

const std::vector<std::string> kLabels = {"B", "I", "O"};
constexpr int kK = 3;

std::shared_ptr<Corpus> MakeCorpus(std::vector<Sentence> sentences, std::vector<std::string> label_names,
                                   std::string source) {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word", "pos"};
  c->label_names = std::move(label_names);
  c->source = std::move(source);
  c->sentences = std::move(sentences);
  return c;
}

// `n` sentences of length 0..max_len over a few words and tags (so unseen values occur when a
// dictionary was fitted on another seed), labelled at random with ids of `label_names` if any.
std::shared_ptr<Corpus> RandomCorpus(int n, int max_len, uint32_t seed, std::vector<std::string> label_names = {},
                                     std::string source = "mem://random") {
  static const std::vector<std::string> kWords = {"a", "b", "c", "d", "e"}, kTags = {"N", "V", "D"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> length(0, max_len), word(0, 4), tag(0, 2);
  std::uniform_int_distribution<int32_t> label(0, std::max<int32_t>(0, static_cast<int32_t>(label_names.size()) - 1));
  std::vector<Sentence> sentences;
  for (int s = 0; s < n; ++s) {
    Sentence sentence;
    sentence.cols.resize(2);
    for (int t = length(rng); t > 0; --t) {
      sentence.cols[0].push_back(kWords[word(rng)]);
      sentence.cols[1].push_back(kTags[tag(rng)]);
      if (!label_names.empty()) sentence.labels.push_back(label(rng));
    }
    sentences.push_back(std::move(sentence));
  }
  return MakeCorpus(std::move(sentences), std::move(label_names), std::move(source));
}

std::shared_ptr<FeatureDictionary> FitDictionary(std::vector<FeatureTemplate> templates, const Corpus& corpus,
                                                 int min_count = 1) {
  auto d = std::make_shared<FeatureDictionary>(ValueOrThrow(FeatureDictionary::Compile(std::move(templates), corpus.columns)));
  ThrowIfError(d->Fit(corpus, min_count));
  return d;
}

// A CRF with random weights. `dyadic`: multiples of 1/8 in [-2, 2], so every token score (a sum
// of a few of them) is exact in float and the hybrid's float storage loses nothing.
std::shared_ptr<CrfModel> RandomCrf(std::shared_ptr<const FeatureDictionary> dictionary, uint32_t seed, bool dyadic,
                                    std::vector<std::string> labels = kLabels) {
  auto m = std::make_shared<CrfModel>();
  m->label_names = std::move(labels);
  m->encoding = TagEncoding::kIob2;
  m->dictionary = std::move(dictionary);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> eighths(-16, 16);
  std::normal_distribution<double> normal(0, 1);
  m->weights.resize(m->layout().size());
  for (double& w : m->weights) w = dyadic ? eighths(rng) / 8.0 : normal(rng);
  return m;
}

// Two experts with different templates and two HMMs (word[0], pos[-1]) fitted on `fit_on`.
std::shared_ptr<HybridModel> RandomHybrid(const Corpus& fit_on, uint32_t seed) {
  auto m = std::make_shared<HybridModel>();
  m->label_names = kLabels;
  m->encoding = TagEncoding::kIob2;
  m->experts.push_back(RandomCrf(FitDictionary({{"w", "word[0]", "w"}, {"p", "pos[0]", "p"}}, fit_on), seed, false));
  m->experts.push_back(RandomCrf(
      FitDictionary({{"wb", "word[-1]|word[0]", "wb"}, {"pp", "pos[0]|pos[1]", "pp"}}, fit_on), seed + 1, false));
  m->symbols = GenerativeSymbols(FitDictionary({{"w", "word[0]", "w"}, {"pl", "pos[-1]", "pl"}}, fit_on));
  std::mt19937 rng(seed);
  m->theta = RandomTheta(m->symbols.vocabulary_sizes(), kK, rng);
  std::uniform_real_distribution<double> u(0.05, 1.0);
  m->gamma.resize(4);
  for (double& g : m->gamma) g = u(rng);
  return m;
}

std::string Bytes(const Artifact& a) {
  ByteWriter w;
  a.Save(w);
  return w.Take();
}

std::string DictionaryBytes(const FeatureDictionary& d) {
  ByteWriter w;
  d.Save(w);
  return w.Take();
}

template <class M>
bool SameBits(const M& a, const M& b) {
  // memcmp on the null data of an empty matrix is undefined (GCC then drops Eigen's null check).
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         (a.size() == 0 ||
          std::memcmp(a.data(), b.data(), sizeof(typename M::Scalar) * static_cast<size_t>(a.size())) == 0);
}

// The code HybridModel::Load throws on `bytes` (kOk when it loads).
StatusCode LoadCode(const std::string& bytes) {
  try {
    ByteReader r(bytes);
    HybridModel::Load(r);
  } catch (const StatusError& e) {
    return e.status().code();
  }
  return StatusCode::kOk;
}

// ---------------------------------------------------------------------------------------------
// Save / Load

TEST(HybridModelArtifact, RoundTripIsBitExact) {
  auto corpus = RandomCorpus(20, 6, 1, kLabels);
  auto model = RandomHybrid(*corpus, 7);
  model->theta.log_emission[1](0, 2) = kLogFloor;
  model->theta.log_initial[0](1) = std::nextafter(-1.0, 0.0);
  model->gamma << 0.0, 1.0, 0.1, std::nextafter(0.3, 1.0);
  const std::string bytes = Bytes(*model);
  ByteReader r(bytes);
  auto loaded = HybridModel::Load(r);
  EXPECT_TRUE(r.AtEnd());

  EXPECT_EQ(loaded->label_names, model->label_names);
  EXPECT_EQ(loaded->encoding, TagEncoding::kIob2);
  ASSERT_EQ(loaded->experts.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(loaded->experts[i]->label_names, kLabels);
    EXPECT_TRUE(SameBits(loaded->experts[i]->weights, model->experts[i]->weights)) << "expert " << i;
    EXPECT_EQ(DictionaryBytes(*loaded->experts[i]->dictionary), DictionaryBytes(*model->experts[i]->dictionary));
    EXPECT_EQ(Bytes(*loaded->experts[i]), Bytes(*model->experts[i]));
  }
  ASSERT_NE(loaded->symbols.dictionary(), nullptr);
  EXPECT_EQ(DictionaryBytes(*loaded->symbols.dictionary()), DictionaryBytes(*model->symbols.dictionary()));
  EXPECT_EQ(loaded->symbols.vocabulary_sizes(), model->symbols.vocabulary_sizes());
  ASSERT_EQ(loaded->theta.num_models(), 2);
  for (int j = 0; j < 2; ++j) {
    EXPECT_TRUE(SameBits(loaded->theta.log_initial[j], model->theta.log_initial[j])) << j;
    EXPECT_TRUE(SameBits(loaded->theta.log_transition[j], model->theta.log_transition[j])) << j;
    EXPECT_TRUE(SameBits(loaded->theta.log_emission[j], model->theta.log_emission[j])) << j;
  }
  EXPECT_TRUE(SameBits(loaded->gamma, model->gamma));
  EXPECT_EQ(Bytes(*loaded), bytes);
  EXPECT_EQ(loaded->Describe(), "hybrid of 2 CRFs and 2 HMMs over 3 labels");
  // The symbol tables rebuilt from the loaded dictionary give the same symbols.
  std::vector<int64_t> offsets{0};
  for (const Sentence& s : corpus->sentences) offsets.push_back(offsets.back() + static_cast<int64_t>(s.size()));
  EXPECT_EQ(ValueOrThrow(loaded->symbols.Symbols(*corpus, offsets, 1)), ValueOrThrow(model->symbols.Symbols(*corpus, offsets, 1)));
}

TEST(HybridModelArtifact, LopWithoutHmmsRoundTrips) {
  auto corpus = RandomCorpus(10, 5, 2, kLabels);
  auto model = std::make_shared<HybridModel>();
  model->label_names = kLabels;
  model->encoding = TagEncoding::kRuns;
  model->experts.push_back(RandomCrf(FitDictionary({{"w", "word[0]", "w"}}, *corpus), 3, false));
  model->experts.push_back(RandomCrf(FitDictionary({{"p", "pos[0]", "p"}}, *corpus), 4, false));
  model->gamma = Eigen::Vector2d(0.25, 0.75);
  const std::string bytes = Bytes(*model);
  ByteReader r(bytes);
  auto loaded = HybridModel::Load(r);
  EXPECT_EQ(loaded->encoding, TagEncoding::kRuns);
  EXPECT_EQ(loaded->symbols.dictionary(), nullptr);
  EXPECT_EQ(loaded->symbols.num_types(), 0);
  EXPECT_EQ(loaded->theta.num_models(), 0);
  EXPECT_TRUE(SameBits(loaded->gamma, model->gamma));
  EXPECT_EQ(Bytes(*loaded), bytes);
}

TEST(HybridModelArtifact, EveryTruncationThrowsCorruption) {
  auto model = RandomHybrid(*RandomCorpus(8, 4, 3, kLabels), 11);
  const std::string bytes = Bytes(*model);
  ASSERT_EQ(LoadCode(bytes), StatusCode::kOk);
  for (size_t length = 0; length < bytes.size(); ++length)
    ASSERT_EQ(LoadCode(bytes.substr(0, length)), StatusCode::kCorruption) << length << " of " << bytes.size();
}

TEST(HybridModelArtifact, InconsistentShapesThrowCorruption) {
  auto corpus = RandomCorpus(8, 4, 4, kLabels);
  for (const Eigen::Index size : {3, 5, 0}) {
    auto model = RandomHybrid(*corpus, 12);
    model->gamma = Eigen::VectorXd::Constant(size, 0.5);  // I + J = 4
    EXPECT_EQ(LoadCode(Bytes(*model)), StatusCode::kCorruption) << "gamma of length " << size;
  }
  {
    auto model = RandomHybrid(*corpus, 13);
    model->theta.log_emission[0].conservativeResize(model->theta.log_emission[0].rows() + 1, kK);
    EXPECT_EQ(LoadCode(Bytes(*model)), StatusCode::kCorruption) << "emission rows != V_j";
  }
  {
    auto model = RandomHybrid(*corpus, 14);
    model->theta.log_transition[1] = RowMatrixXd::Zero(kK, kK + 1);
    EXPECT_EQ(LoadCode(Bytes(*model)), StatusCode::kCorruption) << "transition not K x K";
  }
  {
    auto model = RandomHybrid(*corpus, 15);
    model->experts[1] = RandomCrf(model->experts[1]->dictionary, 1, false, {"B", "I", "O", "X"});
    EXPECT_EQ(LoadCode(Bytes(*model)), StatusCode::kCorruption) << "expert on other labels";
  }
}

// ---------------------------------------------------------------------------------------------
// GenerativeSymbols

// Symbol of template j's attribute `a`: 1 + its rank among the template's attributes by id.
int32_t ExpectedSymbol(const FeatureDictionary& d, int32_t a) {
  int32_t rank = 1;
  for (int32_t b = 0; b < a; ++b) rank += d.attribute_template(b) == d.attribute_template(a) ? 1 : 0;
  return rank;
}

std::vector<int64_t> OffsetsOf(const Corpus& corpus) {
  std::vector<int64_t> offsets{0};
  for (const Sentence& s : corpus.sentences) offsets.push_back(offsets.back() + static_cast<int64_t>(s.size()));
  return offsets;
}

const std::vector<FeatureTemplate> kSymbolTemplates = {
    {"w", "word[0]", "w"}, {"p", "pos[0]", "p"}, {"wl", "word[-1]", "wl"}};

std::shared_ptr<Corpus> HandCorpus() {
  return MakeCorpus({Sentence{{{"a", "b", "a"}, {"N", "V", "N"}}, {}}, Sentence{{{"c", "a"}, {"N", "N"}}, {}}}, {},
                    "mem://hand");
}

TEST(GenerativeSymbols, VocabularyIsOnePlusTheTemplatesAttributes) {
  auto dictionary = FitDictionary(kSymbolTemplates, *HandCorpus());
  const GenerativeSymbols symbols(dictionary);
  EXPECT_EQ(symbols.num_types(), 3);
  // w: a b c; p: N V; wl: _B-1 a b c.
  EXPECT_EQ(symbols.vocabulary_sizes(), (std::vector<int64_t>{4, 3, 5}));

  // The same on a larger dictionary with a count cut-off, counted from the dictionary itself.
  auto big = RandomCorpus(60, 8, 5);
  for (int min_count : {1, 3}) {
    auto d = FitDictionary(kSymbolTemplates, *big, min_count);
    std::vector<int64_t> expected(kSymbolTemplates.size(), 1);
    for (int32_t a = 0; a < d->num_attributes(); ++a) ++expected[d->attribute_template(a)];
    EXPECT_EQ(GenerativeSymbols(d).vocabulary_sizes(), expected) << "min_count " << min_count;
  }
}

TEST(GenerativeSymbols, KnownTokensFollowTheDictionaryOrder) {
  auto corpus = HandCorpus();
  const GenerativeSymbols symbols(FitDictionary(kSymbolTemplates, *corpus));
  RowMatrixXi expected(5, 3);
  expected << 1, 1, 1,  // a N _B-1
      2, 2, 2,          // b V a
      1, 1, 3,          // a N b
      3, 1, 1,          // c N _B-1
      1, 1, 4;          // a N c
  for (int threads : {1, 2}) EXPECT_EQ(ValueOrThrow(symbols.Symbols(*corpus, OffsetsOf(*corpus), threads)), expected);

  // Generally: each token's symbol for template j is the rank of its attribute of template j.
  auto big = RandomCorpus(80, 8, 6);
  auto d = FitDictionary(kSymbolTemplates, *big);
  const GenerativeSymbols general(d);
  const std::vector<int64_t> offsets = OffsetsOf(*big);
  const RowMatrixXi got = ValueOrThrow(general.Symbols(*big, offsets, 3));
  ASSERT_EQ(got.rows(), offsets.back());
  for (size_t n = 0; n < big->sentences.size(); ++n) {
    const SentenceFeatures f = ValueOrThrow(d->Extract(big->sentences[n]));
    for (int32_t t = 0; t < f.size(); ++t) {
      ASSERT_EQ(f.offsets[t + 1] - f.offsets[t], 3);  // every value was seen
      for (int32_t i = f.offsets[t]; i < f.offsets[t + 1]; ++i)
        EXPECT_EQ(got(offsets[n] + t, d->attribute_template(f.ids[i])), ExpectedSymbol(*d, f.ids[i]))
            << "sentence " << n << " token " << t;
    }
  }
}

// An HMM emits one symbol per token: a template with several values per token is refused by name.
TEST(GenerativeSymbols, MultiValuedTemplatesAreRefused) {
  auto corpus = HandCorpus();
  EXPECT_TRUE(GenerativeSymbols::CheckOneValuePerToken(*FitDictionary(kSymbolTemplates, *corpus)).ok());
  const Status refused = GenerativeSymbols::CheckOneValuePerToken(
      *FitDictionary({{"w", "word[0]", "w"}, {"g", "ngrams2(word[0])", "g"}}, *corpus));
  EXPECT_EQ(refused.code(), StatusCode::kInvalid);
  EXPECT_THAT(refused.message(), HasSubstr("'ngrams2(word[0])' has several values per token"));
}

TEST(GenerativeSymbols, UnknownValuesAreSymbolZero) {
  const GenerativeSymbols symbols(FitDictionary(kSymbolTemplates, *HandCorpus()));
  auto other = MakeCorpus({Sentence{{{"zzz", "b"}, {"N", "Q"}}, {}}}, {}, "mem://other");
  RowMatrixXi expected(2, 3);
  expected << 0, 1, 1,  // zzz N _B-1
      2, 0, 0;          // b Q zzz
  EXPECT_EQ(ValueOrThrow(symbols.Symbols(*other, OffsetsOf(*other), 1)), expected);
}

// ---------------------------------------------------------------------------------------------
// BuildHybridCorpus and CommonLabels

TEST(BuildHybridCorpus, ExpertScoresAreEachCrfsScoresInFloat) {
  auto corpus = RandomCorpus(150, 7, 8);  // > one parallel shard, with empty sentences
  auto model = RandomHybrid(*RandomCorpus(40, 7, 9), 21);
  for (int threads : {1, 3}) {
    const HybridCorpus data = ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabels, *corpus, false, threads));
    EXPECT_EQ(data.num_labels, kK);
    EXPECT_EQ(data.offsets, OffsetsOf(*corpus));
    EXPECT_TRUE(data.labels.empty());
    EXPECT_EQ(data.symbols, ValueOrThrow(model->symbols.Symbols(*corpus, data.offsets, 1)));
    ASSERT_EQ(data.expert_scores.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      ASSERT_EQ(data.expert_scores[i].rows(), data.num_tokens());
      ASSERT_EQ(data.expert_scores[i].cols(), kK);
      ThrowIfError(ForEachCrfScores(*model->experts[i], *corpus, 1, [&](size_t n, const RowMatrixXd& s) {
        const RowMatrixXf expected = s.cast<float>();
        EXPECT_TRUE(SameBits(RowMatrixXf(data.expert_scores[i].middleRows(data.offsets[n], s.rows())), expected))
            << "expert " << i << " sentence " << n;
      }));
    }
  }
}

TEST(BuildHybridCorpus, NoSymbolTypesGiveNoSymbolColumns) {
  auto corpus = RandomCorpus(10, 5, 10);
  auto model = RandomHybrid(*corpus, 22);
  const HybridCorpus data = ValueOrThrow(BuildHybridCorpus(model->experts, GenerativeSymbols(), kLabels, *corpus, false, 1));
  EXPECT_EQ(data.symbols.rows(), data.num_tokens());
  EXPECT_EQ(data.symbols.cols(), 0);
}

TEST(BuildHybridCorpus, LabelsAreMappedByName) {
  // The corpus orders its labels O, UNUSED, B, I; the experts B, I, O. A label no token uses may
  // be unknown to the experts.
  const std::vector<std::string> corpus_labels = {"O", "UNUSED", "B", "I"};
  auto corpus = MakeCorpus(
      {Sentence{{{"a", "b", "c"}, {"N", "V", "N"}}, {2, 3, 0}}, Sentence{{{}, {}}, {}}, Sentence{{{"d"}, {"D"}}, {0}}},
      corpus_labels, "mem://heldout");
  auto model = RandomHybrid(*corpus, 23);
  const HybridCorpus data = ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabels, *corpus, true, 2));
  EXPECT_EQ(data.labels, (std::vector<int32_t>{0, 1, 2, 2}));  // B I O | | O
  for (size_t n = 0, t = 0; n < corpus->sentences.size(); ++n)
    for (int32_t y : corpus->sentences[n].labels) EXPECT_EQ(kLabels[data.labels[t++]], corpus_labels[y]);
}

TEST(BuildHybridCorpus, UnknownLabelIsInvalidNamingTheCorpus) {
  auto corpus = MakeCorpus({Sentence{{{"a", "b"}, {"N", "V"}}, {0, 1}}, Sentence{{{"c"}, {"N"}}, {3}}},
                           {"B", "I", "O", "PER"}, "data/heldout.conll");
  auto model = RandomHybrid(*corpus, 24);
  try {
    ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabels, *corpus, true, 1));
    FAIL() << "an unknown label was accepted";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(e.status().message(), HasSubstr("data/heldout.conll"));
    EXPECT_THAT(e.status().message(), HasSubstr("PER"));
    EXPECT_THAT(e.status().message(), HasSubstr("sentence 2"));
  }
  // Unlabeled is fine for the same corpus, and asking labels of an unlabeled corpus names it.
  EXPECT_NO_THROW(ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabels, *corpus, false, 1)));
  auto unlabeled = RandomCorpus(3, 3, 11, {}, "data/raw.txt");
  try {
    ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, kLabels, *unlabeled, true, 1));
    FAIL() << "an unlabeled corpus was accepted as labeled";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(e.status().message(), HasSubstr("data/raw.txt"));
  }
}

StatusError CommonLabelsError(const std::vector<std::shared_ptr<const CrfModel>>& experts) {
  try {
    ValueOrThrow(CommonLabels(experts));
  } catch (const StatusError& e) {
    return e;
  }
  ADD_FAILURE() << "CommonLabels accepted the experts";
  return StatusError(Status::Internal("none"));
}

TEST(CommonLabels, RequiresOneLabelListForAllExperts) {
  auto corpus = RandomCorpus(10, 4, 12);
  auto dictionary = FitDictionary({{"w", "word[0]", "w"}}, *corpus);
  auto a = RandomCrf(dictionary, 1, false), b = RandomCrf(dictionary, 2, false);
  EXPECT_EQ(ValueOrThrow(CommonLabels({a, b})), kLabels);
  EXPECT_EQ(ValueOrThrow(CommonLabels({a})), kLabels);

  const StatusError more = CommonLabelsError({a, b, RandomCrf(dictionary, 3, false, {"B", "I", "O", "X"})});
  EXPECT_EQ(more.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(more.status().message(), HasSubstr("different label sets"));
  EXPECT_THAT(more.status().message(), HasSubstr("experts 1 and 3"));
  // The same names in another order would mix up label ids: rejected, not silently combined.
  EXPECT_EQ(CommonLabelsError({a, RandomCrf(dictionary, 4, false, {"O", "I", "B"})}).status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(CommonLabelsError({}).status().code(), StatusCode::kInvalid);
}

// ---------------------------------------------------------------------------------------------
// Decoding

std::shared_ptr<HybridModel> SingleExpertPool(std::shared_ptr<const CrfModel> crf) {
  auto m = std::make_shared<HybridModel>();
  m->label_names = crf->label_names;
  m->encoding = crf->encoding;
  m->experts = {std::move(crf)};
  m->gamma = Eigen::VectorXd::Ones(1);
  return m;
}

TEST(HybridDecode, OneExpertWithGammaOneDecodesExactlyLikeItsCrf) {
  auto corpus = RandomCorpus(120, 9, 13);
  auto crf = RandomCrf(FitDictionary({{"w", "word[0]", "w"}, {"pp", "pos[-1]|pos[0]", "pp"}}, *RandomCorpus(50, 9, 14)),
                       31, /*dyadic=*/true);
  auto pool = SingleExpertPool(crf);
  for (DecodeMethod method : {DecodeMethod::kViterbi, DecodeMethod::kSms}) {
    const Predictions want = ValueOrThrow(DecodeCorpus(*crf, *corpus, method, true, 1));
    const Predictions got = ValueOrThrow(DecodeCorpus(*pool, *corpus, method, true, 2));
    EXPECT_EQ(got.labels, want.labels);
    EXPECT_EQ(got.marginals, want.marginals);  // bit-identical: the scores are exact in float
    EXPECT_EQ(got.label_names, kLabels);
    EXPECT_EQ(got.encoding, TagEncoding::kIob2);
  }
}

TEST(HybridDecode, OneExpertWithRealWeightsDiffersOnlyByFloatScores) {
  // Expert scores are stored in single precision (HybridCorpus::expert_scores), so with arbitrary
  // weights the pool's posteriors agree with the CRF's to float precision, not bit for bit.
  auto corpus = RandomCorpus(120, 9, 15);
  auto crf = RandomCrf(FitDictionary({{"w", "word[0]", "w"}, {"p", "pos[0]", "p"}}, *corpus), 32, false);
  auto pool = SingleExpertPool(crf);
  EXPECT_EQ(ValueOrThrow(DecodeCorpus(*pool, *corpus, DecodeMethod::kViterbi, false, 1)).labels,
            ValueOrThrow(DecodeCorpus(*crf, *corpus, DecodeMethod::kViterbi, false, 1)).labels);
  const Predictions want = ValueOrThrow(DecodeCorpus(*crf, *corpus, DecodeMethod::kSms, true, 1));
  const Predictions got = ValueOrThrow(DecodeCorpus(*pool, *corpus, DecodeMethod::kSms, true, 1));
  EXPECT_EQ(got.labels, want.labels);
  ASSERT_EQ(got.marginals.size(), want.marginals.size());
  for (size_t n = 0; n < got.marginals.size(); ++n) {
    ASSERT_EQ(got.marginals[n].size(), want.marginals[n].size());
    for (size_t c = 0; c < got.marginals[n].size(); ++c) EXPECT_NEAR(got.marginals[n][c], want.marginals[n][c], 1e-5);
  }
}

// The merged log-potential of labelling y of `sentence`, from the raw parameters: expert scores
// Σ_a W_i(a, y_t) over the token's attributes (stored in float, as the contract says), the HMMs'
// log π, log θ(y→y') and log θ(y→x) with symbols from the dictionary's attribute order.
double MergedScore(const HybridModel& m, const Sentence& sentence, const std::vector<int32_t>& y) {
  const Eigen::Index experts = static_cast<Eigen::Index>(m.experts.size());
  double total = 0;
  for (Eigen::Index i = 0; i < experts; ++i) {
    const CrfModel& crf = *m.experts[i];
    const SentenceFeatures f = ValueOrThrow(crf.dictionary->Extract(sentence));
    for (int32_t t = 0; t < f.size(); ++t) {
      double s = 0;
      for (int32_t c = f.offsets[t]; c < f.offsets[t + 1]; ++c) s += crf.weights[f.ids[c] * kK + y[t]];
      total += m.gamma[i] * static_cast<double>(static_cast<float>(s));
      if (t > 0) total += m.gamma[i] * crf.weights[crf.layout().transition_offset() + y[t - 1] * kK + y[t]];
    }
  }
  const FeatureDictionary& d = *m.symbols.dictionary();
  const SentenceFeatures f = ValueOrThrow(d.Extract(sentence));
  for (int j = 0; j < m.theta.num_models(); ++j) {
    const double g = m.gamma[experts + j];
    for (int32_t t = 0; t < f.size(); ++t) {
      int32_t symbol = 0;
      for (int32_t c = f.offsets[t]; c < f.offsets[t + 1]; ++c)
        if (d.attribute_template(f.ids[c]) == j) symbol = ExpectedSymbol(d, f.ids[c]);
      total += g * m.theta.log_emission[j](symbol, y[t]);
      total += g * (t == 0 ? m.theta.log_initial[j](y[0]) : m.theta.log_transition[j](y[t - 1], y[t]));
    }
  }
  return total;
}

bool NextLabelling(std::vector<int32_t>& y) {
  for (size_t t = y.size(); t-- > 0;) {
    if (++y[t] < kK) return true;
    y[t] = 0;
  }
  return false;
}

TEST(HybridDecode, ViterbiAndPosteriorsAgreeWithEnumeration) {
  auto corpus = RandomCorpus(60, 4, 16);  // unseen values too: the model is fitted on another corpus
  auto model = RandomHybrid(*RandomCorpus(30, 4, 17), 41);
  const Predictions viterbi = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kViterbi, false, 1));
  const Predictions sms = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kSms, true, 1));
  ASSERT_EQ(viterbi.labels.size(), corpus->sentences.size());
  int checked = 0;
  for (size_t n = 0; n < corpus->sentences.size(); ++n) {
    const Sentence& sentence = corpus->sentences[n];
    const size_t length = sentence.size();
    if (length == 0) {
      EXPECT_TRUE(viterbi.labels[n].empty());
      continue;
    }
    std::vector<int32_t> y(length, 0), best;
    double best_score = -std::numeric_limits<double>::infinity(), second = best_score, z = 0;
    std::vector<std::pair<std::vector<int32_t>, double>> all;
    do {
      const double score = MergedScore(*model, sentence, y);
      all.emplace_back(y, score);
      if (score > best_score) {
        second = best_score;
        best_score = score;
        best = y;
      } else {
        second = std::max(second, score);
      }
    } while (NextLabelling(y));
    ASSERT_EQ(viterbi.labels[n].size(), length);
    const double decoded = MergedScore(*model, sentence, viterbi.labels[n]);
    EXPECT_GE(decoded, best_score - 1e-9 * std::abs(best_score)) << "sentence " << n;
    if (best_score - second > 1e-6) {
      EXPECT_EQ(viterbi.labels[n], best) << "sentence " << n;
    }

    RowMatrixXd marginals = RowMatrixXd::Zero(static_cast<Eigen::Index>(length), kK);
    for (const auto& [labels, score] : all) {
      const double p = std::exp(score - best_score);
      z += p;
      for (size_t t = 0; t < length; ++t) marginals(static_cast<Eigen::Index>(t), labels[t]) += p;
    }
    marginals /= z;
    ASSERT_EQ(sms.marginals[n].size(), length * kK);
    for (size_t c = 0; c < sms.marginals[n].size(); ++c)
      EXPECT_NEAR(sms.marginals[n][c], marginals.data()[c], 1e-10) << "sentence " << n;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

TEST(HybridDecode, InterfaceAndThreadCountDoNotChangeResults) {
  auto corpus = RandomCorpus(300, 12, 18);
  auto model = RandomHybrid(*corpus, 42);
  for (DecodeMethod method : {DecodeMethod::kViterbi, DecodeMethod::kSms}) {
    const Predictions one = ValueOrThrow(DecodeCorpus(*model, *corpus, method, true, 1));
    const ChainModel& chain_model = *model;
    const Predictions dispatched = ValueOrThrow(DecodeCorpus(chain_model, *corpus, method, true, 3));
    EXPECT_EQ(dispatched.labels, one.labels);
    EXPECT_EQ(dispatched.marginals, one.marginals);
  }
}

}  // namespace hybrid_model_test
}  // namespace seqflow
