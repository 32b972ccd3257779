#include "nodes/moments/moments.h"

#include <vector>

namespace seqflow {

namespace {

[[noreturn]] void Corrupt(const std::string& what) { throw StatusError(Status::Corruption("Moments: " + what)); }

}  // namespace

void Moments::Save(ByteWriter& w) const {
  ByteWriter vocab_bytes;
  vocab->Save(vocab_bytes);
  w.Str(vocab_bytes.bytes());
  w.U64(static_cast<uint64_t>(counts.num_symbols));
  w.I64(counts.tokens);
  w.F64s(counts.word_counts.data(), static_cast<size_t>(counts.word_counts.size()));
  Eigen::SparseMatrix<double> m = counts.cooccurrence;
  m.makeCompressed();
  w.I32s(m.outerIndexPtr(), static_cast<size_t>(m.outerSize() + 1));
  w.I32s(m.innerIndexPtr(), static_cast<size_t>(m.nonZeros()));
  w.F64s(m.valuePtr(), static_cast<size_t>(m.nonZeros()));
}

std::shared_ptr<const Moments> Moments::Load(ByteReader& r) {
  auto m = std::make_shared<Moments>();
  std::string vocab_bytes = r.Str();
  ByteReader vocab_reader(vocab_bytes);
  m->vocab = Vocab::Load(vocab_reader);
  vocab_reader.ExpectEnd();
  const uint64_t v = r.U64();
  if (v != static_cast<uint64_t>(m->vocab->size())) Corrupt("symbol count disagrees with the vocabulary");
  MomentCounts& c = m->counts;
  c.num_symbols = static_cast<int32_t>(v);
  c.tokens = r.I64();
  std::vector<double> word_counts = r.F64s();
  if (word_counts.size() != v) Corrupt("word counts have the wrong size");
  c.word_counts = Eigen::Map<const Eigen::VectorXd>(word_counts.data(), static_cast<Eigen::Index>(v));
  std::vector<int32_t> outer = r.I32s(), inner = r.I32s();
  std::vector<double> values = r.F64s();
  if (outer.size() != v + 1 || outer.front() != 0 || static_cast<size_t>(outer.back()) != inner.size() ||
      inner.size() != values.size())
    Corrupt("co-occurrence arrays disagree");
  for (size_t i = 0; i + 1 < outer.size(); ++i)
    if (outer[i] > outer[i + 1]) Corrupt("co-occurrence column starts decrease");
  for (int32_t row : inner)
    if (row < 0 || row >= c.num_contexts()) Corrupt("co-occurrence row out of range");
  c.cooccurrence = Eigen::Map<const Eigen::SparseMatrix<double>>(c.num_contexts(), static_cast<Eigen::Index>(v),
                                                                 static_cast<Eigen::Index>(values.size()), outer.data(),
                                                                 inner.data(), values.data());
  return m;
}

std::string Moments::Describe() const {
  return "moments of " + std::to_string(counts.tokens) + " tokens: " + std::to_string(counts.num_symbols) +
         " symbols x " + std::to_string(counts.num_contexts()) + " contexts, " +
         std::to_string(counts.cooccurrence.nonZeros()) + " non-zeros";
}

}  // namespace seqflow
