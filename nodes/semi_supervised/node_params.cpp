#include "nodes/semi_supervised/node_params.h"

#include "nodes/common/distributed_shards.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/io/sharded_corpus.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "nodes/semi_supervised/em_lambda.h"

namespace seqflow {

std::vector<PortSpec> SemiSupervisedPorts(bool with_test) {
  std::vector<PortSpec> ports = {
      {"start", "HmmModel", false, false, "the supervised model: vocab, states, frozen blocks, λ = 0 start"},
      {"labeled", "Corpus", false, false, "labeled sentences L (EM_0's counts)", PortUse::kFits},
      {"unlabeled", std::string(kSentencesInterface), true, false,
       "unlabeled sentences U (labels, if any, are ignored); a ShardedCorpus is read a shard at a time",
       PortUse::kFitsInputs}};
  if (with_test) ports.push_back({"test", "Corpus", false, true, "labeled data scored at every point"});
  return ports;
}

ParamTable<EmStartOptions> EmStartParams() {
  using O = EmStartOptions;
  auto smoothing = [](auto member) { return At(&O::smoothing, member); };
  ParamTable<O> table;
  table.StringList("freeze", &O::freeze, "blocks kept at the start model")
      .OneOf({"initial", "transition", "emission"})
      .Double("smoothing.initial", smoothing(&HmmSmoothing::initial), "add-ε pseudo-count of EM_0, initial block")
      .Min(0)
      .Double("smoothing.transition", smoothing(&HmmSmoothing::transition), "add-ε pseudo-count of EM_0, transitions")
      .Min(0)
      .Double("smoothing.emission", smoothing(&HmmSmoothing::emission), "add-ε pseudo-count of EM_0, emissions")
      .Min(0);
  return table;
}

ParamTable<EmLambdaOptions> EmIterationParams() {
  using O = EmLambdaOptions;
  ParamTable<O> table;
  table.Int("max_iter", &O::max_iter, "EM_λ iterations at most")
      .Min(1)
      .Double("tol", &O::tol, "stop when L_λ changes by less than tol (1 + |L_λ|)")
      .Min(0);
  return table;
}

FreeBlocks FreeBlocksOf(const std::vector<std::string>& frozen) {
  auto has = [&](const char* block) { return std::find(frozen.begin(), frozen.end(), block) != frozen.end(); };
  FreeBlocks free;
  free.initial = !has("initial");
  free.transition = !has("transition");
  free.emission = !has("emission");
  if (!free.initial && !free.transition && !free.emission)
    throw StatusError(Status::Invalid("every block is frozen: nothing left to estimate"));
  return free;
}

std::string CheckLambdaText(const ParamValue& value) {
  const std::string& text = std::get<std::string>(value);
  if (text == "mle") return "";
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !(v >= 0 && v <= 1))
    return "must be a number in [0, 1] or 'mle'";
  return "";
}

double LambdaOf(const std::string& text, int64_t num_labeled, int64_t num_unlabeled) {
  if (text == "mle") return static_cast<double>(num_unlabeled) / static_cast<double>(num_labeled + num_unlabeled);
  return std::strtod(text.c_str(), nullptr);
}

SemiSupervisedInputs ReadSemiSupervisedInputs(NodeContext& ctx, bool with_test, const ProcessGroup* e_step) {
  SemiSupervisedInputs in;
  in.start = ctx.In<HmmModel>("start");
  in.labeled = ctx.In<Corpus>("labeled");
  if (with_test) in.test = ctx.InOptional<Corpus>("test");
  in.data = ValueOrThrow(PrepareSemiSupervised(*in.start, *in.labeled, {}));
  // Only the symbol ids of U are kept across iterations: each shard is dropped once mapped, and
  // a rank of `e_step` loads only the shards holding sentences of the E-step shards it maps.
  IdSentences& unlabeled = in.data.unlabeled;
  for (const ArtifactPtr& pool : ctx.inputs("unlabeled"))
    ThrowIfError(ForEachNeededCorpusShard(
        *pool, ctx.pieces(), unlabeled.size(),
        [&](size_t begin, size_t end) { return MapsAnyShardOf(e_step, begin, end, kExpectedCountShardSentences); },
        [&](const Corpus& shard) {
          AppendUnlabeledSymbols(*in.start, shard, unlabeled);
          return Status::Ok();
        },
        [&](size_t count) { unlabeled.resize(unlabeled.size() + count); }));
  if (in.data.words.empty()) throw StatusError(Status::Invalid("the labeled corpus is empty"));
  return in;
}

PathStart StartPath(const std::string& method, const SemiSupervisedInputs& in, const EmStartOptions& options) {
  PathStart start;
  start.path = std::make_shared<HomotopyPath>();
  start.path->method = method;
  start.path->reference = in.start;
  start.path->free = FreeBlocksOf(options.freeze);
  start.path->num_labeled = static_cast<int64_t>(in.data.words.size());
  start.path->num_unlabeled = static_cast<int64_t>(in.data.unlabeled.size());
  start.em0 = Em0(start.path->Layout(), in.data.words, in.data.labels, options.smoothing);
  return start;
}

}  // namespace seqflow
