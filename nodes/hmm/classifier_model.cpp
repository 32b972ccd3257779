#include "nodes/hmm/classifier_model.h"

#include <vector>

#include "nodes/chain/matrix_bytes.h"

namespace seqflow {
namespace {

void SaveMatrix(ByteWriter& w, const Eigen::MatrixXd& m) {
  w.U64(static_cast<uint64_t>(m.rows()));
  w.U64(static_cast<uint64_t>(m.cols()));
  w.F64s(m.data(), static_cast<size_t>(m.size()));
}

Eigen::MatrixXd LoadMatrix(ByteReader& r) {
  const uint64_t rows = r.U64(), cols = r.U64();
  const std::vector<double> v = r.F64s();
  if (v.size() != rows * cols) throw StatusError(Status::Corruption("classifier matrix has the wrong size"));
  return Eigen::Map<const Eigen::MatrixXd>(v.data(), static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
}

}  // namespace

void ClassifierModel::Save(ByteWriter& w) const {
  w.F64(lambda);
  SaveVector(w, model.prior);
  w.U64(model.classes.size());
  for (const HmmParams& h : model.classes) {
    SaveVector(w, h.initial);
    SaveMatrix(w, h.transition);
    SaveMatrix(w, h.emission);
  }
}

std::shared_ptr<const ClassifierModel> ClassifierModel::Load(ByteReader& r) {
  auto out = std::make_shared<ClassifierModel>();
  out->lambda = r.F64();
  out->model.prior = LoadVector(r);
  const size_t C = r.Count(8);
  for (size_t y = 0; y < C; ++y) {
    HmmParams h;
    h.initial = LoadVector(r);
    h.transition = LoadMatrix(r);
    h.emission = LoadMatrix(r);
    out->model.classes.push_back(std::move(h));
  }
  return out;
}

std::string ClassifierModel::Describe() const {
  return std::to_string(model.num_classes()) + " classes of " + std::to_string(model.num_states()) + "-state HMMs";
}

}  // namespace seqflow
