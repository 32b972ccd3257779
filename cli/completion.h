// `seqflow completion bash|zsh`: a shell script that completes seqflow's commands, their options,
// node kinds (after `kinds` and `cache rm`) and file names. Built from the command line's own
// declarations (main.cpp walks them into CommandWords), so it cannot fall behind them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace seqflow::cli {

// Command path ("run", "cache", "cache gc") -> the words that may follow it: its options and
// its subcommands.
using CommandWords = std::map<std::string, std::vector<std::string>>;

// The script for `shell` ("bash" or "zsh", through zsh's bashcompinit); `top` are the commands
// and top-level options, `kinds` the node kinds.
std::string CompletionScript(const std::string& shell, const std::vector<std::string>& top,
                             const CommandWords& commands, const std::vector<std::string>& kinds);

}  // namespace seqflow::cli
