#include "nodes/io/rewrite_rules.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <optional>
#include <sstream>

namespace seqflow {

namespace {

constexpr std::string_view kArrow = "=>";
constexpr std::string_view kRegexPrefix = "regex:";
constexpr std::string_view kNumeral = "{num}";

// What `Fields` splits at (std::isspace in the C locale): a line of only these holds no rule.
constexpr const char* kWhitespace = " \t\n\v\f\r";

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

// ECMAScript's replacement syntax ($&, $1..$9, $$) in RE2's (\0, \1..\9, \\ for a backslash).
std::string RewriteOf(std::string_view format) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const char next = i + 1 < format.size() ? format[i + 1] : '\0';
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '$' && (next == '&' || (next >= '1' && next <= '9'))) {
      out += '\\';
      out += next == '&' ? '0' : next;
      ++i;
    } else if (c == '$' && next == '$') {
      out += '$';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

Result<RewriteRule> ParseRegexRule(RewriteRule rule, const std::vector<std::string>& from,
                                   const std::vector<std::string>& to, const SourceLoc& loc) {
  if (from.size() != 1)
    return Status::Invalid("regex rule needs one pattern (a token has no spaces) between 'regex:' and '=>', found " +
                               std::to_string(from.size()),
                           loc);
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as tokens are read
  options.set_log_errors(false);
  auto regex = std::make_shared<const RE2>(from[0], options);
  if (!regex->ok()) return Status::Invalid("regex '" + from[0] + "' does not compile: " + regex->error(), loc);
  std::string format;
  for (const std::string& f : to) format += (format.empty() ? "" : " ") + f;
  rule.rewrite = RewriteOf(format);
  std::string error;
  if (!regex->CheckRewriteString(rule.rewrite, &error))
    return Status::Invalid("regex rule '" + rule.text + "': " + error, loc);
  rule.regex = std::move(regex);
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

RegexResult ApplyRegex(const RewriteRule& rule, const std::string& token) {
  const RE2& regex = *rule.regex;
  std::array<re2::StringPiece, 10> groups;  // \0 (the whole token) .. \9
  const int n = std::min<int>(groups.size(), 1 + regex.NumberOfCapturingGroups());
  if (!regex.Match(token, 0, token.size(), RE2::ANCHOR_BOTH, groups.data(), n)) return RegexResult{};
  std::string rewritten;
  regex.Rewrite(&rewritten, rule.rewrite, groups.data(), n);  // checked when the rule was parsed
  return RegexResult{Fields(rewritten)};
}

int64_t ApplyRegexRule(const RewriteRule& rule, std::vector<std::string>& tokens,
                       std::unordered_map<std::string, RegexResult>& memo) {
  std::vector<std::string> out;
  int64_t matches = 0;
  size_t copied = 0;  // tokens[0, copied) are in `out` once the first match starts it
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = memo.find(tokens[i]);
    if (it == memo.end()) {
      it = memo.emplace(tokens[i], ApplyRegex(rule, tokens[i])).first;
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
    const size_t first = line.find_first_not_of(kWhitespace);
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
      matches[r] += ApplyRegexRule(rule, tokens, memo.by_rule[r]);
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
