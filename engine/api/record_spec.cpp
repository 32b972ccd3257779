#include "engine/api/record_spec.h"

#include <utility>

namespace seqflow {

const char* NodeRoleName(NodeRole role) {
  switch (role) {
    case NodeRole::kOther:
      return "other";
    case NodeRole::kTrainer:
      return "trainer";
    case NodeRole::kEvaluator:
      return "evaluator";
    case NodeRole::kSelector:
      return "selector";
    case NodeRole::kWriter:
      return "writer";
  }
  return "?";
}

std::optional<NodeRole> NodeRoleNamed(std::string_view name) {
  for (NodeRole role : kNodeRoles)
    if (name == NodeRoleName(role)) return role;
  return std::nullopt;
}

const char* AttachmentTypeName(AttachmentType type) {
  switch (type) {
    case AttachmentType::kTable:
      return "table";
    case AttachmentType::kSentenceCounts:
      return "sentence_counts";
  }
  return "?";
}

std::optional<AttachmentType> AttachmentTypeNamed(std::string_view name) {
  for (AttachmentType type : kAttachmentTypes)
    if (name == AttachmentTypeName(type)) return type;
  return std::nullopt;
}

AttachmentSpec AttachmentSpec::Table(std::string suffix, std::string x, std::vector<std::string> y) {
  AttachmentSpec a;
  a.suffix = std::move(suffix);
  a.type = AttachmentType::kTable;
  a.x = std::move(x);
  a.y = std::move(y);
  return a;
}

AttachmentSpec AttachmentSpec::SentenceCounts(std::string suffix) {
  AttachmentSpec a;
  a.suffix = std::move(suffix);
  a.type = AttachmentType::kSentenceCounts;
  return a;
}

AttachmentSpec&& AttachmentSpec::XLabel(std::string label) && {
  x_label = std::move(label);
  return std::move(*this);
}

AttachmentSpec&& AttachmentSpec::Fallback(std::vector<std::string> columns) && {
  y_fallback = std::move(columns);
  return std::move(*this);
}

AttachmentSpec&& AttachmentSpec::MarkMax() && {
  mark_max = true;
  return std::move(*this);
}

AttachmentSpec&& AttachmentSpec::LambdaAxis() && {
  x_is_lambda = true;
  return std::move(*this);
}

const AttachmentSpec& ObjectiveTrace() {
  static const AttachmentSpec kTrace = AttachmentSpec::Table("objective.csv", "iteration", {"objective"});
  return kTrace;
}

const AttachmentSpec* RecordSpec::FindAttachment(AttachmentType type) const {
  for (const AttachmentSpec& a : attachments)
    if (a.type == type) return &a;
  return nullptr;
}

}  // namespace seqflow
