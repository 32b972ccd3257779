#include "nodes/classifier/classifier_artifacts.h"

#include <charconv>
#include <cstdio>

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

void SaveVector(ByteWriter& w, const Eigen::VectorXd& v) { w.F64s(v.data(), static_cast<size_t>(v.size())); }

Eigen::VectorXd LoadVector(ByteReader& r) {
  const std::vector<double> v = r.F64s();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

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

bool ParseInt(std::string_view text, int32_t* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

}  // namespace

void ClassSequences::Save(ByteWriter& w) const {
  w.Str(source);
  w.U32(static_cast<uint32_t>(num_classes));
  w.U32(static_cast<uint32_t>(num_symbols));
  w.U64(sequences.size());
  for (const auto& s : sequences) w.I32s(s.data(), s.size());
  w.I32s(labels.data(), labels.size());
}

std::shared_ptr<const ClassSequences> ClassSequences::Load(ByteReader& r) {
  auto out = std::make_shared<ClassSequences>();
  out->source = r.Str();
  out->num_classes = static_cast<int>(r.U32());
  out->num_symbols = static_cast<int>(r.U32());
  const size_t n = r.Count(8);
  for (size_t i = 0; i < n; ++i) out->sequences.push_back(r.I32s());
  out->labels = r.I32s();
  if (out->labels.size() != n) throw StatusError(Status::Corruption("ClassSequences: labels do not match sequences"));
  return out;
}

std::string ClassSequences::Describe() const {
  return std::to_string(sequences.size()) + " sequences, " + std::to_string(num_classes) + " classes, " +
         std::to_string(num_symbols) + " symbols";
}

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

Result<std::shared_ptr<ClassSequences>> ParseClassSequences(std::string_view text, const std::string& source) {
  auto out = std::make_shared<ClassSequences>();
  out->source = source;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto bad = [&](const std::string& why) {
      return Status::Invalid(why, SourceLoc{source, static_cast<int>(line_no), 0});
    };
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) return bad("expected `class<TAB>symbols`, found no tab");
    int32_t label = 0;
    if (!ParseInt(line.substr(0, tab), &label)) return bad("the class is not a non-negative integer");
    std::vector<int32_t> symbols;
    std::string_view rest = line.substr(tab + 1);
    while (!rest.empty()) {
      const size_t start = rest.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      rest.remove_prefix(start);
      const size_t end = rest.find(' ');
      int32_t symbol = 0;
      if (!ParseInt(rest.substr(0, end), &symbol))
        return bad("symbol '" + std::string(rest.substr(0, end)) + "' is not a non-negative integer");
      symbols.push_back(symbol);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    }
    if (symbols.empty()) return bad("the sequence is empty");
    out->num_classes = std::max(out->num_classes, label + 1);
    for (int32_t s : symbols) out->num_symbols = std::max(out->num_symbols, s + 1);
    out->sequences.push_back(std::move(symbols));
    out->labels.push_back(label);
  }
  if (out->sequences.empty()) return Status::Invalid(source + ": no sequences");
  return out;
}

}  // namespace seqflow
