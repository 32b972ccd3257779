// The feature HMM from its mean parameters, shared by fhmm.supervised (labeled means) and
// moments.anchor_fhmm (means from anchors and moments): log-linear emissions fitted to the means
// (Marinho et al. 2016, Eq. 25), transitions counted on the labeled sentences.
#pragma once

#include <memory>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "nodes/features/vocab.h"
#include "nodes/fhmm/feature_means.h"
#include "nodes/fhmm/loglinear_emissions.h"
#include "nodes/fhmm/loglinear_params.h"
#include "nodes/fhmm/word_features.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct FhmmFitOptions {
  LogLinearOptions loglinear;
  HmmSmoothing smoothing{1.0, 1.0, 0.0};  // add-one on transitions (section 3.5)
};

// The log-linear fit's parameters and the transitions' smoothing, into `fit` of the table's struct.
template <class O>
void AddFhmmFitParams(ParamTable<O>& table, FhmmFitOptions O::*fit) {
  table.Include(At(fit, &FhmmFitOptions::loglinear), LogLinearParams())
      .Double("smoothing.initial", At(fit, &FhmmFitOptions::smoothing, &HmmSmoothing::initial),
              "added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", At(fit, &FhmmFitOptions::smoothing, &HmmSmoothing::transition),
              "added to every transition count")
      .Min(0);
}

std::vector<std::vector<int32_t>> LabelsOf(const Corpus& corpus);

// n_L(w, h): the labeled tokens of each word and label. Throws StatusError(Invalid) naming the
// corpus when it has no labels.
Eigen::MatrixXd WordLabelCounts(const Corpus& labeled, const Vocab& vocab);

// The HMM with log-linear emissions fitted to `means` (uniform rows for absent labels) and
// transitions counted on `labeled`.
std::shared_ptr<HmmModel> FhmmFromMeans(NodeContext& ctx, const Corpus& labeled, std::shared_ptr<const Vocab> vocab,
                                        const WordFeatures& features, const FeatureMeans& means,
                                        const FhmmFitOptions& options);

}  // namespace seqflow
