// Text decoding for readers: UTF-8 validation, Latin-1 -> UTF-8 conversion, code point
// iteration and a small case mapping. Pure functions on byte strings; no files.
//
// Readers keep every string in UTF-8, so after DecodeFileText the rest of seqflow never
// sees another encoding. Case mapping covers ASCII and the Latin-1 supplement (U+00C0-U+00FE),
// which is what the CoNLL and citation data contain; other scripts are left as they are.
// Thread safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace seqflow {

enum class FileEncoding { kUtf8, kLatin1 };
const char* FileEncodingName(FileEncoding e);  // "utf-8", "latin-1"

// Byte offset of the first byte that is not part of a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points above U+10FFFF are ill-formed), or npos if all is valid.
size_t FindInvalidUtf8(std::string_view text);

// Each byte is one Latin-1 (ISO-8859-1) character; bytes >= 0x80 become two UTF-8 bytes.
std::string Latin1ToUtf8(std::string_view bytes);

// The file's bytes as UTF-8: Latin-1 is converted; UTF-8 is validated and a leading byte-order
// mark dropped. An invalid byte is reported at file:line:col (col counts bytes, 1-based).
Result<std::string> DecodeFileText(std::string bytes, const std::string& file, FileEncoding encoding);

// Decodes the code point starting at text[*pos] and advances *pos past it.
// REQUIRES: text is valid UTF-8 and *pos < text.size() is the start of a sequence.
char32_t NextCodePoint(std::string_view text, size_t* pos);

bool IsUpperLetter(char32_t c);  // A-Z, U+00C0-U+00DE except U+00D7
bool IsLowerLetter(char32_t c);  // a-z, U+00DF-U+00FF except U+00F7
// Lowercases ASCII and Latin-1 letters; other bytes are copied unchanged.
// REQUIRES: valid UTF-8.
std::string LowercaseUtf8(std::string_view text);

}  // namespace seqflow
