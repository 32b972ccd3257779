#include "nodes/io/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "nodes/io/corpus.h"
#include "nodes/io/io_nodes.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace gzip_test {

using testutil::FakeNodeContext;

// One gzip member of `text`, written by zlib's deflate (windowBits 15 + 16: gzip wrapper).
std::string GzipMember(const std::string& text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, text.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Sentences varied enough that deflate cannot shrink them to a few bytes.
std::string ManyLines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "sentence " + std::to_string(i * 7919 % 10007) + " of the test .\n";
  return text;
}

TEST(Gzip, RecognisesTheMagicOnly) {
  EXPECT_TRUE(IsGzip(GzipMember("a\n")));
  EXPECT_FALSE(IsGzip("a b c\n"));
  EXPECT_FALSE(IsGzip("\x1f"));
  EXPECT_FALSE(IsGzip(""));
}

TEST(Gzip, RoundTrip) {
  const std::string text = ManyLines(2000);
  Result<std::string> got = Gunzip(GzipMember(text), "a.txt.gz");
  ASSERT_OK(got);
  EXPECT_EQ(*got, text);
}

TEST(Gzip, EmptyMember) {
  Result<std::string> got = Gunzip(GzipMember(""), "e.gz");
  ASSERT_OK(got);
  EXPECT_EQ(*got, "");
}

TEST(Gzip, ConcatenatedMembersAreConcatenated) {
  Result<std::string> got = Gunzip(GzipMember("first line\n") + GzipMember("") + GzipMember("second\n"), "m.gz");
  ASSERT_OK(got);
  EXPECT_EQ(*got, "first line\nsecond\n");
}

// Chunks of a few bytes walk the same loop that keeps files over 4 GB within zlib's uInt counts.
TEST(Gzip, TinyChunksGiveTheSameBytes) {
  const std::string text = ManyLines(500);
  const std::string gz = GzipMember(text) + GzipMember("tail\n");
  for (size_t chunk : {1, 7, 4096}) {
    Result<std::string> got = Gunzip(gz, "c.gz", chunk);
    ASSERT_OK(got);
    EXPECT_EQ(*got, text + "tail\n") << "chunk " << chunk;
  }
}

TEST(Gzip, TruncatedStreamNamesTheFile) {
  const std::string gz = GzipMember(ManyLines(200));
  for (size_t keep : {size_t{2}, size_t{10}, gz.size() / 2, gz.size() - 1}) {
    Result<std::string> got = Gunzip(gz.substr(0, keep), "/data/t.txt.gz");
    ASSERT_FALSE(got.ok()) << "kept " << keep;
    EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
    EXPECT_EQ(got.status().loc().file, "/data/t.txt.gz");
    EXPECT_NE(got.status().ToString().find("/data/t.txt.gz: truncated gzip stream"), std::string::npos)
        << got.status().ToString();
  }
}

TEST(Gzip, CorruptStreamIsAnErrorNotACrash) {
  std::string gz = GzipMember(ManyLines(200));
  for (size_t i = 20; i < 60; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  Result<std::string> got = Gunzip(gz, "bad.gz");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(got.status().loc().file, "bad.gz");
}

TEST(Gzip, TrailingGarbageIsAnError) {
  Result<std::string> got = Gunzip(GzipMember("a\n") + "not gzip", "g.gz");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("member 2"), std::string::npos) << got.status().ToString();
}

class ReadTextGzip : public ::testing::Test {
 protected:
  void SetUp() override { RegisterIoNodes(registry_); }
  std::shared_ptr<const Corpus> Read(const std::string& bytes, int64_t max_sentences) {
    FakeNodeContext ctx(kind(), {{"path", std::string("/d/raw")}, {"max_sentences", max_sentences}});
    ctx.AddFile("/d/raw", bytes);
    auto corpus = std::dynamic_pointer_cast<const Corpus>(kind().run(ctx));
    EXPECT_EQ(ctx.metrics().at("sentences"), static_cast<double>(corpus->sentences.size()));
    return corpus;
  }
  const KindSpec& kind() { return *registry_.FindKind("read.text"); }
  Registry registry_;
};

TEST_F(ReadTextGzip, GzipAndPlainReadAlike) {
  const std::string text = "The cat sat .\n\nA dog ran .\nIt rained .\n";
  auto plain = Read(text, 0);
  auto gz = Read(GzipMember(text.substr(0, 15)) + GzipMember(text.substr(15)), 0);
  ASSERT_EQ(plain->sentences.size(), 3u);
  ASSERT_EQ(gz->sentences.size(), 3u);
  for (size_t s = 0; s < 3; ++s) EXPECT_EQ(gz->sentences[s].words(), plain->sentences[s].words());
  EXPECT_EQ(plain->sentences[1].words(), (std::vector<std::string>{"A", "dog", "ran", "."}));
}

TEST_F(ReadTextGzip, MaxSentencesAppliesAfterDecompression) {
  auto corpus = Read(GzipMember(ManyLines(100)), 7);
  ASSERT_EQ(corpus->sentences.size(), 7u);
  EXPECT_EQ(corpus->sentences[6].words()[1], std::to_string(6 * 7919 % 10007));
}

TEST_F(ReadTextGzip, TruncatedFileFailsTheNode) {
  const std::string gz = GzipMember(ManyLines(100));
  FakeNodeContext ctx(kind(), {{"path", std::string("/d/cut.txt.gz")}});
  ctx.AddFile("/d/cut.txt.gz", gz.substr(0, gz.size() - 8));
  try {
    kind().run(ctx);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().ToString().rfind("/d/cut.txt.gz: truncated gzip stream", 0), 0u) << e.what();
  }
}

}  // namespace gzip_test
}  // namespace seqflow
