#include "cli/invocation.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>

namespace seqflow::cli {
namespace {

// The standard output of `command` (a shell command line), its last newline dropped; "" when it
// fails.
std::string OutputOf(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  std::array<char, 4096> buffer;
  for (size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) out.append(buffer.data(), n);
  if (::pclose(pipe) != 0) return "";
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A path as one shell word.
std::string Quoted(const std::string& path) {
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::array<char, 32> text;
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

RunInvocation StartInvocation(const std::vector<std::string>& command, const std::vector<std::string>& sets,
                              const std::string& pipeline_path) {
  RunInvocation call;
  call.command = command;
  call.sets = sets;
  call.started = UtcNow();
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) == 0) call.host = host.data();
  std::error_code error;
  const std::filesystem::path file = std::filesystem::absolute(pipeline_path, error);
  call.pipeline_file = error ? pipeline_path : file.lexically_normal().string();
  const std::string git = "git -C " + Quoted(std::filesystem::path(call.pipeline_file).parent_path().string());
  call.git_commit = OutputOf(git + " rev-parse HEAD 2>/dev/null");
  if (!call.git_commit.empty())
    call.git_tree = OutputOf(git + " status --porcelain --untracked-files=no 2>/dev/null").empty() ? "clean" : "dirty";
  return call;
}

}  // namespace seqflow::cli
