// The chunk rules of the CoNLL shared tasks' conlleval script (Tjong Kim Sang & Buchholz 2000),
// as a streaming counter. ../shared/bench/peers/conlleval.py is the reference; the rules:
//
//   A tag is PREFIX-TYPE, split at the first '-'; a tag without '-' is all prefix, type "".
//   A chunk ENDS before the current token when (prev, cur) prefixes are
//     B,B  B,O  I,B  I,O  E,E  E,I  E,O,
//   or prev's prefix is not O or '.' and the type changes, or prev's prefix is '[' or ']'.
//   A chunk STARTS at the current token when (prev, cur) prefixes are
//     B,B  I,B  O,B  O,I  E,E  E,I  O,E,
//   or cur's prefix is not O or '.' and the type changes, or cur's prefix is '[' or ']'.
// So IOB2 and IOB1 are both read right: I- after O (or after another type) starts a chunk, and
// B- between two chunks of one type splits them. A predicted chunk is correct when a gold chunk
// of the same type starts at the same token and both end at the same token. A sentence
// boundary acts as an O token (closing chunks) but is not a token.
// Thread safety: a counter belongs to one thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace seqflow {

// One tag as conlleval sees it. `prefix` keeps the prefixes the rules name ('B', 'I', 'O',
// 'E', '.', '[', ']'); any other prefix is '?'. `type` is an id; 0 is the empty type.
struct ChunkTag {
  char prefix = 'O';
  int32_t type = 0;
};

// The prefix of `tag` in the sense above.
char ChunkPrefix(std::string_view prefix);

bool ChunkEnds(ChunkTag prev, ChunkTag cur);
bool ChunkStarts(ChunkTag prev, ChunkTag cur);

struct ChunkCounts {
  int64_t gold = 0;
  int64_t predicted = 0;
  int64_t correct = 0;
};

class ChunkCounter {
 public:
  // REQUIRES: every type id passed later is < num_types.
  explicit ChunkCounter(size_t num_types) : per_type_(num_types) {}

  void Add(ChunkTag gold, ChunkTag predicted);
  // End of a sentence: closes open chunks as an O token would.
  void Boundary() { Step({'O', 0}, {'O', 0}); }
  // End of the data. Only a chunk of a prefix-less tag ("X" after "B-NP") can survive a
  // boundary; conlleval closes it here, and so do we.
  void Finish();
  // [type] counts; totals include the empty type 0, as conlleval's do. REQUIRES: Finish().
  const std::vector<ChunkCounts>& per_type() const { return per_type_; }
  ChunkCounts Total() const;

 private:
  void Step(ChunkTag gold, ChunkTag predicted);
  std::vector<ChunkCounts> per_type_;
  ChunkTag prev_gold_, prev_predicted_;
  bool open_match_ = false;  // a gold and a predicted chunk of one type started together
};

}  // namespace seqflow
