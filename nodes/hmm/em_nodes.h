// hmm.em and hmm.em_sweep: EM_λ at one allocation λ, and to convergence over a grid of λ
// (Haffari & Sarkar 2008, Eq. 5, Fig. 2 a/b), internal to nodes/hmm (RegisterHmmNodes calls it).
//   hmm.em        (start: HmmModel, labeled: Corpus, unlabeled: Corpus[]) -> HmmModel
//                 λ a number in [0, 1] or `mle` = |U| / (|L| + |U|)
//   hmm.em_sweep  (start, labeled, unlabeled, test?) -> HomotopyPath
//                 each λ from the start or warm-started from the previous one; test metrics per λ
//                 when `test` is set
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterEmNodes(Registry& registry);

}  // namespace seqflow
