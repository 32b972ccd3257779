#include "nodes/eval/conlleval.h"

namespace seqflow {

namespace {

template <size_t N>
bool PairIn(char prev, char cur, const char (&pairs)[N][2]) {
  for (const auto& pair : pairs)
    if (pair[0] == prev && pair[1] == cur) return true;
  return false;
}

constexpr char kEndPairs[][2] = {{'B', 'B'}, {'B', 'O'}, {'I', 'B'}, {'I', 'O'}, {'E', 'E'}, {'E', 'I'}, {'E', 'O'}};
constexpr char kStartPairs[][2] = {{'B', 'B'}, {'I', 'B'}, {'O', 'B'}, {'O', 'I'}, {'E', 'E'}, {'E', 'I'}, {'O', 'E'}};

bool IsOutside(char prefix) { return prefix == 'O' || prefix == '.'; }
bool IsBracket(char prefix) { return prefix == '[' || prefix == ']'; }

}  // namespace

char ChunkPrefix(std::string_view prefix) {
  if (prefix.size() != 1) return '?';
  switch (prefix[0]) {
    case 'B':
    case 'I':
    case 'O':
    case 'E':
    case '.':
    case '[':
    case ']':
      return prefix[0];
    default:
      return '?';
  }
}

bool ChunkEnds(ChunkTag prev, ChunkTag cur) {
  if (PairIn(prev.prefix, cur.prefix, kEndPairs)) return true;
  if (!IsOutside(prev.prefix) && prev.type != cur.type) return true;
  return IsBracket(prev.prefix);
}

bool ChunkStarts(ChunkTag prev, ChunkTag cur) {
  if (PairIn(prev.prefix, cur.prefix, kStartPairs)) return true;
  if (!IsOutside(cur.prefix) && prev.type != cur.type) return true;
  return IsBracket(cur.prefix);
}

void ChunkCounter::Add(ChunkTag gold, ChunkTag predicted) { Step(gold, predicted); }

void ChunkCounter::Step(ChunkTag gold, ChunkTag predicted) {
  bool gold_end = ChunkEnds(prev_gold_, gold);
  bool predicted_end = ChunkEnds(prev_predicted_, predicted);
  if (open_match_) {
    if (gold_end && predicted_end && prev_gold_.type == prev_predicted_.type) {
      ++per_type_[prev_gold_.type].correct;
      open_match_ = false;
    } else if (gold_end != predicted_end || gold.type != predicted.type) {
      open_match_ = false;
    }
  }
  bool gold_start = ChunkStarts(prev_gold_, gold);
  bool predicted_start = ChunkStarts(prev_predicted_, predicted);
  if (gold_start && predicted_start && gold.type == predicted.type) open_match_ = true;
  if (gold_start) ++per_type_[gold.type].gold;
  if (predicted_start) ++per_type_[predicted.type].predicted;
  prev_gold_ = gold;
  prev_predicted_ = predicted;
}

void ChunkCounter::Finish() {
  if (open_match_) ++per_type_[prev_gold_.type].correct;
  open_match_ = false;
}

ChunkCounts ChunkCounter::Total() const {
  ChunkCounts total;
  for (const auto& c : per_type_) {
    total.gold += c.gold;
    total.predicted += c.predicted;
    total.correct += c.correct;
  }
  return total;
}

}  // namespace seqflow
