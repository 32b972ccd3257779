#include "engine/api/params.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace seqflow {

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kBool: return "bool";
    case ParamType::kInt: return "int";
    case ParamType::kDouble: return "number";
    case ParamType::kString: return "string";
    case ParamType::kStringList: return "list of strings";
    case ParamType::kDoubleList: return "list of numbers";
    case ParamType::kPath: return "path";
  }
  return "?";
}

static std::string FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string ReadableParamText(const std::string& canonical) {
  if (canonical.empty() || canonical.find_first_not_of("0123456789.eE+-") != std::string::npos) return canonical;
  char* end = nullptr;
  const double d = std::strtod(canonical.c_str(), &end);
  if (end != canonical.c_str() + canonical.size()) return canonical;
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, d).ptr);  // shortest exact form
}

std::string FormatParamValue(const ParamValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return FormatDouble(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
      return out + "]";
    }
    std::string operator()(const std::vector<double>& v) const {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + FormatDouble(v[i]);
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

ParamSpec ParamSpec::Bool(std::string name, bool def, std::string doc) {
  return {std::move(name), ParamType::kBool, ParamValue(def), {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::Int(std::string name, std::optional<int64_t> def, std::string doc) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue(*def);
  return {std::move(name), ParamType::kInt, d, {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::Double(std::string name, std::optional<double> def, std::string doc) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue(*def);
  return {std::move(name), ParamType::kDouble, d, {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::String(std::string name, std::optional<std::string> def, std::string doc) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue(*def);
  return {std::move(name), ParamType::kString, d, {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::Enum(std::string name, std::vector<std::string> choices, std::optional<std::string> def,
                          std::string doc) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue(*def);
  return {std::move(name), ParamType::kString, d, std::move(choices), nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::StringList(std::string name, std::vector<std::string> def, std::string doc,
                                std::vector<std::string> choices) {
  return {std::move(name), ParamType::kStringList, ParamValue(std::move(def)), std::move(choices), nullptr,
          std::move(doc), ""};
}
ParamSpec ParamSpec::DoubleList(std::string name, std::optional<std::vector<double>> def, std::string doc) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue(*def);
  return {std::move(name), ParamType::kDoubleList, d, {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::Path(std::string name, std::string doc) {
  return {std::move(name), ParamType::kPath, std::nullopt, {}, nullptr, std::move(doc), ""};
}
ParamSpec ParamSpec::OptionalPath(std::string name, std::string doc) {
  return {std::move(name), ParamType::kPath, ParamValue(std::string()), {}, nullptr, std::move(doc), ""};
}

// "" when every number of `v` (the one of an Int or Double, each of a DoubleList) passes `ok`,
// else "must be " + `bound` (a list: "must have every value ...").
static std::string CheckNumbers(const ParamValue& v, const std::function<bool(double)>& ok, const std::string& bound) {
  if (const auto* list = std::get_if<std::vector<double>>(&v)) {
    for (double x : *list)
      if (!ok(x)) return "must have every value " + bound;
    return "";
  }
  double x = std::nan("");
  if (const auto* i = std::get_if<int64_t>(&v)) x = static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) x = *d;
  return ok(x) ? std::string() : "must be " + bound;
}

ParamSpec&& ParamSpec::Min(double lo) && {
  return std::move(*this).Check([lo](const ParamValue& v) {
    return CheckNumbers(v, [lo](double x) { return x >= lo; }, ">= " + FormatDouble(lo));
  });
}
ParamSpec&& ParamSpec::Greater(double lo) && {
  return std::move(*this).Check([lo](const ParamValue& v) {
    return CheckNumbers(v, [lo](double x) { return x > lo; }, "> " + FormatDouble(lo));
  });
}
ParamSpec&& ParamSpec::Max(double hi) && {
  return std::move(*this).Check([hi](const ParamValue& v) {
    return CheckNumbers(v, [hi](double x) { return x <= hi; }, "<= " + FormatDouble(hi));
  });
}
std::string ParamSpec::TypeText() const { return shown_type.empty() ? ParamTypeName(type) : shown_type; }

ParamSpec&& ParamSpec::Check(std::function<std::string(const ParamValue&)> f) && {
  if (!check) {
    check = std::move(f);
  } else {
    check = [first = std::move(check), second = std::move(f)](const ParamValue& v) {
      std::string problem = first(v);
      return problem.empty() ? second(v) : problem;
    };
  }
  return std::move(*this);
}

namespace {

bool ParseDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

std::string ChoicesText(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) out += (i ? ", " : "") + choices[i];
  return out;
}

Status Expected(const ParamSpec& spec, const RawParam& raw, const std::string& got) {
  return Status::Invalid("parameter '" + spec.name + "' expects " + ParamTypeName(spec.type) + ", got " + got,
                         raw.loc);
}

Result<ParamValue> ParseUnchecked(const ParamSpec& spec, const RawParam& raw) {
  const bool list_type = spec.type == ParamType::kStringList || spec.type == ParamType::kDoubleList;
  if (raw.is_list && !list_type) return Expected(spec, raw, "a list");
  std::vector<std::string> items = raw.is_list ? raw.items : std::vector<std::string>{raw.scalar};
  switch (spec.type) {
    case ParamType::kBool:
      if (raw.scalar == "true" || raw.scalar == "yes" || raw.scalar == "on") return ParamValue(true);
      if (raw.scalar == "false" || raw.scalar == "no" || raw.scalar == "off") return ParamValue(false);
      return Expected(spec, raw, "'" + raw.scalar + "' (write true or false)");
    case ParamType::kInt: {
      int64_t v;
      if (!ParseInt(raw.scalar, &v)) return Expected(spec, raw, "'" + raw.scalar + "' (write a whole number)");
      return ParamValue(v);
    }
    case ParamType::kDouble: {
      double v;
      if (!ParseDouble(raw.scalar, &v)) return Expected(spec, raw, "'" + raw.scalar + "'");
      return ParamValue(v);
    }
    case ParamType::kString:
    case ParamType::kPath:
      if (raw.scalar.empty()) return Expected(spec, raw, "an empty value");
      return ParamValue(raw.scalar);
    case ParamType::kStringList:
      return ParamValue(items);
    case ParamType::kDoubleList: {
      std::vector<double> values;
      for (const auto& item : items) {
        double v;
        if (!ParseDouble(item, &v)) return Expected(spec, raw, "'" + item + "' in the list");
        values.push_back(v);
      }
      return ParamValue(values);
    }
  }
  return Status::Internal("unhandled parameter type");
}

}  // namespace

Result<ParamValue> ParseParam(const ParamSpec& spec, const RawParam& raw) {
  Result<ParamValue> parsed = ParseUnchecked(spec, raw);
  if (!parsed.ok()) return parsed;
  if (!spec.choices.empty()) {
    std::vector<std::string> given;
    if (const auto* s = std::get_if<std::string>(&*parsed)) given = {*s};
    if (const auto* l = std::get_if<std::vector<std::string>>(&*parsed)) given = *l;
    for (const auto& g : given) {
      bool found = false;
      for (const auto& c : spec.choices) found = found || c == g;
      if (!found)
        return Status::Invalid("parameter '" + spec.name + "' does not accept '" + g + "'; choose one of: " +
                                   ChoicesText(spec.choices),
                               raw.loc);
    }
  }
  if (spec.check) {
    std::string problem = spec.check(*parsed);
    if (!problem.empty())
      return Status::Invalid("parameter '" + spec.name + "' " + problem + ", got " + FormatParamValue(*parsed),
                             raw.loc);
  }
  return parsed;
}

const ParamValue& Params::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw StatusError(Status::Internal("parameter '" + name + "' is not declared"));
  return it->second;
}

template <class T>
static const T& As(const ParamValue& v, const std::string& name) {
  const T* p = std::get_if<T>(&v);
  if (p == nullptr) throw StatusError(Status::Internal("parameter '" + name + "' read with the wrong type"));
  return *p;
}

bool Params::GetBool(const std::string& name) const { return As<bool>(Get(name), name); }
int64_t Params::GetInt(const std::string& name) const { return As<int64_t>(Get(name), name); }
double Params::GetDouble(const std::string& name) const { return As<double>(Get(name), name); }
const std::string& Params::GetString(const std::string& name) const { return As<std::string>(Get(name), name); }
const std::vector<std::string>& Params::GetStrings(const std::string& name) const {
  return As<std::vector<std::string>>(Get(name), name);
}
const std::vector<double>& Params::GetDoubles(const std::string& name) const {
  return As<std::vector<double>>(Get(name), name);
}

std::string Params::Canonical() const {
  std::string out;
  for (const auto& [name, value] : values_) out += name + "=" + FormatParamValue(value) + "\n";
  return out;
}

}  // namespace seqflow
