// The hybrid generative/discriminative chain of Suzuki, Fujino & Isozaki (2007), Eq. 2/6:
//   R(y | x) ∝ Π_i p_Di(y | x; λ_i)^γ_i · Π_j p_Gj(x, y; θ_j)^γ_j
// with I CRF experts (fixed Λ) and J first-order HMMs, HMM j emitting the value of feature type
// j at each token ("one feature type corresponds to one HMM", §4.1). Taking logs, R is one
// linear chain (the chain library, nodes/chain) whose label scores and label-bigram weights are
// the γ-weighted sums of the models' log-potentials:
//   s_t(k)  = Σ_i γ_i λ_i·f(x, t, k) + Σ_j γ_j log θ_j(k → x_t^j) + [t = 0] Σ_j γ_j log π_j(k)
//   A(k,l)  = Σ_i γ_i A_i(k, l)     + Σ_j γ_j log θ_j(k → l)
// (each Z_i(x)^γ_i cancels in R), so one forward-backward per sentence gives R's marginals
// whatever I and J are (§3.4). Γ is ordered experts first: gamma = [γ_1..γ_I, γ_{I+1}..γ_{I+J}].
// Second-order experts (crf.train order: 2) make R a second-order chain on the pair lattice of
// nodes/chain/second_order_lanes.h: the experts' transitions are then trigram rows G_i
// [(K+1) K x K] (row a K + b, column c; a = K the start tag; a first-order expert's A_i repeated
// for every a), and an HMM's transition θ_j(b → c) enters every G(a, b, c):
//   G(a,b,c) = Σ_i γ_i G_i(a, b, c) + Σ_j γ_j log θ_j(b → c).
// Every function below takes either form, told apart by the transitions' row count.
//
// Θ is held as log-probabilities floored at kLogFloor, so a zero-probability event (possible
// only without a prior, η' = 0) stays finite and γ·log θ is never 0·(-inf).
// Pure functions; the corpus-level ones parallelise over sentences with a fixed reduction order
// (same result for any thread count).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/process_group.h"
#include "engine/base/status.h"
#include "nodes/chain/linear_chain.h"

namespace seqflow {

using RowMatrixXf = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixXi = Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline constexpr double kLogFloor = -690.0;  // log(1e-300)

// Θ: J HMMs over the same K labels. Symbol 0 of every feature type is "unseen" (a value that
// was not in the data the symbol table was built from); it gets only prior mass.
struct GenerativeParams {
  std::vector<Eigen::VectorXd> log_initial;  // [J] K
  std::vector<RowMatrixXd> log_transition;   // [J] K x K, row = previous label
  std::vector<RowMatrixXd> log_emission;     // [J] V_j x K: row v = log θ_j(k → v) for every k
  int num_models() const { return static_cast<int>(log_emission.size()); }
};

// Expected (or observed) counts of the HMMs' events under R. R is shared by all the HMMs, so
// the initial and transition counts are the same for every j; only the emitted symbols differ.
struct GenerativeCounts {
  Eigen::VectorXd initial;            // K
  RowMatrixXd transition;             // K x K
  std::vector<RowMatrixXd> emission;  // [J] V_j x K
};

// The per-token inputs of the hybrid model on one corpus. Sentence n covers the token rows
// [offsets[n], offsets[n+1]) of every matrix.
struct HybridCorpus {
  int32_t num_labels = 0;                  // K
  std::vector<int64_t> offsets;            // [N + 1]
  std::vector<RowMatrixXf> expert_scores;  // [I] tokens x K: λ_i·f(x, t, k)
  RowMatrixXi symbols;                     // tokens x J: symbol of feature type j at token t
  std::vector<int32_t> labels;             // [tokens] gold label ids; empty when unlabeled
  size_t num_sentences() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  int64_t num_tokens() const { return offsets.empty() ? 0 : offsets.back(); }
};

// A corpus seen by the passes over the unlabeled text (HySOL's E-step and Σ log Z_i), in blocks of
// whole sentences visited in order: either resident (one HybridCorpus, the blocks are views of it)
// or streamed (each block's HybridCorpus built when a pass reaches it and dropped after), so the
// per-token inputs of the whole text need not sit in memory. Blocks hold kHybridBlockSentences
// sentences (the last fewer), a multiple of the passes' parallel shard, so both forms run the same
// shards in the same order and give the same bits.
inline constexpr size_t kHybridBlockSentences = 8192;

class UnlabeledHybrid {
 public:
  // The hybrid inputs of sentences [begin, end) with offsets from 0; an error ends the pass.
  using BlockBuilder = std::function<Result<HybridCorpus>(size_t begin, size_t end)>;
  // Visits the sentences [begin, end) of `corpus` (a block).
  using BlockVisitor = std::function<void(const HybridCorpus& corpus, size_t begin, size_t end)>;

  // Resident: every caller holding a whole HybridCorpus passes it as is (implicit on purpose).
  UnlabeledHybrid(const HybridCorpus& resident) : resident_(&resident) {}  // NOLINT(google-explicit-constructor)
  // Streamed: `build` is called once per block and pass.
  UnlabeledHybrid(size_t num_sentences, BlockBuilder build) : num_sentences_(num_sentences), build_(std::move(build)) {}

  size_t num_sentences() const { return resident_ ? resident_->num_sentences() : num_sentences_; }
  bool streamed() const { return resident_ == nullptr; }
  // Calls visit on each block in sentence order; the first build error.
  Status ForEachBlock(const BlockVisitor& visit) const;

 private:
  const HybridCorpus* resident_ = nullptr;
  size_t num_sentences_ = 0;
  BlockBuilder build_;
};

// The fixed parts of the experts besides their token scores: A_i [K x K] each, or all of them
// trigram rows G_i [(K+1) K x K] for a second-order hybrid.
using ExpertTransitions = std::vector<RowMatrixXd>;

// A above ([K x K]), or G ([(K+1) K x K]) when the experts are trigram rows.
// REQUIRES: gamma.size() == I + J.
RowMatrixXd HybridTransition(const ExpertTransitions& experts, const GenerativeParams& theta,
                             const Eigen::VectorXd& gamma);

// s above for sentence n, into `scores` (resized to T x K).
void HybridScores(const HybridCorpus& corpus, size_t n, const GenerativeParams& theta, const Eigen::VectorXd& gamma,
                  RowMatrixXd& scores);

// Step 4.1's E-step over an unlabeled corpus: R's expected HMM event counts into `counts`
// (resized), and Σ_m log Σ_y exp(Σ_t s_t(y_t) + Σ_t A(y_{t-1}, y_t)) — G(Θ|Γ) of Eq. 4 without
// the prior and without the Θ-independent Σ_m Σ_i γ_i log Z_i(x_m). NaN/inf is returned as is
// (the caller stops with a numerical error). With `processes` (MPI ranks, each holding the whole
// corpus), the forward-backward passes are spread over them and reduced in one process's order
// (distributed_shards.h): every rank gets the same bits, for any number of ranks; NaN if they
// could not exchange their shards, or a streamed block could not be built.
double HybridExpectedCounts(const UnlabeledHybrid& corpus, const ExpertTransitions& experts,
                            const GenerativeParams& theta, const Eigen::VectorXd& gamma, int threads,
                            GenerativeCounts& counts, const ProcessGroup* processes = nullptr);

// The observed counts of the HMM events on a labeled corpus (the supervised start Θ(0)).
// `vocabulary_sizes` = V_j. REQUIRES: corpus.labels non-empty.
GenerativeCounts ObservedCounts(const HybridCorpus& corpus, const std::vector<int64_t>& vocabulary_sizes);

// The M-step of Eq. 5 under a Dirichlet prior with η = 1 + eta_prime on every multinomial:
// θ_j ∝ γ_j · counts + η' (a multinomial with no mass at all becomes uniform).
// `generative_gamma` = [γ_{I+1} .. γ_{I+J}].
GenerativeParams MaximizeGenerative(const GenerativeCounts& counts, const Eigen::VectorXd& generative_gamma,
                                    double eta_prime);
// The same Θ, bit for bit, built in the storage of `counts` (left empty): no second V_j x K table
// per type is alive, where HySOL's vocabularies hold a million symbols.
GenerativeParams MaximizeGenerativeInPlace(GenerativeCounts&& counts, const Eigen::VectorXd& generative_gamma,
                                           double eta_prime);

// log p(Θ) of that prior, up to its normalising constant: η' Σ log θ over every parameter.
double GenerativeLogPrior(const GenerativeParams& theta, double eta_prime);

// ‖Θ' − Θ‖ / ‖Θ‖ over all the probabilities (the stopping rule of Fig. 1, step 4).
double RelativeParamChange(const GenerativeParams& next, const GenerativeParams& current);

// Σ_n log R(y_n | x_n) over a labeled corpus (Eq. 3 without the prior) and, when `gradient` is
// non-null, its derivative in every γ (§3.4): Σ_n [φ_m(x_n, y_n) − E_R[φ_m(x_n, Y)]] where φ_m
// is model m's log-potential of a labelling (Σ_t of its token scores and bigram weights).
// With `processes`, spread over MPI ranks like HybridExpectedCounts (the same bits; NaN if they
// could not exchange their sums).
// `gathered`, when given, is GatherEmissions(corpus, theta): the same bits, without gathering.
double HybridConditionalLogLikelihood(const HybridCorpus& corpus, const ExpertTransitions& experts,
                                      const GenerativeParams& theta, const Eigen::VectorXd& gamma, int threads,
                                      Eigen::VectorXd* gradient, const ProcessGroup* processes = nullptr,
                                      const RowMatrixXd* gathered = nullptr);

// The HMMs' log-emission rows of every token, gathered in token order: row t holds
// log θ_j(k → x_t^j) at column j K + k. The Γ fit evaluates the likelihood tens of times under one
// Θ; reading these rows in order instead of J rows from J tables per token and evaluation was
// most of HySOL's CPU: the reduced CoNLL-2000 / 2003 runs of tests/e2e/hysol_real_data_test.cpp
// spend 11.8 / 28.1 s in `crf.hysol` with them, 27.4 / 43.5 s without. They take tokens x J K
// doubles, 100-140 MB for the CoNLL held-out sets.
RowMatrixXd GatherEmissions(const HybridCorpus& corpus, const GenerativeParams& theta);

// Σ_n log Z_i(x_n) of expert i alone (the constant that makes HybridExpectedCounts' value G).
double ExpertLogPartition(const HybridCorpus& corpus, const RowMatrixXd& transition, int expert, int threads);

// ExpertLogPartition of every expert (transitions A_i or G_i) in one pass over the blocks, the same
// bits; Status of a block that could not be built.
Result<Eigen::VectorXd> ExpertLogPartitions(const UnlabeledHybrid& corpus, const ExpertTransitions& experts,
                                            int threads);

}  // namespace seqflow
