// HybridModel serialisation and the construction of a HybridCorpus from a Corpus.
#include "nodes/crf/hybrid_model.h"

#include <fmt/format.h>

#include <algorithm>

#include "nodes/chain/matrix_bytes.h"
#include "nodes/common/parallel.h"

namespace seqflow {

namespace {

void SaveArtifact(ByteWriter& w, const Artifact& a) {
  ByteWriter inner;
  a.Save(inner);
  w.Str(inner.bytes());
}

}  // namespace

Status GenerativeSymbols::CheckOneValuePerToken(const FeatureDictionary& dictionary) {
  for (size_t k = 0; k < dictionary.templates().size(); ++k)
    if (dictionary.multi_valued(k))
      return Status::Invalid("crf.hysol: template '" + dictionary.templates()[k].text +
                             "' has several values per token, but each feature type's HMM emits one symbol per "
                             "token; drop it from the HMMs' features (set / templates)");
  return Status();
}

GenerativeSymbols::GenerativeSymbols(std::shared_ptr<const FeatureDictionary> dictionary)
    : dictionary_(std::move(dictionary)) {
  vocabulary_sizes_.assign(dictionary_->templates().size(), 1);
  symbol_of_attribute_.resize(dictionary_->num_attributes());
  for (int32_t a = 0; a < dictionary_->num_attributes(); ++a)
    symbol_of_attribute_[a] = static_cast<int32_t>(vocabulary_sizes_[dictionary_->attribute_template(a)]++);
}

Result<RowMatrixXi> GenerativeSymbols::Symbols(const Corpus& corpus, const std::vector<int64_t>& offsets,
                                               int threads) const {
  RowMatrixXi out = RowMatrixXi::Zero(offsets.back(), num_types());
  Status extracted = dictionary_->ForEachExtracted(corpus, threads, [&](size_t n, const SentenceFeatures& features) {
    for (int32_t t = 0; t < features.size(); ++t)
      for (int32_t k = features.offsets[t]; k < features.offsets[t + 1]; ++k) {
        const int32_t a = features.ids[k];
        out(offsets[n] + t, dictionary_->attribute_template(a)) = symbol_of_attribute_[a];
      }
  });
  if (!extracted.ok()) return extracted;
  return out;
}

ExpertTransitions HybridModel::expert_transitions() const {
  ExpertTransitions out;
  const bool second_order = std::any_of(experts.begin(), experts.end(), [](const auto& e) { return e->order == 2; });
  for (const auto& e : experts) {
    const CrfLayout layout = e->layout();
    const auto K = static_cast<Eigen::Index>(layout.num_labels);
    if (!second_order) {
      out.push_back(CrfTransition(e->weights, layout));
    } else if (e->order == 2) {
      const Eigen::VectorXd g = CrfTrigramPotentials(e->weights, layout);
      out.push_back(Eigen::Map<const RowMatrixXd>(g.data(), (K + 1) * K, K));
    } else {  // a first-order expert in a second-order hybrid: A(b, c) for every first tag a
      out.push_back(CrfTransition(e->weights, layout).replicate(K + 1, 1));
    }
  }
  return out;
}

void HybridModel::Save(ByteWriter& w) const {
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  w.U64(experts.size());
  for (const auto& e : experts) SaveArtifact(w, *e);
  w.U8(symbols.dictionary() ? 1 : 0);
  if (symbols.dictionary()) {
    ByteWriter dict;
    symbols.dictionary()->Save(dict);
    w.Str(dict.bytes());
  }
  w.U64(static_cast<uint64_t>(theta.num_models()));
  for (int j = 0; j < theta.num_models(); ++j) {
    SaveRowMatrix(w, theta.log_initial[j].transpose());
    SaveRowMatrix(w, theta.log_transition[j]);
    SaveRowMatrix(w, theta.log_emission[j]);
  }
  w.F64s(gamma.data(), static_cast<size_t>(gamma.size()));
}

std::shared_ptr<const HybridModel> HybridModel::Load(ByteReader& r) {
  auto m = std::make_shared<HybridModel>();
  m->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns))
    throw StatusError(Status::Corruption("HybridModel: bad encoding"));
  m->encoding = static_cast<TagEncoding>(encoding);
  const size_t experts = r.Count(sizeof(uint64_t));
  for (size_t i = 0; i < experts; ++i) {
    const std::string bytes = r.Str();
    ByteReader inner(bytes);
    m->experts.push_back(CrfModel::Load(inner));
  }
  if (r.U8()) {
    const std::string dict = r.Str();
    ByteReader dict_reader(dict);
    m->symbols = GenerativeSymbols(FeatureDictionary::Load(dict_reader));
  }
  const size_t models = r.Count(1);
  for (size_t j = 0; j < models; ++j) {
    const RowMatrixXd initial = LoadRowMatrix(r);
    if (initial.rows() != 1) throw StatusError(Status::Corruption("HybridModel: an initial distribution is not a row"));
    m->theta.log_initial.push_back(initial.transpose());
    m->theta.log_transition.push_back(LoadRowMatrix(r));
    m->theta.log_emission.push_back(LoadRowMatrix(r));
  }
  const std::vector<double> gamma = r.F64s();
  m->gamma = Eigen::Map<const Eigen::VectorXd>(gamma.data(), static_cast<Eigen::Index>(gamma.size()));
  const auto labels = static_cast<Eigen::Index>(m->label_names.size());
  bool consistent = m->gamma.size() == static_cast<Eigen::Index>(experts + models) &&
                    static_cast<int>(models) == m->symbols.num_types();
  for (size_t j = 0; consistent && j < models; ++j)
    consistent = m->theta.log_initial[j].size() == labels && m->theta.log_transition[j].rows() == labels &&
                 m->theta.log_transition[j].cols() == labels && m->theta.log_emission[j].cols() == labels &&
                 m->theta.log_emission[j].rows() == m->symbols.vocabulary_sizes()[j];
  for (const auto& e : m->experts) consistent = consistent && e->label_names == m->label_names;
  if (!consistent) throw StatusError(Status::Corruption("HybridModel: parts of inconsistent shapes"));
  return m;
}

Result<ChainCorpus> HybridModel::Chains(const Corpus& data, int threads) const {
  Result<HybridCorpus> built = BuildHybridCorpus(experts, symbols, label_names, data, false, threads);
  if (!built.ok()) return built.status();
  const HybridCorpus& corpus = *built;
  const RowMatrixXd transition = HybridTransition(expert_transitions(), theta, gamma);
  const auto K = static_cast<Eigen::Index>(label_names.size());
  // A second-order hybrid hands its trigram rows to the chain tables; the bigram block is unread.
  ChainCorpus chains = ScoreChains(transition.topRows(K), data, [&](const ScoreVisitor& visit) {
    ParallelShards(data.sentences.size(), 64, threads, [&](size_t, size_t begin, size_t end) {
      RowMatrixXd scores;
      for (size_t n = begin; n < end; ++n) {
        HybridScores(corpus, n, theta, gamma, scores);
        visit(n, scores);
      }
    });
  });
  if (transition.rows() != K) chains.tables.trigram = Eigen::Map<const Eigen::VectorXd>(transition.data(), transition.size());
  return chains;
}

std::string HybridModel::Describe() const {
  return fmt::format("hybrid of {} CRFs and {} HMMs over {} labels", experts.size(), theta.num_models(),
                     label_names.size());
}

Result<std::vector<std::string>> CommonLabels(const std::vector<std::shared_ptr<const CrfModel>>& experts) {
  if (experts.empty()) return Status::Invalid("a hybrid model needs at least one CRF expert");
  const std::vector<std::string>& first = experts[0]->label_names;
  for (size_t i = 1; i < experts.size(); ++i) {
    const std::vector<std::string>& other = experts[i]->label_names;
    if (other == first) continue;
    size_t k = 0;
    while (k < first.size() && k < other.size() && first[k] == other[k]) ++k;
    return Status::Invalid(fmt::format(
        "CRF experts 1 and {} have different label sets ({} vs {} labels; label {} is '{}' vs '{}'); train them on "
        "the same labeled corpus",
        i + 1, first.size(), other.size(), k + 1, k < first.size() ? first[k] : "-", k < other.size() ? other[k] : "-"));
  }
  return experts[0]->label_names;
}

Result<HybridCorpus> BuildHybridCorpus(const std::vector<std::shared_ptr<const CrfModel>>& experts,
                                       const GenerativeSymbols& symbols, const std::vector<std::string>& label_names,
                                       const Corpus& corpus, bool with_labels, int threads) {
  HybridCorpus out;
  out.num_labels = static_cast<int32_t>(label_names.size());
  out.offsets.assign(1, 0);
  for (const Sentence& s : corpus.sentences) out.offsets.push_back(out.offsets.back() + static_cast<int64_t>(s.size()));
  for (const auto& expert : experts) {
    RowMatrixXf scores(out.num_tokens(), out.num_labels);
    Status scored = ForEachCrfScores(*expert, corpus, threads, [&](size_t n, const RowMatrixXd& s) {
      scores.middleRows(out.offsets[n], s.rows()) = s.cast<float>();
    });
    if (!scored.ok()) return scored;
    out.expert_scores.push_back(std::move(scores));
  }
  if (symbols.num_types() > 0) {
    Result<RowMatrixXi> symbol_ids = symbols.Symbols(corpus, out.offsets, threads);
    if (!symbol_ids.ok()) return symbol_ids.status();
    out.symbols = std::move(symbol_ids).value();
  } else {
    out.symbols = RowMatrixXi(out.num_tokens(), 0);
  }
  if (!with_labels) return out;
  if (!corpus.labeled())
    return Status::Invalid(fmt::format("{} has no gold labels; this input must be labeled", corpus.source));
  std::vector<int32_t> map(corpus.label_names.size(), -1);
  for (size_t l = 0; l < corpus.label_names.size(); ++l)
    for (size_t k = 0; k < label_names.size(); ++k)
      if (label_names[k] == corpus.label_names[l]) map[l] = static_cast<int32_t>(k);
  out.labels.reserve(out.num_tokens());
  for (size_t n = 0; n < corpus.sentences.size(); ++n)
    for (int32_t label : corpus.sentences[n].labels) {
      if (map[label] < 0)
        return Status::Invalid(fmt::format("{} sentence {}: label '{}' is not one the CRF experts were trained on",
                                           corpus.source, n + 1, corpus.label_names[label]));
      out.labels.push_back(map[label]);
    }
  return out;
}

}  // namespace seqflow
