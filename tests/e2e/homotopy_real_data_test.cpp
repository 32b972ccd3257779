// EM_λ on the Cora citations (Haffari & Sarkar 2008, Fig. 2) through the real pipeline:
// pipelines/citations_em_lambda.yaml, cold and warm starts, in the paper's setting (punctuation
// split, 2,989 CS references, vocabulary over L ∪ U). Thresholds from the measured run
// (2026-11-24): λ = 0 is the supervised model (acc .8998, F1 .5670); accuracy rises to .9057
// (cold) / .9049 (warm) at λ = 0.3 and collapses as λ → 1 (acc .3678, F1 .0277 cold): the
// paper's Fig. 2 shape, error first falling then rising. (Before, with whitespace tokens, the
// labeled-only vocabulary and the broad pool, no λ > 0 beat λ = 0: acc .8897 at λ = 0, .6252 at 1.)
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace homotopy_real_data_test {

// lambda -> column value of a path.csv.
std::map<double, double> Column(const std::string& csv_path, const std::string& name) {
  std::ifstream in(csv_path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string cell; std::getline(hs, cell, ',');) header.push_back(cell);
  size_t lambda_col = std::find(header.begin(), header.end(), "lambda") - header.begin();
  size_t col = std::find(header.begin(), header.end(), name) - header.begin();
  EXPECT_LT(col, header.size()) << name << " not in " << csv_path;
  std::map<double, double> out;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) cells.push_back(cell);
    if (col < cells.size()) out[std::stod(cells[lambda_col])] = std::stod(cells[col]);
  }
  return out;
}

TEST(RealData, CitationsEmLambdaSweepHasThePapersShape) {
  std::string dir = MakeTempDir("seqflow-em-lambda");
  CliResult r = RunSeqflow({"run", PipelinePath("citations_em_lambda.yaml"), "--ablation", "start", "--cache",
                            dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* run : {"run-1", "run-2"}) {
    auto accuracy = Column(dir + "/out/" + run + "/sweep.path.csv", "test.accuracy");
    ASSERT_EQ(accuracy.size(), 41u) << run;
    EXPECT_NEAR(accuracy[0.0], 0.8998, 1e-4) << run;
    double best_small = 0;
    for (const auto& [lambda, acc] : accuracy)
      if (lambda > 0 && lambda <= 0.35) best_small = std::max(best_small, acc);
    EXPECT_GE(best_small, 0.904) << run;  // some small λ > 0 beats the supervised start
    EXPECT_LE(accuracy[1.0], 0.40) << run;
    EXPECT_LT(accuracy[0.9], accuracy[0.5]) << run;
    auto objective = Column(dir + "/out/" + run + "/sweep.path.csv", "objective");
    for (const auto& [lambda, value] : objective) EXPECT_TRUE(std::isfinite(value)) << run << " lambda " << lambda;
  }
}

}  // namespace homotopy_real_data_test
}  // namespace seqflow::testutil

namespace seqflow::testutil {
namespace homotopy_real_data_test {

// Table 1 of Haffari & Sarkar 2008 on our data (pipelines/citations_homotopy.yaml, 300 labeled +
// 700 unlabeled, Viterbi and SMS), in the paper's setting, the path followed by the normal-flow
// tracker (2026-11-24). The curve's first fold is at λ = 0.02848 (det(I − λJ) changes sign there);
// first_singularity, monotone and min_eig all pick the point just before it; the tracker turns
// there and goes on (40 steps reach λ ≈ 0.039 past further folds); both entropies are largest at
// λ = 0. EM at λ = mle = 0.7 (Viterbi F1 .271 vs supervised .553); on the 0.01 grid by
// log-likelihood the oracle picks λ = 0.04 (F1 .550 / SMS .599), held-out λ = 0.12 (F1 .556, acc
// .865 / SMS .615). With the Euler tracker the path turns at the same fold and retraces its way
// back below λ = 0.
TEST(RealData, CitationsHomotopyTableOne) {
  std::string dir = MakeTempDir("seqflow-homotopy");
  CliResult r = RunSeqflow({"run", PipelinePath("citations_homotopy.yaml"), "--ablation", "decoder", "--cache",
                            dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");
  ASSERT_EQ(s["runs"].size(), 2u);
  for (size_t run = 0; run < 2; ++run) {
    EXPECT_NEAR(MetricOf(s, "homotopy_first_singularity", "lambda", run), 0.02848, 2e-4);
    EXPECT_LE(MetricOf(s, "homotopy_monotone", "lambda", run),
              MetricOf(s, "homotopy_first_singularity", "lambda", run));
    EXPECT_LE(MetricOf(s, "homotopy_min_eig", "lambda", run), MetricOf(s, "homotopy_monotone", "lambda", run));
    EXPECT_NEAR(MetricOf(s, "em", "lambda", run), 0.7, 1e-12);
    EXPECT_NEAR(MetricOf(s, "oracle", "lambda", run), 0.04, 1e-12);
    EXPECT_NEAR(MetricOf(s, "heldout", "lambda", run), 0.12, 1e-12);
    EXPECT_EQ(MetricOf(s, "homotopy_max_entropy", "lambda", run), 0.0);
    EXPECT_EQ(MetricOf(s, "homotopy_max_sequence_entropy", "lambda", run), 0.0);
    double supervised = MetricOf(s, "supervised_score", "f1", run);
    EXPECT_LT(MetricOf(s, "em_score", "f1", run), supervised - 0.2);
    EXPECT_GE(MetricOf(s, "oracle_score", "f1", run), supervised - 0.005);
    EXPECT_NEAR(MetricOf(s, "first_singularity_score", "f1", run), supervised, 0.005);
    EXPECT_GE(MetricOf(s, "heldout_score", "f1", run), 0.55);
    EXPECT_EQ(MetricOf(s, "path", "points", run), 41);  // max_steps 40: the path goes on past the fold
    EXPECT_GT(MetricOf(s, "path", "lambda.final", run), 0.035);
    EXPECT_EQ(MetricOf(s, "path", "reached_end", run), 0);
  }
  EXPECT_NEAR(MetricOf(s, "supervised_score", "f1", 0), 0.5531, 1e-4);  // Viterbi
  EXPECT_NEAR(MetricOf(s, "supervised_score", "f1", 1), 0.5962, 1e-4);  // SMS
  // The fold is recorded on the path: λ turns back where det(I − λJ) changes sign.
  std::ifstream csv(dir + "/out/run-1/path.path.csv");
  std::string line;
  std::getline(csv, line);
  int negative_det = 0, turning = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 6u);
    negative_det += cells[5] == "-1";         // det_sign
    turning += std::stod(cells[2]) < 0;       // dlambda_ds
  }
  EXPECT_GT(negative_det, 0);
  EXPECT_GT(turning, 0);
}

}  // namespace homotopy_real_data_test
}  // namespace seqflow::testutil

namespace seqflow::testutil {
namespace homotopy_real_data_test {

// A path.csv's columns in row order.
std::map<std::string, std::vector<double>> Columns(const std::string& csv_path) {
  std::ifstream in(csv_path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string cell; std::getline(hs, cell, ',');) header.push_back(cell);
  std::map<std::string, std::vector<double>> out;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    size_t i = 0;
    for (std::string cell; std::getline(ls, cell, ',') && i < header.size(); ++i)
      out[header[i]].push_back(cell.empty() ? NAN : std::stod(cell));
  }
  return out;
}

// The real citation path (700 unlabeled, P = 10,400, matrix-free, Newton steps to 1e-4), 40 steps
// by HOMPACK's normal flow and by the pseudo-arclength corrector with recycled GMRES (node
// parameters pseudo_arclength, gmres_recycle): the same first fold, every point on the curve, a
// similar arc length. Measured (2026-11-25): first turn after λ 0.02847 / 0.02848, max ‖ρ‖∞
// 3.7e-9 / 2.1e-9, arc length 0.169 / 0.154, user CPU 7.3 s / 6.1 s.
TEST(RealData, PseudoArclengthWithRecycledGmresFollowsTheNormalFlowsPath) {
  const std::string dir = MakeTempDir("seqflow-pseudo-arclength");
  const std::vector<std::string> common{"run", PipelinePath("citations_folds.yaml"), "--set", "n_unlabeled=700",
                                        "--set", "min_count=5", "--set", "path.solver=matrix_free", "--set",
                                        "path.max_steps=40", "--set", "path.step_gmres_tol=1e-4", "--cache",
                                        dir + "/cache", "-j", "1"};
  std::map<std::string, std::map<std::string, std::vector<double>>> paths;
  for (const std::string variant : {"normal_flow", "pseudo_arclength"}) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--out", dir + "/" + variant});
    if (variant == "pseudo_arclength")
      args.insert(args.end(), {"--set", "path.pseudo_arclength=true", "--set", "path.gmres_recycle=300"});
    CliResult r = RunSeqflow(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    paths[variant] = Columns(dir + "/" + variant + "/path.path.csv");
  }
  for (auto& [variant, path] : paths) {
    const std::vector<double>& lambda = path["lambda"];
    const std::vector<double>& slope = path["dlambda_ds"];
    ASSERT_EQ(lambda.size(), 41u) << variant;
    for (double residual : path["residual"]) EXPECT_LE(residual, 1e-8) << variant;
    size_t turn = 1;
    while (turn < slope.size() && slope[turn] > 0) ++turn;
    ASSERT_LT(turn, slope.size()) << variant;
    EXPECT_NEAR(lambda[turn - 1], 0.02847, 2e-4) << variant;
  }
  EXPECT_NEAR(paths["pseudo_arclength"]["s"].back(), paths["normal_flow"]["s"].back(),
              0.15 * paths["normal_flow"]["s"].back());
}

}  // namespace homotopy_real_data_test
}  // namespace seqflow::testutil
