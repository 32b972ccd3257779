// Reading a sharded corpus (nodes/io/sharded_corpus.h): each shard's piece read from the cache
// directory, checked (frame, checksum, content hash) and decoded into a Corpus, then mapped to
// symbol ids as hmm.em and moments.collect do — against decoding the whole Corpus entry from
// bytes already in memory and mapping it. Items are tokens. Text: the Malagasy raw text (777,678
// tokens), stored once in a temp directory with the shard sizes below.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "engine/base/env.h"
#include "engine/cache/artifact_pieces.h"
#include "nodes/features/vocab_builder.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/sharded_corpus.h"

namespace seqflow {
namespace {

struct StoredText {
  std::string dir;
  Corpus corpus;
  std::string corpus_bytes;  // the Corpus entry's payload
  std::shared_ptr<const Vocab> vocab;
  std::map<int64_t, std::shared_ptr<ShardedCorpus>> sharded;  // by shard size
};

std::string StoreDir() {
  return (std::filesystem::temp_directory_path() / ("seqflow-shard-bench-" + std::to_string(::getpid()))).string();
}

StoredText& Text() {
  static StoredText* text = [] {
    auto* t = new StoredText();
    const char* env = std::getenv("SEQFLOW_DATA");
    const std::string path = JoinPath(env && *env ? env : SEQFLOW_DEFAULT_DATA, "malagasy_pos/raw.txt");
    t->corpus = ValueOrThrow(ParseTextLines(ValueOrThrow(Env::Default()->ReadFile(path)), path, 0, FileEncoding::kUtf8));
    ByteWriter w;
    t->corpus.Save(w);
    t->corpus_bytes = w.Take();
    VocabOptions options;
    options.min_count = 3;
    t->vocab = std::make_shared<Vocab>(BuildVocab({&t->corpus}, options));
    t->dir = StoreDir();
    ArtifactPieces store(t->dir, "0123456789abcdef", Env::Default());
    for (int64_t size : {1000, 10000}) {
      ShardedCorpusWriter writer(t->corpus, size, &store);
      for (const Sentence& s : t->corpus.sentences) ThrowIfError(writer.Add(Sentence(s)));
      t->sharded[size] = ValueOrThrow(std::move(writer).Finish());
    }
    return t;
  }();
  return *text;
}

void BM_ShardsLoadDecodeMap(benchmark::State& state) {
  StoredText& text = Text();
  const ShardedCorpus& sharded = *text.sharded.at(state.range(0));
  const ArtifactPieces store(text.dir, "", Env::Default());
  for (auto _ : state) {
    int64_t symbols = 0;
    ThrowIfError(ForEachCorpusShard(sharded, &store, [&](const Corpus& shard) {
      symbols += static_cast<int64_t>(CorpusSymbols(*text.vocab, shard).size());
      return Status::Ok();
    }));
    benchmark::DoNotOptimize(symbols);
  }
  state.SetItemsProcessed(state.iterations() * sharded.num_tokens());
}
BENCHMARK(BM_ShardsLoadDecodeMap)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_WholeCorpusDecodeMap(benchmark::State& state) {
  StoredText& text = Text();
  for (auto _ : state) {
    ByteReader r(text.corpus_bytes);
    std::shared_ptr<const Corpus> corpus = Corpus::Load(r);
    benchmark::DoNotOptimize(CorpusSymbols(*text.vocab, *corpus).size());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(text.corpus.num_tokens()));
}
BENCHMARK(BM_WholeCorpusDecodeMap)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seqflow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::remove_all(seqflow::StoreDir());
  return 0;
}
