#include "tests/e2e/data_subset.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

namespace fs = std::filesystem;

namespace {

void WriteFirstSentences(const fs::path& from, const fs::path& to, size_t sentences) {
  std::ifstream in(from);
  if (!in) throw std::runtime_error("cannot read " + from.string() + " (real data: SEQFLOW_DATA)");
  std::ofstream out(to);
  size_t ended = 0;
  bool in_sentence = false;
  for (std::string line; ended < sentences && std::getline(in, line);) {
    out << line << '\n';
    const bool blank = line.find_first_not_of(" \t\r") == std::string::npos;
    if (blank && in_sentence) ++ended;
    in_sentence = !blank;
  }
  if (ended < sentences) throw std::runtime_error(from.string() + " has fewer than " + std::to_string(sentences) +
                                                  " sentences");
}

}  // namespace

std::string DataSubset(const std::map<std::string, size_t>& first_sentences) {
  const fs::path real = DataDir();
  if (!fs::is_directory(real)) throw std::runtime_error("no real data at " + real.string() + " (SEQFLOW_DATA)");
  const fs::path subset = MakeTempDir("seqflow-data");
  // Links to every entry of a folder; a linked folder that holds a cut file becomes a real folder
  // of links, from the top down.
  const auto link_entries = [&](const fs::path& folder) {
    for (const auto& entry : fs::directory_iterator(real / fs::relative(folder, subset)))
      fs::create_symlink(entry.path(), folder / entry.path().filename());
  };
  link_entries(subset);
  for (const auto& [relative, sentences] : first_sentences) {
    fs::path folder = subset;
    for (const fs::path& part : fs::path(relative).parent_path()) {
      folder /= part;
      if (!fs::is_symlink(folder)) continue;
      fs::remove(folder);
      fs::create_directory(folder);
      link_entries(folder);
    }
    fs::remove(subset / relative);
    WriteFirstSentences(real / relative, subset / relative, sentences);
  }
  return subset.string();
}

}  // namespace seqflow::testutil
