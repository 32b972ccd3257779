// Parsing kernels for the two text formats seqflow reads: CoNLL column files (one token a line,
// blank line between sentences) and plain text (one sentence a line). Pure: they take the
// file's bytes and its name (for messages), never touch the disk.
//
// CoNLL rules: "-DOCSTART-" lines are document breaks and are dropped (with the blank line that
// usually follows); any run of blank lines is one sentence boundary; CRLF is accepted. Every
// error names file:line (and a column where it helps), e.g.
//   "train.txt:12: expected 3 columns (word POS chunk), found 2".
// Label ids are assigned in byte order of the label names, so the same file always gives the
// same ids. Thread safety: stateless.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/tag_map.h"
#include "nodes/io/text_encoding.h"

namespace seqflow {

enum class Separator { kWhitespace, kTab };
const char* SeparatorName(Separator s);           // "whitespace", "tab"

struct ConllOptions {
  // Column names in file order; the first must be "word". Empty: taken from the first token
  // line as word, col1, col2, ..., label.
  std::vector<std::string> columns;
  std::string label_column;  // "" = the last column
  TagEncoding encoding = TagEncoding::kIob2;
  FileEncoding file_encoding = FileEncoding::kUtf8;
  // kTab splits only on '\t', so a token may contain spaces or U+00A0.
  Separator separator = Separator::kWhitespace;
  // When set, every label is replaced by its mapping as it is read (an unmapped label is an
  // error at its line); the encoding is checked on the mapped label.
  std::shared_ptr<const TagMap> tag_map;
};

// A labeled corpus: Corpus::columns are the file's columns without the label column.
Result<Corpus> ParseConll(std::string_view bytes, const std::string& file, const ConllOptions& options);

// The sentences ParseTextLines makes, handed to `fn` one at a time as they are read (a streaming
// reader keeps only what it has not yet stored); stops at fn's first error. Takes the bytes so
// that a caller moving them in holds the text once.
Status ForEachTextSentence(std::string bytes, const std::string& file, int64_t max_sentences,
                           FileEncoding file_encoding, const std::function<Status(Sentence&&)>& fn);
// An unlabeled corpus with the single column "word": each non-blank line is a sentence of
// whitespace-separated tokens. max_sentences = 0 reads all.
Result<Corpus> ParseTextLines(std::string_view bytes, const std::string& file, int64_t max_sentences,
                              FileEncoding file_encoding);

}  // namespace seqflow
