#include "tests/engine/exec/fake_kinds.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>

#include "engine/api/node.h"
#include "engine/base/hash.h"

namespace seqflow::testkit {
namespace {

double Num(const Params& p, const std::string& name, double def) { return p.Has(name) ? p.GetDouble(name) : def; }
std::string Text(const Params& p, const std::string& name, const std::string& def) {
  return p.Has(name) ? p.GetString(name) : def;
}

KindSpec Kind(std::string name, std::vector<PortSpec> inputs, NodeFn run, std::string output = "TestValue") {
  KindSpec k;
  k.name = std::move(name);
  k.version = "1";
  k.output_type = std::move(output);
  k.inputs = std::move(inputs);
  k.run = std::move(run);
  return k;
}

PortSpec Port(std::string name, bool list = false) { return PortSpec{std::move(name), "TestValue", list, false, ""}; }

ArtifactPtr Sum(NodeContext& ctx) {
  double total = Num(ctx.params(), "offset", 0);
  std::string text;
  for (const auto& v : ctx.InList<TestValue>("in")) {
    total += v->number;
    text += (text.empty() ? "" : "+") + v->text;
  }
  ctx.Metric("count", static_cast<double>(ctx.inputs("in").size()));
  return std::make_shared<TestValue>(text, total);
}

ArtifactPtr Pair(NodeContext& ctx) {
  auto left = ctx.In<TestValue>("left");
  auto right = ctx.In<TestValue>("right");
  return std::make_shared<TestValue>(left->text + "|" + right->text, left->number - right->number);
}

ArtifactPtr Sleep(NodeContext& ctx) {
  double ms = Num(ctx.params(), "ms", 0);
  ctx.Progress(0, 1);
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  ctx.Progress(1, 1);
  return std::make_shared<TestValue>("slept", ms);
}

// A "meet" node waits until `parties` meet nodes of this process have arrived, 10 s at most: each
// meets the others (metric `met` 1) only when the executor runs them at the same time.
ArtifactPtr Meet(NodeContext& ctx) {
  struct Meeting {
    std::mutex mu;
    std::condition_variable arrivals;
    int arrived = 0;
  };
  static Meeting meeting;
  const int parties = static_cast<int>(Num(ctx.params(), "parties", 2));
  std::unique_lock<std::mutex> lock(meeting.mu);
  ++meeting.arrived;
  meeting.arrivals.notify_all();
  const bool met =
      meeting.arrivals.wait_for(lock, std::chrono::seconds(10), [&] { return meeting.arrived >= parties; });
  ctx.Metric("met", met ? 1 : 0);
  return std::make_shared<TestValue>("met", met ? 1.0 : 0.0);
}

// A "heavy", "light" or "huge" node: sleeps `ms` while counted in MemoryUse() with its kind's
// declared memory.
ArtifactPtr Hold(NodeContext& ctx, int64_t mb) {
  MemoryUse& use = RunningMemory();
  {
    std::lock_guard<std::mutex> lock(use.mu);
    if (use.huge_running || (mb == kHugeMb && use.running_mb > 0)) use.huge_overlapped = true;
    use.running_mb += mb;
    use.huge_running = use.huge_running || mb == kHugeMb;
    if (mb != kHugeMb) use.peak_mb = std::max(use.peak_mb, use.running_mb);
  }
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(Num(ctx.params(), "ms", 0)));
  {
    std::lock_guard<std::mutex> lock(use.mu);
    use.running_mb -= mb;
    if (mb == kHugeMb) use.huge_running = false;
  }
  return std::make_shared<TestValue>("held", static_cast<double>(mb));
}

[[noreturn]] ArtifactPtr Fail(NodeContext& ctx) {
  std::string how = Text(ctx.params(), "how", "status");
  if (how == "status") throw StatusError(Status::Invalid("boom"));
  if (how == "exception") throw std::runtime_error("bad thing");
  throw 42;
}

ArtifactPtr Nan(NodeContext& ctx) {
  ctx.Metric("loss", std::numeric_limits<double>::quiet_NaN());
  return std::make_shared<TestValue>("nan", 0);
}

ArtifactPtr Score(NodeContext& ctx) {
  auto m = std::make_shared<Metrics>();
  m->values["score"] = ctx.In<TestValue>("in")->number * Num(ctx.params(), "scale", 1);
  return m;
}

// x ← rate·x + 1 from x = 0, one step at a time, until `steps` steps or a change below `tol`;
// checkpoints after every step and keeps its final state, "steps x" in text (x as %a); reports x.
ArtifactPtr Iterate(NodeContext& ctx) {
  const Params& p = ctx.params();
  const int64_t max_steps = p.GetInt("steps");
  const double rate = p.GetDouble("rate"), tol = p.GetDouble("tol");
  int64_t step = 0;
  double x = 0, change = std::numeric_limits<double>::infinity();
  if (std::optional<std::string> state = ctx.ResumeState())
    std::sscanf(state->c_str(), "%" SCNd64 " %la %la", &step, &x, &change);
  ctx.Metric("started_at", static_cast<double>(step));
  auto encode = [&] {
    char text[96];
    std::snprintf(text, sizeof text, "%" PRId64 " %a %a", step, x, change);
    return std::string(text);
  };
  while (step < max_steps && !(change < tol)) {
    const double next = rate * x + 1;
    change = std::abs(next - x);
    x = next, ++step;
    ctx.Checkpoint(encode);
  }
  ctx.KeepFinalState(step, encode);
  ctx.Metric("steps", static_cast<double>(step));
  ctx.Metric("x", x);  // infinite when rate is: the node then fails numerically
  return std::make_shared<TestValue>("iterated", x);
}

Registry* BuildRegistry() {
  auto* r = new Registry();  // never deleted: shared by every test of the process
  r->AddArtifactType<TestValue>();
  r->AddArtifactType<Metrics>();
  r->AddKind(Kind("const", {}, [](NodeContext& ctx) -> ArtifactPtr {
    const double value = Num(ctx.params(), "value", 0);
    const auto doubles = static_cast<size_t>(Num(ctx.params(), "doubles", 0));
    return std::make_shared<TestValue>(Text(ctx.params(), "text", ctx.node_name()), value,
                                       std::vector<double>(doubles, value));
  }));
  r->AddKind(Kind("sum", {Port("in", true)}, Sum));
  r->AddKind(Kind("pair", {Port("left"), Port("right")}, Pair));
  r->AddKind(Kind("sleep", {}, Sleep).Needing({.parallel = true, .memory_mb = 64}));
  r->AddKind(Kind("meet", {}, Meet).Needing({.parallel = true, .memory_mb = 64}));
  for (auto [name, mb] : {std::pair<const char*, int64_t>{"heavy", kHeavyMb}, {"light", kLightMb}, {"huge", kHugeMb}})
    r->AddKind(Kind(name, {Port("in", true)}, [mb = mb](NodeContext& ctx) { return Hold(ctx, mb); })
                   .Needing({.parallel = true, .memory_mb = static_cast<int>(mb)}));
  r->AddKind(Kind("fail", {Port("in", true)}, Fail));
  r->AddKind(Kind("nan", {}, Nan));
  r->AddKind(Kind("score", {Port("in")}, Score, "Metrics"));
  r->AddKind(Kind("wrong", {}, [](NodeContext&) -> ArtifactPtr { return std::make_shared<Metrics>(); }));
  KindSpec iterate = Kind("iterate", {}, Iterate);
  iterate.params = {ParamSpec::Int("steps", 10, "steps at most"), ParamSpec::Double("tol", 0, "stop below this change"),
                    ParamSpec::Double("rate", 0.5, "x <- rate x + 1")};
  r->AddKind(std::move(iterate).Continuing({{"steps", true}, {"tol", false}}));
  return r;
}

}  // namespace

MemoryUse& RunningMemory() {
  static MemoryUse use;
  return use;
}

const Registry& FakeRegistry() {
  static const Registry* registry = BuildRegistry();
  return *registry;
}

int DagBuilder::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < dag_.nodes.size(); ++i)
    if (dag_.nodes[i].name == name) return static_cast<int>(i);
  throw std::logic_error("DagBuilder: no node '" + name + "' yet");
}

DagBuilder& DagBuilder::Add(const std::string& name, const std::string& kind, std::map<std::string, ParamValue> params,
                            const PortInputs& inputs) {
  DagNode node;
  node.name = name;
  node.kind = FakeRegistry().FindKind(kind);
  if (node.kind == nullptr) throw std::logic_error("DagBuilder: no kind '" + kind + "'");
  const std::map<std::string, ParamValue> params_copy = params;
  node.params = Params(std::move(params));
  Hasher h;
  h.Add(node.kind->name).Add(node.kind->version).Add(node.params.Canonical());
  for (const auto& [port, sources] : inputs) {
    DagInput input{port, {}};
    h.Add(port);
    for (const std::string& source : sources) {
      input.sources.push_back(IndexOf(source));
      h.Add(dag_.nodes[input.sources.back()].key);
    }
    node.inputs.push_back(std::move(input));
  }
  node.key = h.HexDigest();
  if (!node.kind->budget.empty()) {
    // As the graph's: the key without the budget parameters.
    std::map<std::string, ParamValue> rest;
    for (const ParamSpec& spec : node.kind->params) {
      const bool budget = std::any_of(node.kind->budget.begin(), node.kind->budget.end(),
                                      [&](const BudgetParam& b) { return b.name == spec.name; });
      if (!budget && params_copy.count(spec.name)) rest[spec.name] = params_copy.at(spec.name);
    }
    Hasher family;
    family.Add("family").Add(node.kind->name).Add(node.kind->version).Add(Params(std::move(rest)).Canonical());
    for (const DagInput& input : node.inputs) {
      family.Add(input.port);
      for (int source : input.sources) family.Add(dag_.nodes[source].key);
    }
    node.family_key = family.HexDigest();
  }
  dag_.nodes.push_back(std::move(node));
  return *this;
}

Dag DemoDag(int sleep_ms) {
  DagBuilder b;
  b.Add("a", "const", {{"value", 1.5}})
      .Add("b", "const", {{"value", 2.25}})
      .Add("c", "const", {{"value", -0.125}, {"text", std::string("cee")}})
      .Add("ab", "sum", {{"offset", 0.1}}, {{"in", {"a", "b"}}})
      .Add("bc", "sum", {}, {{"in", {"b", "c"}}})
      .Add("abc", "sum", {{"offset", 1e-17}}, {{"in", {"ab", "bc", "c"}}})
      .Add("p1", "pair", {}, {{"left", {"ab"}}, {"right", {"bc"}}})
      .Add("p2", "pair", {}, {{"left", {"bc"}}, {"right", {"ab"}}})
      .Add("all", "sum", {}, {{"in", {"p1", "p2", "abc"}}})
      .Add("s1", "score", {{"scale", 3.0}}, {{"in", {"all"}}})
      .Add("s2", "score", {}, {{"in", {"p2"}}})
      .Add("tail", "sum", {{"offset", 7.0}}, {{"in", {"all", "abc"}}});
  if (sleep_ms > 0) {
    b.Add("nap1", "sleep", {{"ms", static_cast<double>(sleep_ms)}})
        .Add("nap2", "sleep", {{"ms", static_cast<double>(sleep_ms) + 1}})
        .Add("naps", "sum", {}, {{"in", {"nap1", "nap2", "tail"}}});
  }
  return b.dag();
}

}  // namespace seqflow::testkit
