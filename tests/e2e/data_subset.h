// A smaller SEQFLOW_DATA for end-to-end tests on real data: the folder ../shared/data mirrored by
// links, with chosen files cut to their first sentences. Pipelines take it with `--set data=DIR`
// (includes too), so a test exercises every node of a real pipeline on real text at a fraction of
// its CPU.
#pragma once

#include <map>
#include <string>

namespace seqflow::testutil {

// A new temporary data folder: every file of DataDir() linked, but each file named in
// `first_sentences` (a path relative to the data folder -> N) holding only its first N sentences
// (blocks of lines ended by a blank line, as CoNLL files have them; -DOCSTART- blocks count).
// Throws when the real data, or a file to cut, is missing: such tests fail, never skip.
std::string DataSubset(const std::map<std::string, size_t>& first_sentences);

}  // namespace seqflow::testutil
