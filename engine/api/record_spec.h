// What a node kind declares for the run record (DESIGN §4, §8): its role, the metrics the report
// shows, and the typed files it attaches. engine/record and `seqflow run` / `report` act on these
// declarations only — never on a kind's, a metric's or a column's name — so a new evaluator,
// selector or path-producing trainer is reported by declaring itself, with no engine edit.
// The declarations travel in summary.json ("kinds"), so a report reads them from the record alone.
// Thread safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seqflow {

// What the record code does with a node. Kinds the record does not act on (readers, features,
// decoders) keep kOther.
enum class NodeRole {
  kOther,
  kTrainer,    // fits a model; `seqflow kinds` and summary.json show the role, nothing more
  kEvaluator,  // its headline metrics are the report's columns and `seqflow run`'s result lines
  kSelector,   // picks a point of a λ path; RecordSpec::chosen_lambda is marked on the path's plots
  kWriter,     // writes a file into the run record
};
inline constexpr NodeRole kNodeRoles[] = {NodeRole::kOther, NodeRole::kTrainer, NodeRole::kEvaluator,
                                          NodeRole::kSelector, NodeRole::kWriter};

// "other", "trainer", "evaluator", "selector", "writer" (the summary.json spelling).
const char* NodeRoleName(NodeRole role);
std::optional<NodeRole> NodeRoleNamed(std::string_view name);

enum class AttachmentType {
  // A CSV table (header row, then numbers; empty, "nan", "inf" allowed) that `seqflow report
  // --plots` draws: the `y` columns against the `x` column.
  kTable,
  // Per-sentence counts for paired significance tests: the sentences.csv format of
  // stats/significance.h.
  kSentenceCounts,
};
inline constexpr AttachmentType kAttachmentTypes[] = {AttachmentType::kTable, AttachmentType::kSentenceCounts};

// "table", "sentence_counts".
const char* AttachmentTypeName(AttachmentType type);
std::optional<AttachmentType> AttachmentTypeNamed(std::string_view name);

// One typed file a kind attaches (NodeContext::Attach(suffix, ...)): DIR/[run-K/]<node>.<suffix>.
// Attachments a kind does not declare are still written, only not interpreted.
struct AttachmentSpec {
  std::string suffix;  // "path.csv"
  AttachmentType type = AttachmentType::kTable;
  // kTable only:
  std::string x;                        // the column on the x axis
  std::string x_label;                  // its axis label; "" = the column's name
  std::vector<std::string> y;           // columns drawn against x, in order; "*.f1" = every column
                                        // whose name ends in ".f1", in header order
  std::vector<std::string> y_fallback;  // drawn instead when no `y` column exists
  bool mark_max = false;                // mark where the first drawn column peaks
  bool x_is_lambda = false;             // x is the λ that selectors reading this node choose

  // Builders, so declarations read like a sentence:
  //   AttachmentSpec::Table("path.csv", "lambda", {"*.f1"}).XLabel("λ").MarkMax().LambdaAxis()
  static AttachmentSpec Table(std::string suffix, std::string x, std::vector<std::string> y);
  static AttachmentSpec SentenceCounts(std::string suffix);
  AttachmentSpec&& XLabel(std::string label) &&;
  AttachmentSpec&& Fallback(std::vector<std::string> columns) &&;
  AttachmentSpec&& MarkMax() &&;
  AttachmentSpec&& LambdaAxis() &&;

  bool operator==(const AttachmentSpec&) const = default;
};

// The training trace of iterative trainers (hmm.em, crf.train): DIR/<node>.objective.csv with
// an `objective` column drawn against an `iteration` column; other columns are not drawn.
const AttachmentSpec& ObjectiveTrace();

struct RecordSpec {
  NodeRole role = NodeRole::kOther;
  // Metrics shown by `seqflow report` (as columns "<node>.<metric>") and after `seqflow run`, in
  // order; for evaluators (per system when per_system is set).
  std::vector<std::string> headline;
  std::vector<AttachmentSpec> attachments;
  // kSelector: the metric holding the λ it chose, marked on every x_is_lambda table of the nodes
  // it reads.
  std::string chosen_lambda;
  // An evaluator of several systems in one node (eval.compare) reports each headline metric once
  // per system, as "<metric>.<system>" (f1.sms), and, when system_p_prefix is set, the p-value of
  // each system against the reference system (its first, which has none) as
  // "<system_p_prefix><metric>.<system>" (p_f1.sms). The report then shows a column
  // "<node>.<metric>.<system>" per system, or with `--rows systems` a row per system.
  bool per_system = false;
  std::string system_p_prefix;

  // The first declared attachment of `type`, or null.
  const AttachmentSpec* FindAttachment(AttachmentType type) const;
  bool operator==(const RecordSpec&) const = default;
};

}  // namespace seqflow
