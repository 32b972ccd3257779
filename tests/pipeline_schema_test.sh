#!/usr/bin/env bash
# `seqflow schema` is a valid draft-07 JSON Schema that accepts every pipeline file the project
# ships and rejects the mistakes an editor should flag (Debian's python3-jsonschema validates).
#   tests/pipeline_schema_test.sh SEQFLOW_BINARY PROJECT_ROOT
set -euo pipefail
schema="$(mktemp)"
trap 'rm -f "$schema"' EXIT
"$1" schema > "$schema"
/usr/bin/python3 - "$schema" "$2" <<'PY'
import copy, glob, json, sys
import jsonschema, yaml

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
failed = 0
files = sorted(glob.glob(sys.argv[2] + "/pipelines/**/*.yaml", recursive=True))
for path in files:
    for error in validator.iter_errors(yaml.safe_load(open(path))):
        failed += 1
        print(f"{path}: /{'/'.join(map(str, error.absolute_path))}: {error.message}")
assert len(files) >= 25, f"only {len(files)} pipeline files found"

# Each broken copy of conll2000_crf.yaml must be rejected.
base = yaml.safe_load(open(sys.argv[2] + "/pipelines/conll2000_crf.yaml"))
def broken(change):
    doc = copy.deepcopy(base)
    change(doc)
    return doc
cases = {
    "unknown parameter": broken(lambda d: d["nodes"]["crf"].update(sigma3=1)),
    "mistyped number": broken(lambda d: d["nodes"]["crf"].update(sigma2="large")),
    "value outside its choices": broken(lambda d: d["nodes"]["train"].update(encoding="bio")),
    "unknown port": broken(lambda d: d["nodes"]["predicted"].update({"in": {"modle": "crf", "data": "test"}})),
    "unknown kind": broken(lambda d: d["nodes"]["crf"].update(kind="crf.trian")),
    "missing kind": broken(lambda d: d["nodes"]["crf"].pop("kind")),
    "missing required parameter": broken(lambda d: d["nodes"]["train"].pop("path")),
    "bad role": broken(lambda d: d["nodes"]["test"].update(role="testing")),
    "unknown top-level key": broken(lambda d: d.update(ablation={})),
}
for name, doc in cases.items():
    if validator.is_valid(doc):
        failed += 1
        print(f"the schema accepts a pipeline with an {name}" if name[0] in "aeiou" else
              f"the schema accepts a pipeline with a {name}")
print(f"{len(files)} pipeline files, {len(cases)} broken copies, {failed} failures")
sys.exit(1 if failed else 0)
PY
