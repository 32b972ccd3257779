#include "nodes/io/conll_reader.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "nodes/io/tags.h"

namespace seqflow {

const char* SeparatorName(Separator s) { return s == Separator::kWhitespace ? "whitespace" : "tab"; }

namespace {

constexpr std::string_view kDocStart = "-DOCSTART-";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool IsBlank(std::string_view line) { return std::all_of(line.begin(), line.end(), IsSpace); }

// Calls fn(line, number) for each line without its '\n' and trailing '\r'; stops at an error.
template <class Fn>
Status ForEachLine(std::string_view text, Fn fn) {
  int number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    SEQFLOW_RETURN_IF_ERROR(fn(line, ++number));
    start = end + 1;
  }
  return Status::Ok();
}

std::vector<std::string_view> SplitFields(std::string_view line, Separator separator) {
  std::vector<std::string_view> fields;
  if (separator == Separator::kTab) {
    for (size_t start = 0;;) {
      size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    return fields;
  }
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) fields.push_back(line.substr(i, j - i));
    i = j;
  }
  return fields;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

struct Layout {
  std::vector<std::string> names;  // every column, in file order
  size_t label_index = 0;
};

Result<Layout> MakeLayout(std::vector<std::string> names, const std::string& label_column, const SourceLoc& loc) {
  if (names.empty() || names[0] != "word")
    return Status::Invalid("the first column must be named 'word', got '" + (names.empty() ? "" : names[0]) + "'", loc);
  for (size_t i = 0; i < names.size(); ++i)
    if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      return Status::Invalid("column name '" + names[i] + "' appears twice", loc);
  Layout layout{std::move(names), 0};
  auto& n = layout.names;
  auto it = label_column.empty() ? n.end() - 1 : std::find(n.begin(), n.end(), label_column);
  if (it == n.end())
    return Status::Invalid("label_column '" + label_column + "' is not one of the columns (" + JoinNames(n) + ")", loc);
  if (it == n.begin()) return Status::Invalid("the label column cannot be 'word' (give at least 2 columns)", loc);
  layout.label_index = static_cast<size_t>(it - n.begin());
  return layout;
}

std::vector<std::string> DefaultNames(size_t count) {
  std::vector<std::string> names{"word"};
  for (size_t i = 1; i + 1 < count; ++i) names.push_back("col" + std::to_string(i));
  if (count > 1) names.push_back("label");
  return names;
}

// Accumulates sentences line by line; labels get provisional ids in order of appearance and
// are renumbered by name in Finish().
class ConllParser {
 public:
  ConllParser(const std::string& file, const ConllOptions& options) : file_(file), options_(options) {}

  Status Line(std::string_view line, int number) {
    if (IsBlank(line)) return EndSentence();
    auto fields = SplitFields(line, options_.separator);
    if (fields[0] == kDocStart) return EndSentence();
    if (!layout_) SEQFLOW_RETURN_IF_ERROR(SetLayout(fields.size(), number));
    SEQFLOW_RETURN_IF_ERROR(CheckFields(fields, number));
    std::string mapped;
    if (options_.tag_map) {
      SEQFLOW_ASSIGN_OR_RETURN(mapped, MapTag(*options_.tag_map, fields[layout_->label_index], SourceLoc{file_, number}));
      fields[layout_->label_index] = mapped;
    }
    SEQFLOW_RETURN_IF_ERROR(CheckTag(fields[layout_->label_index], number));
    AddToken(fields);
    return Status::Ok();
  }

  Result<Corpus> Finish() {
    EndSentence();
    if (corpus_.sentences.empty()) return Status::Invalid("empty file: no sentences", SourceLoc{file_});
    RenumberLabels();
    for (size_t i = 0; i < layout_->names.size(); ++i)
      if (i != layout_->label_index) corpus_.columns.push_back(layout_->names[i]);
    corpus_.encoding = options_.encoding;
    corpus_.source = file_;
    return std::move(corpus_);
  }

  // Fixes the columns: from options.columns, else from the first token line's field count.
  Status SetLayout(size_t num_fields, int number) {
    SourceLoc loc{file_, number};
    bool given = !options_.columns.empty();
    if (!given && num_fields < 2)
      return Status::Invalid("expected at least 2 columns (word and label), found " + std::to_string(num_fields), loc);
    auto layout = MakeLayout(given ? options_.columns : DefaultNames(num_fields), options_.label_column,
                             given ? SourceLoc{file_} : loc);
    if (!layout.ok()) return layout.status();
    layout_ = std::move(layout).value();
    return Status::Ok();
  }

 private:
  Status CheckFields(const std::vector<std::string_view>& fields, int number) {
    const auto& names = layout_->names;
    SourceLoc loc{file_, number};
    if (fields.size() != names.size())
      return Status::Invalid("expected " + std::to_string(names.size()) + " columns (" + JoinNames(names) +
                                 "), found " + std::to_string(fields.size()),
                             loc);
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].empty())
        return Status::Invalid("empty field in column " + std::to_string(i + 1) + " (" + names[i] + ")", loc);
    return Status::Ok();
  }

  Status CheckTag(std::string_view tag, int number) {
    std::string problem = TagProblem(tag, options_.encoding);
    return problem.empty() ? Status::Ok() : Status::Invalid(problem, SourceLoc{file_, number});
  }

  void AddToken(const std::vector<std::string_view>& fields) {
    if (current_.cols.empty()) current_.cols.resize(fields.size() - 1);
    size_t k = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i == layout_->label_index) continue;
      current_.cols[k++].emplace_back(fields[i]);
    }
    std::string_view tag = fields[layout_->label_index];
    auto [it, inserted] = label_ids_.try_emplace(std::string(tag), static_cast<int32_t>(label_ids_.size()));
    current_.labels.push_back(it->second);
  }

  Status EndSentence() {
    if (!current_.labels.empty()) corpus_.sentences.push_back(std::move(current_));
    current_ = Sentence();
    return Status::Ok();
  }

  void RenumberLabels() {
    std::vector<std::string> names(label_ids_.size());
    for (const auto& [name, id] : label_ids_) names[id] = name;
    std::vector<int32_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return names[a] < names[b]; });
    std::vector<int32_t> new_id(names.size());
    for (size_t rank = 0; rank < order.size(); ++rank) {
      new_id[order[rank]] = static_cast<int32_t>(rank);
      corpus_.label_names.push_back(names[order[rank]]);
    }
    for (auto& s : corpus_.sentences)
      for (auto& id : s.labels) id = new_id[id];
  }

  const std::string& file_;
  const ConllOptions& options_;
  std::optional<Layout> layout_;
  std::unordered_map<std::string, int32_t> label_ids_;
  Sentence current_;
  Corpus corpus_;
};

}  // namespace

Result<Corpus> ParseConll(std::string_view bytes, const std::string& file, const ConllOptions& options) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, DecodeFileText(std::string(bytes), file, options.file_encoding));
  ConllParser parser(file, options);
  if (!options.columns.empty()) SEQFLOW_RETURN_IF_ERROR(parser.SetLayout(options.columns.size(), 0));
  SEQFLOW_RETURN_IF_ERROR(ForEachLine(text, [&](std::string_view line, int n) { return parser.Line(line, n); }));
  return parser.Finish();
}

Status ForEachTextSentence(std::string bytes, const std::string& file, int64_t max_sentences,
                           FileEncoding file_encoding, const std::function<Status(Sentence&&)>& fn) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, DecodeFileText(std::move(bytes), file, file_encoding));
  int64_t sentences = 0;
  auto add_line = [&](std::string_view line, int) {
    if (max_sentences > 0 && sentences >= max_sentences) return Status::Ok();
    auto fields = SplitFields(line, Separator::kWhitespace);
    if (fields.empty()) return Status::Ok();
    Sentence s;
    s.cols.resize(1);
    for (auto f : fields) s.cols[0].emplace_back(f);
    ++sentences;
    return fn(std::move(s));
  };
  return ForEachLine(text, add_line);
}

Result<Corpus> ParseTextLines(std::string_view bytes, const std::string& file, int64_t max_sentences,
                              FileEncoding file_encoding) {
  Corpus corpus;
  corpus.columns = {"word"};
  corpus.source = file;
  SEQFLOW_RETURN_IF_ERROR(ForEachTextSentence(std::string(bytes), file, max_sentences, file_encoding, [&](Sentence&& s) {
    corpus.sentences.push_back(std::move(s));
    return Status::Ok();
  }));
  if (corpus.sentences.empty()) return Status::Invalid("empty file: no sentences", SourceLoc{file});
  return corpus;
}

}  // namespace seqflow
