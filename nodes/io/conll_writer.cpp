#include "nodes/io/conll_writer.h"

#include <fmt/format.h>

namespace seqflow {
namespace {

Status CheckShape(const Corpus& data, const Predictions& p, size_t which) {
  if (p.labels.size() != data.sentences.size())
    return Status::Invalid(
        fmt::format("prediction {} has {} sentences, the corpus {}", which, p.labels.size(), data.sentences.size()));
  for (size_t n = 0; n < data.sentences.size(); ++n) {
    if (p.labels[n].size() != data.sentences[n].size())
      return Status::Invalid(fmt::format("prediction {}: sentence {} has {} labels for {} tokens", which, n + 1,
                                         p.labels[n].size(), data.sentences[n].size()));
    for (int32_t id : p.labels[n])
      if (id < 0 || static_cast<size_t>(id) >= p.label_names.size())
        return Status::Invalid(
            fmt::format("prediction {}: sentence {} has label id {} without a name", which, n + 1, id));
  }
  return Status::Ok();
}

bool Splits(const std::string& field, ConllSeparator separator) {
  const char* breaks = separator == ConllSeparator::kTab ? "\t\n\r" : " \t\n\r\v\f";
  return field.empty() || field.find_first_of(breaks) != std::string::npos;
}

}  // namespace

Result<std::string> FormatConll(const Corpus& data, const std::vector<const Predictions*>& predicted,
                                ConllSeparator separator) {
  for (size_t i = 0; i < predicted.size(); ++i) SEQFLOW_RETURN_IF_ERROR(CheckShape(data, *predicted[i], i + 1));
  const char sep = separator == ConllSeparator::kTab ? '\t' : ' ';
  std::string out;
  std::vector<const std::string*> fields;
  for (size_t n = 0; n < data.sentences.size(); ++n) {
    const Sentence& s = data.sentences[n];
    for (size_t t = 0; t < s.size(); ++t) {
      fields.clear();
      for (const auto& column : s.cols) fields.push_back(&column[t]);
      if (data.labeled()) fields.push_back(&data.label_names[s.labels[t]]);
      for (const Predictions* p : predicted) fields.push_back(&p->label_names[p->labels[n][t]]);
      for (size_t f = 0; f < fields.size(); ++f) {
        if (Splits(*fields[f], separator))
          return Status::Invalid(fmt::format(
              "sentence {}, token {}: field '{}' is empty or holds the separator{}", n + 1, t + 1, *fields[f],
              separator == ConllSeparator::kSpace ? " (separator: tab keeps spaces inside fields)" : ""));
        if (f) out += sep;
        out += *fields[f];
      }
      out += '\n';
    }
    out += '\n';
  }
  return out;
}

}  // namespace seqflow
