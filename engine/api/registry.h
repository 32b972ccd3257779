// The catalogue of node kinds and artifact types, filled explicitly by nodes/registry.cpp
// (one Register<Family>Nodes(Registry&) call per family, as Wapiti's trn_lst).
// Thread safety: filled once at start-up, then read-only and safe to share.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "engine/api/params.h"
#include "engine/api/record_spec.h"

namespace seqflow {

// What a kind does with a port's data, for the data-role check (engine/graph/data_roles.cpp):
// data of the test role may reach kReads ports only (unless a node declares itself an oracle or
// transductive), data of the dev role anything but kFits.
enum class PortUse {
  kReads,       // decodes, scores, splits or passes the sentences on
  kFits,        // fits parameters on the sentences and their labels (training data)
  kFitsInputs,  // fits parameters on the tokens alone, labels ignored (unlabeled text, word counts)
  kSelects,     // chooses among fitted candidates, or fits a few held-out weights (λ, LOP weights)
};
// "reads", "fits", "fits inputs", "selects".
const char* PortUseName(PortUse use);

struct PortSpec {
  std::string name;
  // What this port accepts: an artifact kType, or an interface that artifact types declare they
  // implement (Registry::AddArtifactType); "A|B" accepts either. Checked by Registry::Accepts.
  std::string type;
  bool list = false;      // takes one or more upstream nodes (`in: [a, b]`)
  bool optional = false;  // may be left unconnected
  std::string doc;
  PortUse use = PortUse::kReads;  // set by KindSpec::Fitting / FittingInputs / SelectingBy
};

// A parameter that only bounds how long an iterative kind runs (max_iterations, a tolerance):
// runs that differ in such parameters alone follow the same iterates, so the final state of one
// continues to the result of another with a larger budget (DESIGN §11). `larger_runs_longer`:
// a larger value is a larger budget (an iteration count), else a smaller one is (a tolerance).
struct BudgetParam {
  std::string name;
  bool larger_runs_longer = true;
};

// A node body: reads parameters and inputs from the context, calls a kernel, returns the
// artifact. May throw (StatusError for clear failures); the executor turns it into Status.
using NodeFn = std::function<ArtifactPtr(NodeContext&)>;

// What one instance of a kind asks of a scheduler that runs it as a task (Slurm's -c, --mem).
struct ResourceSpec {
  bool parallel = false;       // its body uses ctx.threads() cores (else one is enough)
  int memory_mb = 1024;        // peak memory on the project's real data sets, rounded up
  bool data_parallel = false;  // its kernel spreads over ctx.processes() (MPI ranks)
};

struct KindSpec {
  KindSpec() = default;
  // The positional form the kinds are written in: KindSpec{name, version, doc, output_type,
  // inputs, params, run}. A constructor, so that form needs no initializer for `record`.
  KindSpec(std::string name_, std::string version_, std::string doc_, std::string output_type_,
           std::vector<PortSpec> inputs_, std::vector<ParamSpec> params_, NodeFn run_)
      : name(std::move(name_)),
        version(std::move(version_)),
        doc(std::move(doc_)),
        output_type(std::move(output_type_)),
        inputs(std::move(inputs_)),
        params(std::move(params_)),
        run(std::move(run_)) {}
  // The same with the parameters declared by a table (engine/api/param_table.h): `params` are
  // its Specs(), and `run_` receives the options struct the table reads from the node's Params.
  template <class O>
  KindSpec(std::string name_, std::string version_, std::string doc_, std::string output_type_,
           std::vector<PortSpec> inputs_, const ParamTable<O>& table,
           std::type_identity_t<std::function<ArtifactPtr(NodeContext&, const O&)>> run_)
      : KindSpec(std::move(name_), std::move(version_), std::move(doc_), std::move(output_type_), std::move(inputs_),
                 table.Specs(), nullptr) {
    auto shared = std::make_shared<const ParamTable<O>>(table);
    binding = shared;
    run = [shared, body = std::move(run_)](NodeContext& ctx) { return body(ctx, shared->Read(ctx.params())); };
  }

  std::string name;     // "hmm.supervised"
  std::string version;  // bump whenever what the kind computes changes (enters cache keys)
  std::string doc;      // one paragraph for `seqflow kinds`
  // The artifact kType the body returns, or "A|B" for a kind that returns either, by what its
  // inputs are (features.templates: a FeatureSet from a Corpus, a ShardedFeatureSet from a
  // ShardedCorpus); a port takes the kind's output only if it accepts every alternative.
  std::string output_type;
  std::vector<PortSpec> inputs;
  std::vector<ParamSpec> params;
  // The table `params` came from; null when they were given as a plain list (a kind without
  // parameters, or a test's fake kind).
  std::shared_ptr<const ParamBinding> binding;
  NodeFn run;
  // What the run record needs to know of this kind (engine/api/record_spec.h); set it by
  // chaining onto the braces: KindSpec{...}.As(NodeRole::kEvaluator, {"f1"}).Attaching({...})
  RecordSpec record;
  ResourceSpec resources;
  // Its budget parameters (Continuing); empty for a kind that does not continue.
  std::vector<BudgetParam> budget;

  const PortSpec* FindPort(std::string_view port) const;
  // Whether `artifact_type` is one of output_type's alternatives.
  bool Outputs(std::string_view artifact_type) const;
  const ParamSpec* FindParam(std::string_view param) const;

  KindSpec&& As(NodeRole role, std::vector<std::string> headline = {}) &&;
  KindSpec&& Attaching(AttachmentSpec attachment) &&;
  // For selectors: the metric holding the chosen λ (RecordSpec::chosen_lambda).
  KindSpec&& ChoosingLambda(std::string metric) &&;
  // For evaluators of several systems: the headline metrics come per system, with p-values
  // named by `p_value_prefix` (RecordSpec::per_system, system_p_prefix).
  KindSpec&& PerSystem(std::string p_value_prefix) &&;
  // Declares what the kind does with the named ports' data (PortUse); throws StatusError for a
  // port the kind does not have.
  KindSpec&& Fitting(const std::vector<std::string>& ports) &&;
  KindSpec&& FittingInputs(const std::vector<std::string>& ports) &&;
  KindSpec&& SelectingBy(const std::vector<std::string>& ports) &&;
  KindSpec&& Needing(ResourceSpec needs) &&;
  // Declares the budget parameters of an iterative kind whose body keeps its final state
  // (NodeContext::KeepFinalState) and continues from the one ResumeState gives; throws
  // StatusError for an undeclared parameter or one that is not a number.
  KindSpec&& Continuing(std::vector<BudgetParam> budget_params) &&;
};

using ArtifactLoader = std::function<ArtifactPtr(ByteReader&)>;

class Registry {
 public:
  // REQUIRES: the name is not registered yet (else throws StatusError). `registered_in` is the
  // caller's source file (the compiler fills it in), for the test that keeps a kind in the folder
  // its name says.
  void AddKind(KindSpec kind, const char* registered_in = __builtin_FILE());
  // Registers T's loader, and that T implements each of `interfaces` (e.g. "ChainModel"): a port
  // typed by one of them accepts T. Declared here, where the type is registered, so that a new
  // type reaches every port of its interfaces without an edit to the kinds that own them.
  template <class T>
  void AddArtifactType(std::vector<std::string> interfaces = {}) {
    AddLoader(std::string(T::kType), T::kVersion, [](ByteReader& r) -> ArtifactPtr { return T::Load(r); });
    for (std::string& name : interfaces) implementers_[std::move(name)].insert(std::string(T::kType));
  }

  const KindSpec* FindKind(std::string_view name) const;
  // The source file that registered kind `name` (as the compiler spelled it), or "" when unknown.
  std::string_view RegisteredIn(std::string_view name) const;
  std::vector<const KindSpec*> Kinds() const;  // sorted by name
  // Loads an artifact payload; throws StatusError(Corruption) for an unknown type or a version
  // other than the registered one.
  ArtifactPtr LoadArtifact(std::string_view type, uint32_t version, ByteReader& r) const;
  // How many artifacts of `type` LoadArtifact has decoded in this process, by every registry:
  // what the tests read to check that a rerun whose nodes are all cached decodes no model.
  static uint64_t ArtifactsDecoded(std::string_view type);
  // Throws StatusError (Corruption) unless LoadArtifact would accept an artifact of this type and
  // format version.
  void CheckArtifactVersion(std::string_view type, uint32_t version) const;
  bool HasArtifactType(std::string_view type) const;

  // Whether `port` takes an artifact of type `artifact_type`: the type is one of the port's
  // alternatives or implements one of them. A kind's output "A|B" is taken when A and B are.
  bool Accepts(const PortSpec& port, std::string_view artifact_type) const;
  // What `port` accepts, for messages and the catalogue: "HmmModel or CrfModel", and an interface
  // with its implementers, "ChainModel (CrfModel, HmmModel or HybridModel)".
  std::string PortTypeText(const PortSpec& port) const;

 private:
  void AddLoader(std::string type, uint32_t version, ArtifactLoader loader);
  std::map<std::string, KindSpec, std::less<>> kinds_;
  std::map<std::string, std::string, std::less<>> registered_in_;
  struct TypeEntry {
    uint32_t version;
    ArtifactLoader loader;
  };
  std::map<std::string, TypeEntry, std::less<>> types_;
  std::map<std::string, std::set<std::string>, std::less<>> implementers_;  // interface -> kTypes
};

// The closest of `candidates` to `word` by edit distance, or "" when none is close
// (distance > max(2, |word|/3)). For did-you-mean messages.
std::string NearestName(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace seqflow
