#include "nodes/io/text_encoding.h"

#include <cstdio>

namespace seqflow {

const char* FileEncodingName(FileEncoding e) { return e == FileEncoding::kUtf8 ? "utf-8" : "latin-1"; }

namespace {

// Length of the well-formed UTF-8 sequence at text[i], or 0 (RFC 3629, table 3-7 of Unicode).
size_t SequenceLength(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = SequenceLength(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string Latin1ToUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (char ch : bytes) {
    auto b = static_cast<unsigned char>(ch);
    if (b < 0x80) {
      out.push_back(ch);
    } else {
      out.push_back(static_cast<char>(0xC0 | (b >> 6)));
      out.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  return out;
}

static SourceLoc LocOfOffset(std::string_view text, size_t offset, const std::string& file) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return SourceLoc{file, line, static_cast<int>(offset - line_start) + 1};
}

Result<std::string> DecodeFileText(std::string bytes, const std::string& file, FileEncoding encoding) {
  if (encoding == FileEncoding::kLatin1) return Latin1ToUtf8(bytes);
  size_t bad = FindInvalidUtf8(bytes);
  if (bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(bytes[bad]));
    return Status::Invalid(
        std::string("invalid UTF-8 (byte ") + hex + "); if the file is Latin-1, set file_encoding: latin-1",
        LocOfOffset(bytes, bad, file));
  }
  static constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(bytes).substr(0, kBom.size()) == kBom) bytes.erase(0, kBom.size());
  return bytes;
}

char32_t NextCodePoint(std::string_view text, size_t* pos) {
  auto b0 = static_cast<unsigned char>(text[*pos]);
  size_t n = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t c = b0 & kLeadMask[n];
  for (size_t k = 1; k < n && *pos + k < text.size(); ++k)
    c = (c << 6) | (static_cast<unsigned char>(text[*pos + k]) & 0x3F);
  *pos += n;
  return c;
}

bool IsUpperLetter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7); }
bool IsLowerLetter(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7); }

std::string LowercaseUtf8(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    auto b = static_cast<unsigned char>(out[i]);
    if (b >= 'A' && b <= 'Z') {
      out[i] = static_cast<char>(b + 32);
    } else if (b == 0xC3 && i + 1 < out.size()) {
      // U+00C0-U+00DE (except U+00D7) are C3 80-9E; their lowercase forms are C3 A0-BE.
      auto next = static_cast<unsigned char>(out[i + 1]);
      if (next >= 0x80 && next <= 0x9E && next != 0x97) out[i + 1] = static_cast<char>(next + 0x20);
      ++i;
    }
  }
  return out;
}

}  // namespace seqflow
