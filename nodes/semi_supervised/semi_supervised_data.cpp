#include "nodes/semi_supervised/semi_supervised_data.h"

#include <cmath>
#include <unordered_map>

#include "nodes/common/portable_math.h"

namespace seqflow {
namespace {

std::string Named(const Corpus& c) { return c.source.empty() ? std::string("the corpus") : "'" + c.source + "'"; }

Result<IdSentences> StateIds(const HmmModel& model, const Corpus& labeled) {
  if (!labeled.labeled()) return Status::Invalid(Named(labeled) + " has no labels; a labeled corpus is needed here");
  std::unordered_map<std::string, int32_t> state;
  for (size_t i = 0; i < model.label_names.size(); ++i) state[model.label_names[i]] = static_cast<int32_t>(i);
  std::vector<int32_t> remap(labeled.label_names.size(), -1);
  for (size_t i = 0; i < labeled.label_names.size(); ++i) {
    auto it = state.find(labeled.label_names[i]);
    if (it != state.end()) remap[i] = it->second;
  }
  IdSentences out;
  for (const Sentence& s : labeled.sentences) {
    std::vector<int32_t> ids;
    for (int32_t label : s.labels) {
      if (remap[label] < 0)
        return Status::Invalid("label '" + labeled.label_names[label] + "' of " + Named(labeled) +
                               " is not a state of the model (it was trained on other labels)");
      ids.push_back(remap[label]);
    }
    out.push_back(std::move(ids));
  }
  return out;
}

}  // namespace

Result<SemiSupervisedData> PrepareSemiSupervised(const HmmModel& model, const Corpus& labeled,
                                                 const std::vector<const Corpus*>& unlabeled) {
  SemiSupervisedData data;
  SEQFLOW_ASSIGN_OR_RETURN(data.labels, StateIds(model, labeled));
  data.words = CorpusSymbols(*model.vocab, labeled);
  for (const Corpus* corpus : unlabeled) AppendUnlabeledSymbols(model, *corpus, data.unlabeled);
  return data;
}

void AppendUnlabeledSymbols(const HmmModel& model, const Corpus& unlabeled, IdSentences& out) {
  for (auto& sentence : CorpusSymbols(*model.vocab, unlabeled))
    if (!sentence.empty()) out.push_back(std::move(sentence));
}

Result<double> MeanJointLogLikelihood(const HmmModel& model, const Corpus& gold) {
  SEQFLOW_ASSIGN_OR_RETURN(IdSentences labels, StateIds(model, gold));
  IdSentences words = CorpusSymbols(*model.vocab, gold);
  const HmmParams& p = model.params;
  double total = 0;
  for (size_t s = 0; s < words.size(); ++s) {
    for (size_t t = 0; t < words[s].size(); ++t) {
      int y = labels[s][t];
      total += Log(t == 0 ? p.initial(y) : p.transition(labels[s][t - 1], y));
      total += Log(p.emission(y, words[s][t]));
    }
  }
  return words.empty() ? 0.0 : total / static_cast<double>(words.size());
}

}  // namespace seqflow
