// The Malagasy raw text of the moments benchmarks (Garrette et al.; 43,600 sentences, 777,678
// tokens; data root $SEQFLOW_DATA, else ../shared/data) as symbols of a Vocab in which words with
// fewer than 3 occurrences are pooled into shape classes; loaded once per process. Throws
// StatusError when the file is missing or malformed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "nodes/features/vocab_builder.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/io/conll_reader.h"

namespace seqflow {

struct MalagasyRawText {
  std::vector<std::vector<int32_t>> symbols;
  std::shared_ptr<const Vocab> vocab;
  int64_t tokens = 0;
};

inline const MalagasyRawText& MalagasyRaw() {
  static const MalagasyRawText raw = [] {
    const char* env = std::getenv("SEQFLOW_DATA");
    const std::string path = JoinPath(env && *env ? env : SEQFLOW_DEFAULT_DATA, "malagasy_pos/raw.txt");
    Result<std::string> bytes = Env::Default()->ReadFile(path);
    if (!bytes.ok()) throw StatusError(bytes.status());
    Result<Corpus> corpus = ParseTextLines(*bytes, path, 0, FileEncoding::kUtf8);
    if (!corpus.ok()) throw StatusError(corpus.status());
    VocabOptions options;
    options.min_count = 3;
    Vocab vocab = BuildVocab({&*corpus}, options);
    MalagasyRawText out;
    out.symbols = CorpusSymbols(vocab, *corpus);
    out.tokens = static_cast<int64_t>(corpus->num_tokens());
    out.vocab = std::make_shared<Vocab>(std::move(vocab));
    return out;
  }();
  return raw;
}

}  // namespace seqflow
