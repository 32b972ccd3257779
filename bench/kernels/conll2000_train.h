// CoNLL-2000 train.txt (8,936 sentences, 211,727 tokens; columns word pos chunk), read once, for
// the benchmarks on real data. Data root: $SEQFLOW_DATA, else SEQFLOW_DEFAULT_DATA (set by CMake
// to ../shared/data beside the project). Throws StatusError when the file is missing.
#pragma once

#include <cstdlib>
#include <string>

#include "engine/base/env.h"
#include "nodes/io/conll_reader.h"

namespace seqflow::bench {

inline const Corpus& Conll2000Train() {
  static const Corpus corpus = [] {
    const char* env = std::getenv("SEQFLOW_DATA");
    const std::string path = JoinPath(env && *env ? env : SEQFLOW_DEFAULT_DATA, "conll2000/train.txt");
    Result<std::string> bytes = Env::Default()->ReadFile(path);
    if (!bytes.ok()) throw StatusError(bytes.status());
    ConllOptions options;
    options.columns = {"word", "pos", "chunk"};
    Result<Corpus> c = ParseConll(*bytes, path, options);
    if (!c.ok()) throw StatusError(c.status());
    return std::move(*c);
  }();
  return corpus;
}

}  // namespace seqflow::bench
