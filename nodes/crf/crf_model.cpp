#include "nodes/crf/crf_model.h"

#include <fmt/format.h>

namespace seqflow {

void CrfModel::Save(ByteWriter& w) const {
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  ByteWriter dict;
  dictionary->Save(dict);
  w.Str(dict.bytes());
  w.F64s(weights.data(), static_cast<size_t>(weights.size()));
}

std::shared_ptr<const CrfModel> CrfModel::Load(ByteReader& r) {
  auto m = std::make_shared<CrfModel>();
  m->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns))
    throw StatusError(Status::Corruption("CrfModel: bad encoding"));
  m->encoding = static_cast<TagEncoding>(encoding);
  const std::string dict = r.Str();
  ByteReader dict_reader(dict);
  m->dictionary = FeatureDictionary::Load(dict_reader);
  const std::vector<double> w = r.F64s();
  const int64_t first_order = m->layout().size();
  m->order = 2;
  const int64_t second_order = m->layout().size();
  if (static_cast<int64_t>(w.size()) == first_order) m->order = 1;
  if (static_cast<int64_t>(w.size()) != first_order && static_cast<int64_t>(w.size()) != second_order)
    throw StatusError(Status::Corruption(fmt::format("CrfModel: {} weights, the layout needs {} (or {} for order 2)",
                                                     w.size(), first_order, second_order)));
  m->weights = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
  return m;
}

std::string CrfModel::Describe() const {
  return fmt::format("{}CRF {} labels x {} attributes ({} weights)", order == 2 ? "second-order " : "",
                     label_names.size(), dictionary->num_attributes(), weights.size());
}

Result<ChainCorpus> CrfModel::Chains(const Corpus& data, int threads) const {
  Status extracted;
  ChainCorpus chains = ScoreChains(CrfTransition(weights, layout()), data, [&](const ScoreVisitor& visit) {
    extracted = ForEachCrfScores(*this, data, threads, visit);
  });
  if (!extracted.ok()) return extracted;
  if (order == 2) chains.tables.trigram = CrfTrigramPotentials(weights, layout());
  return chains;
}

Status ForEachCrfScores(const CrfModel& model, const Corpus& corpus, int threads,
                        const std::function<void(size_t sentence, const RowMatrixXd& scores)>& visit) {
  const CrfLayout layout = model.layout();
  return model.dictionary->ForEachExtracted(corpus, threads, [&](size_t n, const SentenceFeatures& features) {
    thread_local RowMatrixXd scores;
    if (features.size() == 0) {
      visit(n, RowMatrixXd(0, layout.num_labels));
      return;
    }
    CrfScores(model.weights, layout, features, scores);
    visit(n, scores);
  });
}

}  // namespace seqflow
