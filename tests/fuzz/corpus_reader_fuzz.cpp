// libFuzzer target: bytes -> corpus or a clean data error, through the parsers behind read.conll,
// read.tagged and read.text (gzip included, as read.text sees it), with a tag map when asked.
// A corpus that parses must survive Save -> Load -> Save unchanged.
//
// Input: one options byte, then the file; with bit 5 set the file ends at the first NUL byte and
// what follows is a tag map (read.conll, read.tagged). Options byte:
//   bits 0-1  reader: 0 read.conll (whitespace), 1 read.conll (tab), 2 read.tagged, 3 read.text
//   bits 2-3  tag encoding: none, iob1, iob2, runs
//   bit 4     file encoding latin-1 (else UTF-8)
//   bit 5     a tag map follows the file
//   bit 6     read.conll: columns named word pos chunk, the label column `pos`;
//             read.tagged: delimiter "_"; read.text: max_sentences 3
// Rewrite rules (read.text's `rewrite:`) have a target of their own, rewrite_rules_fuzz.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "engine/base/bytes.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/gzip.h"
#include "nodes/io/tag_map.h"
#include "nodes/io/tagged_reader.h"

namespace {

using namespace seqflow;

constexpr TagEncoding kEncodings[] = {TagEncoding::kNone, TagEncoding::kIob1, TagEncoding::kIob2, TagEncoding::kRuns};

void CheckRoundTrip(const Corpus& corpus) {
  ByteWriter saved;
  corpus.Save(saved);
  ByteReader reader(saved.bytes());
  std::shared_ptr<const Corpus> loaded = Corpus::Load(reader);
  ByteWriter again;
  loaded->Save(again);
  if (again.bytes() != saved.bytes()) std::abort();
}

Result<Corpus> Parse(uint8_t options, std::string_view file, std::string_view tag_map) {
  const std::string name = "fuzz.txt";
  const int reader = options & 3;
  const TagEncoding encoding = kEncodings[(options >> 2) & 3];
  const FileEncoding file_encoding = (options & 16) ? FileEncoding::kLatin1 : FileEncoding::kUtf8;
  const bool variant = options & 64;
  std::shared_ptr<const TagMap> map;
  if (options & 32) {
    Result<TagMap> parsed = ParseTagMap(tag_map, "fuzz.map");
    if (!parsed.ok()) return parsed.status();
    map = std::make_shared<const TagMap>(std::move(parsed).value());
  }
  if (reader <= 1) {
    ConllOptions conll;
    conll.encoding = encoding;
    conll.file_encoding = file_encoding;
    conll.separator = reader == 1 ? Separator::kTab : Separator::kWhitespace;
    conll.tag_map = map;
    if (variant) {
      conll.columns = {"word", "pos", "chunk"};
      conll.label_column = "pos";
    }
    return ParseConll(file, name, conll);
  }
  if (reader == 2) {
    TaggedTextOptions tagged;
    tagged.encoding = encoding;
    tagged.file_encoding = file_encoding;
    tagged.tag_map = map;
    if (variant) tagged.delimiter = "_";
    return ParseTaggedLines(file, name, tagged);
  }
  std::string bytes(file);
  if (IsGzip(bytes)) {
    Result<std::string> unzipped = Gunzip(bytes, name);
    if (!unzipped.ok()) return unzipped.status();
    bytes = std::move(unzipped).value();
  }
  return ParseTextLines(bytes, name, variant ? 3 : 0, file_encoding);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string_view tag_map;
  if (data[0] & 32) {
    size_t nul = file.find('\0');
    if (nul != std::string_view::npos) {
      tag_map = file.substr(nul + 1);
      file = file.substr(0, nul);
    }
  }
  Result<Corpus> corpus = Parse(data[0], file, tag_map);
  if (corpus.ok()) CheckRoundTrip(*corpus);
  return 0;
}
