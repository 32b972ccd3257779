// Registry: which artifact types a port accepts, interfaces included, and how it says so.
#include "engine/api/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace seqflow {
namespace registry_test {

template <char... Name>
struct Fake final : Artifact {
  static constexpr char kName[] = {Name..., '\0'};
  static constexpr std::string_view kType = kName;
  static constexpr uint32_t kVersion = 1;
  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter&) const override {}
  static std::shared_ptr<const Fake> Load(ByteReader&) { return std::make_shared<Fake>(); }
};

PortSpec Port(std::string type) { return PortSpec{"model", std::move(type), false, false, ""}; }

TEST(Registry, PortTakesItsTypesAndTheImplementersOfItsInterfaces) {
  Registry r;
  r.AddArtifactType<Fake<'H', 'm', 'm'>>({"Chain"});
  r.AddArtifactType<Fake<'C', 'r', 'f'>>({"Chain", "Scored"});
  r.AddArtifactType<Fake<'T', 'x', 't'>>();
  EXPECT_TRUE(r.Accepts(Port("Chain"), "Hmm"));
  EXPECT_TRUE(r.Accepts(Port("Chain"), "Crf"));
  EXPECT_FALSE(r.Accepts(Port("Chain"), "Txt"));
  EXPECT_FALSE(r.Accepts(Port("Scored"), "Hmm"));
  EXPECT_TRUE(r.Accepts(Port("Txt|Scored"), "Txt"));
  EXPECT_TRUE(r.Accepts(Port("Txt|Scored"), "Crf"));
  EXPECT_FALSE(r.Accepts(Port("Txt|Scored"), "Chain"));  // an interface is no artifact type
  EXPECT_FALSE(r.Accepts(Port("Hm"), "Hmm"));
}

// A kind that returns one of two types reaches a port only if the port takes both.
TEST(Registry, AKindsOutputAlternativesMustAllBeAccepted) {
  Registry r;
  r.AddArtifactType<Fake<'H', 'm', 'm'>>({"Chain"});
  r.AddArtifactType<Fake<'C', 'r', 'f'>>({"Chain"});
  r.AddArtifactType<Fake<'T', 'x', 't'>>();
  EXPECT_TRUE(r.Accepts(Port("Chain"), "Hmm|Crf"));
  EXPECT_FALSE(r.Accepts(Port("Chain"), "Hmm|Txt"));
  EXPECT_TRUE(r.Accepts(Port("Txt|Chain"), "Hmm|Txt"));
  KindSpec kind;
  kind.output_type = "Hmm|Crf";
  EXPECT_TRUE(kind.Outputs("Hmm"));
  EXPECT_TRUE(kind.Outputs("Crf"));
  EXPECT_FALSE(kind.Outputs("Txt"));
  EXPECT_FALSE(kind.Outputs("Hmm|Crf"));
}

TEST(Registry, PortTypeTextNamesTheImplementers) {
  Registry r;
  r.AddArtifactType<Fake<'H', 'm', 'm'>>({"Chain"});
  r.AddArtifactType<Fake<'C', 'r', 'f'>>({"Chain"});
  r.AddArtifactType<Fake<'H', 'y', 'b'>>({"Chain"});
  EXPECT_EQ(r.PortTypeText(Port("Txt")), "Txt");
  EXPECT_EQ(r.PortTypeText(Port("Txt|Vocab")), "Txt or Vocab");
  EXPECT_EQ(r.PortTypeText(Port("Chain")), "Chain (Crf, Hmm or Hyb)");
  EXPECT_EQ(r.PortTypeText(Port("A|B|Chain")), "A, B or Chain (Crf, Hmm or Hyb)");
}

// The unbounded edit distance, for the did-you-mean oracle below.
size_t PlainEditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
  return d[a.size()][b.size()];
}

// NearestName stops early on candidates that cannot beat the best so far; its answer is still the
// first candidate of least distance within max(2, |word|/3).
TEST(NearestName, IsTheFirstClosestCandidateWithinTheLimit) {
  std::mt19937 rng(17);
  auto word = [&](size_t max_len) {
    std::string w(std::uniform_int_distribution<size_t>(0, max_len)(rng), 'a');
    for (char& c : w) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 3)(rng));
    return w;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::string> candidates;
    for (int k = 0; k < 8; ++k) candidates.push_back(word(12));
    const std::string w = word(trial % 10 == 0 ? 40 : 12);
    std::string expected;
    size_t best = std::max<size_t>(2, w.size() / 3) + 1;
    for (const std::string& c : candidates)
      if (size_t d = PlainEditDistance(w, c); d < best) best = d, expected = c;
    EXPECT_EQ(NearestName(w, candidates), expected) << w;
  }
  EXPECT_EQ(NearestName("hmm.emm", {"crf.train", "hmm.em", "hmm.e"}), "hmm.em");
  EXPECT_EQ(NearestName(std::string(65536, 'x'), {"crf.train", "hmm.em"}), "");
}

}  // namespace registry_test
}  // namespace seqflow
