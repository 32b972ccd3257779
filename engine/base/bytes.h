// ByteWriter / ByteReader: the little-endian, length-prefixed binary form of artifacts (cache
// entries) and of the messages data-parallel kernels exchange between processes
// (engine/base/process_group.h). Doubles are written bit-exactly.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

// Little-endian, length-prefixed byte encoder.
class ByteWriter {
 public:
  void Reserve(size_t bytes) { out_.reserve(bytes); }
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) { Raw(&v, sizeof v); }
  void U64(uint64_t v) { Raw(&v, sizeof v); }
  void I64(int64_t v) { Raw(&v, sizeof v); }
  void F64(double v) { Raw(&v, sizeof v); }
  // Bytes as they are, without a count (an encoding made elsewhere, spliced in).
  void Bytes(std::string_view s) { out_.append(s.data(), s.size()); }
  void Str(std::string_view s) {
    U64(s.size());
    out_.append(s.data(), s.size());
  }
  void F64s(const double* p, size_t n) {
    U64(n);
    Raw(p, n * sizeof(double));
  }
  void I32s(const int32_t* p, size_t n) {
    U64(n);
    Raw(p, n * sizeof(int32_t));
  }
  void Strs(const std::vector<std::string>& v) {
    U64(v.size());
    for (const auto& s : v) Str(s);
  }
  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

// Decoder matching ByteWriter. Every read checks bounds and throws StatusError(Corruption)
// on truncated or implausible input, so a damaged artifact never loads as a wrong value.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : in_(bytes) {}
  uint8_t U8() { return Pod<uint8_t>(); }
  uint32_t U32() { return Pod<uint32_t>(); }
  uint64_t U64() { return Pod<uint64_t>(); }
  int64_t I64() { return Pod<int64_t>(); }
  double F64() { return Pod<double>(); }
  std::string Str() {
    size_t n = Count(1);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A Str's bytes where they are (valid as long as the reader's input).
  std::string_view StrView() {
    size_t n = Count(1);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<double> F64s() { return Array<double>(); }
  // F64s' bytes where they are (8 per double; valid as long as the reader's input).
  std::string_view F64sView() {
    size_t n = Count(sizeof(double)) * sizeof(double);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<int32_t> I32s() { return Array<int32_t>(); }
  // A count then count x `elem_size` bytes, copied to `dest` (as StateReader::CountedInto); false
  // when the count is not `count`.
  bool CountedInto(char* dest, size_t count, size_t elem_size) {
    if (Count(elem_size) != count) return false;
    if (count > 0) std::memcpy(dest, in_.data() + pos_, count * elem_size);
    pos_ += count * elem_size;
    return true;
  }
  std::vector<std::string> Strs() {
    size_t n = Count(sizeof(uint64_t));
    std::vector<std::string> v;
    v.reserve(n);
    for (size_t i = 0; i < n; ++i) v.push_back(Str());
    return v;
  }
  bool AtEnd() const { return pos_ == in_.size(); }
  // Throws unless every byte was consumed.
  void ExpectEnd() const {
    if (!AtEnd()) throw StatusError(Status::Corruption("trailing bytes in artifact"));
  }
  // Reads an element count and checks that `elem_size` * count bytes remain.
  size_t Count(size_t elem_size) {
    uint64_t n = U64();
    if (elem_size > 0 && n > (in_.size() - pos_) / elem_size)
      throw StatusError(Status::Corruption("artifact truncated (length field too large)"));
    return static_cast<size_t>(n);
  }

 private:
  template <class T>
  T Pod() {
    if (in_.size() - pos_ < sizeof(T)) throw StatusError(Status::Corruption("artifact truncated"));
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <class T>
  std::vector<T> Array() {
    size_t n = Count(sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), in_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return v;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace seqflow
