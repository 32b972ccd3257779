#!/usr/bin/env bash
# docs/reference/kinds.md is what the binary says of its kinds: a kind, port or parameter added,
# renamed or re-documented without regenerating the page fails here.
#   kinds_reference_test.sh SEQFLOW SOURCE_DIR
set -euo pipefail
seqflow="$1"
page="$2/docs/reference/kinds.md"
if ! diff -u "$page" <("$seqflow" kinds --markdown); then
  echo "docs/reference/kinds.md is stale: regenerate it with" >&2
  echo "  build/seqflow kinds --markdown > docs/reference/kinds.md" >&2
  exit 1
fi
