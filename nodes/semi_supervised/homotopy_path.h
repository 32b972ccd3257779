// HomotopyPath: an ordered sequence of HMMs indexed by the labeled/unlabeled allocation λ, with
// the figures the λ-selection criteria read (Haffari & Sarkar 2008, §5.2).
//
// Two nodes make one: homotopy.em_lambda_path (points on the curve of EM_λ fixed points,
// Algorithm 1, s = arc length) and hmm.em_sweep (EM_λ run to convergence on a λ grid, s = λ).
// Every point stores Θ̃, the free parameters, so any point's model can be rebuilt exactly from
// the reference model (vocab, state names, frozen blocks) by PomLayout::ToHmm.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/record_spec.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

struct HomotopyPoint {
  double s = 0;  // arc length (path) or λ (sweep)
  double lambda = 0;
  double dlambda_ds = 0;                  // 0 for a sweep
  double mu_max = 0;                      // largest eigenvalue of ∇EM_1 (0 when not computed)
  double min_eig = -1;                    // λ μ_max − 1: the eigenvalue of λ∇EM_1 − I closest to 0
  int det_sign = 1;                       // sign of det(I − λ∇EM_1)
  double entropy = 0;                     // mean per-token posterior label entropy on the unlabeled data (nats)
  Eigen::VectorXd theta_tilde;            // [P] free parameters
  std::map<std::string, double> metrics;  // extra columns: "test.f1", "objective", ...
};

class HomotopyPath final : public Artifact {
 public:
  static constexpr std::string_view kType = "HomotopyPath";
  static constexpr uint32_t kVersion = 1;

  std::string method;                         // "em_lambda_path" or "em_sweep"
  std::shared_ptr<const HmmModel> reference;  // vocab, state names, frozen blocks
  FreeBlocks free;
  int64_t num_labeled = 0;
  int64_t num_unlabeled = 0;
  std::string stop;  // why the trace ended ("reached the end", "max steps", ...)
  std::vector<HomotopyPoint> points;

  PomLayout Layout() const;
  // The model at point i. REQUIRES: i < points.size().
  std::shared_ptr<const HmmModel> ModelAt(size_t i) const;
  // One row per point: s, lambda, dlambda_ds, mu_max, min_eig, det_sign, entropy, then every
  // metric column (union over points, empty where absent).
  std::string Csv() const;
  // Csv() as the nodes attach it ("path.csv"), declared for `seqflow report`: every test F1,
  // then accuracy column (or the entropy when there is none) against λ, the best point marked.
  static const AttachmentSpec& CsvTable();

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const HomotopyPath> Load(ByteReader& r);
  std::string Describe() const override;
};

}  // namespace seqflow
