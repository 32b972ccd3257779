#include "nodes/io/conll_reader.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace conll_reader_test {

const std::string kFile = "t.conll";

ConllOptions Named(std::vector<std::string> columns) {
  ConllOptions o;
  o.columns = std::move(columns);
  return o;
}

// The error ParseConll gives for `text`, as "file:line: message".
std::string ErrorOf(std::string_view text, const ConllOptions& options = {}) {
  Result<Corpus> r = ParseConll(text, kFile, options);
  EXPECT_FALSE(r.ok()) << "parsed without error";
  return r.ok() ? "" : r.status().ToString();
}

Corpus Parse(std::string_view text, const ConllOptions& options = {}) {
  Result<Corpus> r = ParseConll(text, kFile, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Corpus();
}

std::vector<std::string> LabelsOf(const Corpus& c, size_t s) {
  std::vector<std::string> out;
  for (int32_t id : c.sentences[s].labels) out.push_back(c.label_names[id]);
  return out;
}

TEST(ConllReaderErrors, TooFewColumns) {
  EXPECT_EQ(ErrorOf("He PRP B-NP\nreckons VBZ\n"), "t.conll:2: expected 3 columns (word col1 label), found 2");
}

TEST(ConllReaderErrors, TooManyColumns) {
  EXPECT_EQ(ErrorOf("He PRP B-NP\n\nreckons VBZ B-VP x\n"), "t.conll:3: expected 3 columns (word col1 label), found 4");
}

TEST(ConllReaderErrors, NamedColumnsAreListed) {
  EXPECT_EQ(ErrorOf("a DT B-NP\nb B-NP\n", Named({"word", "POS", "chunk"})),
            "t.conll:2: expected 3 columns (word POS chunk), found 2");
}

TEST(ConllReaderErrors, GivenColumnsBindTheFirstLineToo) {
  EXPECT_EQ(ErrorOf("a B-NP\n", Named({"word", "POS", "chunk"})),
            "t.conll:1: expected 3 columns (word POS chunk), found 2");
}

TEST(ConllReaderErrors, UnknownPrefixInIob2) {
  EXPECT_EQ(ErrorOf("a DT B-NP\nb NN X-NP\n"),
            "t.conll:2: invalid tag 'X-NP' for encoding iob2 (expected O, B-TYPE or I-TYPE)");
}

TEST(ConllReaderErrors, EmptyTypeInIob2) {
  EXPECT_EQ(ErrorOf("a DT B-\n"), "t.conll:1: invalid tag 'B-' for encoding iob2 (expected O, B-TYPE or I-TYPE)");
}

TEST(ConllReaderErrors, BareLabelInIob1) {
  ConllOptions o;
  o.encoding = TagEncoding::kIob1;
  EXPECT_EQ(ErrorOf("a DT O\nb NN NP\n", o),
            "t.conll:2: invalid tag 'NP' for encoding iob1 (expected O, B-TYPE or I-TYPE)");
}

TEST(ConllReaderErrors, LowercasePrefix) {
  EXPECT_EQ(ErrorOf("a DT b-NP\n"), "t.conll:1: invalid tag 'b-NP' for encoding iob2 (expected O, B-TYPE or I-TYPE)");
}

TEST(ConllReaderErrors, EmptyFile) { EXPECT_EQ(ErrorOf(""), "t.conll: empty file: no sentences"); }

TEST(ConllReaderErrors, OnlyDocstartAndBlankLines) {
  EXPECT_EQ(ErrorOf("-DOCSTART- -X- O O\n\n\n  \n"), "t.conll: empty file: no sentences");
}

TEST(ConllReaderErrors, InvalidUtf8NamesLineAndColumn) {
  EXPECT_EQ(ErrorOf("a DT O\nd\xE9j\xE0 RB O\n"),
            "t.conll:2:2: invalid UTF-8 (byte 0xE9); if the file is Latin-1, set file_encoding: latin-1");
}

TEST(ConllReaderErrors, OverlongUtf8) {
  EXPECT_EQ(ErrorOf("a\xC0\xAF DT O\n"),
            "t.conll:1:2: invalid UTF-8 (byte 0xC0); if the file is Latin-1, set file_encoding: latin-1");
}

TEST(ConllReaderErrors, Utf8SurrogateOnThirdLine) {
  EXPECT_EQ(ErrorOf("a DT O\n\nb \xED\xA0\x80 O\n"),
            "t.conll:3:3: invalid UTF-8 (byte 0xED); if the file is Latin-1, set file_encoding: latin-1");
}

TEST(ConllReaderErrors, TruncatedUtf8AtEndOfFile) {
  EXPECT_EQ(ErrorOf("a DT O\nb DT \xE2\x82"),
            "t.conll:2:6: invalid UTF-8 (byte 0xE2); if the file is Latin-1, set file_encoding: latin-1");
}

TEST(ConllReaderErrors, EmptyFieldWithTabSeparator) {
  ConllOptions o;
  o.separator = Separator::kTab;
  EXPECT_EQ(ErrorOf("a\tDT\tO\nb\t\tO\n", o), "t.conll:2: empty field in column 2 (col1)");
}

TEST(ConllReaderErrors, TrailingTabIsAnExtraColumn) {
  ConllOptions o;
  o.separator = Separator::kTab;
  EXPECT_EQ(ErrorOf("a\tO\nb\tO\t\n", o), "t.conll:2: expected 2 columns (word label), found 3");
}

TEST(ConllReaderErrors, FirstColumnMustBeWord) {
  EXPECT_EQ(ErrorOf("a DT O\n", Named({"token", "POS", "chunk"})),
            "t.conll: the first column must be named 'word', got 'token'");
}

TEST(ConllReaderErrors, UnknownLabelColumn) {
  ConllOptions o = Named({"word", "POS", "chunk"});
  o.label_column = "ner";
  EXPECT_EQ(ErrorOf("a DT O\n", o), "t.conll: label_column 'ner' is not one of the columns (word POS chunk)");
}

TEST(ConllReaderErrors, UnknownLabelColumnWithDefaultNames) {
  ConllOptions o;
  o.label_column = "chunk";
  EXPECT_EQ(ErrorOf("a DT O\n", o), "t.conll:1: label_column 'chunk' is not one of the columns (word col1 label)");
}

TEST(ConllReaderErrors, DuplicateColumnName) {
  EXPECT_EQ(ErrorOf("a DT O\n", Named({"word", "POS", "POS"})), "t.conll: column name 'POS' appears twice");
}

TEST(ConllReaderErrors, SingleColumn) {
  EXPECT_EQ(ErrorOf("a\nb\n"), "t.conll:1: expected at least 2 columns (word and label), found 1");
}

TEST(ConllReaderErrors, LineNumbersCountCrlfDocstartAndBlankLines) {
  EXPECT_EQ(ErrorOf("-DOCSTART- -X- O\r\n\r\na DT O\r\n\r\n\r\nb DT\r\n"),
            "t.conll:6: expected 3 columns (word col1 label), found 2");
}

TEST(ConllReader, ReadsColumnsAndSortsLabels) {
  Corpus c = Parse("He PRP B-NP\nreckons VBZ B-VP\n\nthe DT B-NP\ncurrent JJ I-NP\n. . O\n");
  EXPECT_EQ(c.columns, (std::vector<std::string>{"word", "col1"}));
  EXPECT_EQ(c.label_names, (std::vector<std::string>{"B-NP", "B-VP", "I-NP", "O"}));
  EXPECT_EQ(c.encoding, TagEncoding::kIob2);
  EXPECT_EQ(c.source, kFile);
  ASSERT_EQ(c.sentences.size(), 2u);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"He", "reckons"}));
  EXPECT_EQ(c.sentences[1].cols[1], (std::vector<std::string>{"DT", "JJ", "."}));
  EXPECT_EQ(c.sentences[1].labels, (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(c.num_tokens(), 5u);
}

TEST(ConllReader, LabelColumnInTheMiddle) {
  ConllOptions o = Named({"word", "POS", "chunk"});
  o.label_column = "POS";
  o.encoding = TagEncoding::kRuns;
  Corpus c = Parse("a DT B-NP\nb NN I-NP\n", o);
  EXPECT_EQ(c.columns, (std::vector<std::string>{"word", "chunk"}));
  EXPECT_EQ(c.label_names, (std::vector<std::string>{"DT", "NN"}));
  EXPECT_EQ(c.sentences[0].cols[1], (std::vector<std::string>{"B-NP", "I-NP"}));
}

TEST(ConllReader, DocstartLinesAreBoundariesAndDropped) {
  // The CoNLL-2003 layout (DOCSTART, blank) and the CoNLL-2002 Dutch one (glued to a sentence).
  Corpus c = Parse("-DOCSTART- -X- O\n\na X B-PER\n\n\n\nb X O\n-DOCSTART- -X- O\nc X O\nd X O\n");
  ASSERT_EQ(c.sentences.size(), 3u);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"a"}));
  EXPECT_EQ(c.sentences[1].words(), (std::vector<std::string>{"b"}));
  EXPECT_EQ(c.sentences[2].words(), (std::vector<std::string>{"c", "d"}));
}

TEST(ConllReader, CrlfAndByteOrderMark) {
  Corpus c = Parse(
      "\xEF\xBB\xBF"
      "a DT O\r\nb NN B-NP\r\n\r\n");
  ASSERT_EQ(c.sentences.size(), 1u);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.label_names, (std::vector<std::string>{"B-NP", "O"}));
}

TEST(ConllReader, Latin1IsConvertedToUtf8) {
  ConllOptions o;
  o.file_encoding = FileEncoding::kLatin1;
  Corpus c = Parse(
      "Coru\xF1"
      "a NC B-LOC\n\xC9tienne NP B-PER\n",
      o);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"Coru\xC3\xB1"
                                                              "a",
                                                              "\xC3\x89tienne"}));
}

TEST(ConllReader, TabSeparatorKeepsSpacesAndNoBreakSpaces) {
  ConllOptions o;
  o.separator = Separator::kTab;
  o.encoding = TagEncoding::kRuns;
  Corpus c = Parse("\xC2\xA0\tG\n\xE2\x80\x94\xC2\xA0launch\tN\nnew york\t^\n", o);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"\xC2\xA0", "\xE2\x80\x94\xC2\xA0launch", "new york"}));
  EXPECT_EQ(LabelsOf(c, 0), (std::vector<std::string>{"G", "N", "^"}));
}

TEST(ConllReader, WhitespaceSeparatorDoesNotSplitNoBreakSpace) {
  ConllOptions o;
  o.encoding = TagEncoding::kRuns;
  Corpus c = Parse(
      "a\xC2\xA0"
      "b\tN\n",
      o);
  EXPECT_EQ(c.sentences[0].words(), (std::vector<std::string>{"a\xC2\xA0"
                                                              "b"}));
}

TEST(ConllReader, RunsAcceptsAnyLabel) {
  ConllOptions o;
  o.encoding = TagEncoding::kRuns;
  Corpus c = Parse("A.\tauthor\nCau,\tauthor\nTitle\ttitle\n", o);
  EXPECT_EQ(c.label_names, (std::vector<std::string>{"author", "title"}));
  EXPECT_EQ(c.encoding, TagEncoding::kRuns);
}

TEST(TextReader, OneSentenceALineBlankLinesSkipped) {
  Result<Corpus> r = ParseTextLines("the cat  sat\n\n  on the mat \r\nend\n", "raw.txt", 0, FileEncoding::kUtf8);
  ASSERT_OK(r);
  ASSERT_EQ(r->sentences.size(), 3u);
  EXPECT_EQ(r->columns, (std::vector<std::string>{"word"}));
  EXPECT_FALSE(r->labeled());
  EXPECT_EQ(r->sentences[1].words(), (std::vector<std::string>{"on", "the", "mat"}));
  EXPECT_TRUE(r->sentences[1].labels.empty());
}

TEST(TextReader, MaxSentences) {
  Result<Corpus> r = ParseTextLines("a\nb\nc\n", "raw.txt", 2, FileEncoding::kUtf8);
  ASSERT_OK(r);
  EXPECT_EQ(r->sentences.size(), 2u);
}

TEST(TextReader, Errors) {
  EXPECT_EQ(ParseTextLines("\n \n", "raw.txt", 0, FileEncoding::kUtf8).status().ToString(),
            "raw.txt: empty file: no sentences");
  EXPECT_EQ(ParseTextLines("ok\nna\xEFve\n", "raw.txt", 0, FileEncoding::kUtf8).status().ToString(),
            "raw.txt:2:3: invalid UTF-8 (byte 0xEF); if the file is Latin-1, set file_encoding: latin-1");
  Result<Corpus> latin = ParseTextLines("na\xEFve\n", "raw.txt", 0, FileEncoding::kLatin1);
  ASSERT_OK(latin);
  EXPECT_EQ(latin->sentences[0].words()[0], "na\xC3\xAFve");
}

}  // namespace conll_reader_test
}  // namespace seqflow
