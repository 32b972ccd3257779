#include "nodes/hmm/hmm_model.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "nodes/hmm/viterbi.h"

namespace seqflow {
namespace {

[[noreturn]] void Corrupt(const std::string& what) { throw StatusError(Status::Corruption("HmmModel: " + what)); }

void SaveMatrix(const Eigen::MatrixXd& m, ByteWriter& w) { w.F64s(m.data(), static_cast<size_t>(m.size())); }

Eigen::MatrixXd LoadMatrix(ByteReader& r, Eigen::Index rows, Eigen::Index cols, const char* name) {
  std::vector<double> v = r.F64s();
  if (v.size() != static_cast<size_t>(rows * cols)) Corrupt(std::string(name) + " has the wrong size");
  return Eigen::Map<const Eigen::MatrixXd>(v.data(), rows, cols);
}

// Empty when `row` is a probability vector, else what is wrong with it.
std::string CheckDistribution(const Eigen::Ref<const Eigen::RowVectorXd>& row, double tol) {
  double sum = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j) {
    if (!std::isfinite(row[j])) return "has a NaN or infinite entry";
    if (row[j] < 0) return "has a negative entry";
    sum += row[j];
  }
  if (std::abs(sum - 1.0) > tol) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", sum);
    return std::string("sums to ") + text;
  }
  return "";
}

Status CheckRows(const Eigen::MatrixXd& m, const char* name, double tol) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    std::string problem = CheckDistribution(m.row(i), tol);
    if (!problem.empty()) return Status::Numerical(std::string(name) + " row " + std::to_string(i) + " " + problem);
  }
  return Status::Ok();
}

}  // namespace

void HmmModel::Save(ByteWriter& w) const {
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  ByteWriter vocab_bytes;
  vocab->Save(vocab_bytes);
  w.Str(vocab_bytes.bytes());
  w.U64(static_cast<uint64_t>(num_states()));
  w.U64(static_cast<uint64_t>(num_symbols()));
  w.F64s(params.initial.data(), static_cast<size_t>(params.initial.size()));
  SaveMatrix(params.transition, w);
  SaveMatrix(params.emission, w);
}

std::shared_ptr<const HmmModel> HmmModel::Load(ByteReader& r) {
  auto m = std::make_shared<HmmModel>();
  m->label_names = r.Strs();
  uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns)) Corrupt("unknown tag encoding " + std::to_string(encoding));
  m->encoding = static_cast<TagEncoding>(encoding);
  std::string vocab_bytes = r.Str();
  ByteReader vocab_reader(vocab_bytes);
  m->vocab = Vocab::Load(vocab_reader);
  vocab_reader.ExpectEnd();
  // Sizes are checked against the arrays that follow, so a huge K or V cannot allocate.
  auto k = static_cast<Eigen::Index>(r.U64());
  auto v = static_cast<Eigen::Index>(r.U64());
  if (v != m->vocab->size())
    Corrupt("emission has " + std::to_string(v) + " symbols, the vocabulary " + std::to_string(m->vocab->size()));
  std::vector<double> initial = r.F64s();
  if (initial.size() != static_cast<size_t>(k)) Corrupt("initial has the wrong size");
  m->params.initial = Eigen::Map<const Eigen::VectorXd>(initial.data(), k);
  m->params.transition = LoadMatrix(r, k, k, "transition");
  m->params.emission = LoadMatrix(r, k, v, "emission");
  return m;
}

std::string HmmModel::Describe() const {
  return "HMM " + std::to_string(num_states()) + " states x " + std::to_string(num_symbols()) + " symbols";
}

Status ValidateHmmParams(const HmmParams& params, double tol) {
  const Eigen::Index k = params.initial.size();
  if (params.transition.rows() != k || params.transition.cols() != k || params.emission.rows() != k)
    return Status::Invalid("HMM shapes disagree: initial " + std::to_string(k) + ", transition " +
                           std::to_string(params.transition.rows()) + "x" + std::to_string(params.transition.cols()) +
                           ", emission " + std::to_string(params.emission.rows()) + " rows");
  std::string problem = CheckDistribution(params.initial.transpose(), tol);
  if (!problem.empty()) return Status::Numerical("initial distribution " + problem);
  SEQFLOW_RETURN_IF_ERROR(CheckRows(params.transition, "transition", tol));
  return CheckRows(params.emission, "emission", tol);
}

std::vector<std::vector<int32_t>> CorpusSymbols(const Vocab& vocab, const Corpus& corpus) {
  std::vector<std::vector<int32_t>> ids;
  ids.reserve(corpus.sentences.size());
  for (const Sentence& s : corpus.sentences)
    ids.push_back(s.cols.empty() ? std::vector<int32_t>{} : vocab.Ids(s.words()));
  return ids;
}

Result<ChainCorpus> HmmModel::Chains(const Corpus& data, int) const {
  SEQFLOW_RETURN_IF_ERROR(ValidateHmmModel(*this));
  ChainCorpus out;
  out.tables = HmmChainTables(params);
  out.columns = CorpusSymbols(*vocab, data);
  return out;
}

Status ValidateHmmModel(const HmmModel& model, double tol) {
  if (!model.vocab) return Status::Invalid("HmmModel has no vocabulary");
  if (model.num_symbols() != model.vocab->size())
    return Status::Invalid("HmmModel emits " + std::to_string(model.num_symbols()) +
                           " symbols but its vocabulary has " + std::to_string(model.vocab->size()));
  if (static_cast<int>(model.label_names.size()) != model.num_states())
    return Status::Invalid("HmmModel has " + std::to_string(model.num_states()) + " states but " +
                           std::to_string(model.label_names.size()) + " label names");
  return ValidateHmmParams(model.params, tol);
}

}  // namespace seqflow
