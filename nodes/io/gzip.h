// Gzip decompression for the readers, so one node reads both corpus.txt and corpus.txt.gz
// (large corpora in ../shared/data are stored gzipped). Pure: bytes in, bytes out, no files.
//
// RFC 1952 streams through zlib's inflate (windowBits 15 + 32: gzip or zlib header detected).
// A file may hold several members back to back (`cat a.gz b.gz`, pigz, bgzip); their contents
// are concatenated, as gzip -d does. zlib counts bytes in 32-bit uInt, so input and output are
// fed to it in chunks and files over 4 GB decompress whole.
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace seqflow {

// True when `bytes` start with the gzip magic 0x1f 0x8b.
bool IsGzip(std::string_view bytes);

// The decompressed contents of every member of `bytes`. A corrupt, truncated or trailing-garbage
// stream is Corruption at `file` with zlib's reason and the byte offset, e.g.
//   "corpus.txt.gz: truncated gzip stream: input ends inside member 1 (after 4096 bytes)".
// `max_chunk` bounds each piece handed to zlib; tests pass a few bytes to exercise the loop.
// REQUIRES: 0 < max_chunk <= UINT_MAX.
Result<std::string> Gunzip(std::string_view bytes, const std::string& file, size_t max_chunk = size_t{1} << 30);

}  // namespace seqflow
