// A seeded generator of synthetic field-segmentation corpora shaped like citations.
//
// The generating model is an HMM with two hidden states per field, (f, body) and (f, last):
// a segment of field f is zero or more body tokens then one last token, so segment lengths are
// 1 + (0 or geometric). After a segment, the next field (or the end of the sentence) follows a
// fixed "mostly in order" chain: author -> title -> venue -> pages -> year -> note, with
// detours (editor, skipped fields). Words come from a field-specific mixture of word pools with
// Zipf-like frequencies; pools are shared between fields (author/editor names, title/venue topic
// words, function words, years), and last tokens carry field-specific punctuation ("Smith,",
// "Networks.", "1993."). The gold label of a token is its field, so a K = fields HMM is close
// to, but not exactly, the generating model. datasets/README.md documents the tables.
//
// Pure code: no files, no printing. Deterministic for a seed on every platform (the draws are
// nodes/common/random.h's, not std::*_distribution's).
// Thread safety: a built FieldCorpusModel is immutable and safe to share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/sampling.h"
#include "datasets/word_pools.h"

namespace seqflow {

struct FieldSentence {
  std::vector<std::string> words;
  std::vector<int32_t> fields;  // [token] index into FieldCorpusModel::field_names()
};

// Which part of a dataset a stream of sentences belongs to. Each split has its own random
// stream, so changing one split's size leaves the others' sentences unchanged. kOracle: a large
// labeled sample for a model that stands in for the generating one (the validity cases).
enum class FieldSplit { kLabeled = 0, kUnlabeled = 1, kTest = 2, kOracle = 3 };

class FieldCorpusModel {
 public:
  // Builds the fixed model. Its vocabularies are drawn from a constant model seed, so every
  // sample seed draws from one and the same distribution.
  FieldCorpusModel();

  const std::vector<std::string>& field_names() const { return field_names_; }
  // One sentence: at least one segment, every token non-empty and free of whitespace.
  FieldSentence Sample(Rng& rng) const;

 private:
  // A field's emission and length parameters (the table is in field_corpus.cpp).
  struct Field {
    std::vector<double> pool_cdf;  // [Pool] mixture over word pools
    double single = 0;             // P(segment is one token)
    double stay = 0;               // P(body -> body)
    std::string body_marks;        // punctuation glued to body tokens, one char each ...
    double body_mark_p = 0;        // ... with this probability
    std::string last_marks;        // the same for the last token of a segment
    double last_mark_p = 0;
  };

  void AppendSegment(int field, Rng& rng, FieldSentence* out) const;
  std::string Word(const Field& field, bool last, Rng& rng) const;

  std::vector<std::string> field_names_;
  std::vector<WordPool> pools_;
  std::vector<Field> fields_;
  // [F + 1][F + 1] segment chain: row F is the start, column F is the end of the sentence.
  std::vector<std::vector<double>> next_cdf_;
};

// `n` sentences of one split, drawn from the stream of (seed, split).
std::vector<FieldSentence> SampleFieldCorpus(const FieldCorpusModel& model, uint64_t seed, FieldSplit split, size_t n);

// "word<TAB>field" lines, a blank line after each sentence (read.conll with encoding `runs`).
std::string FormatFieldConll(const std::vector<FieldSentence>& sentences, const std::vector<std::string>& field_names);
// One sentence a line, words joined by single spaces (read.text).
std::string FormatFieldText(const std::vector<FieldSentence>& sentences);

}  // namespace seqflow
