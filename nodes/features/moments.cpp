#include "nodes/features/moments.h"

#include <vector>

namespace seqflow {

namespace {

[[noreturn]] void CorruptMoments(const std::string& what) { throw StatusError(Status::Corruption("Moments: " + what)); }

void SaveSparse(Eigen::SparseMatrix<double> m, ByteWriter& w) {
  m.makeCompressed();
  w.I32s(m.outerIndexPtr(), static_cast<size_t>(m.outerSize() + 1));
  w.I32s(m.innerIndexPtr(), static_cast<size_t>(m.nonZeros()));
  w.F64s(m.valuePtr(), static_cast<size_t>(m.nonZeros()));
}

// A CSC matrix of `rows` x `cols` as SaveSparse wrote it; Corrupt names `what` when inconsistent.
Eigen::SparseMatrix<double> LoadSparse(ByteReader& r, int64_t rows, int64_t cols, const std::string& what) {
  std::vector<int32_t> outer = r.I32s(), inner = r.I32s();
  std::vector<double> values = r.F64s();
  if (outer.size() != static_cast<size_t>(cols) + 1 || outer.front() != 0 ||
      static_cast<size_t>(outer.back()) != inner.size() || inner.size() != values.size())
    CorruptMoments(what + " arrays disagree");
  for (size_t i = 0; i + 1 < outer.size(); ++i)
    if (outer[i] > outer[i + 1]) CorruptMoments(what + " column starts decrease");
  for (int32_t row : inner)
    if (row < 0 || row >= rows) CorruptMoments(what + " row out of range");
  return Eigen::Map<const Eigen::SparseMatrix<double>>(rows, cols, static_cast<Eigen::Index>(values.size()),
                                                       outer.data(), inner.data(), values.data());
}

}  // namespace

void Moments::Save(ByteWriter& w) const {
  ByteWriter vocab_bytes;
  vocab->Save(vocab_bytes);
  w.Str(vocab_bytes.bytes());
  w.U64(static_cast<uint64_t>(counts.num_symbols));
  w.I64(counts.tokens);
  w.F64s(counts.word_counts.data(), static_cast<size_t>(counts.word_counts.size()));
  w.U64(static_cast<uint64_t>(counts.num_contexts()));
  SaveSparse(counts.cooccurrence, w);
  w.Strs(context_names);
  SaveSparse(context_map, w);
}

Eigen::MatrixXd Moments::MapContexts(const Eigen::MatrixXd& onehot) const {
  if (context_names.empty()) return onehot;
  return context_map * onehot;
}

std::shared_ptr<const Moments> Moments::Load(ByteReader& r) {
  auto m = std::make_shared<Moments>();
  std::string vocab_bytes = r.Str();
  ByteReader vocab_reader(vocab_bytes);
  m->vocab = Vocab::Load(vocab_reader);
  vocab_reader.ExpectEnd();
  const uint64_t v = r.U64();
  if (v != static_cast<uint64_t>(m->vocab->size())) CorruptMoments("symbol count disagrees with the vocabulary");
  MomentCounts& c = m->counts;
  c.num_symbols = static_cast<int32_t>(v);
  c.tokens = r.I64();
  std::vector<double> word_counts = r.F64s();
  if (word_counts.size() != v) CorruptMoments("word counts have the wrong size");
  c.word_counts = Eigen::Map<const Eigen::VectorXd>(word_counts.data(), static_cast<Eigen::Index>(v));
  const uint64_t contexts = r.U64();
  if (contexts < 1 || contexts > (uint64_t{1} << 31)) CorruptMoments("context count out of range");
  c.cooccurrence = LoadSparse(r, static_cast<int64_t>(contexts), static_cast<int64_t>(v), "co-occurrence");
  m->context_names = r.Strs();
  const int64_t onehot = 2 * (static_cast<int64_t>(v) + 1);
  if (m->context_names.empty() ? contexts != static_cast<uint64_t>(onehot) : contexts != m->context_names.size())
    CorruptMoments("context count disagrees with the context names");
  m->context_map = LoadSparse(r, static_cast<int64_t>(m->context_names.size()), m->context_names.empty() ? 0 : onehot,
                              "context map");
  return m;
}

std::string Moments::Describe() const {
  return "moments of " + std::to_string(counts.tokens) + " tokens: " + std::to_string(counts.num_symbols) +
         " symbols x " + std::to_string(counts.num_contexts()) + (context_names.empty() ? " one-hot" : " feature") +
         " contexts, " + std::to_string(counts.cooccurrence.nonZeros()) + " non-zeros";
}

}  // namespace seqflow
