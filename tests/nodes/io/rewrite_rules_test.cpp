// Rewrite rules: the rule language, its errors (file:line), and read.text's `rewrite` option.
#include "nodes/io/rewrite_rules.h"

#include <gtest/gtest.h>

#include <sstream>

#include "nodes/io/io_nodes.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace rewrite_rules_test {

RewriteRules RulesOf(std::string_view text) {
  Result<RewriteRules> rules = ParseRewriteRules(text, "r.rules");
  EXPECT_TRUE(rules.ok()) << rules.status().ToString();
  return rules.ok() ? *rules : RewriteRules{};
}

// The tokens of `sentence` (space-separated) after `rules`, joined by spaces; matches per rule in `matches`.
std::string Rewrite(const RewriteRules& rules, std::string_view sentence, std::vector<int64_t>* matches = nullptr) {
  std::vector<std::string> tokens;
  std::istringstream in{std::string(sentence)};
  for (std::string t; in >> t;) tokens.push_back(t);
  RewriteMemo memo;
  std::vector<int64_t> counts;
  EXPECT_OK(RewriteTokens(rules, tokens, memo, counts));
  if (matches) *matches = counts;
  std::string out;
  for (const std::string& t : tokens) out += (out.empty() ? "" : " ") + t;
  return out;
}

std::string ErrorOf(std::string_view text) { return ParseRewriteRules(text, "r.rules").status().ToString(); }

TEST(RewriteRules, NumeralsAreDigitsJoinedBySingleSeparators) {
  for (const char* yes : {"7", "1,000", "2.5", "3/4", "1-1/2", "1987-88", "10.5"}) EXPECT_TRUE(IsNumeral(yes)) << yes;
  for (const char* no : {"", "mln", ".5", "5.", "1..2", "1,,000", "5-", "-5", "5pct", "$5", "1/2-"})
    EXPECT_FALSE(IsNumeral(no)) << no;
}

TEST(RewriteRules, TokenRulesSkipCommentsAndBlankLines) {
  RewriteRules rules = RulesOf("# Reuters to WSJ\n\n  # indented comment\nmln => million\r\npct => %\n");
  ASSERT_EQ(rules.rules.size(), 2u);
  EXPECT_EQ(rules.rules[0].line, 4);
  EXPECT_EQ(rules.rules[1].line, 5);
  EXPECT_EQ(rules.rules[1].text, "pct => %");
  std::vector<int64_t> matches;
  EXPECT_EQ(Rewrite(rules, "up 5 pct to 3 mln from 2 mln", &matches), "up 5 % to 3 million from 2 million");
  EXPECT_EQ(matches, (std::vector<int64_t>{2, 1}));
}

// A line of form feeds, vertical tabs or carriage returns is blank too (found by the fuzzer: it
// was read as a rule without a first field).
TEST(RewriteRules, ALineOfAnyWhitespaceIsBlank) {
  RewriteRules rules = RulesOf("\f\n \v\t\n\r\r\nmln => million\n\v # comment after a vertical tab\n");
  ASSERT_EQ(rules.rules.size(), 1u);
  EXPECT_EQ(rules.rules[0].line, 4);
}

TEST(RewriteRules, NumeralsMoveAndTokenRunsMatchWhole) {
  RewriteRules rules = RulesOf("{num} million dlrs => $ {num} million\n{num} dlrs => $ {num}\n");
  EXPECT_EQ(Rewrite(rules, "paid 1.5 million dlrs and 20 dlrs , not dlrs"), "paid $ 1.5 million and $ 20 , not dlrs");
  // No numeral before it: unchanged; a run cut by the sentence end does not match.
  EXPECT_EQ(Rewrite(rules, "five million dlrs 3 million"), "five million dlrs 3 million");
  RewriteRules swap = RulesOf("{num} to {num} => {num} - {num}\n");
  EXPECT_EQ(Rewrite(swap, "from 3 to 4 to 5"), "from 3 - 4 to 5");  // leftmost, no rescan
}

TEST(RewriteRules, RulesApplyInFileOrderEachToThePreviousOutput) {
  EXPECT_EQ(Rewrite(RulesOf("mln => million\n{num} million dlrs => $ {num} million\n"), "2 mln dlrs"),
            "$ 2 million");
  EXPECT_EQ(Rewrite(RulesOf("{num} million dlrs => $ {num} million\nmln => million\n"), "2 mln dlrs"),
            "2 million dlrs");
}

TEST(RewriteRules, EmptyReplacementDeletes) {
  EXPECT_EQ(Rewrite(RulesOf("< =>\n> =>\n"), "< Caterpillar Inc > said"), "Caterpillar Inc said");
}

TEST(RewriteRules, RegexRulesMatchWholeTokensAndSplit) {
  RewriteRules rules = RulesOf("regex: (mln|dlrs|pct)\\. => $1 .\nregex: ([0-9]+)-mln => $1 million\nregex: x+ =>\n");
  std::vector<int64_t> matches;
  EXPECT_EQ(Rewrite(rules, "rose 5 pct. a 40-mln xx loan pct.x mln", &matches), "rose 5 pct . a 40 million loan pct.x mln");
  EXPECT_EQ(matches, (std::vector<int64_t>{1, 1, 1}));
  // The memo gives the same answer for a token seen before.
  RewriteMemo memo;
  std::vector<std::string> tokens = {"pct.", "pct.", "a"};
  std::vector<int64_t> counts;
  ASSERT_OK(RewriteTokens(rules, tokens, memo, counts));
  EXPECT_EQ(tokens, (std::vector<std::string>{"pct", ".", "pct", ".", "a"}));
  EXPECT_EQ(counts[0], 2);
}

TEST(RewriteRules, ReplacementsTakeTheWholeMatchGroupsAndLiteralDollarsAndBackslashes) {
  EXPECT_EQ(Rewrite(RulesOf("regex: ([a-z]+)-([0-9]+) => $2 $1 [$&] $$ a\\b\n"), "x ab-12 y"),
            "x 12 ab [ab-12] $ a\\b y");
  EXPECT_EQ(ErrorOf("regex: (a) => $2\n").rfind("r.rules:1: regex rule 'regex: (a) => $2': ", 0), 0u)
      << ErrorOf("regex: (a) => $2\n");
}

// std::regex backtracked on these: (a+)+c took 29 s of CPU on 31 characters, doubling with each,
// and (x|y)* overflowed its stack (SIGSEGV) on 20,000. RE2 answers each in linear time.
TEST(RewriteRules, PathologicalPatternsOnLongTokensAnswerAtOnce) {
  const std::string as(5000, 'a'), xs(200000, 'x');
  EXPECT_EQ(Rewrite(RulesOf("regex: (a+)+c => C\n"), as + " ac"), as + " C");
  EXPECT_EQ(Rewrite(RulesOf("regex: (x|y)* => Z\n"), xs + " yx q"), "Z Z q");
  EXPECT_EQ(ErrorOf("regex: (a)\\1 => b\n").rfind("r.rules:1: regex '(a)\\1' does not compile: ", 0), 0u)
      << "RE2 has no backreferences: " << ErrorOf("regex: (a)\\1 => b\n");
}

TEST(RewriteRules, AFileWithoutRulesRewritesNothing) {
  RewriteRules rules = RulesOf("# nothing\n");
  EXPECT_TRUE(rules.rules.empty());
  EXPECT_EQ(Rewrite(rules, "5 pct"), "5 pct");
}

TEST(RewriteRules, ErrorsNameFileAndLine) {
  EXPECT_EQ(ErrorOf("mln => million\npct %\n"), "r.rules:2: rewrite rule without '=>' (FROM... => TO...)");
  EXPECT_EQ(ErrorOf("# c\n=> million\n"), "r.rules:2: rewrite rule has nothing before '=>'");
  EXPECT_EQ(ErrorOf("a => b => c\n"), "r.rules:1: rewrite rule with more than one '=>'");
  EXPECT_EQ(ErrorOf("{number} dlrs => $ {number}\n"),
            "r.rules:1: unknown placeholder '{number}' in a rewrite rule (only {num})");
  EXPECT_EQ(ErrorOf("dlrs => $ {num}\n"), "r.rules:1: rewrite rule writes 1 {num} but matches 0");
  EXPECT_EQ(ErrorOf("regex: a b => c\n"),
            "r.rules:1: regex rule needs one pattern (a token has no spaces) between 'regex:' and '=>', found 2");
  EXPECT_EQ(ErrorOf("regex: => c\n"),
            "r.rules:1: regex rule needs one pattern (a token has no spaces) between 'regex:' and '=>', found 0");
  const std::string bad_regex = ErrorOf("\nregex: ([0-9]+ => $1\n");
  EXPECT_EQ(bad_regex.rfind("r.rules:2: regex '([0-9]+' does not compile: ", 0), 0u) << bad_regex;
}

TEST(RewriteRules, CorpusRewriteDropsEmptiedSentencesAndRefusesLabeledCorpora) {
  Corpus corpus;
  corpus.columns = {"word"};
  corpus.source = "t.txt";
  corpus.sentences.resize(2);
  corpus.sentences[0].cols = {{"<", ">"}};
  corpus.sentences[1].cols = {{"3", "mln"}};
  Result<std::vector<int64_t>> matches = RewriteCorpus(RulesOf("< =>\n> =>\nmln => million\n"), corpus, CancelToken());
  ASSERT_OK(matches);
  EXPECT_EQ(*matches, (std::vector<int64_t>{1, 1, 1}));
  ASSERT_EQ(corpus.sentences.size(), 1u);
  EXPECT_EQ(corpus.sentences[0].words(), (std::vector<std::string>{"3", "million"}));

  EXPECT_EQ(RewriteCorpus(RulesOf("3 =>\nmillion =>\n"), corpus, CancelToken()).status().ToString(),
            "t.txt: rewrite rules 'r.rules' leave no token");
  corpus.columns = {"word", "pos"};
  EXPECT_EQ(RewriteCorpus(RulesOf("a => b\n"), corpus, CancelToken()).status().ToString(),
            "t.txt: rewrite rules 'r.rules' apply to raw text (one word column, no labels)");
}

TEST(RewriteRules, ReadTextRewritesReportsAndNamesBadRuleFiles) {
  Registry registry;
  RegisterIoNodes(registry);
  const KindSpec& kind = *registry.FindKind("read.text");
  EXPECT_EQ(kind.FindParam("rewrite")->type, ParamType::kPath);
  EXPECT_TRUE(kind.FindParam("rewrite")->default_value.has_value());

  testutil::FakeNodeContext read(kind, {{"path", std::string("/raw")}, {"rewrite", std::string("/w.rules")}});
  read.AddFile("/raw", "rose 5 pct\n< >\nup 2 mln dlrs\n");
  read.AddFile("/w.rules", "# Reuters\nmln => million\n{num} million dlrs => $ {num} million\npct => %\n< =>\n> =>\n");
  auto corpus = std::dynamic_pointer_cast<const Corpus>(kind.run(read));
  ASSERT_NE(corpus, nullptr);
  ASSERT_EQ(corpus->sentences.size(), 2u);
  EXPECT_EQ(corpus->sentences[1].words(), (std::vector<std::string>{"up", "$", "2", "million"}));
  EXPECT_EQ(read.metrics().at("rewrites"), 5);
  EXPECT_EQ(read.metrics().at("tokens_before_rewrite"), 9);
  EXPECT_EQ(read.metrics().at("tokens"), 7);
  EXPECT_EQ(read.metrics().at("sentences"), 2);
  EXPECT_EQ(read.attachments().at("rewrites.tsv"),
            "line\tmatches\trule\n2\t1\tmln => million\n3\t1\t{num} million dlrs => $ {num} million\n"
            "4\t1\tpct => %\n5\t1\t< =>\n6\t1\t> =>\n");

  testutil::FakeNodeContext bad(kind, {{"path", std::string("/raw")}, {"rewrite", std::string("/bad.rules")}});
  bad.AddFile("/raw", "a\n");
  bad.AddFile("/bad.rules", "a => b\n\nc d\n");
  try {
    kind.run(bad);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().ToString(), "/bad.rules:3: rewrite rule without '=>' (FROM... => TO...)");
  }
}

}  // namespace rewrite_rules_test
}  // namespace seqflow
