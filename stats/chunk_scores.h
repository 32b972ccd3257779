// Precision, recall and F1 of chunk (segment) counts, and token accuracy — defined here once, for
// the evaluators (nodes/eval) and for the paired significance tests (stats/significance.h),
// so that a test recomputes exactly the F1 an evaluator reported.
//   precision = correct / guessed,  recall = correct / gold,  F1 = 2 P R / (P + R),
// each 0 when its denominator is 0 (conlleval's convention, as fractions instead of percentages).
// Pure inline functions; thread-safe.
#pragma once

#include <cstdint>

namespace seqflow {

// num / den, or 0 when den is 0.
inline double CountRatio(int64_t num, int64_t den) {
  return den ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
}

inline double ChunkPrecision(int64_t correct, int64_t guessed) { return CountRatio(correct, guessed); }
inline double ChunkRecall(int64_t correct, int64_t gold) { return CountRatio(correct, gold); }

inline double TokenAccuracy(int64_t correct_tokens, int64_t tokens) { return CountRatio(correct_tokens, tokens); }

inline double ChunkF1(int64_t correct, int64_t guessed, int64_t gold) {
  const double p = ChunkPrecision(correct, guessed), r = ChunkRecall(correct, gold);
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

}  // namespace seqflow
