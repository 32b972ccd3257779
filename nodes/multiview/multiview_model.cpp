#include "nodes/multiview/multiview_model.h"

#include <fmt/format.h>

#include "nodes/multiview/hm_perceptron.h"

namespace seqflow {

void MultiViewModel::Save(ByteWriter& w) const {
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  ByteWriter dict;
  dictionary->Save(dict);
  w.Str(dict.bytes());
  w.I32s(view.data(), view.size());
  w.U32(static_cast<uint32_t>(views));
  w.F64s(observation.data(), static_cast<size_t>(observation.size()));
  w.F64s(transition.data(), static_cast<size_t>(transition.size()));
}

std::shared_ptr<const MultiViewModel> MultiViewModel::Load(ByteReader& r) {
  auto m = std::make_shared<MultiViewModel>();
  m->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns))
    throw StatusError(Status::Corruption("MultiViewModel: bad encoding"));
  m->encoding = static_cast<TagEncoding>(encoding);
  const std::string dict = r.Str();
  ByteReader dict_reader(dict);
  m->dictionary = FeatureDictionary::Load(dict_reader);
  m->view = r.I32s();
  m->views = static_cast<int32_t>(r.U32());
  const std::vector<double> obs = r.F64s();
  const std::vector<double> trans = r.F64s();
  const auto A = static_cast<size_t>(m->dictionary->num_attributes());
  const size_t K = m->label_names.size();
  if (m->view.size() != A || obs.size() != A * K || trans.size() != K * K || (m->views != 1 && m->views != 2))
    throw StatusError(Status::Corruption(
        fmt::format("MultiViewModel: {} views, {} observation and {} transition weights for {} attributes x {} labels",
                    m->view.size(), obs.size(), trans.size(), A, K)));
  m->observation =
      Eigen::Map<const RowMatrixXd>(obs.data(), static_cast<Eigen::Index>(A), static_cast<Eigen::Index>(K));
  m->transition =
      Eigen::Map<const RowMatrixXd>(trans.data(), static_cast<Eigen::Index>(K), static_cast<Eigen::Index>(K));
  return m;
}

std::string MultiViewModel::Describe() const {
  return fmt::format("HM perceptron, {} view{}, {} labels x {} attributes", views, views == 1 ? "" : "s",
                     label_names.size(), dictionary->num_attributes());
}

Result<ChainCorpus> MultiViewModel::Chains(const Corpus& data, int threads) const {
  Status extracted;
  ChainCorpus chains = ScoreChains(transition, data, [&](const ScoreVisitor& visit) {
    extracted = dictionary->ForEachExtracted(data, threads, [&](size_t n, SentenceFeatures&& x) {
      thread_local RowMatrixXd scores;
      ViewScores(observation, x, nullptr, 0, &scores);
      visit(n, scores);
    });
  });
  if (!extracted.ok()) return extracted;
  return chains;
}

}  // namespace seqflow
