// The homotopy family (Haffari & Sarkar 2008):
//   hmm.em                   (start: HmmModel, labeled: Corpus, unlabeled: Corpus[]) -> HmmModel
//                            EM_λ at a fixed λ (a number in [0, 1] or `mle` = |U| / (|L| + |U|))
//   hmm.em_sweep             (start, labeled, unlabeled, test?) -> HomotopyPath
//                            EM_λ to convergence on a λ grid, each from the start or warm-started
//                            from the previous λ (Fig. 2 a/b); test metrics per λ when `test` is set
//   homotopy.em_lambda_path  (start, labeled, unlabeled, test?) -> HomotopyPath
//                            Algorithm 1: the curve of EM_λ fixed points from λ = 0 to 1, with a
//                            Newton corrector and adaptive steps; dense or matrix-free algebra
//   homotopy.select          (path: HomotopyPath, dev: Corpus?) -> HmmModel
//                            λ by monotone, min_eig, max_entropy, fixed, mle, or the best dev
//                            f1 / accuracy / log-likelihood (the Held-out and Oracle rows)
// hmm.em is registered here, not in the hmm family, because it runs the EM_λ kernel.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterHomotopyNodes(Registry& registry);

}  // namespace seqflow
