#include "cli/completion.h"

namespace seqflow::cli {
namespace {

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

std::string CompletionScript(const std::string& shell, const std::vector<std::string>& top,
                             const CommandWords& commands, const std::vector<std::string>& kinds) {
  std::string out = "# seqflow completion for " + shell + ": eval \"$(seqflow completion " + shell + ")\"\n";
  if (shell == "zsh") out += "autoload -U +X bashcompinit && bashcompinit\n";
  out +=
      "_seqflow() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} path=\"\" i\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"$path ${COMP_WORDS[i]}\" in\n";
  // "$path WORD": " run" for a command, "cache rm" for a command's subcommand.
  for (const auto& [command, words] : commands) {
    const std::string typed = command.find(' ') == std::string::npos ? " " + command : command;
    out += "      \"" + typed + "\") path=\"" + command + "\" ;;\n";
  }
  out +=
      "    esac\n"
      "  done\n"
      "  local words\n"
      "  case \"$path\" in\n"
      "    \"\") words=\"" + Joined(top) + "\" ;;\n";
  for (const auto& [command, words] : commands) {
    const bool takes_kind = command == "kinds" || command == "cache rm";
    out += "    \"" + command + "\") words=\"" + Joined(words) + (takes_kind ? " " + Joined(kinds) : "") + "\" ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ $cur == -* || -z $path || $path == cache || $path == kinds || $path == \"cache rm\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  else\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o filenames -F _seqflow seqflow\n";
  return out;
}

}  // namespace seqflow::cli
