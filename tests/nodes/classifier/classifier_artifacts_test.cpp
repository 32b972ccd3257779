// The classifier family's artifacts round-trip bit-exactly and reject damaged bytes; the
// class-sequence reader names the file and line of a bad line.
#include "nodes/hmm/classifier_model.h"
#include "nodes/homotopy/classifier_path.h"
#include "nodes/io/class_sequences.h"

#include <gtest/gtest.h>

#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace classifier_artifacts_test {

TEST(ClassSequences, ParsesAndRoundTrips) {
  auto data = ValueOrThrow(ParseClassSequences("1\t0 3 2\n\n0\t4\r\n", "x.tsv"));
  ASSERT_EQ(data->sequences.size(), 2u);
  EXPECT_EQ(data->num_classes, 2);
  EXPECT_EQ(data->num_symbols, 5);
  EXPECT_EQ(data->labels, (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(data->sequences[0], (std::vector<int32_t>{0, 3, 2}));
  ByteWriter w;
  data->Save(w);
  ByteReader r(w.bytes());
  auto back = ClassSequences::Load(r);
  r.ExpectEnd();
  EXPECT_EQ(back->sequences, data->sequences);
  EXPECT_EQ(back->labels, data->labels);
  EXPECT_EQ(back->num_symbols, 5);
}

TEST(ClassSequences, BadLinesNameFileAndLine) {
  for (const char* text : {"0\t1 2\n1 2 3\n", "0\t1 2\nx\t1\n", "0\t1 2\n0\t1 -2\n", "0\t1 2\n1\t\n"}) {
    const auto r = ParseClassSequences(text, "d.tsv");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().loc().file, "d.tsv");
    EXPECT_EQ(r.status().loc().line, 2) << text;
  }
  EXPECT_FALSE(ParseClassSequences("\n\n", "empty.tsv").ok());
}

TEST(ClassifierArtifacts, ModelAndPathRoundTripBitExactly) {
  ClassifierModel m;
  m.lambda = 0.37;
  m.model.prior = Eigen::Vector2d(0.3, 0.7);
  for (int y = 0; y < 2; ++y) m.model.classes.push_back(testutil::RandomHmm(2, 4, 10 + y, 0.1));
  ByteWriter w;
  m.Save(w);
  ByteReader r(w.bytes());
  auto back = ClassifierModel::Load(r);
  r.ExpectEnd();
  EXPECT_EQ(back->lambda, 0.37);
  EXPECT_EQ(back->model.prior, m.model.prior);
  for (int y = 0; y < 2; ++y) {
    EXPECT_EQ(back->model.classes[y].transition, m.model.classes[y].transition);
    EXPECT_EQ(back->model.classes[y].emission, m.model.classes[y].emission);
  }

  ClassifierPathArtifact p;
  p.num_classes = 2, p.num_states = 2, p.num_symbols = 4, p.num_labeled = 4, p.num_unlabeled = 30;
  p.path.returns = 1;
  p.path.final_segment_start = 1;
  p.path.evaluations = 17;
  for (double lambda : {0.0, 0.02, 1.0}) {
    ClassifierPathPoint q;
    q.lambda = lambda;
    q.s = 2 * lambda;
    q.entropy = 0.1 + lambda;
    q.accuracy = lambda == 0.02 ? -1 : 0.8;
    q.theta_tilde = Eigen::VectorXd::LinSpaced(p.Layout().num_params(), 0.1, 1.0 + lambda);
    p.path.points.push_back(q);
  }
  p.mle_point = p.path.points[2];
  ByteWriter pw;
  p.Save(pw);
  ByteReader pr(pw.bytes());
  auto pback = ClassifierPathArtifact::Load(pr);
  pr.ExpectEnd();
  EXPECT_EQ(pback->Csv(), p.Csv());
  EXPECT_EQ(pback->path.points[1].theta_tilde, p.path.points[1].theta_tilde);
  EXPECT_EQ(pback->path.final_segment_start, 1u);
  // The CSV marks P_F and leaves a missing accuracy empty.
  EXPECT_NE(p.Csv().find(",,1\n"), std::string::npos);
  // Truncated bytes are Corruption, never a wrong path.
  const std::string bytes(pw.bytes());
  ByteReader cut(std::string_view(bytes).substr(0, bytes.size() / 2));
  EXPECT_THROW(ClassifierPathArtifact::Load(cut), StatusError);
}

}  // namespace classifier_artifacts_test
}  // namespace seqflow
