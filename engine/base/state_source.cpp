#include "engine/base/state_source.h"

#include <algorithm>
#include <cstring>

namespace seqflow {

void StateSource::AddBytes(std::string bytes) {
  if (bytes.empty()) return;
  size_ += bytes.size();
  const size_t size = bytes.size();
  parts_.push_back({std::move(bytes), size, nullptr});
}

void StateSource::AddPiece(size_t size, Fill fill) {
  if (size == 0) return;
  size_ += size;
  parts_.push_back({std::string(), size, std::move(fill)});
}

Status StateSource::Materialize(Part& part) {
  if (!part.fill) return Status::Ok();
  std::string bytes(part.size, '\0');
  SEQFLOW_RETURN_IF_ERROR(part.fill(bytes.data()));
  part.bytes = std::move(bytes);
  part.fill = nullptr;
  return Status::Ok();
}

Result<std::string> StateSource::Join() && {
  std::string joined;
  if (parts_.size() == 1) {
    SEQFLOW_RETURN_IF_ERROR(Materialize(parts_[0]));
    return std::move(parts_[0].bytes);
  }
  joined.resize(size_);
  size_t at = 0;
  for (Part& part : parts_) {
    if (part.fill) {
      SEQFLOW_RETURN_IF_ERROR(part.fill(joined.data() + at));
    } else {
      std::memcpy(joined.data() + at, part.bytes.data(), part.size);
    }
    at += part.size;
  }
  return joined;
}

Result<std::string> StateSource::TakeBack(size_t n) {
  if (n > size_) return Status::Corruption("state truncated");
  std::string back;
  while (back.size() < n) {
    Part& last = parts_.back();
    SEQFLOW_RETURN_IF_ERROR(Materialize(last));
    const size_t take = std::min(n - back.size(), last.size);
    back.insert(0, last.bytes, last.size - take, take);
    last.bytes.resize(last.size - take);
    last.size -= take;
    if (last.size == 0) parts_.pop_back();
  }
  size_ -= n;
  return back;
}

template <class T>
std::vector<T> StateReader::Array() {
  const uint64_t n = U64();
  if (n > Remaining() / sizeof(T)) throw StatusError(Status::Corruption("state truncated (length field too large)"));
  std::vector<T> values(static_cast<size_t>(n));
  Read(reinterpret_cast<char*>(values.data()), values.size() * sizeof(T));
  return values;
}

std::vector<double> StateReader::F64s() { return Array<double>(); }
std::vector<int32_t> StateReader::I32s() { return Array<int32_t>(); }

std::string StateReader::Str() {
  const std::vector<char> bytes = Array<char>();
  return {bytes.begin(), bytes.end()};
}

bool StateReader::CountedInto(char* dest, size_t count, size_t elem_size) {
  if (U64() != count) return false;
  const size_t size = count * elem_size;
  if (size > Remaining()) throw StatusError(Status::Corruption("state truncated"));
  // A whole piece still in its file: from the file to `dest`, not through memory of its own.
  while (part_ < source_.parts_.size() && offset_ == source_.parts_[part_].size) ++part_, offset_ = 0;
  if (size > 0 && offset_ == 0) {
    StateSource::Part& part = source_.parts_[part_];
    if (part.fill && part.size == size) {
      if (Status read = part.fill(dest); !read.ok()) Fail(std::move(read));
      part.fill = nullptr;  // spent: its bytes are the caller's now
      ++part_;
      return true;
    }
  }
  Read(dest, size);
  return true;
}

void StateReader::Fail(Status why) {
  read_error_ = why;
  throw StatusError(std::move(why));
}

void StateReader::Read(char* dest, size_t n) {
  if (n > Remaining()) throw StatusError(Status::Corruption("state truncated"));
  while (n > 0) {
    StateSource::Part& part = source_.parts_[part_];
    if (offset_ == part.size) {
      ++part_, offset_ = 0;
      continue;
    }
    if (part.fill) {
      if (Status read = source_.Materialize(part); !read.ok()) Fail(std::move(read));
    }
    const size_t take = std::min(n, part.size - offset_);
    std::memcpy(dest, part.bytes.data() + offset_, take);
    dest += take, offset_ += take, n -= take;
  }
}

size_t StateReader::Remaining() const {
  size_t left = 0;
  for (size_t i = part_; i < source_.parts_.size(); ++i) left += source_.parts_[i].size;
  return left - offset_;
}

bool StateReader::AtEnd() const { return Remaining() == 0; }

void StateReader::ExpectEnd() const {
  if (!AtEnd()) throw StatusError(Status::Corruption("trailing bytes in state"));
}

}  // namespace seqflow
