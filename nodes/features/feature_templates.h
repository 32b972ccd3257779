// Feature templates: the attribute strings of a token, built from the corpus columns around it,
// and the dictionary that turns them into dense attribute ids (CRF++ / Wapiti "U" templates).
//
// A template is one or more atoms joined by '|'; an atom reads one column at a relative offset,
// optionally through a function:
//   "word[-1]|word[0]"    column `word` at t-1 and t           (CRF++ %x[-1,0]/%x[0,0])
//   "lower(word[0])"      lowercased word
//   "shape(word[0])"      word type: capitalisation / digits / punctuation classes (paper Table 1)
//   "prefix3(word[0])"    first 3 characters (prefix1..prefix4; suffix1..suffix4 likewise)
//   "ngrams3(word[0])"    every letter 3-gram of the word (ngrams1..ngrams4): several values
//   "pos[2]"              any column name of the Corpus
// Offsets outside the sentence read the padding symbols "_B-1", "_B-2", ... before and "_B+1",
// "_B+2", ... after, as CRF++ does, so boundary templates still fire. Functions leave padding
// symbols as they are. Prefixes and suffixes count code points; a shorter word is taken whole.
// Whitespace around atoms is ignored; offsets are integers with |offset| <= 1000.
// The attribute string of a template at token t is "<template name>=<values joined by '|'>".
//
// Multi-valued atoms (ngramsN): a template "ngrams3(word[0])" gives a token one attribute
// "ngrams3(word[0])=<g>" for each distinct letter 3-gram g of the word (n code points, not bytes),
// in the order of g's first position. The attributes are Boolean, as the features ψ_j of Brefeld
// et al. (2005) Eq. 3: a 3-gram occurring twice in a word ("banana": "ana") is one attribute,
// counted once (in the CSR ids and in Fit's min_count, which counts tokens). A word shorter than n
// has no n-grams, so no attribute: the word itself is already its own attribute (word[0]), and a
// copy of it under the n-gram template would only double its weight for short words. A padding
// symbol is one value, as for every function. An ngramsN() atom must be its template's only atom:
// the paper's token view needs the n-grams alone, so a '|' join with other atoms is refused
// (Status::Invalid naming the template) rather than taken as a cross product. Every other
// template has exactly one attribute per token, so existing templates give the same attributes.
// Consumers that need one symbol per template and token (crf.hysol's per-feature-type HMMs) check
// multi_valued() and refuse such templates.
//
// Named sets (`TemplateSetByName`): "standard_chunking" = ../shared/bench/peers/chunk.tpl (19
// templates: words and POS in a ±2 window, word bigrams, POS bigrams and trigrams),
// "hysol_chunking" (Suzuki et al. 2007 Table 2), "hysol_ner" (Table 1), "multiview_ner_ngrams" (the
// token and surface views of Brefeld et al. 2005: the token, its lowercase form and every letter
// 2-, 3-, 4-gram vs shape classes) and "multiview_ner" (its ablation: letter strings at the word's
// ends and the neighbouring words instead of the n-grams).
//
// Every template belongs to a feature type (`group`, e.g. "word", "pos", "word-bigram"); a template
// without a group is its own group. (crf.hysol trains one HMM per template: in the hysol sets every
// template is its own group.)
// Thread safety: Fit is not thread-safe; the const methods (Extract, ExtractCorpus, ...) may run
// concurrently, and a dictionary published as shared_ptr<const> is immutable.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/features/attribute_index.h"
#include "nodes/features/template_parser.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct FeatureTemplate {
  std::string name;   // "U02" or the template text itself
  std::string text;   // "word[-1]|word[0]"
  std::string group;  // feature type
};

// The templates of a named set; Status::Invalid naming the known sets otherwise.
Result<std::vector<FeatureTemplate>> TemplateSetByName(std::string_view name);

// Attribute ids of the tokens of one sentence, CSR: token t has ids[offsets[t] .. offsets[t+1]).
// Ids within a token are in template order, a multi-valued template's in value order
// (deterministic); the ids of one token are distinct.
struct SentenceFeatures {
  std::vector<int32_t> offsets;  // [T + 1], offsets[0] == 0
  std::vector<int32_t> ids;      // attribute ids
  int32_t size() const { return static_cast<int32_t>(offsets.size()) - 1; }
};

// Templates compiled against a column layout, plus the attribute dictionary.
class FeatureDictionary {
 public:
  // Compiles `templates` for corpora with `columns` (column names, columns[0] == "word"), with an
  // empty dictionary. Status::Invalid naming the template and the bad part: unknown column (with
  // did-you-mean), unknown function, malformed offset.
  static Result<FeatureDictionary> Compile(std::vector<FeatureTemplate> templates, std::vector<std::string> columns);

  // Counts every attribute over `corpus` and keeps those seen at least `min_count` times; ids are
  // assigned in order of first occurrence (deterministic). Replaces any earlier dictionary.
  // Status::Invalid if the corpus lacks a column the templates read (columns are matched by
  // name, so the corpus may order them differently), min_count < 1, or past 2^31 attributes.
  Status Fit(const Corpus& corpus, int min_count);
  // The same counting over several corpora together (ids in order of first occurrence across them).
  Status Fit(const std::vector<const Corpus*>& corpora, int min_count);
  // The same over corpora handed to `visit` one at a time by `corpora` (a sharded text's shards,
  // each dropped after the call): the ids and counts of Fit over all of them in that order. The
  // first error of `corpora` or of a corpus is returned.
  using CorpusVisitor = std::function<Status(const Corpus&)>;
  Status FitEach(const std::function<Status(const CorpusVisitor& visit)>& corpora, int min_count);

  // The known attribute ids of every token of `sentence` (unknown attributes are dropped), whose
  // columns are those this dictionary was compiled for, in that order (else Status::Invalid).
  Result<SentenceFeatures> Extract(const Sentence& sentence) const;
  // Extract over a whole corpus, in parallel over sentences with `threads` threads (same result
  // for any thread count). Columns are matched by name, as in Fit.
  Result<std::vector<SentenceFeatures>> ExtractCorpus(const Corpus& corpus, int threads) const;
  // The same without keeping the results: visit(n, features of sentence n) runs concurrently for
  // different sentences. Status::Invalid naming a column the templates read that `corpus` lacks.
  Status ForEachExtracted(const Corpus& corpus, int threads,
                          const std::function<void(size_t sentence, SentenceFeatures&& features)>& visit) const;

  int32_t num_attributes() const { return static_cast<int32_t>(attribute_names_.size()); }
  const std::string& attribute_name(int32_t id) const { return attribute_names_[id]; }
  // Template index of an attribute (its feature type is templates()[...].group).
  int32_t attribute_template(int32_t id) const { return attribute_template_[id]; }
  const std::vector<FeatureTemplate>& templates() const { return templates_; }
  // True when template k has an ngramsN() atom: several attributes per token.
  bool multi_valued(size_t k) const { return compiled_.multi_valued[k]; }
  const std::vector<std::string>& columns() const { return columns_; }
  // The distinct groups in first-appearance order, and each template's index into it.
  std::vector<std::string> groups() const;
  std::vector<int32_t> template_groups() const;

  // Load reads what Save wrote and leaves the reader after it (a FeatureSet embeds it).
  void Save(ByteWriter& w) const;
  static std::shared_ptr<const FeatureDictionary> Load(ByteReader& r);

 private:
  class Builder;  // attribute strings of one sentence, with reused buffers
  FeatureDictionary(std::vector<FeatureTemplate> templates, std::vector<std::string> columns,
                    CompiledTemplates compiled);
  Result<std::vector<int>> ColumnMap(const Corpus& corpus) const;
  SentenceFeatures ExtractWith(const Sentence& sentence, Builder& builder) const;
  void Keep(AttributeIndex counted, const std::vector<int32_t>& templates, const std::vector<int64_t>& counts,
            int64_t min_count);
  void CheckAndIndex();

  std::vector<FeatureTemplate> templates_;
  std::vector<std::string> columns_;
  std::vector<std::string> attribute_names_;
  std::vector<int32_t> attribute_template_;
  CompiledTemplates compiled_;
  AttributeIndex index_;  // attribute name -> id
};

// The output of `features.templates`: a fitted dictionary and the indexed sentences of the
// corpus it was fitted on, with the gold labels (CRF training input).
class FeatureSet final : public Artifact {
 public:
  static constexpr std::string_view kType = "FeatureSet";
  static constexpr uint32_t kVersion = 1;

  std::shared_ptr<const FeatureDictionary> dictionary;
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;  // [sentence][token], empty when the corpus is unlabeled
  std::vector<std::string> label_names;
  TagEncoding encoding = TagEncoding::kNone;

  size_t num_tokens() const;
  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const FeatureSet> Load(ByteReader& r);
  // "8936 sentences, 211727 tokens, 338551 attributes from 19 templates".
  std::string Describe() const override;
};

}  // namespace seqflow
