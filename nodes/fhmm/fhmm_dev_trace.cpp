#include "nodes/fhmm/fhmm_dev_trace.h"

#include <algorithm>
#include <string_view>

#include "engine/base/bytes.h"

namespace seqflow {

std::string AppendDevTrace(std::string em_state, const FhmmDevTrace& trace) {
  ByteWriter w;
  w.F64s(trace.accuracy.data(), trace.accuracy.size());
  w.U8(trace.best ? 1 : 0);
  if (trace.best) {
    const HmmParams& b = *trace.best;
    w.F64s(b.initial.data(), static_cast<size_t>(b.initial.size()));
    w.F64s(b.transition.data(), static_cast<size_t>(b.transition.size()));
    w.F64s(b.emission.data(), static_cast<size_t>(b.emission.size()));
  }
  w.I64(trace.best_iteration);
  w.U64(w.bytes().size());
  em_state += w.bytes();
  return em_state;
}

std::optional<std::pair<std::string, FhmmDevTrace>> SplitDevTrace(const std::string& bytes, const HmmParams& shape) {
  try {
    if (bytes.size() < sizeof(uint64_t)) return std::nullopt;
    const uint64_t n = ByteReader(std::string_view(bytes).substr(bytes.size() - sizeof(uint64_t))).U64();
    if (n > bytes.size() - sizeof(uint64_t)) return std::nullopt;
    const size_t em_size = bytes.size() - sizeof(uint64_t) - static_cast<size_t>(n);
    ByteReader r(std::string_view(bytes).substr(em_size, static_cast<size_t>(n)));
    auto take = [&](auto& m) {
      const std::vector<double> values = r.F64s();
      if (values.size() != static_cast<size_t>(m.size())) return false;
      std::copy(values.begin(), values.end(), m.data());
      return true;
    };
    FhmmDevTrace trace;
    trace.accuracy = r.F64s();
    if (r.U8() != 0) {
      HmmParams b = shape;
      if (!take(b.initial) || !take(b.transition) || !take(b.emission)) return std::nullopt;
      trace.best = std::move(b);
    }
    trace.best_iteration = static_cast<int>(r.I64());
    r.ExpectEnd();
    return std::make_pair(bytes.substr(0, em_size), std::move(trace));
  } catch (const StatusError&) {
    return std::nullopt;
  }
}

}  // namespace seqflow
