#include "nodes/chain/matrix_bytes.h"

#include <vector>

#include "engine/base/status.h"

namespace seqflow {

void SaveRowMatrix(ByteWriter& w, const Eigen::Ref<const RowMatrixXd>& m) {
  w.I64(m.rows());
  w.I64(m.cols());
  w.F64s(m.data(), static_cast<size_t>(m.size()));
}

RowMatrixXd LoadRowMatrix(ByteReader& r) {
  const int64_t rows = r.I64();
  const int64_t cols = r.I64();
  const std::vector<double> values = r.F64s();
  if (rows < 0 || cols < 0 || static_cast<int64_t>(values.size()) != rows * cols)
    throw StatusError(Status::Corruption("matrix shape does not match its values"));
  return Eigen::Map<const RowMatrixXd>(values.data(), rows, cols);
}

void SaveVector(ByteWriter& w, const Eigen::VectorXd& v) { w.F64s(v.data(), static_cast<size_t>(v.size())); }

Eigen::VectorXd LoadVector(ByteReader& r) {
  const std::vector<double> values = r.F64s();
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

}  // namespace seqflow
