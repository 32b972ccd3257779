// An iterative kernel's state declared once, field by field, against the struct that holds it — as
// ParamTable declares a kind's parameters — so that one codec writes its checkpoints and final
// states and reads them back (kernel_checkpoints.h, iterate.h):
//
//   StateTable<EpochState>("multiview.perceptron")
//       .Tag(kPerceptronStateMagic).Fits(options.views).Fits(A).Fits(K)
//       .Records(&EpochState::epochs, EpochTable(), {.min = 1})
//       .Custom([](const EpochState& s, StatePieces& out) { ... }, [](EpochState& s, StateIn& in) { ... });
//
// The bytes are the fields' in declaration order (engine/base/bytes.h: little-endian 8-byte
// integers and doubles, a count before every array), so a table reproduces a format written by
// hand before it. What a state must agree with — a magic number, the problem's shape, options that
// change what the state means — is declared with Tag/Fits: written, and compared on reading. A
// state that does not fit (a differing value, a wrong count, a failed Check, bytes left over or
// missing) is Status::Invalid naming the kernel; a piece that cannot be read keeps its own error.
//
// Members: a data member pointer of `S`, or a callable returning a reference to the member given
// an `S&` (and a const one given a const S&), such as At() of engine/api/param_table.h.
// Thread safety: build once, then read-only; tables are built per run, since Fits values are the
// run's.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/api/param_table.h"
#include "engine/base/bytes.h"
#include "engine/base/state_pieces.h"
#include "engine/base/state_source.h"
#include "engine/base/status.h"

namespace seqflow {

// What a table reads from: a state in one string or one read back in pieces (StateSource). Reads
// throw StatusError when the bytes run out, as ByteReader's do.
class StateIn {
 public:
  virtual ~StateIn() = default;
  virtual uint8_t U8() = 0;
  virtual uint64_t U64() = 0;
  virtual int64_t I64() = 0;
  virtual double F64() = 0;
  virtual std::vector<double> F64s() = 0;
  virtual std::vector<int32_t> I32s() = 0;
  virtual std::string Str() = 0;
  // A count then count x `elem_size` bytes into `dest`, a piece still in its file read there
  // directly (StateReader::CountedInto); false when the count is not `count`.
  virtual bool CountedInto(char* dest, size_t count, size_t elem_size) = 0;
  // A count then `n` doubles (ByteWriter::F64s) into `dest`.
  bool F64sInto(double* dest, size_t n) { return CountedInto(reinterpret_cast<char*>(dest), n, sizeof(double)); }
  virtual void ExpectEnd() = 0;
};

// StateIn over a ByteReader or a StateReader that may hold more than the state.
template <class Reader>
class StateInFrom final : public StateIn {
 public:
  explicit StateInFrom(Reader& r) : r_(r) {}
  uint8_t U8() override { return r_.U8(); }
  uint64_t U64() override { return r_.U64(); }
  int64_t I64() override { return r_.I64(); }
  double F64() override { return r_.F64(); }
  std::vector<double> F64s() override { return r_.F64s(); }
  std::vector<int32_t> I32s() override { return r_.I32s(); }
  std::string Str() override { return r_.Str(); }
  bool CountedInto(char* dest, size_t count, size_t elem_size) override {
    return r_.CountedInto(dest, count, elem_size);
  }
  void ExpectEnd() override { r_.ExpectEnd(); }

 private:
  Reader& r_;
};

namespace state_table_detail {

template <class T, class F>
decltype(auto) Member(T& object, const F& field) {
  if constexpr (std::is_member_object_pointer_v<F>)
    return (object.*field);
  else
    return field(object);
}

template <class T>
struct IsEigenDense : std::is_base_of<Eigen::DenseBase<T>, T> {};

// A field that does not fit ends the read (caught in Decode).
struct Unfit {};

}  // namespace state_table_detail

// Bounds on a Records count.
struct RecordCount {
  uint64_t min = 0;
  uint64_t max = uint64_t{1} << 30;
};

template <class S>
class StateTable {
 public:
  using Save = std::function<void(const S&, StatePieces&)>;
  using Load = std::function<bool(S&, StateIn&)>;  // false: the state does not fit

  // `kernel` names it in the error for a state that does not fit.
  explicit StateTable(std::string kernel) : kernel_(std::move(kernel)) {}

  // A magic number naming the format (8 bytes).
  StateTable& Tag(uint64_t magic) { return FitsU64(magic); }
  // A value of the run the state must belong to, as 8 bytes (an integer or a bool).
  template <class T>
  StateTable& Fits(T value) {
    const auto v = static_cast<int64_t>(value);
    return Add([v](const S&, StatePieces& out) { out.writer().I64(v); },
               [v](S&, StateIn& in) { return in.I64() == v; });
  }
  StateTable& FitsU64(uint64_t v) {
    return Add([v](const S&, StatePieces& out) { out.writer().U64(v); },
               [v](S&, StateIn& in) { return in.U64() == v; });
  }
  StateTable& FitsU8(uint8_t v) {
    return Add([v](const S&, StatePieces& out) { out.writer().U8(v); }, [v](S&, StateIn& in) { return in.U8() == v; });
  }

  // An integer, enum or bool member as 8 bytes.
  template <class F>
  StateTable& I64(F field) {
    return Add([field](const S& s, StatePieces& out) { out.writer().I64(static_cast<int64_t>(Get(s, field))); },
               [field](S& s, StateIn& in) {
                 auto& m = Get(s, field);
                 m = static_cast<std::remove_reference_t<decltype(m)>>(in.I64());
                 return true;
               });
  }
  // An unsigned member as 8 bytes.
  template <class F>
  StateTable& U64(F field) {
    return Add([field](const S& s, StatePieces& out) { out.writer().U64(static_cast<uint64_t>(Get(s, field))); },
               [field](S& s, StateIn& in) {
                 auto& m = Get(s, field);
                 m = static_cast<std::remove_reference_t<decltype(m)>>(in.U64());
                 return true;
               });
  }
  // A bool (or a small integer) member as 1 byte.
  template <class F>
  StateTable& U8(F field) {
    return Add([field](const S& s, StatePieces& out) { out.writer().U8(static_cast<uint8_t>(Get(s, field))); },
               [field](S& s, StateIn& in) {
                 auto& m = Get(s, field);
                 m = static_cast<std::remove_reference_t<decltype(m)>>(in.U8());
                 return true;
               });
  }
  template <class F>
  StateTable& F64(F field) {
    return Add([field](const S& s, StatePieces& out) { out.writer().F64(Get(s, field)); },
               [field](S& s, StateIn& in) {
                 Get(s, field) = in.F64();
                 return true;
               });
  }

  // A std::string: its length, then its bytes.
  template <class F>
  StateTable& Str(F field) {
    return Add([field](const S& s, StatePieces& out) { out.writer().Str(Get(s, field)); },
               [field](S& s, StateIn& in) {
                 Get(s, field) = in.Str();
                 return true;
               });
  }
  // A std::vector<double> or an Eigen vector of doubles: its count, then its values; read back at
  // the count's size.
  template <class F>
  StateTable& Doubles(F field) {
    return Add([field](const S& s, StatePieces& out) { WriteDoubles(Get(s, field), out.writer()); },
               [field](S& s, StateIn& in) { return ReadDoubles(Get(s, field), in); });
  }
  // An Eigen vector or matrix of the run's shape, in the same bytes as Doubles but written from
  // where it lives (StatePieces::AppendView: a save copies nothing) and read into place: the
  // member keeps the size it has before Decode, and a state of another size does not fit.
  template <class F>
  StateTable& DoublesInPlace(F field) {
    return Add(
        [field](const S& s, StatePieces& out) {
          const auto& m = Get(s, field);
          out.writer().U64(static_cast<uint64_t>(m.size()));
          out.AppendView({reinterpret_cast<const char*>(m.data()), static_cast<size_t>(m.size()) * sizeof(double)});
        },
        [field](S& s, StateIn& in) {
          auto& m = Get(s, field);
          return in.F64sInto(m.data(), static_cast<size_t>(m.size()));
        });
  }

  // A std::vector of records, each written by `row`: the count, then the records. Records read
  // back start as `prototype` (the run's shapes for fields read into place).
  template <class F, class R>
  StateTable& Records(F field, StateTable<R> row, RecordCount count = {}, R prototype = R{}) {
    return Add(
        [field, row](const S& s, StatePieces& out) {
          const auto& records = Get(s, field);
          out.writer().U64(records.size());
          for (const R& r : records) row.Write(r, out);
        },
        [field, row, count, prototype](S& s, StateIn& in) {
          const uint64_t n = in.U64();
          return n >= count.min && n <= count.max &&
                 ReadRecords(in, row, static_cast<size_t>(n), prototype, Get(s, field));
        });
  }
  // Records whose count is not written: it follows from the fields read before (`count`).
  template <class F, class R>
  StateTable& RecordsCounted(F field, StateTable<R> row, std::function<size_t(const S&)> count, R prototype = R{}) {
    return Add(
        [field, row](const S& s, StatePieces& out) {
          for (const R& r : Get(s, field)) row.Write(r, out);
        },
        [field, row, count = std::move(count), prototype](S& s, StateIn& in) {
          return ReadRecords(in, row, count(s), prototype, Get(s, field));
        });
  }
  // A member struct written by its own table.
  template <class F, class R>
  StateTable& Struct(F field, StateTable<R> fields) {
    return Add([field, fields](const S& s, StatePieces& out) { fields.Write(Get(s, field), out); },
               [field, fields](S& s, StateIn& in) { return fields.Read(in, Get(s, field)); });
  }
  // Bytes a member writes itself (a table of its own class, a history of pairs).
  StateTable& Custom(Save save, Load load) { return Add(std::move(save), std::move(load)); }
  // Fields of `S` present only when `present` holds of the fields before them.
  StateTable& When(std::function<bool(const S&)> present, StateTable<S> fields) {
    return Add(
        [present, fields](const S& s, StatePieces& out) {
          if (present(s)) fields.Write(s, out);
        },
        [present, fields](S& s, StateIn& in) { return !present(s) || fields.Read(in, s); });
  }
  // A relation the fields read so far must satisfy.
  StateTable& Check(std::function<bool(const S&)> holds) {
    return Add([](const S&, StatePieces&) {}, [holds = std::move(holds)](S& s, StateIn&) { return holds(s); });
  }

  void Write(const S& s, StatePieces& out) const {
    for (const Field& f : fields_) f.save(s, out);
  }
  StatePieces Encode(const S& s) const {
    StatePieces out;
    Write(s, out);
    return out;
  }
  // False when a field does not fit; throws StatusError when the bytes run out.
  bool Read(StateIn& in, S& s) const {
    for (const Field& f : fields_)
      if (!f.load(s, in)) return false;
    return true;
  }

  // REQUIRES: `s` holds the run's shapes where DoublesInPlace or matrices read into place.
  Status Decode(std::string_view bytes, S& s) const {
    ByteReader reader(bytes);
    StateInFrom<ByteReader> in(reader);
    return DecodeFrom(in, s, Status::Ok());
  }
  Status Decode(StateSource& source, S& s) const {
    StateReader reader(source);
    StateInFrom<StateReader> in(reader);
    return DecodeFrom(in, s, [&] { return reader.read_error(); });
  }


 private:
  template <class T>
  friend class StateTable;

  Status Unfit() const {
    return Status::Invalid(kernel_ + ": the state to resume from does not fit these data and options");
  }

  struct Field {
    Save save;
    Load load;
  };

  template <class T, class F>
  static decltype(auto) Get(T& s, const F& field) {
    return state_table_detail::Member(s, field);
  }

  template <class R, class V>
  static bool ReadRecords(StateIn& in, const StateTable<R>& row, size_t n, const R& prototype, V& records) {
    // One at a time: a count past the bytes ends at the reader's bound, not in one allocation.
    records.clear();
    for (size_t i = 0; i < n; ++i) {
      R r = prototype;
      if (!row.Read(in, r)) return false;
      records.push_back(std::move(r));
    }
    return true;
  }

  template <class V>
  static void WriteDoubles(const V& v, ByteWriter& out) {
    out.F64s(v.data(), static_cast<size_t>(v.size()));
  }
  template <class V>
  static bool ReadDoubles(V& v, StateIn& in) {
    if constexpr (state_table_detail::IsEigenDense<V>::value) {
      static_assert(V::IsVectorAtCompileTime, "a matrix keeps its shape: DoublesInPlace");
      const std::vector<double> values = in.F64s();
      v = Eigen::Map<const V>(values.data(), static_cast<Eigen::Index>(values.size()));
      return true;
    } else {
      v = in.F64s();
      return true;
    }
  }

  StateTable& Add(Save save, Load load) {
    fields_.push_back({std::move(save), std::move(load)});
    return *this;
  }

  template <class ReadError>
  Status DecodeFrom(StateIn& in, S& s, ReadError read_error) const {
    try {
      if (!Read(in, s)) return Unfit();
      in.ExpectEnd();
      return Status::Ok();
    } catch (const StatusError&) {
      if constexpr (std::is_invocable_v<ReadError>) {
        if (Status e = read_error(); !e.ok()) return e;
      }
      return Unfit();
    }
  }

  std::string kernel_;
  std::vector<Field> fields_;
};

// A node's state made of its kernel's state followed by what the node keeps beside it (a trace,
// the best model so far), then that part's length: the kernel reads its part in place, and the
// node takes its own off the end (crf.train, fhmm.em).
inline StatePieces WithTrailer(StatePieces kernel, std::string trailer) {
  const uint64_t size = trailer.size();
  kernel.Append(std::move(trailer));
  kernel.writer().U64(size);
  return kernel;
}

// The part WithTrailer added, taken off the end of `state` (which keeps the kernel's); nullopt
// when the bytes do not end in one.
inline std::optional<std::string> TakeTrailer(StateSource& state) {
  if (state.size() < sizeof(uint64_t)) return std::nullopt;
  Result<std::string> tail = state.TakeBack(sizeof(uint64_t));
  if (!tail.ok()) return std::nullopt;
  const uint64_t size = ByteReader(*tail).U64();
  if (size > state.size()) return std::nullopt;
  Result<std::string> trailer = state.TakeBack(size);
  if (!trailer.ok()) return std::nullopt;
  return std::move(trailer).value();
}

}  // namespace seqflow
