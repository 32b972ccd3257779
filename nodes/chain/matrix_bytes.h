// The byte form of the parameter tables the CRF family saves in artifacts and checkpoints:
// a matrix as rows, columns (I64) and its row-major values; a vector as its values.
#pragma once

#include <Eigen/Dense>

#include "engine/base/bytes.h"
#include "nodes/chain/forward_backward_lanes.h"

namespace seqflow {

void SaveRowMatrix(ByteWriter& w, const Eigen::Ref<const RowMatrixXd>& m);
// Throws StatusError(Corruption) when the shape does not match the values.
RowMatrixXd LoadRowMatrix(ByteReader& r);
void SaveVector(ByteWriter& w, const Eigen::VectorXd& v);
Eigen::VectorXd LoadVector(ByteReader& r);

}  // namespace seqflow
