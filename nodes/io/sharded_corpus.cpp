#include "nodes/io/sharded_corpus.h"

#include <algorithm>

namespace seqflow {
namespace {

[[noreturn]] void CorruptShards(const std::string& what) { throw StatusError(Status::Corruption("ShardedCorpus: " + what)); }

}  // namespace

int64_t ShardedCorpus::num_sentences() const { return SumSentences(shards); }

int64_t ShardedCorpus::num_tokens() const { return SumTokens(shards); }

void ShardedCorpus::Save(ByteWriter& w) const {
  w.Strs(columns);
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  w.Str(source);
  SaveStoredShards(w, shard_sentences, shards);
}

std::shared_ptr<const ShardedCorpus> ShardedCorpus::Load(ByteReader& r) {
  auto c = std::make_shared<ShardedCorpus>();
  c->columns = r.Strs();
  if (c->columns.empty() || c->columns[0] != "word") CorruptShards("column 0 is not 'word'");
  c->label_names = r.Strs();
  const uint8_t enc = r.U8();
  if (enc > static_cast<uint8_t>(TagEncoding::kRuns)) CorruptShards("bad tag encoding " + std::to_string(enc));
  c->encoding = static_cast<TagEncoding>(enc);
  c->source = r.Str();
  LoadStoredShards(r, kType, &c->shard_sentences, &c->shards);
  r.ExpectEnd();
  return c;
}

std::string ShardedCorpus::Describe() const {
  return std::to_string(num_sentences()) + " sentences, " + std::to_string(num_tokens()) + " tokens in " +
         std::to_string(shards.size()) + " shards";
}

std::vector<std::string> ShardedCorpus::PieceNames() const { return PieceNamesOf(shards); }

ShardedCorpusWriter::ShardedCorpusWriter(const Corpus& header, int64_t shard_sentences, PieceStore* store)
    : store_(store), out_(std::make_shared<ShardedCorpus>()) {
  CopyCorpusHeader(header, &shard_);
  CopyCorpusHeader(header, out_.get());
  out_->shard_sentences = shard_sentences;
}

Status ShardedCorpusWriter::Add(Sentence&& sentence) {
  if (sentence.size() == 0) return Status::Invalid("an empty sentence cannot be stored in a ShardedCorpus");
  shard_.sentences.push_back(std::move(sentence));
  if (static_cast<int64_t>(shard_.sentences.size()) < out_->shard_sentences) return Status::Ok();
  return Flush();
}

Status ShardedCorpusWriter::Flush() {
  if (shard_.sentences.empty()) return Status::Ok();
  ByteWriter w;
  shard_.Save(w);
  SEQFLOW_ASSIGN_OR_RETURN(std::string piece, store_->Put(w.Take()));
  out_->shards.push_back(ShardedCorpus::Shard{std::move(piece), static_cast<int64_t>(shard_.sentences.size()),
                                              static_cast<int64_t>(shard_.num_tokens())});
  shard_.sentences.clear();
  shard_.sentences.shrink_to_fit();
  return Status::Ok();
}

Result<std::shared_ptr<ShardedCorpus>> ShardedCorpusWriter::Finish() && {
  SEQFLOW_RETURN_IF_ERROR(Flush());
  return std::move(out_);
}

Result<std::shared_ptr<const Corpus>> LoadCorpusShard(const ShardedCorpus& corpus, size_t index,
                                                      const PieceStore& store) {
  const ShardedCorpus::Shard& shard = corpus.shards.at(index);
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, store.Get(shard.piece));
  std::shared_ptr<const Corpus> body;
  try {
    ByteReader r(bytes);
    body = Corpus::Load(r);
  } catch (const StatusError& e) {
    return Status::Corruption("shard " + std::to_string(index) + " of " + corpus.source + " (piece " + shard.piece +
                              "): " + e.status().message());
  }
  const bool any_empty = std::any_of(body->sentences.begin(), body->sentences.end(),
                                     [](const Sentence& s) { return s.size() == 0; });
  if (any_empty || static_cast<int64_t>(body->sentences.size()) != shard.sentences ||
      static_cast<int64_t>(body->num_tokens()) != shard.tokens || body->columns != corpus.columns ||
      body->label_names != corpus.label_names)
    return Status::Corruption("shard " + std::to_string(index) + " of " + corpus.source + " (piece " + shard.piece +
                              ") is not the shard the corpus records");
  return body;
}

Status ForEachCorpusShard(const Artifact& sentences, const PieceStore* store,
                          const std::function<Status(const Corpus&)>& visit) {
  if (const auto* whole = dynamic_cast<const Corpus*>(&sentences)) return visit(*whole);
  const auto* sharded = dynamic_cast<const ShardedCorpus*>(&sentences);
  if (sharded == nullptr)
    return Status::Invalid("expected a Corpus or a ShardedCorpus, got " + std::string(sentences.type()));
  if (store == nullptr && !sharded->shards.empty())
    return Status::Invalid("the shards of " + sharded->source + " need a piece store, and this node has none");
  for (size_t i = 0; i < sharded->shards.size(); ++i) {
    SEQFLOW_ASSIGN_OR_RETURN(std::shared_ptr<const Corpus> shard, LoadCorpusShard(*sharded, i, *store));
    SEQFLOW_RETURN_IF_ERROR(visit(*shard));
  }
  return Status::Ok();
}

Status ForEachNeededCorpusShard(const Artifact& sentences, const PieceStore* store, size_t first,
                                const std::function<bool(size_t begin, size_t end)>& needed,
                                const std::function<Status(const Corpus&)>& visit,
                                const std::function<void(size_t count)>& skipped) {
  const auto* sharded = dynamic_cast<const ShardedCorpus*>(&sentences);
  if (sharded == nullptr) return ForEachCorpusShard(sentences, store, visit);
  size_t begin = first;
  for (size_t i = 0; i < sharded->shards.size(); ++i) {
    const auto count = static_cast<size_t>(sharded->shards[i].sentences);
    if (!needed(begin, begin + count)) {
      skipped(count);
    } else {
      if (store == nullptr) return Status::Invalid("the shards of " + sharded->source + " need a piece store");
      SEQFLOW_ASSIGN_OR_RETURN(std::shared_ptr<const Corpus> shard, LoadCorpusShard(*sharded, i, *store));
      SEQFLOW_RETURN_IF_ERROR(visit(*shard));
    }
    begin += count;
  }
  return Status::Ok();
}

}  // namespace seqflow
