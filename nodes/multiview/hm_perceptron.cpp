#include "nodes/multiview/hm_perceptron.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "nodes/chain/viterbi_one_chain.h"
#include "nodes/common/portable_math.h"

namespace seqflow {

namespace {

constexpr int32_t kPrefetchAhead = 8;  // attributes

void PrefetchRow(const double* w, Eigen::Index K, int32_t a) {
  const char* row = reinterpret_cast<const char*>(w + static_cast<Eigen::Index>(a) * K);
  for (Eigen::Index byte = 0; byte < K * 8; byte += 64) __builtin_prefetch(row + byte);
  __builtin_prefetch(row + K * 8 - 1);
}

bool InView(const std::vector<int32_t>* view_of, int32_t a, int v) {
  return view_of == nullptr ? v == 0 : (*view_of)[static_cast<size_t>(a)] == v;
}

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

  void Update(const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v, const std::vector<int32_t>& toward,
              const std::vector<int32_t>& away, double scale) {
    PerceptronUpdate(x, view_of, v, toward, away, scale, &w_.observation, &w_.transition[static_cast<size_t>(v)]);
    if (averaged_)
      PerceptronUpdate(x, view_of, v, toward, away, scale * visits_, &u_.observation,
                       &u_.transition[static_cast<size_t>(v)]);
  }
  void Visited() { visits_ += 1; }

  HmPerceptronWeights Final() const {
    if (!averaged_) return w_;
    HmPerceptronWeights avg = w_;
    const double n = std::max(visits_, 1.0);
    avg.observation -= u_.observation / n;
    for (size_t v = 0; v < avg.transition.size(); ++v) avg.transition[v] -= u_.transition[v] / n;
    return avg;
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

  const std::vector<int32_t>& Decode(const HmPerceptronWeights& w, const SentenceFeatures& x,
                                     const std::vector<int32_t>* view_of, int v) {
    if (stale_[static_cast<size_t>(v)]) {
      models_[static_cast<size_t>(v)] = OneChainViterbiModel::FromLogPotentials(w.transition[static_cast<size_t>(v)]);
      stale_[static_cast<size_t>(v)] = false;
    }
    ViewScores(w.observation, x, view_of, v, &scores_);
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

void ViewScores(const RowMatrixXd& observation, const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                RowMatrixXd* scores) {
  const int32_t T = x.size(), end = x.offsets[T];
  const Eigen::Index K = observation.cols();
  scores->setZero(T, K);
  // The gathers of W's rows are an epoch's main cost: raw rows of K, fetched kPrefetchAhead ahead.
  const double* w = observation.data();
  for (int32_t i = 0; i < std::min(kPrefetchAhead, end); ++i) PrefetchRow(w, K, x.ids[static_cast<size_t>(i)]);
  for (int32_t t = 0; t < T; ++t) {
    double* row = scores->data() + t * K;
    for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
      if (j + kPrefetchAhead < end) PrefetchRow(w, K, x.ids[static_cast<size_t>(j + kPrefetchAhead)]);
      const int32_t a = x.ids[static_cast<size_t>(j)];
      if (!InView(view_of, a, v)) continue;
      const double* wa = w + static_cast<Eigen::Index>(a) * K;
      for (Eigen::Index k = 0; k < K; ++k) row[k] += wa[k];
    }
  }
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

Result<HmPerceptronResult> TrainHmPerceptron(const HmPerceptronData& data, const HmPerceptronOptions& options,
                                             const std::function<void(const HmPerceptronEpoch&)>& after_epoch,
                                             const CancelToken& cancel) {
  SEQFLOW_RETURN_IF_ERROR(CheckSequenceData(data, options.views));
  const int V = options.views;
  const std::vector<int32_t>* view_of = V == 1 ? nullptr : data.view;
  PerceptronState state(static_cast<int32_t>(data.view->size()), data.num_labels, V, options.averaged);
  HmPerceptronResult result;
  ViewDecoder decoder(V);
  std::vector<std::vector<int32_t>> decoded(static_cast<size_t>(V));
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    SEQFLOW_RETURN_IF_ERROR(cancel.Check("multiview.perceptron"));
    HmPerceptronEpoch counts{epoch, UnlabeledWeight(options.c_u, options.growth, epoch), 0, 0};
    for (size_t n = 0; n < data.labeled->size(); ++n) {
      const SentenceFeatures& x = (*data.labeled)[n];
      const std::vector<int32_t>& y = (*data.labels)[n];
      for (int v = 0; v < V; ++v) decoded[v] = decoder.Decode(state.current(), x, view_of, v);
      for (int v = 0; v < V; ++v)
        if (decoded[v] != y) {
          state.Update(x, view_of, v, y, decoded[v], 1.0);
          decoder.Invalidate(v);
          ++counts.labeled_errors;
        }
      state.Visited();
    }
    if (V == 2 && counts.c_u > 0) {
      for (const SentenceFeatures& x : *data.unlabeled) {
        for (int v = 0; v < V; ++v) decoded[v] = decoder.Decode(state.current(), x, view_of, v);
        if (decoded[0] != decoded[1]) {
          state.Update(x, view_of, 0, decoded[1], decoded[0], counts.c_u);
          state.Update(x, view_of, 1, decoded[0], decoded[1], counts.c_u);
          decoder.Invalidate(0);
          decoder.Invalidate(1);
          ++counts.disagreements;
        }
        state.Visited();
      }
    }
    result.epochs.push_back(counts);
    if (after_epoch) after_epoch(counts);
  }
  result.weights = state.Final();
  return result;
}

}  // namespace seqflow
