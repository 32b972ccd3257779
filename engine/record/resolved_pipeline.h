// resolved.yaml of a run record: the pipeline as one run ran it — vars, includes, --set and the
// run's ablation values applied — with every node's kind, data role and waivers, inputs and
// parameters, defaults included. Parameter values are the canonical ones the cache key hashes (paths absolute), numbers
// in their shortest exact form; dotted parameter names nest as the pipeline language writes them.
// Thread safety: pure function.
#pragma once

#include <string>

#include "engine/graph/dag.h"

namespace seqflow {

std::string ResolvedPipelineYaml(const std::string& pipeline_name, const Dag& dag);

}  // namespace seqflow
