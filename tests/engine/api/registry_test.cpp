// Registry: which artifact types a port accepts, interfaces included, and how it says so.
#include "engine/api/registry.h"

#include <gtest/gtest.h>

#include <memory>

namespace seqflow {
namespace {

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

}  // namespace
}  // namespace seqflow
