// seqflow-datagen: writes a synthetic citation-like field-segmentation dataset.
//   seqflow-datagen --out DIR [--seed N] [--labeled 300] [--unlabeled 2000] [--test 200]
// writes DIR/train.conll, DIR/test.conll (word<TAB>field, `runs` encoding) and
// DIR/unlabeled.txt (one sentence a line). The same flags give the same bytes everywhere.
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "datasets/field_corpus.h"
#include "datasets/hmm_class_data.h"
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
  std::string ji_case;  // "matched" or "mismatched": HMM class data instead (hmm_class_data.h)
};

Status WriteDataset(const DatagenOptions& opt) {
  Env* env = Env::Default();
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(opt.out));
  if (!opt.ji_case.empty()) {
    const HmmClassDataSpec spec = opt.ji_case == "matched" ? MatchedHmmClassSpec() : MismatchedHmmClassSpec();
    return env->WriteFileAtomic(JoinPath(opt.out, "ji_" + opt.ji_case + ".tsv"),
                                FormatHmmClassData(SampleHmmClassData(spec, opt.seed)));
  }
  const FieldCorpusModel model;
  auto sample = [&](FieldSplit split, size_t n) { return SampleFieldCorpus(model, opt.seed, split, n); };
  SEQFLOW_RETURN_IF_ERROR(
      env->WriteFileAtomic(JoinPath(opt.out, "train.conll"),
                           FormatFieldConll(sample(FieldSplit::kLabeled, opt.labeled), model.field_names())));
  SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(
      JoinPath(opt.out, "test.conll"), FormatFieldConll(sample(FieldSplit::kTest, opt.test), model.field_names())));
  return env->WriteFileAtomic(JoinPath(opt.out, "unlabeled.txt"),
                              FormatFieldText(sample(FieldSplit::kUnlabeled, opt.unlabeled)));
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
  app.add_option("--ji-case", opt.ji_case, "write DIR/ji_CASE.tsv (HMM class sequences, datasets/README.md) instead")
      ->check(CLI::IsMember({"matched", "mismatched"}));
  CLI11_PARSE(app, argc, argv);
  seqflow::Status status = seqflow::WriteDataset(opt);
  if (!status.ok()) {
    std::fprintf(stderr, "seqflow-datagen: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
