// The homotopy family (Haffari & Sarkar 2008):
//   homotopy.em_lambda_path  (start, labeled, unlabeled, test?) -> HomotopyPath
//                            Algorithm 1: the curve of EM_λ fixed points from λ = 0 to 1, with a
//                            Newton corrector and adaptive steps; dense or matrix-free algebra
//   homotopy.select          (path: HomotopyPath, dev: Corpus?) -> HmmModel
//                            λ by monotone, min_eig, max_entropy, fixed, mle, or the best dev
//                            f1 / accuracy / log-likelihood (the Held-out and Oracle rows)
// hmm.em and hmm.em_sweep, which run the same EM_λ kernel, are the hmm family's (hmm/em_nodes.h).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterHomotopyNodes(Registry& registry);

}  // namespace seqflow
