// Pass 2 of the CRF gradient (crf_likelihood.h), the attribute rows of W:
//   ∇W(a, ·) = x_a (Σ_{t : a fires at t} P_t − Σ_t e_{y_t}) + W(a, ·) / δ²,
// where the marginal sum is a left fold over a's tokens in token order, summed from 0, and the
// gold counts are subtracted after it one by one. The data may come in blocks of sentences: each
// block folds its tokens into the running sums held in the gradient's rows, and the last block
// finishes them (gold counts, feature value, prior). The fold's order is the tokens' whatever the
// blocks, so any blocking gives the bits of one block. Gathering per attribute, not scattering per
// token, keeps the order fixed without one gradient copy per thread.
// Pure kernels on arrays; rows [begin, end) may run concurrently with other rows.
#pragma once

#include <cstdint>

namespace seqflow {

struct GoldCount {
  int32_t label;
  int32_t count;  // tokens of the row with this gold label
};

struct GradientRowInputs {
  const float* marginals;           // [block tokens x K]
  const int64_t* occurrence_start;  // [A + 1] the block's inverted index (attribute_occurrences.h)
  const int32_t* occurrence_token;  // block tokens, increasing within a row
  const int64_t* gold_start;        // [A + 1] CSR offsets into gold
  const GoldCount* gold;            // each row's gold counts, labels increasing
  const double* row_values;         // [A] feature values x_a, or null (all 1)
  const double* w;                  // weights (CrfLayout)
  int64_t K;
  double inv_sigma2;
  bool first_block;  // the running sums start from 0 (else from the gradient's rows)
  bool last_block;   // finish the rows (else leave the running sums in them)
};

// Rows [begin, end) of `gradient`; returns ½ Σ ‖w_a‖² / δ² over them for the last block (0
// before), summed in 8 partial sums (label k into sum k mod 8, row by row) added in order, so that
// every instruction-set variant gives the same bits.
double GradientRows(const GradientRowInputs& in, int64_t begin, int64_t end, double* gradient);

}  // namespace seqflow
