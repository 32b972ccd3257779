// CCA of words and one-hot contexts: the randomized SVD against a dense CCA on small random
// counts, and the projection's use in the anchor QPs.
#include "nodes/features/context_cca.h"

#include <gtest/gtest.h>

#include <random>

#include "nodes/common/random.h"
#include "nodes/features/projection.h"
#include "nodes/moments/context_features.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace context_cca_test {

MomentCounts RandomCounts(int v, int sentences, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int32_t>> text(sentences);
  for (auto& s : text) {
    s.resize(3 + rng() % 8);
    int32_t w = static_cast<int32_t>(rng() % v);
    for (auto& x : s) {  // a Markov chain, so contexts and words correlate
      x = w;
      w = (rng() % 3 == 0) ? static_cast<int32_t>(rng() % v) : (w * 7 + 3) % v;
    }
  }
  return std::move(CollectMomentCounts(text, v, 1, CancelToken())).value();
}

// The dense CCA: the whitened cross-covariance's SVD, the covariances taken as dense matrices.
struct DenseCca {
  Eigen::VectorXd correlations;
  Eigen::MatrixXd projection;
};
DenseCca Dense(const MomentCounts& m, int dims) {
  Eigen::MatrixXd cross(m.cooccurrence);
  Eigen::MatrixXd cov_c = cross.rowwise().sum().asDiagonal(), cov_w = cross.colwise().sum().asDiagonal();
  auto inv_sqrt = [](const Eigen::MatrixXd& d) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(d.rows(), d.cols());
    for (Eigen::Index i = 0; i < d.rows(); ++i) out(i, i) = d(i, i) > 0 ? 1 / std::sqrt(d(i, i)) : 0;
    return out;
  };
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(inv_sqrt(cov_c) * cross * inv_sqrt(cov_w), Eigen::ComputeThinU);
  return {svd.singularValues().head(dims), inv_sqrt(cov_c) * svd.matrixU().leftCols(dims)};
}

TEST(ContextCca, MatchesTheDenseCcaOnSmallRandomCounts) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    MomentCounts m = RandomCounts(30, 400, seed);
    ContextCcaOptions options;
    options.dims = 4;
    options.seed = seed;
    // Random counts have a flat spectrum (σ2..σ5 within 0.05), where the randomized SVD converges
    // slowly: enough power steps to reach the dense answer.
    options.power_iterations = 60;
    Result<ContextCca> cca = ComputeContextCca(m, options, CancelToken());
    ASSERT_OK(cca);
    DenseCca dense = Dense(m, 4);
    EXPECT_NEAR(cca->correlations[0], 1.0, 1e-9);  // the constant pair
    EXPECT_LE((cca->correlations - dense.correlations).cwiseAbs().maxCoeff(), 1e-6)
        << cca->correlations.transpose() << "\n"
        << dense.correlations.transpose();
    // The same subspace (signs of singular vectors are arbitrary): equal projectors P Pᵀ; the
    // subspace converges more slowly than the values (σ4 and σ5 are close).
    Eigen::MatrixXd ours = cca->context_projection * cca->context_projection.transpose();
    Eigen::MatrixXd theirs = dense.projection * dense.projection.transpose();
    EXPECT_LE((ours - theirs).cwiseAbs().maxCoeff(), 1e-3 * theirs.cwiseAbs().maxCoeff());
  }
}

// features.cca reads only the co-occurrence matrix, so feature contexts (context_features.h) go
// through unchanged: D_c is then the diagonal of the binary features' second moment (the
// co-firing of features of one word is left out, as the one-hot CCA leaves out that of the
// previous and next word).
TEST(ContextCca, MatchesTheDenseCcaOnFeatureContexts) {
  std::vector<std::string> words;
  for (int i = 0; i < 29; ++i) words.push_back((i % 3 == 0 ? "W" : "w") + std::to_string(i) + (i % 2 ? "ed" : "s"));
  const Vocab vocab(words, UnknownScheme::kSingle, false);
  const MomentCounts onehot = RandomCounts(vocab.size(), 400, 5);
  Result<ContextFeatures> f = BuildContextFeatures(BuildWordFeatures(vocab), onehot, 3);
  ASSERT_OK(f);
  const MomentCounts m = MapContexts(onehot, f->map);
  ContextCcaOptions options;
  options.dims = 4;
  options.power_iterations = 60;
  Result<ContextCca> cca = ComputeContextCca(m, options, CancelToken());
  ASSERT_OK(cca);
  DenseCca dense = Dense(m, 4);
  EXPECT_LE((cca->correlations - dense.correlations).cwiseAbs().maxCoeff(), 1e-6);
  Eigen::MatrixXd ours = cca->context_projection * cca->context_projection.transpose();
  Eigen::MatrixXd theirs = dense.projection * dense.projection.transpose();
  EXPECT_LE((ours - theirs).cwiseAbs().maxCoeff(), 1e-3 * theirs.cwiseAbs().maxCoeff());
}

// The randomized SVD as first written (Halko et al. 2011, Alg. 4.4 + 5.1 verbatim: Householder QR
// of both sides at every step, Eigen's sparse x dense products, a Jacobi SVD of B): the kernel
// computes the same approximation (the same subspace in exact arithmetic) faster.
ContextCca Textbook(const MomentCounts& m, const ContextCcaOptions& options) {
  const Eigen::Index c = m.num_contexts(), v = m.num_symbols;
  Eigen::MatrixXd cross(m.cooccurrence);
  auto inverse_sqrt = [](const Eigen::VectorXd& x) {
    return x.unaryExpr([](double d) { return d > 0 ? 1 / std::sqrt(d) : 0.0; }).eval();
  };
  const Eigen::VectorXd dc = inverse_sqrt(cross.rowwise().sum()), dw = inverse_sqrt(cross.colwise().sum());
  const Eigen::MatrixXd omega = dc.asDiagonal() * cross * dw.asDiagonal();
  const Eigen::Index l = std::min<Eigen::Index>(options.dims + options.oversample, std::min(c, v));
  Rng rng(options.seed);
  const Eigen::MatrixXd test = Eigen::MatrixXd::NullaryExpr(v, l, [&] { return 2 * Uniform01(rng) - 1; });
  auto orth = [](const Eigen::MatrixXd& y) {
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(y);
    return Eigen::MatrixXd(qr.householderQ() * Eigen::MatrixXd::Identity(y.rows(), y.cols()));
  };
  Eigen::MatrixXd q = orth(omega * test);
  for (int i = 0; i < options.power_iterations; ++i) q = orth(omega * orth(omega.transpose() * q));
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(q.transpose() * omega, Eigen::ComputeThinU);
  return {dc.asDiagonal() * (q * svd.matrixU().leftCols(options.dims)), svd.singularValues().head(options.dims)};
}

void ExpectSameCca(const ContextCca& ours, const ContextCca& theirs) {
  EXPECT_LE((ours.correlations - theirs.correlations).cwiseAbs().maxCoeff(), 1e-10)
      << ours.correlations.transpose() << "\n"
      << theirs.correlations.transpose();
  const Eigen::MatrixXd a = ours.context_projection * ours.context_projection.transpose();
  const Eigen::MatrixXd b = theirs.context_projection * theirs.context_projection.transpose();
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-8 * b.cwiseAbs().maxCoeff());
  // Column signs are fixed: each column's largest entry is positive.
  for (Eigen::Index j = 0; j < ours.context_projection.cols(); ++j) {
    Eigen::Index at = 0;
    ours.context_projection.col(j).cwiseAbs().maxCoeff(&at);
    EXPECT_GT(ours.context_projection(at, j), 0);
  }
}

// Few power steps (the node's default 3), so both stop short of the exact SVD at the same place:
// one-hot contexts (C > V: the words' side orthonormalized at every step) and a context set cut
// to fewer rows than words (C < V: the contexts' side).
TEST(ContextCca, MatchesTheTextbookRandomizedSvdToRounding) {
  for (uint64_t seed : {1u, 2u}) {
    const MomentCounts m = RandomCounts(300, 4000, seed);
    ContextCcaOptions options;
    options.dims = 20;
    options.seed = seed;
    Result<ContextCca> cca = ComputeContextCca(m, options, CancelToken());
    ASSERT_OK(cca);
    ExpectSameCca(*cca, Textbook(m, options));

    MomentCounts few = m;
    few.cooccurrence = Eigen::SparseMatrix<double>(m.cooccurrence.topRows(150));
    ASSERT_LT(few.num_contexts(), few.num_symbols);
    Result<ContextCca> cut = ComputeContextCca(few, options, CancelToken());
    ASSERT_OK(cut);
    ExpectSameCca(*cut, Textbook(few, options));
  }
}

TEST(ProjectionArtifact, RoundTripsBitExactAndRejectsTruncation) {
  ContextCcaOptions options;
  options.dims = 3;
  Result<ContextCca> cca = ComputeContextCca(RandomCounts(10, 50, 4), options, CancelToken());
  ASSERT_OK(cca);
  Projection p;
  p.context_projection = cca->context_projection;
  p.correlations = cca->correlations;
  ByteWriter w;
  p.Save(w);
  ByteReader r(w.bytes());
  auto back = Projection::Load(r);
  r.ExpectEnd();
  EXPECT_EQ(back->context_projection, p.context_projection);
  EXPECT_EQ(back->correlations, p.correlations);
  std::string cut = w.bytes().substr(0, w.bytes().size() - 8);
  ByteReader truncated(cut);
  EXPECT_THROW(Projection::Load(truncated), StatusError);
}

TEST(ContextCca, Errors) {
  MomentCounts m = RandomCounts(5, 20, 1);
  ContextCcaOptions options;
  options.dims = 6;  // > V
  EXPECT_EQ(ComputeContextCca(m, options, CancelToken()).status().code(), StatusCode::kInvalid);
  options.dims = 0;
  EXPECT_EQ(ComputeContextCca(m, options, CancelToken()).status().code(), StatusCode::kInvalid);
  options.dims = 2;
  std::atomic<bool> flag{true};
  EXPECT_EQ(ComputeContextCca(m, options, CancelToken(&flag)).status().code(), StatusCode::kCancelled);
}

}  // namespace context_cca_test
}  // namespace seqflow
