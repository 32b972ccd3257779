// Status and Result<T>: how every engine call reports failure.
//
// A Status is OK (a null pointer, free to copy and test) or carries a code, a message and the
// SourceLoc (file:line:col) the problem belongs to. Result<T> holds a value or a non-OK Status.
// Exceptions are used only inside node bodies (StatusError); the executor converts them back.
// Thread safety: immutable after construction; safe to share.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace seqflow {

// A place in a source file. line/col are 1-based; 0 means unknown.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  bool known() const { return !file.empty(); }
  // "file:line:col", "file:line", "file" or "" depending on what is known.
  std::string ToString() const;
};

// A name as error messages quote it: 'name'.
inline std::string Quoted(const std::string& name) { return "'" + name + "'"; }

enum class StatusCode { kOk = 0, kInvalid, kNotFound, kIo, kCorruption, kNumerical, kCancelled, kInternal };

class Status {
 public:
  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status Invalid(std::string msg, SourceLoc loc = {}) { return {StatusCode::kInvalid, std::move(msg), std::move(loc)}; }
  static Status NotFound(std::string msg, SourceLoc loc = {}) { return {StatusCode::kNotFound, std::move(msg), std::move(loc)}; }
  static Status Io(std::string msg, SourceLoc loc = {}) { return {StatusCode::kIo, std::move(msg), std::move(loc)}; }
  static Status Corruption(std::string msg, SourceLoc loc = {}) { return {StatusCode::kCorruption, std::move(msg), std::move(loc)}; }
  static Status Numerical(std::string msg, SourceLoc loc = {}) { return {StatusCode::kNumerical, std::move(msg), std::move(loc)}; }
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg), {}}; }
  static Status Internal(std::string msg, SourceLoc loc = {}) { return {StatusCode::kInternal, std::move(msg), std::move(loc)}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const;
  const SourceLoc& loc() const;
  // "file:line:col: message", or just the message when the place is unknown; "OK" when ok().
  std::string ToString() const;
  // The same status with `context + ": "` put before the message (location kept).
  Status Annotate(const std::string& context) const;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
    SourceLoc loc;
  };
  Status(StatusCode code, std::string msg, SourceLoc loc)
      : rep_(std::make_shared<const Rep>(Rep{code, std::move(msg), std::move(loc)})) {}
  std::shared_ptr<const Rep> rep_;
};

const char* StatusCodeName(StatusCode code);

// Thrown only inside node bodies and readers; converted to Status at the executor boundary.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status s) : status_(std::move(s)), what_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  // REQUIRES: !status.ok()
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }
  // REQUIRES: ok()
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

// Returns the value or throws StatusError; for node bodies.
template <class T>
T ValueOrThrow(Result<T> r) {
  if (!r.ok()) throw StatusError(r.status());
  return std::move(r).value();
}
inline void ThrowIfError(const Status& s) {
  if (!s.ok()) throw StatusError(s);
}

}  // namespace seqflow

#define SEQFLOW_CONCAT_INNER(a, b) a##b
#define SEQFLOW_CONCAT(a, b) SEQFLOW_CONCAT_INNER(a, b)

#define SEQFLOW_RETURN_IF_ERROR(expr)          \
  do {                                         \
    ::seqflow::Status seqflow_status_ = (expr); \
    if (!seqflow_status_.ok()) return seqflow_status_; \
  } while (0)

#define SEQFLOW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#define SEQFLOW_ASSIGN_OR_RETURN(lhs, expr) \
  SEQFLOW_ASSIGN_OR_RETURN_IMPL(SEQFLOW_CONCAT(seqflow_result_, __LINE__), lhs, expr)
