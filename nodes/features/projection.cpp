#include "nodes/features/projection.h"

#include <cstdio>
#include <vector>

namespace seqflow {

void Projection::Save(ByteWriter& w) const {
  w.U64(static_cast<uint64_t>(context_projection.rows()));
  w.U64(static_cast<uint64_t>(context_projection.cols()));
  w.F64s(context_projection.data(), static_cast<size_t>(context_projection.size()));
  w.F64s(correlations.data(), static_cast<size_t>(correlations.size()));
}

std::shared_ptr<const Projection> Projection::Load(ByteReader& r) {
  auto p = std::make_shared<Projection>();
  const auto rows = static_cast<Eigen::Index>(r.U64()), cols = static_cast<Eigen::Index>(r.U64());
  std::vector<double> values = r.F64s(), correlations = r.F64s();
  if (rows < 0 || cols < 0 || values.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols) ||
      correlations.size() != static_cast<size_t>(cols))
    throw StatusError(Status::Corruption("Projection: sizes disagree"));
  p->context_projection = Eigen::Map<const Eigen::MatrixXd>(values.data(), rows, cols);
  p->correlations = Eigen::Map<const Eigen::VectorXd>(correlations.data(), cols);
  return p;
}

std::string Projection::Describe() const {
  char range[64] = "";
  if (correlations.size() > 0)
    std::snprintf(range, sizeof range, " (correlations %.3g .. %.3g)", correlations[0],
                  correlations[correlations.size() - 1]);
  return "CCA projection " + std::to_string(context_projection.rows()) + " contexts -> " +
         std::to_string(context_projection.cols()) + " dims" + range;
}

}  // namespace seqflow
