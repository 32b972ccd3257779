#!/usr/bin/env bash
# Every shell block of README.md and docs/ marked runnable (```sh runnable) runs as written, so a
# command the documentation shows cannot rot. Each block runs with bash -e from a scratch copy of
# the repository's layout (pipelines/, datasets/ and the docs linked in; build/ the build folder),
# after what `make demo` leaves there: the demo data and its cached run.
#   runnable_docs_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for entry in pipelines datasets docs README.md; do ln -s "$source_dir/$entry" "$scratch/$entry"; done
mkdir "$scratch/build"
for binary in seqflow seqflow-datagen; do ln -s "$build/$binary" "$scratch/build/$binary"; done
export SEQFLOW_DATA="${SEQFLOW_DATA:-$source_dir/../shared/data}"
cd "$scratch"
build/seqflow-datagen --out build/demo-data --seed 1 > /dev/null
build/seqflow run pipelines/demo.yaml --set demo_data="$scratch/build/demo-data" --cache build/cache > /dev/null 2>&1

# The blocks, each as "FILE:LINE" then its lines, separated by NUL.
python3 - "$source_dir" > "$scratch/blocks" <<'PY'
import pathlib, sys
root = pathlib.Path(sys.argv[1])
pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
out = []
for page in pages:
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh runnable":
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            out.append(f"{page.relative_to(root)}:{start}\n" + "\n".join(lines[start:j]))
            i = j
        i += 1
sys.stdout.write("".join(block + "\0" for block in out))
PY
failed=0
count=0
while IFS= read -r -d '' block; do
  where="${block%%$'\n'*}"
  body="${block#*$'\n'}"
  count=$((count + 1))
  if ! output="$(bash -e -o pipefail -c "$body" 2>&1)"; then
    echo "FAILED: the runnable block at $where:" >&2
    echo "$body" | sed 's/^/    /' >&2
    echo "  output:" >&2
    echo "$output" | tail -20 | sed 's/^/    /' >&2
    failed=$((failed + 1))
  fi
done < "$scratch/blocks"
echo "$count runnable blocks, $failed failed"
[ "$count" -gt 0 ] && [ "$failed" -eq 0 ]
