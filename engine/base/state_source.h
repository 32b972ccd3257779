// StateSource: a saved state read back (the bytes StatePieces joined; NodeContext::ResumeSource),
// as parts that are either bytes in memory or a piece still in its file. StateReader reads it
// front to back with ByteReader's calls, and reads a whole file piece straight into the kernel's
// memory (CountedInto): a resume then holds the state once instead of reading it into one string
// and copying it out (on CoNLL-2000, 255 MB of fresh pages and a copy less per restart of
// crf.train; bench/RESULTS.md, "crf.train's restart without its checking gradient").
// Not thread-safe; movable, not copyable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

class StateSource {
 public:
  // Reads the piece's bytes (the size it was added with) into `dest` and checks them; an error
  // names the file.
  using Fill = std::function<Status(char* dest)>;

  StateSource() = default;
  explicit StateSource(std::string bytes) { AddBytes(std::move(bytes)); }
  StateSource(StateSource&&) = default;
  StateSource& operator=(StateSource&&) = default;
  StateSource(const StateSource&) = delete;
  StateSource& operator=(const StateSource&) = delete;

  void AddBytes(std::string bytes);
  void AddPiece(size_t size, Fill fill);
  size_t size() const { return size_; }
  // The whole state as one string (every piece read).
  Result<std::string> Join() &&;
  // Removes the state's last `n` bytes and returns them (reading the pieces they fall in).
  Result<std::string> TakeBack(size_t n);

 private:
  friend class StateReader;
  struct Part {
    std::string bytes;  // in memory; a piece's once it has been read
    size_t size = 0;
    Fill fill;          // set while the part is still in its file
  };
  // Reads part `i` into its bytes if it is still in its file.
  Status Materialize(Part& part);

  std::vector<Part> parts_;
  size_t size_ = 0;
};

// Reads a StateSource front to back (which spends it: a piece read into the caller's memory is
// not kept). Throws StatusError (Corruption) when the bytes run out or a
// piece cannot be read, like ByteReader.
class StateReader {
 public:
  explicit StateReader(StateSource& source) : source_(source) {}
  uint8_t U8() { return Pod<uint8_t>(); }
  uint64_t U64() { return Pod<uint64_t>(); }
  int64_t I64() { return Pod<int64_t>(); }
  double F64() { return Pod<double>(); }
  std::vector<double> F64s();
  std::vector<int32_t> I32s();
  std::string Str();
  // A count (ByteWriter::U64) then count x `elem_size` bytes (a Str's bytes at 1, F64s' at 8),
  // written to `dest`; false, with nothing more read, when the count is not `count`. Bytes that
  // are a whole piece still in its file are read from the file into `dest` directly.
  bool CountedInto(char* dest, size_t count, size_t elem_size);
  bool AtEnd() const;
  void ExpectEnd() const;
  // Why a piece could not be read, once a read threw for it (Ok otherwise: the bytes ran out).
  const Status& read_error() const { return read_error_; }

 private:
  template <class T>
  std::vector<T> Array();
  template <class T>
  T Pod() {
    T v;
    Read(reinterpret_cast<char*>(&v), sizeof v);
    return v;
  }
  void Read(char* dest, size_t n);
  size_t Remaining() const;
  [[noreturn]] void Fail(Status why);

  StateSource& source_;
  size_t part_ = 0;    // the part being read
  size_t offset_ = 0;  // within it
  Status read_error_;
};

}  // namespace seqflow
