// A kind's parameters declared once, against the options struct they fill (STYLE 3; crfsuite's
// params.h DDX macros, LightGBM's config.h): each declaration binds a YAML name to a member of
// `O`, with its type, bounds and doc.
//
//   struct TrainNodeOptions { CrfTrainOptions train; };
//   ParamTable<TrainNodeOptions>()
//       .Double("sigma2", At(&O::train, &CrfTrainOptions::sigma2), "prior variance").Greater(0)
//       .Int("memory", At(&O::train, &CrfTrainOptions::lbfgs, &LbfgsOptions::memory), "pairs").Min(1)
//       .Enum("encoding", &O::encoding, {{"iob1", TagEncoding::kIob1}, {"iob2", TagEncoding::kIob2}}, "doc")
//
// The default of every parameter is the member's value in `O{}` (its default member initializer),
// so the options struct holds the only default there is. From the table, Specs() gives the
// ParamSpecs (validation, cache keys, `seqflow kinds`) and Read() the filled options struct.
//
// Members: a data member pointer of `O`, At(...) for a path through nested structs, or any
// callable returning a reference to the member given an `O&` (and a const one given a const O&).
// Types: bool; int, int64_t, uint64_t (Int: a narrower signed member saturates, an unsigned one
// takes the bits, as a seed does); double; std::string (String, Path); std::vector<std::string>;
// std::vector<double>; an enum class mapped from string choices (Enum).
// Thread safety: build once, then read-only and safe to share.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/api/params.h"

namespace seqflow {

// What the registry and tests see of a table, whatever its options struct.
class ParamBinding {
 public:
  virtual ~ParamBinding() = default;
  virtual const std::vector<ParamSpec>& Specs() const = 0;
  // Reads `params` into the options struct and returns every bound member as a ParamValue, by
  // parameter name: the value the kernel receives. REQUIRES: as Read.
  virtual std::map<std::string, ParamValue> ReadBack(const Params& params) const = 0;
};

namespace param_table_detail {
template <class T, class M>
auto& Follow(T& object, M member) {
  return object.*member;
}
template <class T, class M, class... Ms>
auto& Follow(T& object, M member, Ms... rest) {
  return Follow(object.*member, rest...);
}
}  // namespace param_table_detail

// A member reached through nested structs: At(&O::train, &CrfTrainOptions::lbfgs, &LbfgsOptions::memory).
template <class... Ms>
auto At(Ms... members) {
  return [=](auto& object) -> auto& { return param_table_detail::Follow(object, members...); };
}

template <class O>
class ParamTable final : public ParamBinding {
 public:
  template <class F>
  using Member = std::remove_cvref_t<std::invoke_result_t<F, O&>>;
  template <class E>
  using Choices = std::vector<std::pair<std::string, E>>;

  template <class F>
  ParamTable& Bool(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::Bool(name, Default(field), std::move(doc)), field,
        [name](const Params& p) { return p.GetBool(name); }, [](bool v) { return ParamValue(v); });
  }
  template <class F>
  ParamTable& Int(std::string name, F field, std::string doc) {
    using T = Member<F>;
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "Int binds an integer member");
    return Add(
        ParamSpec::Int(name, static_cast<int64_t>(Default(field)), std::move(doc)), field,
        [name](const Params& p) { return FromInt<T>(p.GetInt(name)); },
        [](T v) { return ParamValue(static_cast<int64_t>(v)); });
  }
  template <class F>
  ParamTable& Double(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::Double(name, Default(field), std::move(doc)), field,
        [name](const Params& p) { return p.GetDouble(name); }, [](double v) { return ParamValue(v); });
  }
  // Free text; restrict it with OneOf, or use Enum for an enum member.
  template <class F>
  ParamTable& String(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::String(name, Default(field), std::move(doc)), field,
        [name](const Params& p) { return p.GetString(name); }, [](const std::string& v) { return ParamValue(v); });
  }
  // A file (always required): the member receives the absolute path.
  template <class F>
  ParamTable& Path(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::Path(name, std::move(doc)), field, [name](const Params& p) { return p.GetString(name); },
        [](const std::string& v) { return ParamValue(v); });
  }
  // A file that may be left out: the member receives "" when it is, else the absolute path.
  template <class F>
  ParamTable& OptionalPath(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::OptionalPath(name, std::move(doc)), field, [name](const Params& p) { return p.GetString(name); },
        [](const std::string& v) { return ParamValue(v); });
  }
  template <class F>
  ParamTable& StringList(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::StringList(name, Default(field), std::move(doc)), field,
        [name](const Params& p) { return p.GetStrings(name); },
        [](const std::vector<std::string>& v) { return ParamValue(v); });
  }
  template <class F>
  ParamTable& DoubleList(std::string name, F field, std::string doc) {
    return Add(
        ParamSpec::DoubleList(name, Default(field), std::move(doc)), field,
        [name](const Params& p) { return p.GetDoubles(name); },
        [](const std::vector<double>& v) { return ParamValue(v); });
  }
  // An enum member chosen by name. REQUIRES: the default member value is one of `choices`.
  template <class F>
  ParamTable& Enum(std::string name, F field, Choices<Member<F>> choices, std::string doc) {
    using E = Member<F>;
    std::vector<std::string> names;
    for (const auto& c : choices) names.push_back(c.first);
    auto to_text = [name, choices](E v) {
      for (const auto& c : choices)
        if (c.second == v) return ParamValue(c.first);
      throw StatusError(Status::Internal("parameter '" + name + "' holds a value outside its choices"));
    };
    auto from_params = [name, choices](const Params& p) {
      const std::string& text = p.GetString(name);
      for (const auto& c : choices)
        if (c.first == text) return c.second;
      throw StatusError(Status::Internal("parameter '" + name + "' is not one of its choices: " + text));
    };
    ParamSpec spec =
        ParamSpec::Enum(name, std::move(names), std::get<std::string>(to_text(Default(field))), std::move(doc));
    return Add(std::move(spec), field, std::move(from_params), std::move(to_text));
  }
  // An enum member chosen among `values`, each spelled by `name_of` (the type's own *Name
  // function), so a value's text is written once in the code.
  template <class F, class NameOf>
  ParamTable& Enum(std::string name, F field, std::initializer_list<Member<F>> values, NameOf name_of,
                   std::string doc) {
    Choices<Member<F>> choices;
    for (const Member<F> v : values) choices.emplace_back(name_of(v), v);
    return Enum(std::move(name), field, std::move(choices), std::move(doc));
  }
  // Every parameter of `sub`, filling the `S` that `field` reaches in `O`; defaults from `O{}`.
  template <class S, class F>
  ParamTable& Include(F field, const ParamTable<S>& sub) {
    for (size_t i = 0; i < sub.specs_.size(); ++i) {
      const auto& b = sub.bindings_[i];
      Binding lifted{[field, write = b.write](const Params& p, O& o) { write(p, std::invoke(field, o)); },
                     [field, read = b.read](const O& o) { return read(std::invoke(field, o)); }};
      specs_.push_back(sub.specs_[i]);
      if (specs_.back().default_value) specs_.back().default_value = lifted.read(O{});
      bindings_.push_back(std::move(lifted));
    }
    return *this;
  }

  // Modifiers of the parameter declared last.
  ParamTable& Min(double lo) {
    return Last([lo](ParamSpec s) { return std::move(s).Min(lo); });
  }
  ParamTable& Greater(double lo) {
    return Last([lo](ParamSpec s) { return std::move(s).Greater(lo); });
  }
  ParamTable& Max(double hi) {
    return Last([hi](ParamSpec s) { return std::move(s).Max(hi); });
  }
  ParamTable& Check(std::function<std::string(const ParamValue&)> f) {
    return Last([&f](ParamSpec s) { return std::move(s).Check(std::move(f)); });
  }
  // The type `seqflow kinds` shows (ParamSpec::shown_type).
  ParamTable& ShownAs(std::string type_text) {
    specs_.back().shown_type = std::move(type_text);
    return *this;
  }
  ParamTable& OneOf(std::vector<std::string> choices) {
    specs_.back().choices = std::move(choices);
    return *this;
  }
  // No default: YAML must give it (the member's initializer is then only a placeholder).
  ParamTable& Required() {
    specs_.back().default_value.reset();
    return *this;
  }

  const std::vector<ParamSpec>& Specs() const override { return specs_; }
  // The options struct: O{} with every declared member set from `params`.
  // REQUIRES: `params` holds every declared parameter with its type (validated Params do); else
  // throws StatusError(Internal).
  O Read(const Params& params) const {
    O options{};
    for (const Binding& b : bindings_) b.write(params, options);
    return options;
  }
  std::map<std::string, ParamValue> ReadBack(const Params& params) const override {
    const O options = Read(params);
    std::map<std::string, ParamValue> out;
    for (size_t i = 0; i < specs_.size(); ++i) out[specs_[i].name] = bindings_[i].read(options);
    return out;
  }

 private:
  template <class>
  friend class ParamTable;

  struct Binding {
    std::function<void(const Params&, O&)> write;
    std::function<ParamValue(const O&)> read;
  };

  template <class F>
  static Member<F> Default(F field) {
    const O defaults{};
    return std::invoke(field, defaults);
  }

  template <class T>
  static T FromInt(int64_t v) {
    if constexpr (std::is_unsigned_v<T> || sizeof(T) >= sizeof(int64_t)) {
      return static_cast<T>(v);
    } else {
      return static_cast<T>(std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  }

  template <class F, class Get, class Put>
  ParamTable& Add(ParamSpec spec, F field, Get get, Put put) {
    specs_.push_back(std::move(spec));
    bindings_.push_back({[field, get](const Params& p, O& o) { std::invoke(field, o) = get(p); },
                         [field, put](const O& o) { return put(std::invoke(field, o)); }});
    return *this;
  }

  // ParamSpec's checks chain on an rvalue: move the last spec out, add the check, put it back.
  template <class Modify>
  ParamTable& Last(Modify modify) {
    ParamSpec spec = std::move(specs_.back());
    specs_.back() = modify(std::move(spec));
    return *this;
  }

  std::vector<ParamSpec> specs_;
  std::vector<Binding> bindings_;
};

}  // namespace seqflow
