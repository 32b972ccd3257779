// seqflow-datagen: writes a synthetic citation-like field-segmentation dataset.
//   seqflow-datagen --out DIR [--seed N] [--labeled 300] [--unlabeled 2000] [--test 200]
// writes DIR/train.conll, DIR/test.conll (word<TAB>field, `runs` encoding) and
// DIR/unlabeled.txt (one sentence a line). The same flags give the same bytes everywhere.
//   seqflow-datagen --out DIR --validity anchors [--labeled N --unlabeled N --test N --oracle N]
// writes the same files (and DIR/oracle.conll, DIR/dictionary.tagged) from a validity case's
// generator instead (em-lambda, em-lambda-branch: without the oracle); --validity multiview [--view-noise X] writes
// DIR/corpus.conll, --labeled N sentences with two views a token, for `draw` to split.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "datasets/anchor_hmm_data.h"
#include "datasets/chunk_hmm_data.h"
#include "datasets/field_corpus.h"
#include "datasets/hmm_class_data.h"
#include "datasets/tagged_hmm.h"
#include "datasets/two_view_data.h"
#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {
namespace {

struct DatagenOptions {
  std::string out;
  uint64_t seed = 1;
  size_t labeled = 300;
  size_t unlabeled = 2000;
  size_t test = 200;
  size_t oracle = 20000;
  std::string ji_case;   // "matched" or "mismatched": HMM class data instead (hmm_class_data.h)
  std::vector<int> ji_states;  // the classes' state counts, replacing the case's (misspecification sweeps)
  double ji_label_noise = 0;
  int ji_order = 1;
  std::string validity;  // "anchors": anchor_hmm_data.h instead of the citation model
  double view_noise = 0;  // --validity multiview: TwoViewSpec::noise
};

// The labeled, test, oracle and unlabeled files of a generator of tagged sentences.
Status WriteTaggedSplits(const DatagenOptions& opt, const std::vector<std::string>& tags,
                         const std::function<std::vector<FieldSentence>(FieldSplit, size_t)>& sample, bool oracle) {
  Env* env = Env::Default();
  const std::pair<const char*, FieldSplit> kLabeledFiles[] = {
      {"train.conll", FieldSplit::kLabeled}, {"test.conll", FieldSplit::kTest}, {"oracle.conll", FieldSplit::kOracle}};
  for (const auto& [file, split] : kLabeledFiles) {
    const size_t n = split == FieldSplit::kLabeled ? opt.labeled : split == FieldSplit::kTest ? opt.test : opt.oracle;
    if (split == FieldSplit::kOracle && !oracle) continue;
    SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(opt.out, file), FormatFieldConll(sample(split, n), tags)));
  }
  return env->WriteFileAtomic(JoinPath(opt.out, "unlabeled.txt"),
                              FormatFieldText(sample(FieldSplit::kUnlabeled, opt.unlabeled)));
}

Status WriteDataset(const DatagenOptions& opt) {
  Env* env = Env::Default();
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(opt.out));
  if (!opt.ji_case.empty()) {
    HmmClassDataSpec spec = opt.ji_case == "matched" ? MatchedHmmClassSpec() : MismatchedHmmClassSpec();
    if (!opt.ji_states.empty()) spec.states = opt.ji_states;
    spec.label_noise = opt.ji_label_noise;
    spec.order = opt.ji_order;
    return env->WriteFileAtomic(JoinPath(opt.out, "ji_" + opt.ji_case + ".tsv"),
                                FormatHmmClassData(SampleHmmClassData(spec, opt.seed)));
  }
  if (opt.validity == "multiview")
    return env->WriteFileAtomic(JoinPath(opt.out, "corpus.conll"),
                                SampleTwoViewConll(TwoViewSpec{.noise = opt.view_noise}, opt.seed, opt.labeled));
  if (opt.validity == "hysol") {
    const ChunkHmmSpec spec;
    SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(opt.out, "train.conll"),
                                                 SampleChunkConll(spec, opt.seed, FieldSplit::kLabeled, opt.labeled)));
    SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(opt.out, "test.conll"),
                                                 SampleChunkConll(spec, opt.seed, FieldSplit::kTest, opt.test)));
    return env->WriteFileAtomic(JoinPath(opt.out, "unlabeled.txt"),
                                SampleChunkText(spec, opt.seed, FieldSplit::kUnlabeled, opt.unlabeled));
  }
  if (opt.validity == "em-lambda") {
    const TaggedHmm hmm = SmallRandomHmm(3, 30, 0.1, opt.seed);
    return WriteTaggedSplits(
        opt, hmm.state_names, [&](FieldSplit split, size_t n) { return SampleTaggedHmm(hmm, opt.seed, split, n); },
        false);
  }
  if (opt.validity == "em-lambda-branch") {
    const TaggedHmm hmm = SwapSymmetricHmm(5, 0.9);
    return WriteTaggedSplits(
        opt, hmm.state_names,
        [&](FieldSplit split, size_t n) {
          std::vector<FieldSentence> sentences = SampleTaggedHmm(hmm, opt.seed, split, n);
          return split == FieldSplit::kLabeled ? WithStatesSwapped(std::move(sentences)) : sentences;
        },
        false);
  }
  if (opt.validity == "anchors") {
    const AnchorHmmSpec spec;
    const AnchorHmm hmm = BuildAnchorHmm(spec, opt.seed);
    SEQFLOW_RETURN_IF_ERROR(
        env->WriteFileAtomic(JoinPath(opt.out, "dictionary.tagged"), FormatTagDictionary(hmm)));
    return WriteTaggedSplits(
        opt, hmm.state_names,
        [&](FieldSplit split, size_t n) { return SampleTaggedHmm(hmm, opt.seed, split, n); }, true);
  }
  const FieldCorpusModel model;
  return WriteTaggedSplits(
      opt, model.field_names(),
      [&](FieldSplit split, size_t n) { return SampleFieldCorpus(model, opt.seed, split, n); }, false);
}

}  // namespace
}  // namespace seqflow

int main(int argc, char** argv) {
  seqflow::DatagenOptions opt;
  CLI::App app{"Writes a synthetic citation-like field-segmentation dataset (see datasets/README.md)."};
  app.add_option("--out", opt.out, "output directory (created if missing)")->required();
  app.add_option("--seed", opt.seed, "random seed; the same seed gives the same files");
  app.add_option("--labeled", opt.labeled, "sentences in train.conll");
  app.add_option("--unlabeled", opt.unlabeled, "sentences in unlabeled.txt");
  app.add_option("--test", opt.test, "sentences in test.conll");
  app.add_option("--ji-states", opt.ji_states, "--ji-case: each class's HMM states, e.g. 6,6 (default: the case's)")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--ji-label-noise", opt.ji_label_noise, "--ji-case: probability of flipping a sequence's class")
      ->check(CLI::Range(0.0, 0.5));
  app.add_option("--ji-order", opt.ji_order, "--ji-case: 2 draws each class from a second-order HMM")
      ->check(CLI::Range(1, 2));
  app.add_option("--ji-case", opt.ji_case, "write DIR/ji_CASE.tsv (HMM class sequences, datasets/README.md) instead")
      ->check(CLI::IsMember({"matched", "mismatched"}));
  app.add_option("--validity", opt.validity,
                 "a validity case's generator instead of the citation model (datasets/README.md)")
      ->check(CLI::IsMember({"anchors", "em-lambda", "em-lambda-branch", "hysol", "multiview"}));
  app.add_option("--view-noise", opt.view_noise,
                 "--validity multiview: weight of a value outside its home label (0: each view names the label)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--oracle", opt.oracle, "sentences in oracle.conll (validity cases)");
  CLI11_PARSE(app, argc, argv);
  seqflow::Status status = seqflow::WriteDataset(opt);
  if (!status.ok()) {
    std::fprintf(stderr, "seqflow-datagen: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
