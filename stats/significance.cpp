#include "stats/significance.h"

#include <cmath>
#include <random>

#include "stats/chunk_scores.h"

namespace seqflow {
namespace {

// Differences this small are rounding, not a real gap: a swap pattern that reproduces the
// observed difference must count as "at least as extreme".
constexpr double kTieTolerance = 1e-12;

using Values = std::array<double, kNumStatistics>;

SentenceStats Sum(const std::vector<SentenceStats>& sentences) {
  SentenceStats total;
  for (const SentenceStats& s : sentences) total += s;
  return total;
}

// Running totals of one stratum under a swap or resample pattern.
struct Totals {
  SentenceStats a, b;
};

// Mean over strata of each statistic, for A minus B.
Values MeanDifference(const std::vector<Totals>& totals) {
  Values d{};
  for (const Totals& t : totals)
    for (size_t k = 0; k < kNumStatistics; ++k) d[k] += Evaluate(t.a, kStatistics[k]) - Evaluate(t.b, kStatistics[k]);
  for (double& v : d) v /= static_cast<double>(totals.size());
  return d;
}

// Counts, per statistic, patterns at least as extreme as `threshold`.
void CountExtreme(const Values& d, const Values& threshold, std::array<int64_t, kNumStatistics>& counts) {
  for (size_t k = 0; k < kNumStatistics; ++k) counts[k] += std::abs(d[k]) >= threshold[k] - kTieTolerance;
}

std::vector<Totals> Observed(const std::vector<PairedScores>& strata) {
  std::vector<Totals> totals;
  for (const PairedScores& s : strata) totals.push_back({Sum(s.a), Sum(s.b)});
  return totals;
}

// A sentence that A and B score differently: swapping only those moves a total (the statistics
// are integer counts, so skipping the others changes no sum), which makes a sample cost the
// number of such sentences instead of the test set's size.
struct Discordant {
  size_t index;    // position across strata, in order: the bit of the swap pattern
  size_t stratum;
  SentenceStats b_minus_a;
};

std::vector<Discordant> DiscordantSentences(const std::vector<PairedScores>& strata) {
  std::vector<Discordant> out;
  size_t i = 0;
  for (size_t s = 0; s < strata.size(); ++s)
    for (size_t j = 0; j < strata[s].a.size(); ++j, ++i) {
      SentenceStats d = strata[s].b[j];
      d -= strata[s].a[j];
      if (d.correct != 0 || d.guessed != 0 || d.gold != 0 || d.correct_tokens != 0 || d.tokens != 0)
        out.push_back({i, s, d});
    }
  return out;
}

// The totals under swap pattern `bits(i)` for sentence i (in order across strata), into *totals.
template <class Bits>
void Swapped(const std::vector<Totals>& observed, const std::vector<Discordant>& discordant, Bits bits,
             std::vector<Totals>* totals) {
  *totals = observed;
  for (const Discordant& d : discordant) {
    if (!bits(d.index)) continue;
    (*totals)[d.stratum].a += d.b_minus_a;
    (*totals)[d.stratum].b -= d.b_minus_a;
  }
}

size_t SentenceCount(const std::vector<PairedScores>& strata) {
  size_t n = 0;
  for (const PairedScores& s : strata) n += s.a.size();
  return n;
}

// Each sample draws one 64-bit word per 64 sentences, in sentence order (sentence i swaps when bit
// i % 64 of word i / 64 is set).
std::array<int64_t, kNumStatistics> Randomize(const std::vector<PairedScores>& strata, const Values& observed_abs,
                                              const SignificanceOptions& options) {
  const std::vector<Totals> observed = Observed(strata);
  const std::vector<Discordant> discordant = DiscordantSentences(strata);
  std::vector<uint64_t> words((SentenceCount(strata) + 63) / 64);
  std::vector<Totals> totals;
  std::array<int64_t, kNumStatistics> counts{};
  std::mt19937_64 rng(options.shuffle_seed);
  for (int64_t r = 0; r < options.samples; ++r) {
    for (uint64_t& w : words) w = rng();
    Swapped(observed, discordant, [&](size_t i) { return (words[i / 64] >> (i % 64)) & 1; }, &totals);
    CountExtreme(MeanDifference(totals), observed_abs, counts);
  }
  return counts;
}

std::array<int64_t, kNumStatistics> Enumerate(const std::vector<PairedScores>& strata, const Values& observed_abs,
                                              uint64_t patterns) {
  const std::vector<Totals> observed = Observed(strata);
  const std::vector<Discordant> discordant = DiscordantSentences(strata);
  std::vector<Totals> totals;
  std::array<int64_t, kNumStatistics> counts{};
  for (uint64_t mask = 0; mask < patterns; ++mask) {
    Swapped(observed, discordant, [mask](size_t i) { return (mask >> i) & 1; }, &totals);
    CountExtreme(MeanDifference(totals), observed_abs, counts);
  }
  return counts;
}

// Uniform index in [0, n) from 64 random bits (Lemire's multiply-shift; bias < n / 2^64).
size_t Draw(std::mt19937_64& rng, size_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

std::array<int64_t, kNumStatistics> Bootstrap(const std::vector<PairedScores>& strata, const Values& observed,
                                              const SignificanceOptions& options) {
  std::array<int64_t, kNumStatistics> counts{};
  std::mt19937_64 rng(options.shuffle_seed);
  std::vector<Totals> totals(strata.size());
  Values threshold;
  for (size_t k = 0; k < kNumStatistics; ++k) threshold[k] = std::abs(observed[k]);
  for (int64_t r = 0; r < options.samples; ++r) {
    for (size_t s = 0; s < strata.size(); ++s) {
      totals[s] = {};
      for (size_t j = 0; j < strata[s].a.size(); ++j) {
        size_t pick = Draw(rng, strata[s].a.size());
        totals[s].a += strata[s].a[pick];
        totals[s].b += strata[s].b[pick];
      }
    }
    Values d = MeanDifference(totals);
    for (size_t k = 0; k < kNumStatistics; ++k) d[k] -= observed[k];
    CountExtreme(d, threshold, counts);
  }
  return counts;
}

Status CheckInputs(const std::vector<PairedScores>& strata, const SignificanceOptions& options) {
  if (strata.empty()) return Status::Invalid("a paired test needs at least one set of paired sentences");
  size_t sentences = 0;
  for (const PairedScores& s : strata) {
    if (s.a.size() != s.b.size())
      return Status::Invalid("paired test: system A has " + std::to_string(s.a.size()) + " sentences, system B " +
                             std::to_string(s.b.size()) + "; both must be scored on the same test set");
    sentences += s.a.size();
  }
  if (options.samples < 1) return Status::Invalid("paired test: samples must be >= 1");
  if (options.exact && (options.test != PairedTest::kRandomization || sentences > kMaxExactSentences))
    return Status::Invalid("exact enumeration is for randomization tests on at most " +
                           std::to_string(kMaxExactSentences) + " sentences");
  return Status::Ok();
}

}  // namespace

SentenceStats& SentenceStats::operator+=(const SentenceStats& o) {
  correct += o.correct, guessed += o.guessed, gold += o.gold;
  correct_tokens += o.correct_tokens, tokens += o.tokens;
  return *this;
}

SentenceStats& SentenceStats::operator-=(const SentenceStats& o) {
  correct -= o.correct, guessed -= o.guessed, gold -= o.gold;
  correct_tokens -= o.correct_tokens, tokens -= o.tokens;
  return *this;
}

const char* StatisticName(Statistic s) {
  switch (s) {
    case Statistic::kF1:
      return "f1";
    case Statistic::kPrecision:
      return "precision";
    case Statistic::kRecall:
      return "recall";
    case Statistic::kAccuracy:
      return "accuracy";
  }
  return "?";
}

std::optional<Statistic> StatisticNamed(std::string_view name) {
  for (Statistic s : kStatistics)
    if (name == StatisticName(s)) return s;
  return std::nullopt;
}

double Evaluate(const SentenceStats& t, Statistic s) {
  switch (s) {
    case Statistic::kF1:
      return ChunkF1(t.correct, t.guessed, t.gold);
    case Statistic::kPrecision:
      return ChunkPrecision(t.correct, t.guessed);
    case Statistic::kRecall:
      return ChunkRecall(t.correct, t.gold);
    case Statistic::kAccuracy:
      return TokenAccuracy(t.correct_tokens, t.tokens);
  }
  return 0.0;
}

Result<SignificanceResult> PairedSignificance(const std::vector<PairedScores>& strata,
                                              const SignificanceOptions& options) {
  SEQFLOW_RETURN_IF_ERROR(CheckInputs(strata, options));
  std::vector<Totals> observed = Observed(strata);
  SignificanceResult result;
  for (const Totals& t : observed)
    for (size_t k = 0; k < kNumStatistics; ++k) {
      result.a[k] += Evaluate(t.a, kStatistics[k]) / static_cast<double>(observed.size());
      result.b[k] += Evaluate(t.b, kStatistics[k]) / static_cast<double>(observed.size());
    }
  Values delta = MeanDifference(observed), delta_abs;
  for (size_t k = 0; k < kNumStatistics; ++k) delta_abs[k] = std::abs(delta[k]);
  std::array<int64_t, kNumStatistics> counts;
  if (options.exact) {
    result.samples = int64_t{1} << SentenceCount(strata);
    counts = Enumerate(strata, delta_abs, static_cast<uint64_t>(result.samples));
    for (size_t k = 0; k < kNumStatistics; ++k)
      result.p[k] = static_cast<double>(counts[k]) / static_cast<double>(result.samples);
    return result;
  }
  result.samples = options.samples;
  counts = options.test == PairedTest::kRandomization ? Randomize(strata, delta_abs, options)
                                                      : Bootstrap(strata, delta, options);
  for (size_t k = 0; k < kNumStatistics; ++k)
    result.p[k] = static_cast<double>(counts[k] + 1) / static_cast<double>(options.samples + 1);
  return result;
}

}  // namespace seqflow
