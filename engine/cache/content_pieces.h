// Content-named pieces: immutable bytes kept in a file of their own, named by the XXH3-128 of
// the bytes (HashHex) and framed like an entry (entry_format.h) with magic "SQFLCKN" and, in
// the checksum's place, the name's low 64 bits: the name is the check, so a piece is hashed once
// when written (for its name) and once when read (against it), not a second time for a checksum
// (bench/RESULTS.md, "Checkpoints rewritten in place"). Pieces of the earlier frame (magic
// "SQFLCKQ", an XXH64 checksum) still read. Checkpoints keep their immutable and large parts
// this way (checkpoints.h), and artifacts their out-of-line bodies, a sharded corpus's shards
// (artifact_pieces.h). A piece is written once, by rename, before anything that names it.
// Thread safety: stateless functions; concurrent writers of one piece publish the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

// The name of a piece holding `bytes`.
std::string ContentPieceName(std::string_view bytes);
// Writes `bytes` framed to `path` unless a file is there already.
// REQUIRES: name == ContentPieceName(bytes) (the caller has hashed them already).
Status WriteContentPiece(Env* env, const std::string& path, const std::string& name, std::string_view bytes);
// Writes `bytes` framed to `path` over the unused file `reuse` (Env::WriteFileAtomicPartsInto;
// empty: a new file). REQUIRES: no file at `path`; name == ContentPieceName(bytes).
Status WriteContentPieceInto(Env* env, const std::string& path, const std::string& name, std::string_view bytes,
                             const std::string& reuse);
// The bytes of the piece at `path`, checked against its frame and against `name` (and
// `expected_length` when it is not -1); Corruption naming the file otherwise, the Env's error
// when it cannot be read.
Result<std::string> ReadContentPiece(Env* env, const std::string& path, const std::string& name,
                                     int64_t expected_length = -1);
// The same, appended to *out (left as it was on error): a reader joining pieces reads each where
// it goes.
Status AppendContentPiece(Env* env, const std::string& path, const std::string& name, int64_t expected_length,
                          std::string* out);
// Checks the piece at `path` against its frame, `name` and `length` without holding it (read a
// chunk at a time); Corruption naming the file, or the Env's error.
Status CheckContentPiece(Env* env, const std::string& path, const std::string& name, size_t length);
// The piece's `length` bytes read from the file straight into `dest`, its frame checked but its
// bytes not hashed again (those of the earlier frame excepted). REQUIRES: CheckContentPiece
// passed for it and nothing has written it since (a checkpoint's pieces, under its key's lock).
// An error leaves `dest`'s bytes unspecified.
Status ReadCheckedContentPieceInto(Env* env, const std::string& path, const std::string& name, size_t length,
                                   char* dest);

}  // namespace seqflow
