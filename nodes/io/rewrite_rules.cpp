#include "nodes/io/rewrite_rules.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace seqflow {

namespace {

constexpr std::string_view kArrow = "=>";
constexpr std::string_view kRegexPrefix = "regex:";
constexpr std::string_view kNumeral = "{num}";

std::vector<std::string> Fields(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

bool IsPlaceholder(const std::string& field) { return field.size() >= 2 && field.front() == '{' && field.back() == '}'; }

// Counts `{num}` in `fields`; any other `{...}` is an error.
Result<int> CountNumerals(const std::vector<std::string>& fields, const SourceLoc& loc) {
  int count = 0;
  for (const std::string& f : fields) {
    if (!IsPlaceholder(f)) continue;
    if (f != kNumeral) return Status::Invalid("unknown placeholder '" + f + "' in a rewrite rule (only {num})", loc);
    ++count;
  }
  return count;
}

Result<RewriteRule> ParseTokenRule(RewriteRule rule, const std::vector<std::string>& from,
                                   const std::vector<std::string>& to, const SourceLoc& loc) {
  if (from.empty()) return Status::Invalid("rewrite rule has nothing before '=>'", loc);
  SEQFLOW_ASSIGN_OR_RETURN(int from_numerals, CountNumerals(from, loc));
  SEQFLOW_ASSIGN_OR_RETURN(int to_numerals, CountNumerals(to, loc));
  if (to_numerals > from_numerals)
    return Status::Invalid("rewrite rule writes " + std::to_string(to_numerals) + " {num} but matches " +
                               std::to_string(from_numerals),
                           loc);
  rule.from = from;
  rule.to = to;
  return rule;
}

Result<RewriteRule> ParseRegexRule(RewriteRule rule, const std::vector<std::string>& from,
                                   const std::vector<std::string>& to, const SourceLoc& loc) {
  if (from.size() != 1)
    return Status::Invalid("regex rule needs one pattern (a token has no spaces) between 'regex:' and '=>', found " +
                               std::to_string(from.size()),
                           loc);
  try {
    rule.regex = std::make_shared<const std::regex>(from[0], std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return Status::Invalid("regex '" + from[0] + "' does not compile: " + e.what(), loc);
  }
  std::string format;
  for (const std::string& f : to) format += (format.empty() ? "" : " ") + f;
  rule.format = std::move(format);
  return rule;
}

Result<RewriteRule> ParseRule(std::string_view line, const SourceLoc& loc) {
  std::vector<std::string> fields = Fields(line);
  const bool is_regex = fields.front() == kRegexPrefix;
  if (is_regex) fields.erase(fields.begin());
  const auto arrow = std::find(fields.begin(), fields.end(), kArrow);
  if (arrow == fields.end()) return Status::Invalid("rewrite rule without '=>' (FROM... => TO...)", loc);
  if (std::find(arrow + 1, fields.end(), kArrow) != fields.end())
    return Status::Invalid("rewrite rule with more than one '=>'", loc);
  const std::vector<std::string> from(fields.begin(), arrow), to(arrow + 1, fields.end());
  RewriteRule rule;
  rule.line = loc.line;
  rule.text = std::string(line);
  return is_regex ? ParseRegexRule(std::move(rule), from, to, loc) : ParseTokenRule(std::move(rule), from, to, loc);
}

// Whether `rule.from` matches `tokens` at `at`; the numerals it matched go to `numerals`.
bool MatchesAt(const RewriteRule& rule, const std::vector<std::string>& tokens, size_t at,
               std::vector<const std::string*>& numerals) {
  if (at + rule.from.size() > tokens.size()) return false;
  numerals.clear();
  for (size_t k = 0; k < rule.from.size(); ++k) {
    const std::string& token = tokens[at + k];
    if (rule.from[k] == kNumeral) {
      if (!IsNumeral(token)) return false;
      numerals.push_back(&token);
    } else if (rule.from[k] != token) {
      return false;
    }
  }
  return true;
}

int64_t ApplyTokenRule(const RewriteRule& rule, std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::vector<const std::string*> numerals;
  int64_t matches = 0;
  size_t copied = 0;  // tokens[0, copied) are in `out` once the first match starts it
  for (size_t i = 0; i < tokens.size();) {
    if (!MatchesAt(rule, tokens, i, numerals)) {
      ++i;
      continue;
    }
    if (matches == 0) out.reserve(tokens.size() + rule.to.size());
    out.insert(out.end(), std::make_move_iterator(tokens.begin() + copied), std::make_move_iterator(tokens.begin() + i));
    size_t next_numeral = 0;
    for (const std::string& t : rule.to) out.push_back(t == kNumeral ? *numerals[next_numeral++] : t);
    ++matches;
    i += rule.from.size();
    copied = i;
  }
  if (matches == 0) return 0;
  out.insert(out.end(), std::make_move_iterator(tokens.begin() + copied), std::make_move_iterator(tokens.end()));
  tokens = std::move(out);
  return matches;
}

using RegexResult = std::optional<std::vector<std::string>>;  // nullopt: no match

Result<RegexResult> ApplyRegex(const RewriteRule& rule, const std::string& token, const std::string& file) {
  try {
    std::smatch match;
    if (!std::regex_match(token, match, *rule.regex)) return RegexResult{};
    return RegexResult{Fields(match.format(rule.format))};
  } catch (const std::regex_error& e) {
    return Status::Invalid("regex rule failed on token '" + token + "': " + e.what(), SourceLoc{file, rule.line});
  }
}

Result<int64_t> ApplyRegexRule(const RewriteRule& rule, const std::string& file, std::vector<std::string>& tokens,
                               std::unordered_map<std::string, RegexResult>& memo) {
  std::vector<std::string> out;
  int64_t matches = 0;
  size_t copied = 0;  // tokens[0, copied) are in `out` once the first match starts it
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = memo.find(tokens[i]);
    if (it == memo.end()) {
      SEQFLOW_ASSIGN_OR_RETURN(RegexResult result, ApplyRegex(rule, tokens[i], file));
      it = memo.emplace(tokens[i], std::move(result)).first;
    }
    if (!it->second) continue;
    if (matches == 0) out.reserve(tokens.size() + it->second->size());
    out.insert(out.end(), std::make_move_iterator(tokens.begin() + copied), std::make_move_iterator(tokens.begin() + i));
    out.insert(out.end(), it->second->begin(), it->second->end());
    ++matches;
    copied = i + 1;
  }
  if (matches == 0) return 0;
  out.insert(out.end(), std::make_move_iterator(tokens.begin() + copied), std::make_move_iterator(tokens.end()));
  tokens = std::move(out);
  return matches;
}

}  // namespace

bool IsNumeral(std::string_view token) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (token.empty() || !digit(token.front()) || !digit(token.back())) return false;
  for (size_t i = 0; i < token.size(); ++i) {
    if (digit(token[i])) continue;
    if (std::string_view(",./-").find(token[i]) == std::string_view::npos || !digit(token[i - 1])) return false;
  }
  return true;
}

Result<RewriteRules> ParseRewriteRules(std::string_view bytes, const std::string& file) {
  RewriteRules rules;
  rules.file = file;
  std::istringstream in{std::string(bytes)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    SEQFLOW_ASSIGN_OR_RETURN(RewriteRule rule, ParseRule(line, SourceLoc{file, number}));
    rules.rules.push_back(std::move(rule));
  }
  return rules;
}

Status RewriteTokens(const RewriteRules& rules, std::vector<std::string>& tokens, RewriteMemo& memo,
                     std::vector<int64_t>& matches) {
  memo.by_rule.resize(rules.rules.size());
  matches.resize(rules.rules.size(), 0);
  for (size_t r = 0; r < rules.rules.size(); ++r) {
    const RewriteRule& rule = rules.rules[r];
    if (rule.regex) {
      SEQFLOW_ASSIGN_OR_RETURN(int64_t n, ApplyRegexRule(rule, rules.file, tokens, memo.by_rule[r]));
      matches[r] += n;
    } else {
      matches[r] += ApplyTokenRule(rule, tokens);
    }
  }
  return Status::Ok();
}

Result<std::vector<int64_t>> RewriteCorpus(const RewriteRules& rules, Corpus& corpus, const CancelToken& cancel) {
  if (corpus.columns.size() != 1 || corpus.labeled())
    return Status::Invalid("rewrite rules '" + rules.file + "' apply to raw text (one word column, no labels)",
                           SourceLoc{corpus.source});
  RewriteMemo memo;
  std::vector<int64_t> matches(rules.rules.size(), 0);
  constexpr size_t kCancelEvery = 4096;
  for (size_t s = 0; s < corpus.sentences.size(); ++s) {
    if (s % kCancelEvery == 0) SEQFLOW_RETURN_IF_ERROR(cancel.Check("rewriting " + corpus.source));
    SEQFLOW_RETURN_IF_ERROR(RewriteTokens(rules, corpus.sentences[s].cols[0], memo, matches));
  }
  std::erase_if(corpus.sentences, [](const Sentence& s) { return s.size() == 0; });
  if (corpus.sentences.empty())
    return Status::Invalid("rewrite rules '" + rules.file + "' leave no token", SourceLoc{corpus.source});
  return matches;
}

}  // namespace seqflow
