// Seeded randomness: every random draw in seqflow comes from an Rng built from a seed parameter,
// and the draws below are defined here (not by the standard library's distributions, whose
// output differs between implementations), so a seed gives the same numbers everywhere.
// Thread safety: an Rng is not shared between threads; derive one per shard with ShardRng.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <random>

namespace seqflow {

using Rng = std::mt19937_64;

// An independent stream for shard `shard` of a computation seeded with `seed`.
Rng ShardRng(uint64_t seed, uint64_t shard);

// Uniform on [0, 1) with 53 random bits.
double Uniform01(Rng& rng);

// Index i with probability p[i] / sum(p). REQUIRES: p non-negative with a positive sum.
int SampleCategorical(const Eigen::Ref<const Eigen::VectorXd>& p, Rng& rng);

// [rows x cols], each row uniform on the simplex (flat Dirichlet) when floor = 0; entries are
// then mixed with the uniform row, (1 - floor) * row + floor / cols, to bound them away from 0.
Eigen::MatrixXd RandomStochasticRows(int rows, int cols, Rng& rng, double floor = 0.0);

}  // namespace seqflow
