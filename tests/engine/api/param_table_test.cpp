#include "engine/api/param_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "engine/api/registry.h"

namespace seqflow {
namespace param_table_test {

enum class Color { kRed, kGreen };

struct Inner {
  int depth = 3;
  double rate = 0.5;
};

struct Options {
  bool flag = true;
  int64_t count = 7;
  int small = 2;
  uint64_t seed = 1;
  std::string name = "x";
  std::string file;
  std::vector<std::string> tags{"a"};
  std::vector<double> grid;
  Color color = Color::kGreen;
  Inner inner;
  Inner other{9, 0.25};
};

ParamTable<Inner> InnerTable() {
  ParamTable<Inner> table;
  table.Int("depth", &Inner::depth, "levels").Min(1).Double("rate", &Inner::rate, "a rate").Greater(0).Max(1);
  return table;
}

ParamTable<Options> Table() {
  using O = Options;
  ParamTable<O> table;
  table.Bool("flag", &O::flag, "a flag")
      .Int("count", &O::count, "a count")
      .Min(0)
      .Int("small", &O::small, "an int member")
      .Int("seed", &O::seed, "an unsigned member")
      .String("name", &O::name, "free text")
      .Path("file", &O::file, "a file")
      .StringList("tags", &O::tags, "some tags")
      .OneOf({"a", "b", "c"})
      .DoubleList("grid", &O::grid, "numbers")
      .Required()
      .Enum("color", &O::color, {{"red", Color::kRed}, {"green", Color::kGreen}}, "a color")
      .Double("inner.rate", At(&O::inner, &Inner::rate), "nested by a member path");
  return table;
}

const ParamSpec& Spec(const ParamTable<Options>& table, const std::string& name) {
  for (const ParamSpec& s : table.Specs())
    if (s.name == name) return s;
  throw std::runtime_error("no parameter " + name);
}

// Every parameter at its default, plus the required ones.
std::map<std::string, ParamValue> Defaults(const ParamTable<Options>& table) {
  std::map<std::string, ParamValue> values;
  for (const ParamSpec& s : table.Specs())
    if (s.default_value) values[s.name] = *s.default_value;
  values["file"] = std::string("/data/in.txt");
  values["grid"] = std::vector<double>{0.1, 0.2};
  return values;
}

TEST(ParamTable, DefaultsAreTheStructsInitializers) {
  const ParamTable<Options> table = Table();
  ASSERT_EQ(table.Specs().size(), 10u);
  EXPECT_EQ(*Spec(table, "flag").default_value, ParamValue(true));
  EXPECT_EQ(*Spec(table, "count").default_value, ParamValue(int64_t{7}));
  EXPECT_EQ(*Spec(table, "small").default_value, ParamValue(int64_t{2}));
  EXPECT_EQ(*Spec(table, "name").default_value, ParamValue(std::string("x")));
  EXPECT_EQ(*Spec(table, "tags").default_value, ParamValue(std::vector<std::string>{"a"}));
  EXPECT_EQ(*Spec(table, "color").default_value, ParamValue(std::string("green")));
  EXPECT_EQ(*Spec(table, "inner.rate").default_value, ParamValue(0.5));
  EXPECT_EQ(Spec(table, "count").type, ParamType::kInt);
  EXPECT_EQ(Spec(table, "file").type, ParamType::kPath);
  EXPECT_EQ(Spec(table, "tags").type, ParamType::kStringList);
  EXPECT_EQ(Spec(table, "grid").type, ParamType::kDoubleList);
  EXPECT_EQ(Spec(table, "inner.rate").doc, "nested by a member path");
}

TEST(ParamTable, PathsAndRequiredParametersHaveNoDefault) {
  const ParamTable<Options> table = Table();
  EXPECT_FALSE(Spec(table, "file").default_value.has_value());
  EXPECT_FALSE(Spec(table, "grid").default_value.has_value());
}

TEST(ParamTable, ReadFillsEveryMemberNestedOnesToo) {
  const ParamTable<Options> table = Table();
  std::map<std::string, ParamValue> values = Defaults(table);
  values["flag"] = false;
  values["count"] = int64_t{11};
  values["name"] = std::string("y");
  values["tags"] = std::vector<std::string>{"b", "c"};
  values["color"] = std::string("red");
  values["inner.rate"] = 0.75;
  const Options o = table.Read(Params(values));
  EXPECT_FALSE(o.flag);
  EXPECT_EQ(o.count, 11);
  EXPECT_EQ(o.name, "y");
  EXPECT_EQ(o.file, "/data/in.txt");
  EXPECT_EQ(o.tags, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(o.grid, (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(o.color, Color::kRed);
  EXPECT_EQ(o.inner.rate, 0.75);
  EXPECT_EQ(o.inner.depth, 3);  // not declared: keeps its initializer
}

TEST(ParamTable, ReadBackGivesTheMembersAsParamValues) {
  const ParamTable<Options> table = Table();
  const std::map<std::string, ParamValue> values = Defaults(table);
  EXPECT_EQ(table.ReadBack(Params(values)), values);
}

TEST(ParamTable, EnumChoicesAreTheNamesInOrder) {
  const ParamTable<Options> table = Table();
  EXPECT_EQ(Spec(table, "color").choices, (std::vector<std::string>{"red", "green"}));
  EXPECT_EQ(Spec(table, "tags").choices, (std::vector<std::string>{"a", "b", "c"}));
  RawParam raw;
  raw.scalar = "blue";
  EXPECT_FALSE(ParseParam(Spec(table, "color"), raw).ok());
}

const char* ColorName(Color c) { return c == Color::kRed ? "red" : "green"; }

TEST(ParamTable, EnumNamedByTheTypesNameFunctionReadsAndPrintsThoseNames) {
  ParamTable<Options> table;
  table.Enum("color", &Options::color, {Color::kGreen, Color::kRed}, ColorName, "a color");
  EXPECT_EQ(Spec(table, "color").choices, (std::vector<std::string>{"green", "red"}));
  EXPECT_EQ(FormatParamValue(*Spec(table, "color").default_value), "green");
  EXPECT_EQ(table.Read(Params({{"color", ParamValue(std::string("red"))}})).color, Color::kRed);
}

TEST(ParamTable, BoundsCheckAtParsing) {
  const ParamTable<Options> table = Table();
  RawParam raw;
  raw.scalar = "-1";
  Result<ParamValue> parsed = ParseParam(Spec(table, "count"), raw);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("must be >= 0"), std::string::npos);
  raw.scalar = "0";
  EXPECT_TRUE(ParseParam(Spec(table, "count"), raw).ok());
}

// A bound on a list of numbers holds for each of them (hmm.em_sweep's lambdas, in [0, 1]).
TEST(ParamTable, BoundsOfAListHoldForEveryValue) {
  ParamTable<Options> table;
  table.DoubleList("grid", &Options::grid, "numbers").Min(0).Max(1);
  RawParam raw;
  raw.is_list = true;
  raw.items = {"0", "0.5", "1"};
  EXPECT_TRUE(ParseParam(Spec(table, "grid"), raw).ok());
  for (const std::string bad : {"-1", "2"}) {
    raw.items = {"0", bad, "1"};
    Result<ParamValue> parsed = ParseParam(Spec(table, "grid"), raw);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.status().message().find("must have every value"), std::string::npos)
        << parsed.status().message();
  }
}

TEST(ParamTable, MissingOrMistypedValueIsAnInternalError) {
  const ParamTable<Options> table = Table();
  std::map<std::string, ParamValue> values = Defaults(table);
  values.erase("grid");
  EXPECT_THROW(table.Read(Params(values)), StatusError);
  values = Defaults(table);
  values["count"] = 1.5;
  EXPECT_THROW(table.Read(Params(values)), StatusError);
}

TEST(ParamTable, NarrowSignedMembersSaturateUnsignedTakeTheBits) {
  const ParamTable<Options> table = Table();
  std::map<std::string, ParamValue> values = Defaults(table);
  values["small"] = std::numeric_limits<int64_t>::max();
  values["seed"] = int64_t{-1};
  const Options o = table.Read(Params(values));
  EXPECT_EQ(o.small, std::numeric_limits<int>::max());
  EXPECT_EQ(o.seed, std::numeric_limits<uint64_t>::max());
}

TEST(ParamTable, IncludeTakesTheDefaultsOfTheOuterStruct) {
  ParamTable<Options> table;
  table.Include(&Options::other, InnerTable());
  ASSERT_EQ(table.Specs().size(), 2u);
  EXPECT_EQ(*table.Specs()[0].default_value, ParamValue(int64_t{9}));  // Options{}.other, not Inner{}
  EXPECT_EQ(*table.Specs()[1].default_value, ParamValue(0.25));
  RawParam raw;
  raw.scalar = "0";
  EXPECT_FALSE(ParseParam(table.Specs()[0], raw).ok());  // the sub-table's bounds come along
  const Options o = table.Read(Params({{"depth", int64_t{4}}, {"rate", 0.125}}));
  EXPECT_EQ(o.other.depth, 4);
  EXPECT_EQ(o.other.rate, 0.125);
  EXPECT_EQ(o.inner.depth, 3);
}

TEST(ParamTable, KindSpecTakesItsParamsAndBindingFromTheTable) {
  const KindSpec kind{
      "t.kind", "1", "", "A", {}, Table(), [](NodeContext&, const Options&) -> ArtifactPtr { return nullptr; }};
  ASSERT_NE(kind.binding, nullptr);
  ASSERT_EQ(kind.params.size(), kind.binding->Specs().size());
  for (size_t i = 0; i < kind.params.size(); ++i) EXPECT_EQ(kind.params[i].name, kind.binding->Specs()[i].name);
  ASSERT_NE(kind.FindParam("inner.rate"), nullptr);
  EXPECT_TRUE(kind.run != nullptr);
}

}  // namespace param_table_test
}  // namespace seqflow
