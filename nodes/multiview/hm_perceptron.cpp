#include "nodes/multiview/hm_perceptron.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "engine/base/bytes.h"
#include "nodes/chain/viterbi_one_chain.h"
#include "nodes/common/iterate.h"
#include "nodes/common/portable_math.h"
#include "nodes/crf/crf_likelihood.h"

namespace seqflow {

namespace {

bool InView(const std::vector<int32_t>* view_of, int32_t a, int v) {
  return view_of == nullptr ? v == 0 : (*view_of)[static_cast<size_t>(a)] == v;
}

constexpr uint64_t kPerceptronStateMagic = 0x3143525048464d53;  // "SMFHPRC1"

}  // namespace

Status CheckSequenceData(const HmPerceptronData& d, int views) {
  if (views != 1 && views != 2) return Status::Invalid(fmt::format("multiview: views {} (1 or 2)", views));
  if (d.num_labels < 1) return Status::Invalid("multiview: no labels");
  if (d.labeled->empty()) return Status::Invalid("multiview: no labeled sentences");
  if (d.labeled->size() != d.labels->size())
    return Status::Invalid(
        fmt::format("multiview: {} labeled sentences, {} label sequences", d.labeled->size(), d.labels->size()));
  const auto A = static_cast<int32_t>(d.view->size());
  auto check_ids = [&](const std::vector<SentenceFeatures>& part, const char* what) -> Status {
    for (size_t n = 0; n < part.size(); ++n) {
      if (part[n].size() == 0) return Status::Invalid(fmt::format("multiview: {} sentence {} is empty", what, n + 1));
      for (int32_t a : part[n].ids)
        if (a < 0 || a >= A)
          return Status::Invalid(fmt::format("multiview: {} sentence {} has attribute {} of {}", what, n + 1, a, A));
    }
    return Status::Ok();
  };
  SEQFLOW_RETURN_IF_ERROR(check_ids(*d.labeled, "labeled"));
  SEQFLOW_RETURN_IF_ERROR(check_ids(*d.unlabeled, "unlabeled"));
  for (size_t n = 0; n < d.labels->size(); ++n) {
    const auto& y = (*d.labels)[n];
    if (static_cast<int32_t>(y.size()) != (*d.labeled)[n].size())
      return Status::Invalid(fmt::format("multiview: labeled sentence {} has {} tokens and {} labels", n + 1,
                                         (*d.labeled)[n].size(), y.size()));
    for (int32_t k : y)
      if (k < 0 || k >= d.num_labels)
        return Status::Invalid(
            fmt::format("multiview: labeled sentence {} has label id {} of {}", n + 1, k, d.num_labels));
  }
  return Status::Ok();
}

namespace {

// The model being trained and, when averaging, U = Σ_j (j − 1) Δw_j over the updates Δw_j made at
// visit j, so that the mean of w after each of N visits is w − U / N (Daumé's lazy average).
class PerceptronState {
 public:
  PerceptronState(int32_t A, int32_t K, int views, bool averaged) : averaged_(averaged) {
    w_.observation = RowMatrixXd::Zero(A, K);
    w_.transition.assign(static_cast<size_t>(views), RowMatrixXd::Zero(K, K));
    if (averaged_) u_ = w_;
  }
  const HmPerceptronWeights& current() const { return w_; }

  // x holds view v's attributes only (ViewSentences). w and U take the same entries in one pass,
  // each in PerceptronUpdate's order.
  void Update(const SentenceFeatures& x, int v, const std::vector<int32_t>& toward, const std::vector<int32_t>& away,
              double scale) {
    RowMatrixXd& transition = w_.transition[static_cast<size_t>(v)];
    if (!averaged_) return PerceptronUpdate(x, nullptr, 0, toward, away, scale, &w_.observation, &transition);
    RowMatrixXd& u_transition = u_.transition[static_cast<size_t>(v)];
    const double u_scale = scale * visits_;
    // U's rows are cold (the decode read only w's): fetch all the entries this update touches
    // first, so that their misses overlap.
    for (int32_t t = 0; t < x.size(); ++t) {
      if (toward[t] == away[t]) continue;
      for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
        const int32_t a = x.ids[static_cast<size_t>(j)];
        __builtin_prefetch(&u_.observation(a, toward[t]), 1);
        __builtin_prefetch(&u_.observation(a, away[t]), 1);
      }
    }
    for (int32_t t = 0; t < x.size(); ++t) {
      if (t > 0) {
        transition(toward[t - 1], toward[t]) += scale;
        transition(away[t - 1], away[t]) -= scale;
        u_transition(toward[t - 1], toward[t]) += u_scale;
        u_transition(away[t - 1], away[t]) -= u_scale;
      }
      if (toward[t] == away[t]) continue;
      for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
        const int32_t a = x.ids[static_cast<size_t>(j)];
        w_.observation(a, toward[t]) += scale;
        w_.observation(a, away[t]) -= scale;
        u_.observation(a, toward[t]) += u_scale;
        u_.observation(a, away[t]) -= u_scale;
      }
    }
  }
  void Visited() { visits_ += 1; }

  // w, U and the visit count: all the next epoch reads (the decoder's tables follow from w).
  void Save(ByteWriter& w) const {
    auto matrix = [&](const RowMatrixXd& m) { w.F64s(m.data(), static_cast<size_t>(m.size())); };
    w.F64(visits_);
    matrix(w_.observation);
    for (const RowMatrixXd& t : w_.transition) matrix(t);
    if (!averaged_) return;
    matrix(u_.observation);
    for (const RowMatrixXd& t : u_.transition) matrix(t);
  }
  // False when the bytes are not a state of these dimensions (the reader may throw StatusError).
  bool Load(StateIn& r) {
    auto matrix = [&](RowMatrixXd& m) { return r.F64sInto(m.data(), static_cast<size_t>(m.size())); };
    visits_ = r.F64();
    if (!matrix(w_.observation)) return false;
    for (RowMatrixXd& t : w_.transition)
      if (!matrix(t)) return false;
    if (!averaged_) return true;
    if (!matrix(u_.observation)) return false;
    for (RowMatrixXd& t : u_.transition)
      if (!matrix(t)) return false;
    return true;
  }

  // Takes the weights (the state is spent): the average is formed in place of w.
  HmPerceptronWeights TakeFinal() {
    if (averaged_) {
      const double n = std::max(visits_, 1.0);
      w_.observation -= u_.observation / n;
      for (size_t v = 0; v < w_.transition.size(); ++v) w_.transition[v] -= u_.transition[v] / n;
    }
    return std::move(w_);
  }

 private:
  bool averaged_;
  double visits_ = 0;
  HmPerceptronWeights w_, u_;
};

// Eq. 14 for one view on the chain library's one-chain Viterbi (viterbi_one_chain.h), keeping the
// log tables of each view's transitions until that view is updated and the buffers across sentences.
class ViewDecoder {
 public:
  explicit ViewDecoder(int views) : models_(static_cast<size_t>(views)), stale_(static_cast<size_t>(views), true) {}

  void Invalidate(int v) { stale_[static_cast<size_t>(v)] = true; }

  // x holds view v's attributes only (ViewSentences).
  const std::vector<int32_t>& Decode(const HmPerceptronWeights& w, const SentenceFeatures& x, int v) {
    if (stale_[static_cast<size_t>(v)]) {
      models_[static_cast<size_t>(v)] = OneChainViterbiModel::FromLogPotentials(w.transition[static_cast<size_t>(v)]);
      stale_[static_cast<size_t>(v)] = false;
    }
    ObservationScores(w.observation, x, &scores_);
    path_.resize(static_cast<size_t>(x.size()));
    OneChainViterbi(models_[static_cast<size_t>(v)], scores_.data(), x.size(), &work_, path_.data());
    return path_;
  }

 private:
  std::vector<OneChainViterbiModel> models_;
  std::vector<bool> stale_;
  RowMatrixXd scores_;
  std::vector<int32_t> path_;
  OneChainViterbiWork work_;
};

}  // namespace

double UnlabeledWeight(double c_u, const UnlabeledWeightGrowth& g, int epoch) {
  if (g.schedule == UnlabeledWeightSchedule::kConstant || epoch >= g.ramp || g.ramp <= 1) return c_u;
  return c_u * Exp(Log(g.c_u_start) * static_cast<double>(g.ramp - epoch) / (g.ramp - 1));
}

void ObservationScores(const RowMatrixXd& observation, const SentenceFeatures& x, RowMatrixXd* scores) {
  const Eigen::Map<const Eigen::VectorXd> w(observation.data(), observation.size());
  CrfScores(w, CrfLayout{observation.rows(), observation.cols()}, x, *scores);
}

void ViewScores(const RowMatrixXd& observation, const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                RowMatrixXd* scores) {
  if (view_of == nullptr && v == 0) return ObservationScores(observation, x, scores);
  const int32_t T = x.size();
  const Eigen::Index K = observation.cols();
  scores->setZero(T, K);
  for (int32_t t = 0; t < T; ++t) {
    for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
      const int32_t a = x.ids[static_cast<size_t>(j)];
      if (InView(view_of, a, v)) scores->row(t) += observation.row(a);
    }
  }
}

std::vector<SentenceFeatures> ViewSentences(const std::vector<SentenceFeatures>& sentences,
                                            const std::vector<int32_t>& view_of, int v) {
  std::vector<SentenceFeatures> out(sentences.size());
  for (size_t n = 0; n < sentences.size(); ++n) {
    const SentenceFeatures& x = sentences[n];
    SentenceFeatures& y = out[n];
    y.offsets.reserve(x.offsets.size());
    y.offsets.push_back(0);
    for (int32_t t = 0; t < x.size(); ++t) {
      for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
        const int32_t a = x.ids[static_cast<size_t>(j)];
        if (view_of[static_cast<size_t>(a)] == v) y.ids.push_back(a);
      }
      y.offsets.push_back(static_cast<int32_t>(y.ids.size()));
    }
  }
  return out;
}

void PerceptronUpdate(const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                      const std::vector<int32_t>& toward, const std::vector<int32_t>& away, double scale,
                      RowMatrixXd* observation, RowMatrixXd* transition) {
  const int32_t T = x.size();
  for (int32_t t = 0; t < T; ++t) {
    if (t > 0) {
      (*transition)(toward[t - 1], toward[t]) += scale;
      (*transition)(away[t - 1], away[t]) -= scale;
    }
    if (toward[t] == away[t]) continue;
    for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
      const int32_t a = x.ids[static_cast<size_t>(j)];
      if (!InView(view_of, a, v)) continue;
      (*observation)(a, toward[t]) += scale;
      (*observation)(a, away[t]) -= scale;
    }
  }
}

namespace {

// What an epoch leaves for the next: the epochs' counts and the weights.
struct PerceptronTraining {
  std::vector<HmPerceptronEpoch> epochs;
  PerceptronState weights;
};

StateTable<PerceptronTraining> PerceptronTrainingTable(const HmPerceptronOptions& options, int32_t A, int32_t K) {
  return StateTable<PerceptronTraining>("multiview.perceptron")
      .Tag(kPerceptronStateMagic)
      .Fits(options.views)
      .FitsU8(options.averaged ? 1 : 0)
      .Fits(A)
      .Fits(K)
      .Records(&PerceptronTraining::epochs,
               StateTable<HmPerceptronEpoch>("multiview.perceptron")
                   .I64(&HmPerceptronEpoch::epoch)
                   .F64(&HmPerceptronEpoch::c_u)
                   .I64(&HmPerceptronEpoch::labeled_errors)
                   .I64(&HmPerceptronEpoch::disagreements),
               {.min = 1})
      .Check([](const PerceptronTraining& t) { return EpochsNumberedFromOne(t.epochs); })
      .Custom([](const PerceptronTraining& t, StatePieces& out) { t.weights.Save(out.writer()); },
              [](PerceptronTraining& t, StateIn& in) { return t.weights.Load(in); });
}

}  // namespace

Result<HmPerceptronResult> TrainHmPerceptron(const HmPerceptronData& data, const HmPerceptronOptions& options,
                                             const std::function<void(const HmPerceptronEpoch&)>& after_epoch,
                                             const CancelToken& cancel, const KernelCheckpoints& checkpoints) {
  SEQFLOW_RETURN_IF_ERROR(CheckSequenceData(data, options.views));
  const int V = options.views;
  // Each view decodes and updates on its own attributes, split off once: with views = 1 the
  // sentences themselves.
  std::vector<std::vector<SentenceFeatures>> split_labeled, split_unlabeled;
  std::vector<const std::vector<SentenceFeatures>*> labeled(static_cast<size_t>(V), data.labeled),
      unlabeled(static_cast<size_t>(V), data.unlabeled);
  if (V == 2) {
    for (int v = 0; v < V; ++v) {
      split_labeled.push_back(ViewSentences(*data.labeled, *data.view, v));
      split_unlabeled.push_back(ViewSentences(*data.unlabeled, *data.view, v));
    }
    for (int v = 0; v < V; ++v) labeled[v] = &split_labeled[v], unlabeled[v] = &split_unlabeled[v];
  }
  const auto A = static_cast<int32_t>(data.view->size());
  PerceptronTraining training{{}, PerceptronState(A, data.num_labels, V, options.averaged)};
  PerceptronState& state = training.weights;
  const StateTable<PerceptronTraining> table = PerceptronTrainingTable(options, A, data.num_labels);
  ViewDecoder decoder(V);
  std::vector<std::vector<int32_t>> decoded(static_cast<size_t>(V));
  auto epoch = [&](PerceptronTraining& t) -> Result<Step> {
    const int e = static_cast<int>(t.epochs.size()) + 1;
    HmPerceptronEpoch counts{e, UnlabeledWeight(options.c_u, options.growth, e), 0, 0};
    for (size_t n = 0; n < data.labeled->size(); ++n) {
      const std::vector<int32_t>& y = (*data.labels)[n];
      for (int v = 0; v < V; ++v) decoded[v] = decoder.Decode(state.current(), (*labeled[v])[n], v);
      for (int v = 0; v < V; ++v)
        if (decoded[v] != y) {
          state.Update((*labeled[v])[n], v, y, decoded[v], 1.0);
          decoder.Invalidate(v);
          ++counts.labeled_errors;
        }
      state.Visited();
    }
    if (V == 2 && counts.c_u > 0) {
      for (size_t n = 0; n < data.unlabeled->size(); ++n) {
        for (int v = 0; v < V; ++v) decoded[v] = decoder.Decode(state.current(), (*unlabeled[v])[n], v);
        if (decoded[0] != decoded[1]) {
          state.Update((*unlabeled[0])[n], 0, decoded[1], decoded[0], counts.c_u);
          state.Update((*unlabeled[1])[n], 1, decoded[0], decoded[1], counts.c_u);
          decoder.Invalidate(0);
          decoder.Invalidate(1);
          ++counts.disagreements;
        }
        state.Visited();
      }
    }
    t.epochs.push_back(counts);
    if (after_epoch) after_epoch(counts);
    return Step::kContinue;
  };
  const IterativeKernel<PerceptronTraining> kernel{"multiview.perceptron", &table, options.epochs,
                                         [](const PerceptronTraining& t) { return static_cast<int64_t>(t.epochs.size()); }, epoch};
  SEQFLOW_RETURN_IF_ERROR(Iterate(kernel, training, cancel, checkpoints).status());
  HmPerceptronResult result;
  result.epochs = std::move(training.epochs);
  result.weights = state.TakeFinal();
  return result;
}

}  // namespace seqflow
