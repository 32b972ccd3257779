// Paired significance tests between two systems scored on the same test sentences, and the
// per-sentence statistics they need (the AttachmentType::kSentenceCounts attachment that
// eval.segments and eval.tokens declare, as sentences.csv).
//
// Every reported metric is a ratio of corpus sums of per-sentence counts:
//   precision = Σ correct / Σ guessed,  recall = Σ correct / Σ gold,
//   F1 = 2 P R / (P + R),               accuracy = Σ correct_tokens / Σ tokens,
// each 0 when its denominator is 0 (conlleval's convention; the one definition is
// stats/chunk_scores.h, which the evaluators use too). So a test can swap or resample whole
// sentences and recompute every metric from sums in O(1) per sentence.
//
// Approximate randomization (Noreen 1989, ch. 2; Riezler & Maxwell 2005, §3): under H0 the two
// systems' outputs are exchangeable sentence by sentence. Each of R shuffles swaps every
// sentence's statistics between A and B with probability 1/2; with c the number of shuffles
// whose |stat(A') - stat(B')| >= |stat(A) - stat(B)|, the two-sided p = (c + 1) / (R + 1).
// Exact mode enumerates all 2^n swap patterns instead: p = c / 2^n (the identity counts).
// Paired bootstrap (Efron & Tibshirani 1993, §16.4; Berg-Kirkpatrick et al. 2012): resample n
// sentences with replacement R times; with δ the observed difference and δ* a resample's,
// p = (#{|δ* - δ| >= |δ|} + 1) / (R + 1) (the bootstrap distribution shifted to H0's mean 0).
//
// Repetitions: the input is a list of strata (one per seed, each on its own draw of the test
// set or of the training data); a system's statistic is the mean over strata of its corpus
// metric — the number `seqflow report` shows — and swaps or resamples stay within a stratum.
//
// Pure: no files, no printing, no engine state (nodes/eval uses it as well as the report; it
// lives in engine/api because nodes may include only engine/api/).
// Randomness comes from std::mt19937_64 only (its output is fixed by the standard), so a seed
// gives the same p-values everywhere. Thread safety: stateless functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

// One test sentence as scored for one system.
struct SentenceStats {
  int64_t correct = 0;  // predicted segments matching a gold segment
  int64_t guessed = 0;  // predicted segments
  int64_t gold = 0;     // gold segments
  int64_t correct_tokens = 0;
  int64_t tokens = 0;

  SentenceStats& operator+=(const SentenceStats& o);
  SentenceStats& operator-=(const SentenceStats& o);
};

enum class Statistic { kF1, kPrecision, kRecall, kAccuracy };
inline constexpr Statistic kStatistics[] = {Statistic::kF1, Statistic::kPrecision, Statistic::kRecall,
                                            Statistic::kAccuracy};
inline constexpr size_t kNumStatistics = std::size(kStatistics);

// "f1", "precision", "recall", "accuracy": the metric names of the evaluators.
const char* StatisticName(Statistic s);
std::optional<Statistic> StatisticNamed(std::string_view name);

// The corpus metric of summed statistics (see the top of this file).
double Evaluate(const SentenceStats& total, Statistic s);

// One stratum: a[i] and b[i] are the same test sentence scored for systems A and B.
struct PairedScores {
  std::vector<SentenceStats> a, b;
};

enum class PairedTest { kRandomization, kBootstrap };

struct SignificanceOptions {
  PairedTest test = PairedTest::kRandomization;
  int64_t samples = 10000;  // R: shuffles or resamples
  uint64_t shuffle_seed = 1;  // seeds the shuffles or resamples
  bool exact = false;  // randomization only: enumerate all 2^n swaps (n <= kMaxExactSentences)
};
inline constexpr size_t kMaxExactSentences = 24;

struct SignificanceResult {
  // Indexed by Statistic: each system's mean over strata of its corpus metric, and the two-sided
  // p-value of "A and B differ".
  std::array<double, kNumStatistics> a{}, b{}, p{};
  int64_t samples = 0;  // shuffles or resamples drawn, or 2^n patterns enumerated
};

// REQUIRES (else kInvalid): at least one stratum, a.size() == b.size() in each, samples >= 1,
// exact only with kRandomization and at most kMaxExactSentences sentences in all.
Result<SignificanceResult> PairedSignificance(const std::vector<PairedScores>& strata,
                                              const SignificanceOptions& options);

// The `sentences.csv` attachment: a comment line naming the gold test set, a header, one row
// per sentence in corpus order:
//   # gold <32 hex digits>
//   correct,guessed,gold,correct_tokens,tokens        (eval.segments)
//   correct_tokens,tokens                             (eval.tokens: no segment columns)
// Two attachments with equal `gold` fingerprints score the same sentences with the same labels,
// so their rows pair up.
struct SentenceStatsTable {
  std::string gold_fingerprint;
  bool segments = false;  // the segment columns are present
  std::vector<SentenceStats> sentences;

  // Accuracy always; F1, precision and recall only with segment columns.
  bool Supports(Statistic s) const { return segments || s == Statistic::kAccuracy; }
};

std::string FormatSentenceStats(const SentenceStatsTable& table);
// kInvalid naming the line for anything but the format above.
Result<SentenceStatsTable> ParseSentenceStats(std::string_view text);

}  // namespace seqflow
