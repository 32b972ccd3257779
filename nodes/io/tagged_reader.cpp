#include "nodes/io/tagged_reader.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "nodes/io/tags.h"

namespace seqflow {

namespace {

// Label ids in byte order of the names, as every reader assigns them.
void NumberLabels(const std::map<std::string, int32_t>& first_seen, Corpus& corpus) {
  std::vector<int32_t> new_id(first_seen.size());
  for (const auto& [name, id] : first_seen) {
    new_id[id] = static_cast<int32_t>(corpus.label_names.size());
    corpus.label_names.push_back(name);
  }
  for (auto& s : corpus.sentences)
    for (auto& id : s.labels) id = new_id[id];
}

}  // namespace

Result<Corpus> ParseTaggedLines(std::string_view bytes, const std::string& file, const TaggedTextOptions& options) {
  if (options.delimiter.empty()) return Status::Invalid("the word|tag delimiter is empty", SourceLoc{file});
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, DecodeFileText(std::string(bytes), file, options.file_encoding));
  Corpus corpus;
  corpus.columns = {"word"};
  corpus.source = file;
  corpus.encoding = options.encoding;
  std::map<std::string, int32_t> label_ids;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream tokens(line);
    Sentence sentence;
    sentence.cols.resize(1);
    SourceLoc loc{file, number};
    for (std::string token; tokens >> token;) {
      const size_t cut = token.rfind(options.delimiter);
      const std::string where = "token " + std::to_string(sentence.size() + 1) + " '" + token + "'";
      if (cut == std::string::npos)
        return Status::Invalid(
            where + " has no '" + options.delimiter + "' (expected WORD" + options.delimiter + "TAG)", loc);
      std::string word = token.substr(0, cut);
      std::string tag = token.substr(cut + options.delimiter.size());
      if (word.empty() || tag.empty()) return Status::Invalid(where + " has an empty word or tag", loc);
      if (options.tag_map) {
        SEQFLOW_ASSIGN_OR_RETURN(tag, MapTag(*options.tag_map, tag, loc));
      }
      std::string problem = TagProblem(tag, options.encoding);
      if (!problem.empty()) return Status::Invalid(problem, loc);
      auto [it, inserted] = label_ids.try_emplace(tag, static_cast<int32_t>(label_ids.size()));
      sentence.cols[0].push_back(std::move(word));
      sentence.labels.push_back(it->second);
    }
    if (sentence.size() > 0) corpus.sentences.push_back(std::move(sentence));
  }
  if (corpus.sentences.empty()) return Status::Invalid("empty file: no sentences", SourceLoc{file});
  NumberLabels(label_ids, corpus);
  return corpus;
}

}  // namespace seqflow
