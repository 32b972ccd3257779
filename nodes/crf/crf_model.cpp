#include "nodes/crf/crf_model.h"

#include <fmt/format.h>

#include "nodes/common/parallel.h"

namespace seqflow {
namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "[" + out + "]";
}

// The dictionary addresses columns by position, so a corpus must lay them out the same way.
void CheckColumns(const FeatureDictionary& dictionary, const Corpus& corpus) {
  const std::vector<std::string>& want = dictionary.columns();
  bool ok = corpus.columns.size() >= want.size();
  for (size_t i = 0; ok && i < want.size(); ++i) ok = corpus.columns[i] == want[i];
  if (!ok)
    throw StatusError(Status::Invalid("the CRF's templates read columns " + Joined(want) + " but " +
                                      (corpus.source.empty() ? std::string("the corpus") : corpus.source) + " has " +
                                      Joined(corpus.columns) +
                                      "; read it with the same columns: as the training data"));
}

}  // namespace

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
  if (static_cast<int64_t>(w.size()) != m->layout().size())
    throw StatusError(
        Status::Corruption(fmt::format("CrfModel: {} weights, the layout needs {}", w.size(), m->layout().size())));
  m->weights = Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
  return m;
}

std::string CrfModel::Describe() const {
  return fmt::format("CRF {} labels x {} attributes ({} weights)", label_names.size(), dictionary->num_attributes(),
                     weights.size());
}

void ForEachCrfScores(const CrfModel& model, const Corpus& corpus, int threads,
                      const std::function<void(size_t sentence, const RowMatrixXd& scores)>& visit) {
  CheckColumns(*model.dictionary, corpus);
  const CrfLayout layout = model.layout();
  ParallelShards(corpus.sentences.size(), 64, threads, [&](size_t, size_t begin, size_t end) {
    RowMatrixXd scores;
    for (size_t n = begin; n < end; ++n) {
      const Sentence& sentence = corpus.sentences[n];
      if (sentence.size() == 0) {
        visit(n, RowMatrixXd(0, layout.num_labels));
        continue;
      }
      CrfScores(model.weights, layout, model.dictionary->Extract(sentence), scores);
      visit(n, scores);
    }
  });
}

}  // namespace seqflow
