// Every registered kind's parameters against the options struct they fill: the default `seqflow
// kinds` prints is the value the kernel receives when YAML leaves the parameter out, and each
// parameter reaches its own member and no other.
#include "nodes/registry.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace seqflow {
namespace kind_params_test {

const Registry& AllKinds() {
  static const Registry registry = [] {
    Registry r;
    RegisterAllNodes(r);
    return r;
  }();
  return registry;
}

std::string Text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Texts a user might write for `spec`, most natural first; lists as several items.
std::vector<std::vector<std::string>> Candidates(const ParamSpec& spec) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& c : spec.choices) out.push_back({c});
  switch (spec.type) {
    case ParamType::kBool:
      return {{"false"}, {"true"}};
    case ParamType::kInt: {
      const int64_t d = spec.default_value ? std::get<int64_t>(*spec.default_value) : 1;
      return {{std::to_string(d + 1)}, {std::to_string(d + 2)}, {std::to_string(d - 1)}};
    }
    case ParamType::kDouble: {
      const double d = spec.default_value ? std::get<double>(*spec.default_value) : 0.5;
      return {{Text(d * 2)}, {Text(d / 2)}, {Text(d + 0.5)}, {"0.5"}, {"0.25"}};
    }
    case ParamType::kString:
    case ParamType::kPath:
      for (const char* s : {"0.5", "none", "x"}) out.push_back({s});
      return out;
    case ParamType::kStringList:
      out.push_back({"x", "y"});
      return out;
    case ParamType::kDoubleList:
      return {{"0.5", "0.25"}, {"0.75"}};
  }
  return out;
}

// A valid value for `spec` other than `avoid` (any valid value when null).
ParamValue OtherValue(const ParamSpec& spec, const ParamValue* avoid) {
  const bool list = spec.type == ParamType::kStringList || spec.type == ParamType::kDoubleList;
  for (const auto& items : Candidates(spec)) {
    RawParam raw;
    raw.is_list = list;
    raw.items = items;
    raw.scalar = items[0];
    Result<ParamValue> value = ParseParam(spec, raw);
    if (value.ok() && (!avoid || *value != *avoid)) return *value;
  }
  ADD_FAILURE() << "no valid non-default value found for parameter '" << spec.name << "'";
  return ParamValue(false);
}

// What a node receives when YAML sets nothing: every default, and a value for each required one.
std::map<std::string, ParamValue> DefaultParams(const KindSpec& kind) {
  std::map<std::string, ParamValue> values;
  for (const ParamSpec& spec : kind.params)
    values[spec.name] = spec.default_value ? *spec.default_value : OtherValue(spec, nullptr);
  return values;
}

std::string Show(const std::map<std::string, ParamValue>& values) {
  std::string out;
  for (const auto& [name, value] : values) out += "  " + name + " = " + FormatParamValue(value) + "\n";
  return out;
}

TEST(KindParams, EveryKindWithParametersDeclaresThemInATable) {
  for (const KindSpec* kind : AllKinds().Kinds()) {
    SCOPED_TRACE(kind->name);
    if (kind->params.empty()) continue;
    ASSERT_NE(kind->binding, nullptr) << "parameters given as a plain ParamSpec list";
    const std::vector<ParamSpec>& table = kind->binding->Specs();
    ASSERT_EQ(table.size(), kind->params.size());
    for (size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(table[i].name, kind->params[i].name);
      EXPECT_EQ(table[i].default_value, kind->params[i].default_value);
    }
  }
}

// A selector's chosen λ is what `seqflow report --plots` marks on the path it reads.
TEST(KindParams, EverySelectorNamesTheMetricOfItsChosenLambda) {
  int selectors = 0;
  for (const KindSpec* kind : AllKinds().Kinds()) {
    if (kind->record.role != NodeRole::kSelector) continue;
    ++selectors;
    EXPECT_FALSE(kind->record.chosen_lambda.empty()) << kind->name;
  }
  EXPECT_GE(selectors, 2);  // homotopy.select, classifier.select
}

// (a) The printed default is the member's value after reading the default Params.
TEST(KindParams, DefaultsReachTheOptionsStructUnchanged) {
  int kinds = 0;
  for (const KindSpec* kind : AllKinds().Kinds()) {
    if (!kind->binding) continue;
    SCOPED_TRACE(kind->name);
    ++kinds;
    const std::map<std::string, ParamValue> defaults = DefaultParams(*kind);
    EXPECT_EQ(kind->binding->ReadBack(Params(defaults)), defaults) << "declared:\n"
                                                                   << Show(defaults) << "received:\n"
                                                                   << Show(kind->binding->ReadBack(Params(defaults)));
  }
  EXPECT_GE(kinds, 15);  // the catalogue's kinds with parameters
}

// (b) One parameter changed: exactly its member changes (a wrong or shared member pointer shows).
TEST(KindParams, EachParameterReachesExactlyItsMember) {
  for (const KindSpec* kind : AllKinds().Kinds()) {
    if (!kind->binding) continue;
    const std::map<std::string, ParamValue> defaults = DefaultParams(*kind);
    for (const ParamSpec& spec : kind->params) {
      SCOPED_TRACE(kind->name + " " + spec.name);
      std::map<std::string, ParamValue> expected = defaults;
      expected[spec.name] = OtherValue(spec, &defaults.at(spec.name));
      ASSERT_NE(expected[spec.name], defaults.at(spec.name));
      const std::map<std::string, ParamValue> received = kind->binding->ReadBack(Params(expected));
      EXPECT_EQ(received, expected) << "set:\n" << Show(expected) << "received:\n" << Show(received);
    }
  }
}

}  // namespace kind_params_test
}  // namespace seqflow
