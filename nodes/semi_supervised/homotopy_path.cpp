#include "nodes/semi_supervised/homotopy_path.h"

#include <cstdio>
#include <set>

namespace seqflow {
namespace {

void SaveFree(ByteWriter& w, const FreeBlocks& f) {
  w.U8(f.initial);
  w.U8(f.transition);
  w.U8(f.emission);
}

FreeBlocks LoadFree(ByteReader& r) {
  FreeBlocks f;
  f.initial = r.U8() != 0;
  f.transition = r.U8() != 0;
  f.emission = r.U8() != 0;
  return f;
}

void SavePoint(ByteWriter& w, const HomotopyPoint& p) {
  for (double v : {p.s, p.lambda, p.dlambda_ds, p.mu_max, p.min_eig, p.entropy}) w.F64(v);
  w.I64(p.det_sign);
  w.F64s(p.theta_tilde.data(), static_cast<size_t>(p.theta_tilde.size()));
  w.U64(p.metrics.size());
  for (const auto& [k, v] : p.metrics) {
    w.Str(k);
    w.F64(v);
  }
}

HomotopyPoint LoadPoint(ByteReader& r, int num_params) {
  HomotopyPoint p;
  for (double* v : {&p.s, &p.lambda, &p.dlambda_ds, &p.mu_max, &p.min_eig, &p.entropy}) *v = r.F64();
  p.det_sign = static_cast<int>(r.I64());
  std::vector<double> theta = r.F64s();
  if (static_cast<int>(theta.size()) != num_params)
    throw StatusError(Status::Corruption("homotopy path point has " + std::to_string(theta.size()) +
                                         " parameters, the layout " + std::to_string(num_params)));
  p.theta_tilde = Eigen::Map<Eigen::VectorXd>(theta.data(), num_params);
  size_t n = r.Count(16);
  for (size_t i = 0; i < n; ++i) {
    std::string k = r.Str();
    p.metrics[k] = r.F64();
  }
  return p;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

PomLayout HomotopyPath::Layout() const { return PomLayout(reference->num_states(), reference->num_symbols(), free); }

std::shared_ptr<const HmmModel> HomotopyPath::ModelAt(size_t i) const {
  auto model = std::make_shared<HmmModel>(*reference);
  model->params = Layout().ToHmm(points.at(i).theta_tilde, reference->params);
  return model;
}

std::string HomotopyPath::Csv() const {
  std::set<std::string> columns;
  for (const auto& p : points)
    for (const auto& [k, v] : p.metrics) columns.insert(k);
  std::string out = "s,lambda,dlambda_ds,mu_max,min_eig,det_sign,entropy";
  for (const auto& c : columns) out += "," + c;
  out += "\n";
  for (const auto& p : points) {
    out += Number(p.s) + "," + Number(p.lambda) + "," + Number(p.dlambda_ds) + "," + Number(p.mu_max) + "," +
           Number(p.min_eig) + "," + std::to_string(p.det_sign) + "," + Number(p.entropy);
    for (const auto& c : columns) {
      auto it = p.metrics.find(c);
      out += ',';
      if (it != p.metrics.end()) out += Number(it->second);
    }
    out += "\n";
  }
  return out;
}

const AttachmentSpec& HomotopyPath::CsvTable() {
  static const AttachmentSpec kTable = AttachmentSpec::Table("path.csv", "lambda", {"*.f1", "*.accuracy"})
                                           .XLabel("λ")
                                           .Fallback({"entropy"})
                                           .MarkMax()
                                           .LambdaAxis();
  return kTable;
}

void HomotopyPath::Save(ByteWriter& w) const {
  w.Str(method);
  ByteWriter model;
  reference->Save(model);
  w.Str(model.bytes());
  SaveFree(w, free);
  w.I64(num_labeled);
  w.I64(num_unlabeled);
  w.Str(stop);
  w.U64(points.size());
  for (const auto& p : points) SavePoint(w, p);
}

std::shared_ptr<const HomotopyPath> HomotopyPath::Load(ByteReader& r) {
  auto path = std::make_shared<HomotopyPath>();
  path->method = r.Str();
  std::string model_bytes = r.Str();
  ByteReader model_reader(model_bytes);
  path->reference = HmmModel::Load(model_reader);
  path->free = LoadFree(r);
  path->num_labeled = r.I64();
  path->num_unlabeled = r.I64();
  path->stop = r.Str();
  int num_params = path->Layout().num_params();
  size_t n = r.Count(64);
  for (size_t i = 0; i < n; ++i) path->points.push_back(LoadPoint(r, num_params));
  return path;
}

std::string HomotopyPath::Describe() const {
  std::string last = points.empty() ? "-" : Number(points.back().lambda);
  return method + ": " + std::to_string(points.size()) + " points, last lambda " + last;
}

}  // namespace seqflow
