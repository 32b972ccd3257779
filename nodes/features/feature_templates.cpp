#include "nodes/features/feature_templates.h"

#include <algorithm>
#include <charconv>

#include "nodes/common/parallel.h"

namespace seqflow {

namespace {

// Sentences per parallel shard: enough work to amortize a Builder, small enough to balance.
constexpr size_t kShardSentences = 64;

std::string JoinColumns(const std::vector<std::string>& columns) {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

// The views of a sentence are computed once in Load; each attribute string is then assembled in
// one reused buffer, so the per-token work allocates nothing once the buffers have grown. A
// multi-valued view keeps the values of all tokens in one list, CSR by token.
class FeatureDictionary::Builder {
 public:
  Builder(const FeatureDictionary& dict, std::vector<int> column_map)
      : dict_(dict),
        column_map_(std::move(column_map)),
        scratch_(dict.compiled_.views.size()),
        values_(dict.compiled_.views.size()),
        multi_values_(dict.compiled_.views.size()),
        multi_offsets_(dict.compiled_.views.size()),
        multi_valued_(dict.compiled_.multi_valued.begin(), dict.compiled_.multi_valued.end()) {}

  void Load(const Sentence& sentence) {
    size_ = static_cast<int32_t>(sentence.size());
    for (size_t v = 0; v < values_.size(); ++v) {
      const ColumnView& view = dict_.compiled_.views[v];
      const std::vector<std::string>& column = sentence.cols[column_map_[view.column]];
      if (IsMultiValued(view)) {
        multi_values_[v].clear();
        multi_offsets_[v].assign(1, 0);
        for (const std::string& token : column) {
          LetterNgrams(token, view.length, &token_values_);
          multi_values_[v].insert(multi_values_[v].end(), token_values_.begin(), token_values_.end());
          multi_offsets_[v].push_back(static_cast<int32_t>(multi_values_[v].size()));
        }
        continue;
      }
      scratch_[v].resize(column.size());
      values_[v].resize(column.size());
      for (size_t t = 0; t < column.size(); ++t) values_[v][t] = ViewValue(view, column[t], &scratch_[v][t]);
    }
  }

  int32_t size() const { return size_; }

  // How many attributes template k has at token t: 1, or for a multi-valued template the number
  // of its values there (0 for a word shorter than the n-grams; 1 for a padding symbol).
  int32_t NumValues(int32_t t, size_t k) const {
    if (!multi_valued_[k]) return 1;
    const TemplateAtom& atom = dict_.compiled_.atoms[k][0];
    const int32_t pos = t + atom.offset;
    if (pos < 0 || pos >= size_) return 1;
    return multi_offsets_[atom.view][pos + 1] - multi_offsets_[atom.view][pos];
  }

  // "<name>=<values joined by '|'>" of template k at token t (its `value`-th value for a
  // multi-valued template); valid until the next call.
  const std::string& Attribute(int32_t t, size_t k, int32_t value = 0) {
    buffer_.assign(dict_.templates_[k].name);
    buffer_ += '=';
    bool first = true;
    for (const TemplateAtom& atom : dict_.compiled_.atoms[k]) {
      if (!first) buffer_ += '|';
      first = false;
      const int32_t pos = t + atom.offset;
      if (pos < 0) {
        AppendPadding('-', -pos);
      } else if (pos >= size_) {
        AppendPadding('+', pos - size_ + 1);
      } else if (multi_valued_[k]) {  // the template's only atom
        buffer_ += multi_values_[atom.view][multi_offsets_[atom.view][pos] + value];
      } else {
        buffer_ += values_[atom.view][pos];
      }
    }
    return buffer_;
  }

 private:
  void AppendPadding(char sign, int32_t distance) {
    char digits[16];
    auto end = std::to_chars(digits, digits + sizeof digits, distance).ptr;
    buffer_ += "_B";
    buffer_ += sign;
    buffer_.append(digits, end);
  }

  const FeatureDictionary& dict_;
  std::vector<int> column_map_;                              // compiled column -> sentence column
  std::vector<std::vector<std::string>> scratch_;            // [view][token] storage for lower()
  std::vector<std::vector<std::string_view>> values_;        // [view][token]
  std::vector<std::vector<std::string_view>> multi_values_;  // [view][values of every token]
  std::vector<std::vector<int32_t>> multi_offsets_;          // [view][token + 1] into multi_values_
  std::vector<uint8_t> multi_valued_;                        // [template], unpacked for the inner loops
  std::vector<std::string_view> token_values_;
  std::string buffer_;
  int32_t size_ = 0;
};

FeatureDictionary::FeatureDictionary(std::vector<FeatureTemplate> templates, std::vector<std::string> columns,
                                     CompiledTemplates compiled)
    : templates_(std::move(templates)), columns_(std::move(columns)), compiled_(std::move(compiled)) {}

Result<FeatureDictionary> FeatureDictionary::Compile(std::vector<FeatureTemplate> templates,
                                                     std::vector<std::string> columns) {
  Result<CompiledTemplates> compiled = CompileTemplates(templates, columns);
  if (!compiled.ok()) return compiled.status();
  return FeatureDictionary(std::move(templates), std::move(columns), std::move(compiled).value());
}

Result<std::vector<int>> FeatureDictionary::ColumnMap(const Corpus& corpus) const {
  std::vector<int> map(columns_.size(), -1);
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!compiled_.column_used[c]) continue;
    map[c] = corpus.ColumnIndex(columns_[c]);
    if (map[c] < 0)
      return Status::Invalid("corpus " + (corpus.source.empty() ? "" : corpus.source + " ") + "lacks the column '" +
                             columns_[c] + "' the feature templates read (it has " + JoinColumns(corpus.columns) +
                             ")");
  }
  return map;
}

Status FeatureDictionary::Fit(const Corpus& corpus, int min_count) {
  return Fit(std::vector<const Corpus*>{&corpus}, min_count);
}

Status FeatureDictionary::Fit(const std::vector<const Corpus*>& corpora, int min_count) {
  return FitEach(
      [&](const CorpusVisitor& visit) {
        for (const Corpus* corpus : corpora) SEQFLOW_RETURN_IF_ERROR(visit(*corpus));
        return Status::Ok();
      },
      min_count);
}

Status FeatureDictionary::FitEach(const std::function<Status(const CorpusVisitor& visit)>& corpora, int min_count) {
  if (min_count < 1) return Status::Invalid("min_count must be >= 1");
  AttributeIndex counted;
  std::vector<int32_t> templates;  // [id]
  std::vector<int64_t> counts;     // [id]
  SEQFLOW_RETURN_IF_ERROR(corpora([&](const Corpus& corpus) -> Status {
    Result<std::vector<int>> map = ColumnMap(corpus);
    if (!map.ok()) return map.status();
    Builder builder(*this, std::move(map).value());
    for (const Sentence& sentence : corpus.sentences) {
      builder.Load(sentence);
      for (int32_t t = 0; t < builder.size(); ++t) {
        for (size_t k = 0; k < templates_.size(); ++k) {
          for (int32_t value = 0, n = builder.NumValues(t, k); value < n; ++value) {
            auto [id, added] = counted.Insert(builder.Attribute(t, k, value));
            if (id < 0) return Status::Invalid("too many feature attributes for one dictionary");
            if (added) {
              templates.push_back(static_cast<int32_t>(k));
              counts.push_back(0);
            }
            ++counts[id];
          }
        }
      }
    }
    return Status::Ok();
  }));
  Keep(std::move(counted), templates, counts, min_count);
  return Status();
}

void FeatureDictionary::Keep(AttributeIndex counted, const std::vector<int32_t>& templates,
                             const std::vector<int64_t>& counts, int64_t min_count) {
  const bool all = std::all_of(counts.begin(), counts.end(), [&](int64_t c) { return c >= min_count; });
  index_ = all ? std::move(counted) : AttributeIndex();
  const AttributeIndex& source = all ? index_ : counted;
  attribute_names_.clear();
  attribute_template_.clear();
  for (int32_t id = 0; id < source.size(); ++id) {
    if (counts[id] < min_count) continue;
    if (!all) index_.Insert(source.key(id));
    attribute_names_.emplace_back(source.key(id));
    attribute_template_.push_back(templates[id]);
  }
}

SentenceFeatures FeatureDictionary::ExtractWith(const Sentence& sentence, Builder& builder) const {
  builder.Load(sentence);
  SentenceFeatures f;
  f.offsets.reserve(sentence.size() + 1);
  f.offsets.push_back(0);
  f.ids.reserve(sentence.size() * templates_.size());
  for (int32_t t = 0; t < builder.size(); ++t) {
    for (size_t k = 0; k < templates_.size(); ++k) {
      for (int32_t value = 0, n = builder.NumValues(t, k); value < n; ++value) {
        const int32_t id = index_.Find(builder.Attribute(t, k, value));
        if (id >= 0) f.ids.push_back(id);
      }
    }
    f.offsets.push_back(static_cast<int32_t>(f.ids.size()));
  }
  return f;
}

Result<SentenceFeatures> FeatureDictionary::Extract(const Sentence& sentence) const {
  if (sentence.cols.size() < columns_.size())
    return Status::Invalid("sentence has " + std::to_string(sentence.cols.size()) +
                           " columns, the feature templates expect " + JoinColumns(columns_));
  std::vector<int> identity(columns_.size());
  for (size_t c = 0; c < identity.size(); ++c) identity[c] = static_cast<int>(c);
  Builder builder(*this, std::move(identity));
  return ExtractWith(sentence, builder);
}

Result<std::vector<SentenceFeatures>> FeatureDictionary::ExtractCorpus(const Corpus& corpus, int threads) const {
  std::vector<SentenceFeatures> out(corpus.sentences.size());
  Status status = ForEachExtracted(corpus, threads, [&](size_t n, SentenceFeatures&& f) { out[n] = std::move(f); });
  if (!status.ok()) return status;
  return out;
}

Status FeatureDictionary::ForEachExtracted(const Corpus& corpus, int threads,
                                           const std::function<void(size_t, SentenceFeatures&&)>& visit) const {
  Result<std::vector<int>> map = ColumnMap(corpus);
  if (!map.ok()) return map.status();
  ParallelShards(corpus.sentences.size(), kShardSentences, threads, [&](size_t, size_t begin, size_t end) {
    Builder builder(*this, *map);
    for (size_t i = begin; i < end; ++i) visit(i, ExtractWith(corpus.sentences[i], builder));
  });
  return Status();
}

std::vector<std::string> FeatureDictionary::groups() const {
  std::vector<std::string> out;
  for (const FeatureTemplate& t : templates_) {
    const std::string& g = t.group.empty() ? t.name : t.group;
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  return out;
}

std::vector<int32_t> FeatureDictionary::template_groups() const {
  const std::vector<std::string> all = groups();
  std::vector<int32_t> out;
  for (const FeatureTemplate& t : templates_) {
    const std::string& g = t.group.empty() ? t.name : t.group;
    out.push_back(static_cast<int32_t>(std::find(all.begin(), all.end(), g) - all.begin()));
  }
  return out;
}

void FeatureDictionary::Save(ByteWriter& w) const {
  w.U64(templates_.size());
  for (const FeatureTemplate& t : templates_) {
    w.Str(t.name);
    w.Str(t.text);
    w.Str(t.group);
  }
  w.Strs(columns_);
  w.Strs(attribute_names_);
  w.I32s(attribute_template_.data(), attribute_template_.size());
}

std::shared_ptr<const FeatureDictionary> FeatureDictionary::Load(ByteReader& r) {
  std::vector<FeatureTemplate> templates(r.Count(3 * sizeof(uint64_t)));
  for (FeatureTemplate& t : templates) {
    t.name = r.Str();
    t.text = r.Str();
    t.group = r.Str();
  }
  std::vector<std::string> columns = r.Strs();
  Result<FeatureDictionary> compiled = Compile(std::move(templates), std::move(columns));
  if (!compiled.ok()) throw StatusError(Status::Corruption("FeatureDictionary: " + compiled.status().message()));
  auto dict = std::make_shared<FeatureDictionary>(std::move(compiled).value());
  dict->attribute_names_ = r.Strs();
  dict->attribute_template_ = r.I32s();
  dict->CheckAndIndex();
  return dict;
}

// A loaded dictionary must be one Fit could have built: one template per attribute, each
// attribute named after its template, no duplicates.
void FeatureDictionary::CheckAndIndex() {
  auto corrupt = [](const std::string& what) { throw StatusError(Status::Corruption("FeatureDictionary: " + what)); };
  if (attribute_template_.size() != attribute_names_.size()) corrupt("attribute and template counts differ");
  for (int32_t id = 0; id < num_attributes(); ++id) {
    const int32_t k = attribute_template_[id];
    if (k < 0 || static_cast<size_t>(k) >= templates_.size()) corrupt("template index out of range");
    const std::string& name = attribute_names_[id];
    if (name.compare(0, templates_[k].name.size(), templates_[k].name) != 0 ||
        name.size() <= templates_[k].name.size() || name[templates_[k].name.size()] != '=')
      corrupt("attribute '" + name + "' does not belong to template '" + templates_[k].name + "'");
    const auto [id_in_index, added] = index_.Insert(name);
    if (id_in_index < 0) corrupt("too many attributes");
    if (!added) corrupt("duplicate attribute '" + name + "'");
  }
}

}  // namespace seqflow
