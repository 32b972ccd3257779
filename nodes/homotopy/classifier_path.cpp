#include "nodes/homotopy/classifier_path.h"

#include <cstdio>

#include "nodes/chain/matrix_bytes.h"

namespace seqflow {
namespace {

void SavePoint(ByteWriter& w, const ClassifierPathPoint& p) {
  for (double v : {p.s, p.lambda, p.dlambda_ds, p.entropy, p.log_likelihood, p.accuracy}) w.F64(v);
  SaveVector(w, p.theta_tilde);
}

ClassifierPathPoint LoadPoint(ByteReader& r) {
  ClassifierPathPoint p;
  for (double* v : {&p.s, &p.lambda, &p.dlambda_ds, &p.entropy, &p.log_likelihood, &p.accuracy}) *v = r.F64();
  p.theta_tilde = LoadVector(r);
  return p;
}

}  // namespace

std::string ClassifierPathArtifact::Csv() const {
  std::string out = "s,lambda,dlambda_ds,entropy,log_likelihood,accuracy,final_segment\n";
  char line[256];
  for (size_t k = 0; k < path.points.size(); ++k) {
    const ClassifierPathPoint& p = path.points[k];
    std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g,%.17g,%.17g,", p.s, p.lambda, p.dlambda_ds, p.entropy,
                  p.log_likelihood);
    out += line;
    if (p.accuracy >= 0) {
      std::snprintf(line, sizeof line, "%.17g", p.accuracy);
      out += line;
    }
    out += k >= path.final_segment_start ? ",1\n" : ",0\n";
  }
  return out;
}

const AttachmentSpec& ClassifierPathArtifact::CsvTable() {
  static const AttachmentSpec kSpec =
      AttachmentSpec::Table("path.csv", "lambda", {"accuracy"}).XLabel("λ").Fallback({"entropy"}).LambdaAxis();
  return kSpec;
}

void ClassifierPathArtifact::Save(ByteWriter& w) const {
  for (int v : {num_classes, num_states, num_symbols}) w.U32(static_cast<uint32_t>(v));
  w.I64(num_labeled);
  w.I64(num_unlabeled);
  w.U32(static_cast<uint32_t>(path.stop));
  for (int v : {path.evaluations, path.steps, path.returns}) w.I64(v);
  w.U64(path.final_segment_start);
  w.U64(path.points.size());
  for (const ClassifierPathPoint& p : path.points) SavePoint(w, p);
  SavePoint(w, mle_point);
}

std::shared_ptr<const ClassifierPathArtifact> ClassifierPathArtifact::Load(ByteReader& r) {
  auto out = std::make_shared<ClassifierPathArtifact>();
  out->num_classes = static_cast<int>(r.U32());
  out->num_states = static_cast<int>(r.U32());
  out->num_symbols = static_cast<int>(r.U32());
  out->num_labeled = r.I64();
  out->num_unlabeled = r.I64();
  const uint32_t stop = r.U32();
  if (stop > static_cast<uint32_t>(NormalFlowStop::kStepTooSmall))
    throw StatusError(Status::Corruption("ClassifierPath: unknown stop reason"));
  out->path.stop = static_cast<NormalFlowStop>(stop);
  out->path.evaluations = static_cast<int>(r.I64());
  out->path.steps = static_cast<int>(r.I64());
  out->path.returns = static_cast<int>(r.I64());
  out->path.final_segment_start = r.U64();
  const size_t n = r.Count(8);
  for (size_t k = 0; k < n; ++k) out->path.points.push_back(LoadPoint(r));
  out->mle_point = LoadPoint(r);
  return out;
}

std::string ClassifierPathArtifact::Describe() const {
  return std::to_string(path.points.size()) + " points, " + std::to_string(path.returns) + " returns near λ = 0";
}

}  // namespace seqflow
