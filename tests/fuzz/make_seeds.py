#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, written fresh on every run (no data is committed).

usage: make_seeds.py SOURCE_DIR CACHE_DIR OUT_DIR
  pipeline_fuzz       every pipelines/**/*.yaml; a single-file `include:` becomes inc1.yaml after
                      a "#@file" line (pipeline_fuzz.cpp's input form); and the inputs it once
                      found, tests/fuzz/regressions/pipeline_* (replayed by fuzz_regressions_test);
                      plus the hostile front ends: includes nested 20 deep, an include tree
                      that fans out, YAML nested 5,000 deep
  corpus_reader_fuzz  datasets/samples/* and pipelines/maps/*.map, each behind the options bytes
                      that read it (corpus_reader_fuzz.cpp), CoNLL samples also as word|tag lines
  rewrite_rules_fuzz  pipelines/maps/*.rewrite over the raw-text sample, and the patterns that
                      backtrack exponentially or recurse per character over long tokens
  artifact_fuzz       the payload of every cache entry under CACHE_DIR (a real run's), <= 64 KiB
"""
import hashlib
import pathlib
import re
import sys

MAX_SEED = 1 << 16
HEADER = 8 + 4 + 8 + 8  # entry_format.h: magic, format version, length, checksum
FILE_BREAK = b"\n#@file\n"  # pipeline_fuzz.cpp: the next include file


def write(out, data):
    out.mkdir(parents=True, exist_ok=True)
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def pipeline_seeds(src, out):
    for path in sorted(src.glob("pipelines/**/*.yaml")):
        text = path.read_bytes()
        m = re.search(rb"^include:\s*([^\s\[]+)\s*$", text, re.M)
        if m and (path.parent / m.group(1).decode()).is_file():
            included = (path.parent / m.group(1).decode()).read_bytes()
            text = text[:m.start(1)] + b"inc1.yaml" + text[m.end(1):] + b"\n#@file\n" + included
        write(out, text)
    for path in sorted(src.glob("tests/fuzz/regressions/pipeline_*")):
        write(out, path.read_bytes())
    node = b"nodes:\n  n: {kind: read.text, path: x.txt}\n"
    chain = [b"include: inc1.yaml\n"] + [b"include: inc%d.yaml\n" % (i + 1) for i in range(1, 20)] + [node]
    write(out, FILE_BREAK.join(chain))
    tree = [b"include: inc1.yaml\n"] + [b"include: [inc%d.yaml, inc%d.yaml]\n" % (i + 1, i + 1) for i in range(1, 12)]
    write(out, FILE_BREAK.join(tree + [node]))
    write(out, b"nodes:\n  n: {kind: read.text, path: " + b"[" * 5000 + b"]" * 5000 + b"}\n")


def rewrite_seeds(src, out):
    text = b"".join(p.read_bytes()[:4096] for p in sorted(src.glob("datasets/samples/*.txt")))
    for path in sorted(src.glob("pipelines/maps/*.rewrite")):
        write(out, path.read_bytes() + b"\0" + text)
    write(out, b"regex: (a+)+c => C\n\0" + b"a" * 5000 + b" ac\n")
    write(out, b"regex: (x|y)* => Z\n\0" + b"x" * 20000 + b"\n")


def conll_to_tagged(text):
    lines, sentence = [], []
    for line in text.decode("utf-8", "replace").splitlines() + [""]:
        cols = line.split()
        if cols:
            sentence.append(cols[0] + "|" + cols[-1])
        elif sentence:
            lines.append(" ".join(sentence))
            sentence = []
    return ("\n".join(lines) + "\n").encode()


def reader_seeds(src, out):
    maps = [p.read_bytes()[:4096] for p in sorted(src.glob("pipelines/maps/*.map"))]
    for path in sorted(src.glob("datasets/samples/*")):
        data = path.read_bytes()[:MAX_SEED]
        if path.suffix == ".conll":
            for encoding in range(4):
                for reader in (0, 1):
                    write(out, bytes([reader | encoding << 2]) + data)
            write(out, bytes([2 | 3 << 2]) + conll_to_tagged(data))
            for m in maps:
                write(out, bytes([1 | 2 << 2 | 32]) + data + b"\0" + m)
        else:
            write(out, bytes([3]) + data)
            write(out, bytes([3 | 16 | 64]) + data)


def artifact_seeds(cache, out):
    for path in sorted(cache.rglob("*.sfa")):
        data = path.read_bytes()
        if len(data) - HEADER <= MAX_SEED:
            write(out, data[HEADER:])


def main():
    src, cache, out = (pathlib.Path(a) for a in sys.argv[1:4])
    pipeline_seeds(src, out / "pipeline_fuzz")
    reader_seeds(src, out / "corpus_reader_fuzz")
    rewrite_seeds(src, out / "rewrite_rules_fuzz")
    artifact_seeds(cache, out / "artifact_fuzz")
    for target in sorted(out.iterdir()):
        print(f"{target.name}: {len(list(target.iterdir()))} seeds")


main()
