#include "nodes/io/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <memory>

namespace seqflow {
namespace {

struct InflateEnd {
  void operator()(z_stream* zs) const { inflateEnd(zs); }
};

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Result<std::string> Gunzip(std::string_view bytes, const std::string& file, size_t max_chunk) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("zlib: inflateInit2 failed", SourceLoc{file});
  std::unique_ptr<z_stream, InflateEnd> guard(&zs);
  const auto* base = reinterpret_cast<const Bytef*>(bytes.data());
  zs.next_in = const_cast<Bytef*>(base);  // zlib's API is not const-correct without ZLIB_CONST
  // Text compresses about 3-5x; start there and double, so a large file costs few copies.
  std::string out(std::max<size_t>(bytes.size() * 4, size_t{1} << 16), '\0');
  size_t produced = 0, consumed = 0;
  int member = 1;
  for (;;) {
    if (zs.avail_in == 0) zs.avail_in = static_cast<uInt>(std::min(bytes.size() - consumed, max_chunk));
    if (produced == out.size()) out.resize(out.size() * 2);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(std::min(out.size() - produced, max_chunk));
    const uInt room = zs.avail_out;
    const int ret = inflate(&zs, Z_NO_FLUSH);
    produced += room - zs.avail_out;
    consumed = static_cast<size_t>(zs.next_in - base);
    if (ret == Z_STREAM_END) {
      if (consumed == bytes.size()) break;
      // Another member follows (multi-member files); reset keeps next_in/avail_in.
      ++member;
      inflateReset(&zs);
      continue;
    }
    // Z_BUF_ERROR with output room left means inflate wants input that is not there.
    if (ret == Z_BUF_ERROR && consumed == bytes.size())
      return Status::Corruption("truncated gzip stream: input ends inside member " + std::to_string(member) +
                                    " (after " + std::to_string(bytes.size()) + " bytes)",
                                SourceLoc{file});
    if (ret != Z_OK)
      return Status::Corruption("corrupt gzip stream in member " + std::to_string(member) + " near byte " +
                                    std::to_string(consumed) + ": " + (zs.msg ? zs.msg : zError(ret)),
                                SourceLoc{file});
  }
  out.resize(produced);
  return out;
}

}  // namespace seqflow
