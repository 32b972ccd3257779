// Rewrite rules for raw text: one corpus's conventions mapped onto another's before anything counts
// its tokens (Reuters-21578's `mln`, `N dlrs`, `pct` onto the WSJ's `million`, `$ N`, `%`), so
// that symbols learned on the unlabeled text are the symbols the labeled text uses.
//
// A rule file has one rule a line; blank lines and lines starting with '#' are ignored:
//   FROM... => TO...          token rule: a run of whole tokens becomes a run of tokens. `{num}` in
//                             FROM matches one numeral (digits joined by single , . / - : `1,000`,
//                             `2.5`, `1-1/2`); the k-th `{num}` of TO is the k-th numeral matched.
//                             TO may be empty: the run is deleted.
//   regex: PATTERN => TO...   regex rule: every token that PATTERN (RE2 syntax, on bytes) matches
//                             whole becomes TO with $1..$9 (and $&) substituted, split at spaces;
//                             an empty TO deletes the token. RE2 matches in time linear in the
//                             token for every pattern (no backtracking: no backreferences or
//                             lookaround), so no token can stall or crash a rule.
// Rules apply in file order, each to the output of the rules before it; a token rule matches
// leftmost first and does not rescan what it wrote. A file with no rules rewrites nothing.
// Errors name file:line. Pure; thread safety: RewriteRules is immutable once parsed, and every
// RewriteTokens call keeps its own memo.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/io/corpus.h"

namespace re2 {
class RE2;
}

namespace seqflow {

struct RewriteRule {
  int line = 0;                    // in the rule file
  std::string text;                // the rule as written, for messages and reports
  std::vector<std::string> from;   // token rule: tokens or "{num}"
  std::vector<std::string> to;     // token rule: tokens or "{num}"
  std::shared_ptr<const re2::RE2> regex;  // regex rule (null for a token rule)
  std::string rewrite;             // regex rule: TO in RE2's rewrite syntax (\0 for $&, \1 for $1)
};

struct RewriteRules {
  std::string file;  // for messages
  std::vector<RewriteRule> rules;
};

// Errors: a line without " => ", an empty FROM, a `{...}` other than `{num}`, more `{num}` in TO
// than in FROM, a regex that does not compile.
Result<RewriteRules> ParseRewriteRules(std::string_view bytes, const std::string& file);

// True for the numerals `{num}` matches.
bool IsNumeral(std::string_view token);

// Regex rule results by token, one map per rule (a corpus has far fewer types than tokens);
// nullopt: the token does not match.
struct RewriteMemo {
  std::vector<std::unordered_map<std::string, std::optional<std::vector<std::string>>>> by_rule;
};

// Rewrites one sentence's tokens; adds each rule's number of matches to `matches` (sized to the rules).
Status RewriteTokens(const RewriteRules& rules, std::vector<std::string>& tokens, RewriteMemo& memo,
                     std::vector<int64_t>& matches);

// Rewrites the words of an unlabeled one-column corpus (what read.text makes); sentences left
// empty are dropped. Returns each rule's number of matches.
Result<std::vector<int64_t>> RewriteCorpus(const RewriteRules& rules, Corpus& corpus, const CancelToken& cancel);

}  // namespace seqflow
