#include "nodes/multiview/hm_svm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "engine/base/bytes.h"
#include "nodes/chain/linear_chain.h"
#include "nodes/common/iterate.h"

namespace seqflow {

namespace {

constexpr uint64_t kSvmStateMagic = 0x314d5653484d4653;  // "SFMHSVM1"

double Dot(const SparseJointFeatures& p, const SparseJointFeatures& q) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < p.index.size() && j < q.index.size()) {
    if (p.index[i] < q.index[j]) {
      ++i;
    } else if (q.index[j] < p.index[i]) {
      ++j;
    } else {
      s += p.value[i++] * q.value[j++];
    }
  }
  return s;
}

// The view's weights: observation rows of W in that view and its transition block.
class ViewWeights {
 public:
  ViewWeights(HmPerceptronWeights* w, int v) : w_(w), v_(v) {}
  int64_t A() const { return w_->observation.rows(); }
  int64_t K() const { return w_->observation.cols(); }
  double& At(int64_t index) {
    const int64_t obs = A() * K();
    if (index < obs) return w_->observation.data()[index];
    return w_->transition[static_cast<size_t>(v_)].data()[index - obs];
  }
  double Dot(const SparseJointFeatures& f) {
    double s = 0;
    for (size_t i = 0; i < f.index.size(); ++i) s += f.value[i] * At(f.index[i]);
    return s;
  }
  void Add(double scale, const SparseJointFeatures& f) {
    for (size_t i = 0; i < f.index.size(); ++i) At(f.index[i]) += scale * f.value[i];
  }

 private:
  HmPerceptronWeights* w_;
  int v_;
};

// Φ^v(x, toward) − Φ^v(x, away) as a sparse vector.
SparseJointFeatures FeatureDifference(const SentenceFeatures& x, const std::vector<int32_t>* view_of, int v,
                                      const std::vector<int32_t>& toward, const std::vector<int32_t>& away, int64_t A,
                                      int64_t K) {
  std::vector<std::pair<int64_t, double>> entries;
  for (int32_t t = 0; t < x.size(); ++t) {
    if (t > 0) {
      entries.push_back({A * K + toward[t - 1] * K + toward[t], 1.0});
      entries.push_back({A * K + away[t - 1] * K + away[t], -1.0});
    }
    if (toward[t] == away[t]) continue;
    for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
      const int32_t a = x.ids[static_cast<size_t>(j)];
      if (view_of != nullptr && (*view_of)[static_cast<size_t>(a)] != v) continue;
      entries.push_back({a * K + toward[t], 1.0});
      entries.push_back({a * K + away[t], -1.0});
    }
  }
  std::sort(entries.begin(), entries.end());
  SparseJointFeatures f;
  for (size_t i = 0; i < entries.size();) {
    double sum = 0;
    size_t j = i;
    for (; j < entries.size() && entries[j].first == entries[i].first; ++j) sum += entries[j].second;
    if (sum != 0) {
      f.index.push_back(entries[i].first);
      f.value.push_back(sum);
    }
    i = j;
  }
  return f;
}

struct Pseudo {
  std::vector<int32_t> labels;  // ȳ
  double alpha = 0;
  SparseJointFeatures delta;  // Φ(x, target) − Φ(x, ȳ)
};

// The working set of one example in one view, with the target its differences are taken from.
struct WorkingSet {
  std::vector<int32_t> target;
  std::vector<Pseudo> pseudo;
};

class HmSvmTrainer {
 public:
  HmSvmTrainer(const HmPerceptronData& data, const HmSvmOptions& options)
      : data_(data),
        options_(options),
        V_(options.views),
        view_of_(options.views == 1 ? nullptr : data.view),
        A_(static_cast<int64_t>(data.view->size())),
        K_(data.num_labels),
        dual_scorer_(options.form == HmSvmForm::kDual ? A_ : 0, K_) {
    weights_.observation = RowMatrixXd::Zero(A_, K_);
    weights_.transition.assign(static_cast<size_t>(V_), RowMatrixXd::Zero(K_, K_));
    const size_t examples = data.labeled->size() + (V_ == 2 ? data.unlabeled->size() : 0);
    sets_.assign(examples, std::vector<WorkingSet>(static_cast<size_t>(V_)));
    for (size_t i = 0; i < data.labeled->size(); ++i)
      for (auto& set : sets_[i]) set.target = (*data.labels)[i];
  }

  Status Labeled(size_t i, HmSvmEpoch* counts) {
    const SentenceFeatures& x = (*data_.labeled)[i];
    for (int v = 0; v < V_; ++v) {
      WorkingSet& set = sets_[i][static_cast<size_t>(v)];
      for (int added = 0; added < options_.max_working_set; ++added) {
        Scores(x, v);
        const std::vector<int32_t> other = BestOtherThan(scores_, Transition(v), set.target);
        const double margin =
            ChainScore(scores_, Transition(v), set.target) - ChainScore(scores_, Transition(v), other);
        if (margin >= 1 - 1e-6) break;  // the QP meets margins to its tolerance
        if (added == 0) ++counts->margin_violations;
        // Already in the set: the other examples moved w since its QP was solved; solve it again.
        const bool present = Contains(set, other);
        if (!present) set.pseudo.push_back({other, 0.0, FeatureDifference(x, view_of_, v, set.target, other, A_, K_)});
        SEQFLOW_RETURN_IF_ERROR(Optimize(&set, v, options_.c).status());
        if (present) break;
        if (!Contains(set, other)) break;  // the cap is spent: it took no weight, and would be picked again
      }
    }
    return Status::Ok();
  }

  Status Unlabeled(size_t u, double c_u, HmSvmEpoch* counts) {
    const SentenceFeatures& x = (*data_.unlabeled)[u];
    std::vector<WorkingSet>& sets = sets_[data_.labeled->size() + u];
    for (int v = 0; v < 2; ++v) Clear(&sets[static_cast<size_t>(v)], v);
    std::vector<std::vector<int32_t>> predicted(2);
    std::vector<double> peer_cap(2);
    for (int r = 0; r < options_.r_max; ++r) {
      for (int v = 0; v < 2; ++v) {
        Scores(x, v);
        predicted[v] = ChainViterbi(scores_, Transition(v));
        // γ^v: this view's margin at its own prediction, the weight of its peer's slack.
        const double gamma =
            std::max(0.0, ChainScore(scores_, Transition(v), predicted[v]) -
                              ChainScore(scores_, Transition(v), BestOtherThan(scores_, Transition(v), predicted[v])));
        peer_cap[1 - v] = std::min(gamma, 1.0) * c_u * options_.c;
        if (r == 0) counts->unlabeled_margin[static_cast<size_t>(v)] += gamma;
      }
      if (predicted[0] == predicted[1]) break;
      if (r == 0) ++counts->disagreements;
      bool moved = false;
      for (int v = 0; v < 2; ++v) {
        WorkingSet& set = sets[static_cast<size_t>(v)];
        moved |= Retarget(&set, x, v, predicted[1 - v]);
        if (!Contains(set, predicted[v])) {
          set.pseudo.push_back(
              {predicted[v], 0.0, FeatureDifference(x, view_of_, v, set.target, predicted[v], A_, K_)});
          ++counts->unlabeled_pseudo;
        }
        SEQFLOW_ASSIGN_OR_RETURN(const bool changed, Optimize(&set, v, peer_cap[v]));
        moved |= changed;
      }
      if (!moved) break;  // the same weights decode the same disagreement again
    }
    return Status::Ok();
  }

  int64_t SupportSequences() const {
    int64_t n = 0;
    for (const auto& example : sets_)
      for (const WorkingSet& set : example) n += static_cast<int64_t>(set.pseudo.size());
    return n;
  }

  // All the next epoch reads: the weights (the primal form's sums, in the order they were made)
  // and every working set's target, pseudo sequences and α. The ΔΦ's follow from those (sums of
  // ±1, exact), so they are recomputed on Load rather than stored.
  void Save(ByteWriter& w) const {
    auto matrix = [&](const RowMatrixXd& m) { w.F64s(m.data(), static_cast<size_t>(m.size())); };
    matrix(weights_.observation);
    for (const RowMatrixXd& t : weights_.transition) matrix(t);
    for (const auto& example : sets_)
      for (const WorkingSet& set : example) {
        w.I32s(set.target.data(), set.target.size());
        w.U64(set.pseudo.size());
        for (const Pseudo& p : set.pseudo) {
          w.I32s(p.labels.data(), p.labels.size());
          w.F64(p.alpha);
        }
      }
  }
  // False when the bytes are not a state of these data (the reader may throw StatusError).
  bool Load(StateIn& r) {
    auto matrix = [&](RowMatrixXd& m) { return r.F64sInto(m.data(), static_cast<size_t>(m.size())); };
    if (!matrix(weights_.observation)) return false;
    for (RowMatrixXd& t : weights_.transition)
      if (!matrix(t)) return false;
    for (size_t i = 0; i < sets_.size(); ++i) {
      const SentenceFeatures& x = Example(i);
      auto fits = [&](const std::vector<int32_t>& y) {
        if (static_cast<int32_t>(y.size()) != x.size()) return false;
        for (int32_t k : y)
          if (k < 0 || k >= K_) return false;
        return true;
      };
      for (int v = 0; v < V_; ++v) {
        WorkingSet& set = sets_[i][static_cast<size_t>(v)];
        set.target = r.I32s();
        const uint64_t n = r.U64();
        if (!(set.target.empty() && n == 0) && !fits(set.target)) return false;
        set.pseudo.clear();
        for (uint64_t j = 0; j < n; ++j) {  // a count past the bytes ends at the reader's bound check
          Pseudo& p = set.pseudo.emplace_back();
          p.labels = r.I32s();
          p.alpha = r.F64();
          if (!fits(p.labels) || !(p.alpha > 0) || !std::isfinite(p.alpha)) return false;
          p.delta = FeatureDifference(x, view_of_, v, set.target, p.labels, A_, K_);
        }
      }
    }
    return true;
  }

  HmPerceptronWeights TakeWeights() {
    if (Dual())
      for (const auto& example : sets_)
        for (int v = 0; v < V_; ++v)
          for (const Pseudo& p : example[static_cast<size_t>(v)].pseudo)
            ViewWeights(&weights_, v).Add(p.alpha, p.delta);
    return std::move(weights_);
  }

 private:
  bool Dual() const { return options_.form == HmSvmForm::kDual; }
  // Example i of sets_: the labeled sentences, then the unlabeled ones.
  const SentenceFeatures& Example(size_t i) const {
    return i < data_.labeled->size() ? (*data_.labeled)[i] : (*data_.unlabeled)[i - data_.labeled->size()];
  }
  // The transition scores of view v; in the dual form those of the last Scores(x, v).
  const RowMatrixXd& Transition(int v) const {
    return Dual() ? dual_transition_ : weights_.transition[static_cast<size_t>(v)];
  }
  void Scores(const SentenceFeatures& x, int v) {
    if (Dual()) {
      DualScores(x, v);
    } else {
      ViewScores(weights_.observation, x, view_of_, v, &scores_);
    }
  }

  // f^v's scores on x through view v's support sequences.
  void DualScores(const SentenceFeatures& x, int v) {
    support_.clear();
    for (const auto& example : sets_)
      for (const Pseudo& p : example[static_cast<size_t>(v)].pseudo)
        if (p.alpha != 0) support_.push_back({p.alpha, &p.delta});
    dual_scorer_.Score(x, support_, &scores_, &dual_transition_);
  }

  // ⟨w^v, f⟩: from the weights (primal) or as Σ α ⟨ΔΦ, f⟩ over view v's support (dual).
  double WeightDot(int v, const SparseJointFeatures& f) {
    if (!Dual()) return ViewWeights(&weights_, v).Dot(f);
    double s = 0;
    for (const auto& example : sets_)
      for (const Pseudo& p : example[static_cast<size_t>(v)].pseudo)
        if (p.alpha != 0) s += p.alpha * Dot(p.delta, f);
    return s;
  }

  // w^v += scale · f in the primal form; the dual form keeps only the α.
  void AddToWeights(int v, double scale, const SparseJointFeatures& f) {
    if (!Dual()) ViewWeights(&weights_, v).Add(scale, f);
  }

  static bool Contains(const WorkingSet& set, const std::vector<int32_t>& y) {
    if (y == set.target) return true;
    for (const Pseudo& p : set.pseudo)
      if (p.labels == y) return true;
    return false;
  }

  void Clear(WorkingSet* set, int v) {
    for (const Pseudo& p : set->pseudo) AddToWeights(v, -p.alpha, p.delta);
    set->pseudo.clear();
  }

  // A new target: the differences are retaken from it, keeping each α (the QP re-solves them).
  // Returns whether the weights changed.
  bool Retarget(WorkingSet* set, const SentenceFeatures& x, int v, const std::vector<int32_t>& target) {
    if (set->target == target) return false;
    const bool had_weight = !set->pseudo.empty();
    std::vector<Pseudo> kept;
    for (Pseudo& p : set->pseudo) {
      AddToWeights(v, -p.alpha, p.delta);
      if (p.labels == target) continue;
      p.delta = FeatureDifference(x, view_of_, v, target, p.labels, A_, K_);
      AddToWeights(v, p.alpha, p.delta);
      kept.push_back(std::move(p));
    }
    set->pseudo = std::move(kept);
    set->target = target;
    return had_weight;
  }

  // Solves the set's QP with the other examples fixed: b_j = 1 − ⟨w_{−i}, ΔΦ_j⟩ where
  // w_{−i} = w − Σ_k α_k ΔΦ_k; cap: the 1-norm bound on Σα, or (2-norm) the inverse ridge.
  // Returns whether any α changed.
  Result<bool> Optimize(WorkingSet* set, int v, double cap) {
    const auto n = static_cast<Eigen::Index>(set->pseudo.size());
    Eigen::MatrixXd Q(n, n);
    Eigen::VectorXd b(n), alpha(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      alpha[j] = set->pseudo[j].alpha;
      for (Eigen::Index k = 0; k <= j; ++k) Q(j, k) = Q(k, j) = Dot(set->pseudo[j].delta, set->pseudo[k].delta);
    }
    for (Eigen::Index j = 0; j < n; ++j) b[j] = 1 - WeightDot(v, set->pseudo[j].delta) + Q.row(j).dot(alpha);
    double sum_cap = cap;
    if (options_.norm == 2) {
      if (cap <= 0) {  // an infinite ridge: α = 0
        const bool had_weight = !set->pseudo.empty();
        Clear(set, v);
        return had_weight;
      }
      Q.diagonal().array() += 1 / cap;
      sum_cap = std::numeric_limits<double>::infinity();
    }
    SEQFLOW_ASSIGN_OR_RETURN(Eigen::VectorXd solved, SolveExampleQp(Q, b, sum_cap, alpha, options_.qp));
    std::vector<Pseudo> kept;
    bool changed = false;
    for (Eigen::Index j = 0; j < n; ++j) {
      Pseudo& p = set->pseudo[j];
      changed |= solved[j] != p.alpha;
      AddToWeights(v, solved[j] - p.alpha, p.delta);
      p.alpha = solved[j];
      if (p.alpha > 0) kept.push_back(std::move(p));
    }
    set->pseudo = std::move(kept);
    return changed;
  }

  const HmPerceptronData& data_;
  const HmSvmOptions& options_;
  const int V_;
  const std::vector<int32_t>* view_of_;
  const int64_t A_, K_;
  HmPerceptronWeights weights_;
  std::vector<std::vector<WorkingSet>> sets_;  // [example][view]: labeled, then unlabeled
  RowMatrixXd scores_;
  RowMatrixXd dual_transition_;
  DualScorer dual_scorer_;
  std::vector<WeightedFeatures> support_;
};

}  // namespace

DualScorer::DualScorer(int64_t num_attributes, int64_t num_labels)
    : A_(num_attributes), K_(num_labels), first_position_(static_cast<size_t>(num_attributes), -1) {}

void DualScorer::Score(const SentenceFeatures& x, const std::vector<WeightedFeatures>& support, RowMatrixXd* scores,
                       RowMatrixXd* transition) {
  scores->setZero(x.size(), K_);
  transition->setZero(K_, K_);
  next_position_.resize(x.ids.size());
  token_of_position_.resize(x.ids.size());
  for (int32_t t = 0; t < x.size(); ++t)
    for (int32_t j = x.offsets[t]; j < x.offsets[t + 1]; ++j) {
      int32_t& first = first_position_[static_cast<size_t>(x.ids[static_cast<size_t>(j)])];
      next_position_[static_cast<size_t>(j)] = first;
      token_of_position_[static_cast<size_t>(j)] = t;
      first = j;
    }
  const int64_t obs = A_ * K_;
  for (const WeightedFeatures& s : support)
    for (size_t e = 0; e < s.features->index.size(); ++e) {
      const int64_t index = s.features->index[e];
      const double value = s.alpha * s.features->value[e];
      if (index >= obs) {
        transition->data()[index - obs] += value;
        continue;
      }
      const int64_t k = index % K_;
      for (int32_t j = first_position_[static_cast<size_t>(index / K_)]; j >= 0;
           j = next_position_[static_cast<size_t>(j)])
        (*scores)(token_of_position_[static_cast<size_t>(j)], k) += value;
    }
  for (int32_t id : x.ids) first_position_[static_cast<size_t>(id)] = -1;
}

std::vector<int32_t> BestOtherThan(const RowMatrixXd& scores, const RowMatrixXd& transition,
                                   const std::vector<int32_t>& avoid) {
  std::vector<int32_t> best = ChainViterbi(scores, transition);
  if (best != avoid) return best;
  double best_score = -std::numeric_limits<double>::infinity();
  best.clear();
  RowMatrixXd blocked = scores;
  for (Eigen::Index t = 0; t < scores.rows(); ++t) {
    const double kept = blocked(t, avoid[t]);
    blocked(t, avoid[t]) = -1e300;  // finite: the lane kernels never see inf − inf
    std::vector<int32_t> path = ChainViterbi(blocked, transition);
    blocked(t, avoid[t]) = kept;
    const double s = ChainScore(scores, transition, path);
    if (s > best_score) best_score = s, best = std::move(path);
  }
  return best;
}

namespace {

// What an epoch leaves for the next: the epochs' counts and the trainer's weights and working sets.
struct SvmTraining {
  std::vector<HmSvmEpoch> epochs;
  HmSvmTrainer trainer;
};

StateTable<SvmTraining> SvmTrainingTable(const HmPerceptronData& data, const HmSvmOptions& options) {
  return StateTable<SvmTraining>("multiview.hmsvm")
      .Tag(kSvmStateMagic)
      .Fits(options.views)
      .Fits(options.form == HmSvmForm::kDual ? 1 : 0)
      .Fits(data.view->size())
      .Fits(data.num_labels)
      .FitsU64(data.labeled->size())
      .FitsU64(data.unlabeled->size())
      .Records(&SvmTraining::epochs,
               StateTable<HmSvmEpoch>("multiview.hmsvm")
                   .I64(&HmSvmEpoch::epoch)
                   .F64(&HmSvmEpoch::c_u)
                   .I64(&HmSvmEpoch::margin_violations)
                   .I64(&HmSvmEpoch::disagreements)
                   .I64(&HmSvmEpoch::support_sequences)
                   .I64(&HmSvmEpoch::unlabeled_pseudo)
                   .F64([](auto& e) -> auto& { return e.unlabeled_margin[0]; })
                   .F64([](auto& e) -> auto& { return e.unlabeled_margin[1]; }),
               {.min = 1})
      .Check([](const SvmTraining& t) { return EpochsNumberedFromOne(t.epochs); })
      .Custom([](const SvmTraining& t, StatePieces& out) { t.trainer.Save(out.writer()); },
              [](SvmTraining& t, StateIn& in) { return t.trainer.Load(in); });
}

}  // namespace

Result<HmSvmResult> TrainHmSvm(const HmPerceptronData& data, const HmSvmOptions& options,
                               const std::function<void(const HmSvmEpoch&)>& after_epoch, const CancelToken& cancel,
                               const KernelCheckpoints& checkpoints) {
  SEQFLOW_RETURN_IF_ERROR(CheckSequenceData(data, options.views));
  if (options.norm != 1 && options.norm != 2)
    return Status::Invalid(fmt::format("multiview.hmsvm: norm {} (1 or 2)", options.norm));
  if (!(options.c > 0)) return Status::Invalid(fmt::format("multiview.hmsvm: C = {} must be > 0", options.c));
  if (data.num_labels < 2) return Status::Invalid("multiview.hmsvm: needs at least 2 labels");
  SvmTraining training{{}, HmSvmTrainer(data, options)};
  const StateTable<SvmTraining> table = SvmTrainingTable(data, options);
  auto epoch = [&](SvmTraining& t) -> Result<Step> {
    const int e = static_cast<int>(t.epochs.size()) + 1;
    HmSvmEpoch counts{e, UnlabeledWeight(options.c_u, options.growth, e), 0, 0, 0};
    for (size_t i = 0; i < data.labeled->size(); ++i) {
      SEQFLOW_RETURN_IF_ERROR(cancel.Check("multiview.hmsvm"));
      SEQFLOW_RETURN_IF_ERROR(t.trainer.Labeled(i, &counts));
    }
    if (options.views == 2)
      for (size_t u = 0; u < data.unlabeled->size(); ++u) {
        SEQFLOW_RETURN_IF_ERROR(cancel.Check("multiview.hmsvm"));
        SEQFLOW_RETURN_IF_ERROR(t.trainer.Unlabeled(u, counts.c_u, &counts));
      }
    counts.support_sequences = t.trainer.SupportSequences();
    if (!data.unlabeled->empty())
      for (double& margin : counts.unlabeled_margin) margin /= static_cast<double>(data.unlabeled->size());
    t.epochs.push_back(counts);
    if (after_epoch) after_epoch(counts);
    return Step::kContinue;
  };
  const IterativeKernel<SvmTraining> kernel{"multiview.hmsvm", &table, options.epochs,
                                         [](const SvmTraining& t) { return static_cast<int64_t>(t.epochs.size()); }, epoch};
  SEQFLOW_RETURN_IF_ERROR(Iterate(kernel, training, cancel, checkpoints).status());
  HmSvmResult result;
  result.epochs = std::move(training.epochs);
  result.weights = training.trainer.TakeWeights();
  return result;
}

}  // namespace seqflow
