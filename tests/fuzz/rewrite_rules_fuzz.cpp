// libFuzzer target: a rewrite rule file and a text -> rules or a located error, and the text
// rewritten by every rule that parses (read.text's `rewrite:`). Regex rules run on RE2, linear in
// the token for every pattern: no input may crash, hang or take the process's stack.
//
// Input: the rule file, then a NUL byte, then the text (tokens split at whitespace).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "nodes/io/rewrite_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace seqflow;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view rules_text = input.substr(0, split);
  Result<RewriteRules> rules = ParseRewriteRules(rules_text, "fuzz.rewrite");
  if (!rules.ok() || split == std::string_view::npos) return 0;
  std::istringstream in{std::string(input.substr(split + 1))};
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  RewriteMemo memo;
  std::vector<int64_t> matches;
  (void)RewriteTokens(*rules, tokens, memo, matches);
  return 0;
}
