// The data-role check: test data never trains, dev data never trains (DESIGN §11).
#include <array>
#include <tuple>

#include "engine/graph/build.h"

namespace seqflow::graph {
namespace {

constexpr int kTest = 0;
constexpr int kDev = 1;
constexpr std::array<const char*, 2> kRoleNames = {"test", "dev"};

// Whether data of `role` may enter a port of `use` at `node`.
bool Allowed(int role, PortUse use, const NodeSpec& node) {
  switch (use) {
    case PortUse::kReads:
      return true;
    case PortUse::kFits:
      return false;
    case PortUse::kFitsInputs:
      return role == kDev || node.transductive;
    case PortUse::kSelects:
      return role == kDev || node.oracle;
  }
  return false;
}

// What to do instead, for the message.
std::string Remedy(int role, PortUse use, const std::string& origin) {
  const std::string drop = "drop `role: " + std::string(kRoleNames[role]) + "` from " + Quoted(origin) +
                           " if it is not " + kRoleNames[role] + " data";
  if (use == PortUse::kSelects)
    return "choosing by test data makes an oracle row: add `oracle: true` to the node to mean it, choose on a dev "
           "set, or " + drop;
  if (use == PortUse::kFitsInputs)
    return "learning from the test sentences' tokens is transductive: add `transductive: true` to the node to mean "
           "it (as Ji et al. do), or " + drop;
  return "train on training data, or " + drop;
}

const char* Doing(PortUse use) {
  switch (use) {
    case PortUse::kFits:
      return "trains on it";
    case PortUse::kFitsInputs:
      return "learns from its tokens";
    case PortUse::kSelects:
      return "chooses by it";
    case PortUse::kReads:
      break;
  }
  return "reads it";
}

const SourceLoc& InputLoc(const NodeSpec& node, const std::string& port, const std::string& source) {
  for (const InputRef& ref : node.inputs) {
    if (ref.source == source && (ref.port == port || ref.port.empty())) return ref.loc;
  }
  return node.loc;
}

Status CheckWaivers(const std::vector<BoundNode>& nodes) {
  for (const BoundNode& node : nodes) {
    const NodeSpec& spec = *node.spec;
    for (auto [flag, use, key] : {std::tuple{spec.oracle, PortUse::kSelects, "oracle"},
                                  std::tuple{spec.transductive, PortUse::kFitsInputs, "transductive"}}) {
      if (!flag) continue;
      bool has_port = false;
      for (const PortSpec& port : node.kind->inputs) has_port = has_port || port.use == use;
      if (!has_port)
        return Status::Invalid(std::string(key) + ": true has no effect on node " + Quoted(spec.name) + " (" +
                                   spec.kind + "): the kind has no port that " + PortUseName(use) +
                                   " on its data; remove it",
                               spec.waiver_loc);
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckDataRoles(const std::vector<BoundNode>& nodes, const std::vector<int>& order) {
  SEQFLOW_RETURN_IF_ERROR(CheckWaivers(nodes));
  // via[n][r]: the input through which role r first reached node n; n itself where declared.
  std::vector<std::array<int, 2>> via(nodes.size(), {-1, -1});
  auto trail = [&](int n, int role) {
    std::string text = nodes[n].spec->name;
    while (via[n][role] != n) {
      n = via[n][role];
      text = nodes[n].spec->name + " → " + text;
    }
    return std::make_pair(text, nodes[n].spec->name);
  };
  for (int n : order) {
    const NodeSpec& spec = *nodes[n].spec;
    if (spec.role == DataRole::kTest) via[n][kTest] = n;
    if (spec.role == DataRole::kDev) via[n][kDev] = n;
    for (const DagInput& input : nodes[n].inputs) {
      const PortSpec& port = *nodes[n].kind->FindPort(input.port);
      for (int source : input.sources) {
        for (int role : {kTest, kDev}) {
          if (via[source][role] < 0) continue;
          if (!Allowed(role, port.use, spec)) {
            auto [path, origin] = trail(source, role);
            return Status::Invalid(std::string(kRoleNames[role]) + " data reaches port " + Quoted(port.name) +
                                       " of node " + Quoted(spec.name) + " (" + spec.kind + "), which " +
                                       Doing(port.use) + ": " + path + " → " + spec.name + "(" +
                                       port.name + "); " + Remedy(role, port.use, origin),
                                   InputLoc(spec, port.name, nodes[source].spec->name));
          }
          if (via[n][role] < 0) via[n][role] = source;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace seqflow::graph
