// Declarative node parameters: each parameter is declared once (name, type, default, check, doc)
// and that one declaration drives YAML parsing, located validation errors, `seqflow kinds` and
// the canonical form hashed into cache keys (crfsuite's params.h, LightGBM's config.h).
// Kinds declare their ParamSpecs through a ParamTable (param_table.h), which binds each to the
// member of the options struct it fills and takes the default from that struct.
//
// Nested YAML maps are flattened to dotted names: `smoothing: {transition: 0.2}` sets the
// parameter "smoothing.transition"; ablations and --set address it the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

enum class ParamType {
  kBool,
  kInt,
  kDouble,
  kString,      // free text, or one of `choices` when given
  kStringList,  // YAML sequence of scalars (a lone scalar is a one-element list)
  kDoubleList,
  kPath,        // a file: resolved against the pipeline's folder, checked readable before the
                // run, and its bytes (not its name) enter the cache key
};

using ParamValue = std::variant<bool, int64_t, double, std::string, std::vector<std::string>, std::vector<double>>;

const char* ParamTypeName(ParamType type);
// Canonical text of a value: doubles as %.17g, lists as [a,b], strings verbatim.
std::string FormatParamValue(const ParamValue& value);
// That text as a reader writes it: a number in its shortest exact form (0.1, not
// 0.10000000000000001); anything else unchanged. For display only; keys use the canonical text.
std::string ReadableParamText(const std::string& canonical);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  std::optional<ParamValue> default_value;  // nullopt: the parameter is required
  std::vector<std::string> choices;         // kString/kStringList: allowed values (empty: any)
  // Returns "" when the value is acceptable, else what is wrong ("must be > 0").
  std::function<std::string(const ParamValue&)> check;
  std::string doc;
  // What `seqflow kinds` calls the type when ParamTypeName would mislead: a string parameter that
  // takes a number or a word ("number or mle"). "" for ParamTypeName's.
  std::string shown_type;

  // The type as `seqflow kinds` shows it.
  std::string TypeText() const;

  // Builder helpers so kinds read like a table.
  static ParamSpec Bool(std::string name, bool def, std::string doc);
  static ParamSpec Int(std::string name, std::optional<int64_t> def, std::string doc);
  static ParamSpec Double(std::string name, std::optional<double> def, std::string doc);
  static ParamSpec String(std::string name, std::optional<std::string> def, std::string doc);
  static ParamSpec Enum(std::string name, std::vector<std::string> choices, std::optional<std::string> def,
                        std::string doc);
  static ParamSpec StringList(std::string name, std::vector<std::string> def, std::string doc,
                              std::vector<std::string> choices = {});
  static ParamSpec DoubleList(std::string name, std::optional<std::vector<double>> def, std::string doc);
  static ParamSpec Path(std::string name, std::string doc);
  // A file that may be left out: the default "" means none (it is neither resolved nor hashed).
  static ParamSpec OptionalPath(std::string name, std::string doc);
  // Chainable checks.
  ParamSpec&& Min(double lo) &&;            // value >= lo (Int/Double; every value of a DoubleList)
  ParamSpec&& Greater(double lo) &&;        // value > lo
  ParamSpec&& Max(double hi) &&;            // value <= hi
  ParamSpec&& Check(std::function<std::string(const ParamValue&)> f) &&;
};

// Text as written in YAML, --set or an ablation, after ${var} expansion.
struct RawParam {
  bool is_list = false;
  std::string scalar;               // when !is_list
  std::vector<std::string> items;   // when is_list
  SourceLoc loc;
};

// Parses and checks `raw` against `spec`. Errors carry raw.loc and say what was expected,
// e.g. "parameter 'step' expects a number, got 'fast'". kPath values are returned as written;
// resolving them against the pipeline folder is the caller's job.
Result<ParamValue> ParseParam(const ParamSpec& spec, const RawParam& raw);

// The validated parameters of one node: every declared parameter has a value (given or default).
// Thread safety: immutable after construction.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, ParamValue> values) : values_(std::move(values)) {}

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  // REQUIRES: the parameter is declared with the matching type (else throws StatusError).
  bool GetBool(const std::string& name) const;
  int64_t GetInt(const std::string& name) const;
  double GetDouble(const std::string& name) const;
  const std::string& GetString(const std::string& name) const;  // also kPath (absolute path)
  const std::vector<std::string>& GetStrings(const std::string& name) const;
  const std::vector<double>& GetDoubles(const std::string& name) const;

  const std::map<std::string, ParamValue>& values() const { return values_; }
  // "name=value\n" lines in name order; the parameters' part of a cache key.
  std::string Canonical() const;

 private:
  const ParamValue& Get(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

}  // namespace seqflow
