#include "engine/base/status.h"

namespace seqflow {

std::string SourceLoc::ToString() const {
  if (file.empty()) return "";
  if (line <= 0) return file;
  if (col <= 0) return file + ":" + std::to_string(line);
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalid: return "invalid";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kIo: return "i/o error";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kNumerical: return "numerical failure";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

const SourceLoc& Status::loc() const {
  static const SourceLoc kNone;
  return rep_ ? rep_->loc : kNone;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string where = rep_->loc.ToString();
  return where.empty() ? rep_->message : where + ": " + rep_->message;
}

Status Status::Annotate(const std::string& context) const {
  if (ok()) return *this;
  return Status(rep_->code, context + ": " + rep_->message, rep_->loc);
}

}  // namespace seqflow
