#include "tests/testutil/wide_pipeline.h"

namespace seqflow::testutil {

std::string WidePipeline(const std::string& data_dir, int instances, bool repeated) {
  std::string text = "name: wide\nvars:\n  data: " + data_dir +
                     "\nnodes:\n"
                     "  train: {kind: read.conll, path: \"${data}/citations/cora_tok.train\", separator: tab, "
                     "encoding: runs}\n"
                     "  test: {kind: read.conll, path: \"${data}/citations/cora_tok.test\", separator: tab, "
                     "encoding: runs, role: test}\n";
  const int branches = repeated ? 1 : instances / 5;
  for (int b = 0; b < branches; ++b) {
    const std::string i = std::to_string(b);
    text += "  part" + i + ": {kind: split, in: {data: train}, count: 100, seed: " + std::to_string(b + 1) + "}\n";
    text += "  vocab" + i + ": {kind: features.vocab, in: [part" + i + "], min_count: 2, unknown: shape}\n";
    text += "  hmm" + i + ": {kind: hmm.supervised, in: {data: part" + i + ", vocab: vocab" + i + "}}\n";
    text += "  predicted" + i + ": {kind: decode.viterbi, in: {model: hmm" + i + ", data: test}}\n";
    text += "  score" + i + ": {kind: eval.segments, in: {predicted: predicted" + i + ", gold: test}}\n";
  }
  return repeated ? text + "repeat: " + std::to_string(instances / 5) + "\n" : text;
}

}  // namespace seqflow::testutil
