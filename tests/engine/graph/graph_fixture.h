// A small fake catalogue of kinds (no dependency on nodes/) and a fixture that parses a pipeline
// string and builds its Dag.
//   t.source  () -> A            path: path (required), encoding: runs|iob = runs
//   t.double  (in: A) -> A       factor: number > 0 = 1
//   t.merge   (items: [A]) -> B  freeze: list of strings = []
//   t.pair    (left: A, right: A, extra: B optional) -> B
//                                smoothing.transition: number = 0.1, iterations: int (required)
//   t.sink    (model: B) -> B
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/graph/dag.h"
#include "tests/engine/dsl/pipeline_fixture.h"

namespace seqflow::testutil {

inline PortSpec Port(std::string name, std::string type, bool list = false, bool optional = false) {
  return PortSpec{std::move(name), std::move(type), list, optional, ""};
}

inline Registry MakeFakeRegistry() {
  Registry r;
  r.AddKind({"t.source", "1", "reads a file", "A", {},
             {ParamSpec::Path("path", "input file"), ParamSpec::Enum("encoding", {"runs", "iob"}, "runs", "")},
             nullptr});
  r.AddKind({"t.double", "1", "", "A", {Port("in", "A")}, {ParamSpec::Double("factor", 1.0, "scale").Greater(0)},
             nullptr});
  r.AddKind({"t.merge", "2", "", "B", {Port("items", "A", true)}, {ParamSpec::StringList("freeze", {}, "")},
             nullptr});
  r.AddKind({"t.pair", "1", "", "B", {Port("left", "A"), Port("right", "A"), Port("extra", "B", false, true)},
             {ParamSpec::Double("smoothing.transition", 0.1, ""),
              ParamSpec::Int("iterations", std::nullopt, "EM iterations")},
             nullptr});
  r.AddKind({"t.sink", "1", "", "B", {Port("model", "B")}, {}, nullptr});
  return r;
}

class GraphTest : public PipelineTest {
 protected:
  void SetUp() override {
    PipelineTest::SetUp();
    Write("data.txt", "hello\n");
  }
  Result<Dag> Build(const std::string& text, std::vector<std::string> sets = {}) {
    Result<PipelineSpec> spec = Parse(text, std::move(sets));
    if (!spec.ok()) return spec.status();
    return BuildDag(*spec, registry_, hasher_);
  }
  // name -> key of every node.
  static std::map<std::string, std::string> Keys(const Dag& dag) {
    std::map<std::string, std::string> keys;
    for (const auto& n : dag.nodes) keys[n.name] = n.key;
    return keys;
  }

  Registry registry_ = MakeFakeRegistry();
  FileHasher hasher_{Env::Default()};
};

}  // namespace seqflow::testutil
