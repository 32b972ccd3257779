// The HM perceptron (nodes/multiview/hm_perceptron.h) against the CRF on CoNLL-2002 Spanish
// esp.train (8,323 sentences, 264,715 tokens, 9 labels), one thread:
//   BM_CrfGradientEsp          one CrfLikelihood::Evaluate (value + gradient), standard_chunking
//                              templates (words and POS in a ±2 window, bigrams, trigrams)
//   BM_PerceptronEpochEsp/e    e single-view perceptron epochs on the same features (a Viterbi
//                              pass per sentence plus sparse updates, averaged weights); e = 1
//                              includes allocating the weights, (e3 - e1) / 2 is an epoch in training
//   BM_PerceptronTrainedEpochEsp the same epoch measured inside one 3-epoch run: the thread's CPU
//                              time of epochs 2 and 3 over 2 (the Time column; manual time)
//   BM_CrfGradientEspNgrams, BM_PerceptronTrainedEpochEspNgrams  the same two on the paper's
//                              views concatenated (multiview_ner_ngrams: every letter 2-4-gram)
//   BM_MultiviewEpoch/m        a multi-view epoch (multiview_ner views) with 10 labeled sentences
//                              and m x 1,000 unlabeled ones; the weights come from one epoch first,
//                              so the views disagree and update as in training. Linear in m.
//                              BM_MultiviewEpochNgrams: the same with multiview_ner_ngrams views.
//   BM_HmSvmEpoch/v/d/m        one HM-SVM epoch (1-norm, C = 1, C_u = 0.001, r_max 10), primal (d = 0)
//                              or dual (d = 1) form: multi-view (v = 2) over 10 labeled and m x 250
//                              unlabeled sentences, or single-view (v = 1) over m x 50 labeled ones.
//                              Primal: linear in m; dual (the paper's): quadratic.
// Data: $SEQFLOW_DATA, else ../shared/data. Run: build/bench/kernels/multiview_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>

#include "engine/base/env.h"
#include "nodes/crf/crf_likelihood.h"
#include "nodes/features/view_assignment.h"
#include "nodes/io/conll_reader.h"
#include "nodes/multiview/hm_perceptron.h"
#include "nodes/multiview/hm_svm.h"

namespace seqflow {
namespace {

const Corpus& EspTrain() {
  static const Corpus corpus = [] {
    const char* env = std::getenv("SEQFLOW_DATA");
    const std::string path = JoinPath(env && *env ? env : SEQFLOW_DEFAULT_DATA, "conll2002_es/esp.train");
    ConllOptions options;
    options.columns = {"word", "pos", "ne"};
    options.encoding = TagEncoding::kIob2;
    return ValueOrThrow(ParseConll(ValueOrThrow(Env::Default()->ReadFile(path)), path, options));
  }();
  return corpus;
}

struct Featurized {
  std::unique_ptr<FeatureDictionary> dictionary;
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  std::vector<int32_t> view;
};

Featurized Featurize(const std::string& set) {
  const Corpus& corpus = EspTrain();
  Featurized f;
  f.dictionary = std::make_unique<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName(set)), corpus.columns)));
  ThrowIfError(f.dictionary->Fit(corpus, 1));
  f.sentences = ValueOrThrow(f.dictionary->ExtractCorpus(corpus, 1));
  for (const Sentence& s : corpus.sentences) f.labels.push_back(s.labels);
  return f;
}

const Featurized& Standard() {
  static const Featurized f = Featurize("standard_chunking");
  return f;
}

int32_t NumLabels() { return static_cast<int32_t>(EspTrain().label_names.size()); }

void CrfGradient(benchmark::State& state, const Featurized& f) {
  const CrfLayout layout{f.dictionary->num_attributes(), NumLabels()};
  CrfLikelihood likelihood(f.sentences, f.labels, layout, 1.0, 1);
  const Eigen::VectorXd weights = Eigen::VectorXd::Constant(layout.size(), 0.01);
  Eigen::VectorXd g;
  for (auto _ : state) benchmark::DoNotOptimize(likelihood.Evaluate(weights, g));
  state.counters["attributes"] = static_cast<double>(f.dictionary->num_attributes());
}

void BM_CrfGradientEsp(benchmark::State& state) { CrfGradient(state, Standard()); }
BENCHMARK(BM_CrfGradientEsp)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerceptronEpochEsp(benchmark::State& state) {
  const Featurized& f = Standard();
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view(static_cast<size_t>(f.dictionary->num_attributes()), 0);
  HmPerceptronOptions options;
  options.views = 1;
  options.epochs = static_cast<int>(state.range(0));
  const HmPerceptronData data{&f.sentences, &f.labels, &none, &view, NumLabels()};
  int64_t errors = 0;
  for (auto _ : state) errors = ValueOrThrow(TrainHmPerceptron(data, options, {}, {})).epochs.back().labeled_errors;
  state.counters["errors"] = static_cast<double>(errors);
  state.counters["attributes"] = static_cast<double>(f.dictionary->num_attributes());
}
BENCHMARK(BM_PerceptronEpochEsp)->Arg(1)->Arg(3)->ArgName("epochs")->Unit(benchmark::kMillisecond)->UseRealTime();

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void PerceptronTrainedEpoch(benchmark::State& state, const Featurized& f) {
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view(static_cast<size_t>(f.dictionary->num_attributes()), 0);
  HmPerceptronOptions options;
  options.views = 1;
  options.epochs = 3;
  const HmPerceptronData data{&f.sentences, &f.labels, &none, &view, NumLabels()};
  for (auto _ : state) {
    double after_first = 0, after_last = 0;
    const auto timestamp = [&](const HmPerceptronEpoch& e) {
      if (e.epoch == 1) after_first = ThreadCpuSeconds();
      if (e.epoch == options.epochs) after_last = ThreadCpuSeconds();
    };
    benchmark::DoNotOptimize(ValueOrThrow(TrainHmPerceptron(data, options, timestamp, {})));
    state.SetIterationTime((after_last - after_first) / (options.epochs - 1));
  }
}

void BM_PerceptronTrainedEpochEsp(benchmark::State& state) { PerceptronTrainedEpoch(state, Standard()); }
BENCHMARK(BM_PerceptronTrainedEpochEsp)->Unit(benchmark::kMillisecond)->UseManualTime();

// The same pair on the paper's views concatenated (multiview_ner_ngrams: every letter 2-, 3-,
// 4-gram of the token, so about twice the attributes per token of standard_chunking).
const Featurized& Ngrams() {
  static const Featurized f = [] {
    Featurized mv = Featurize("multiview_ner_ngrams");
    mv.view = ValueOrThrow(AssignViews(*mv.dictionary, ViewSplit::kTokenSurface, 1));
    return mv;
  }();
  return f;
}

void BM_CrfGradientEspNgrams(benchmark::State& state) { CrfGradient(state, Ngrams()); }
BENCHMARK(BM_CrfGradientEspNgrams)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerceptronTrainedEpochEspNgrams(benchmark::State& state) { PerceptronTrainedEpoch(state, Ngrams()); }
BENCHMARK(BM_PerceptronTrainedEpochEspNgrams)->Unit(benchmark::kMillisecond)->UseManualTime();

// Two epochs minus one: the second epoch starts from trained weights, so unlabeled sentences
// disagree. Reported per epoch as the difference of a 2-epoch and a 1-epoch run.
const Featurized& MultiviewNer() {
  static const Featurized f = [] {
    Featurized mv = Featurize("multiview_ner");
    mv.view = ValueOrThrow(AssignViews(*mv.dictionary, ViewSplit::kTokenSurface, 1));
    return mv;
  }();
  return f;
}

void MultiviewEpoch(benchmark::State& state, const Featurized& f) {
  const size_t m = static_cast<size_t>(state.range(0)) * 1000;
  const std::vector<SentenceFeatures> labeled(f.sentences.begin(), f.sentences.begin() + 10);
  const std::vector<std::vector<int32_t>> labels(f.labels.begin(), f.labels.begin() + 10);
  const std::vector<SentenceFeatures> unlabeled(f.sentences.begin() + 10, f.sentences.begin() + 10 + m);
  HmPerceptronOptions options;
  options.epochs = static_cast<int>(state.range(1));
  const HmPerceptronData data{&labeled, &labels, &unlabeled, &f.view, NumLabels()};
  int64_t disagreements = 0;
  for (auto _ : state)
    disagreements = ValueOrThrow(TrainHmPerceptron(data, options, {}, {})).epochs.back().disagreements;
  state.counters["disagreements"] = static_cast<double>(disagreements);
}

void BM_MultiviewEpoch(benchmark::State& state) { MultiviewEpoch(state, MultiviewNer()); }
BENCHMARK(BM_MultiviewEpoch)
    ->ArgsProduct({{1, 2, 4, 8}, {1, 2}})
    ->ArgNames({"pool_k", "epochs"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MultiviewEpochNgrams(benchmark::State& state) { MultiviewEpoch(state, Ngrams()); }
BENCHMARK(BM_MultiviewEpochNgrams)
    ->ArgsProduct({{1, 2, 4, 8}, {1, 2}})
    ->ArgNames({"pool_k", "epochs"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One HM-SVM epoch from zero weights (C = 1, 1-norm, C_u = 0.001 constant, r_max 10), primal or
// dual form (hm_svm.h): views 2 has 10 labeled sentences and m x 250 unlabeled ones; views 1
// (which ignores unlabeled data) has m x 50 labeled ones (each holds several support sequences).
// The support grows through the epoch, so the dual form's epoch costs Σ_i |support_i| ∝ m², the
// primal's ∝ m.
void BM_HmSvmEpoch(benchmark::State& state) {
  const Featurized& f = MultiviewNer();
  const int views = static_cast<int>(state.range(0));
  const size_t m = static_cast<size_t>(state.range(2)) * (views == 2 ? 250 : 50);
  const size_t n = views == 2 ? 10 : m;
  const std::vector<SentenceFeatures> labeled(f.sentences.begin(), f.sentences.begin() + static_cast<long>(n));
  const std::vector<std::vector<int32_t>> labels(f.labels.begin(), f.labels.begin() + static_cast<long>(n));
  std::vector<SentenceFeatures> unlabeled;
  if (views == 2) unlabeled.assign(f.sentences.begin() + 10, f.sentences.begin() + 10 + static_cast<long>(m));
  HmSvmOptions options;
  options.views = views;
  options.form = state.range(1) == 0 ? HmSvmForm::kPrimal : HmSvmForm::kDual;
  options.c_u = 0.001;
  options.growth.schedule = UnlabeledWeightSchedule::kConstant;
  options.epochs = 1;
  const HmPerceptronData data{&labeled, &labels, &unlabeled, &f.view, NumLabels()};
  HmSvmEpoch epoch;
  for (auto _ : state) epoch = ValueOrThrow(TrainHmSvm(data, options, {}, {})).epochs.back();
  state.counters["disagreements"] = static_cast<double>(epoch.disagreements);
  state.counters["support"] = static_cast<double>(epoch.support_sequences);
}
BENCHMARK(BM_HmSvmEpoch)
    ->ArgsProduct({{1, 2}, {0, 1}, {1, 2, 4, 8}})
    ->ArgNames({"views", "dual", "pool_x"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();
