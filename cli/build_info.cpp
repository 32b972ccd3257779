#include "cli/build_info.h"

#include <string_view>

#include "cli/huge_pages.h"
#include "engine/base/isa.h"
#include "engine/base/numerics.h"

namespace seqflow::cli {
namespace {

std::string Supported() {
  std::string names;
  for (Isa isa : SupportedIsas()) names += (names.empty() ? "" : " ") + std::string(IsaName(isa));
  return names;
}

}  // namespace

Status ApplyIsaChoice(const char* requested) {
  if (requested == nullptr || *requested == '\0') return Status::Ok();
  const std::optional<Isa> isa = ParseIsa(requested);
  if (!isa) {
    return Status::Invalid("SEQFLOW_ISA=" + std::string(requested) +
                                   ": unknown instruction set; use one of baseline, avx2, avx512 (this CPU runs: " +
                                   Supported() + ")");
  }
  if (!CpuSupports(*isa)) {
    return Status::Invalid("SEQFLOW_ISA=" + std::string(requested) +
                                   ": this CPU cannot run it; it runs: " + Supported());
  }
  SetActiveIsa(*isa);
  return Status::Ok();
}

std::string BuildDescription() {
  return "seqflow " SEQFLOW_VERSION ", numerics " + std::string(NumericsId()) + ", kernels " +
         std::string(IsaName(ActiveIsa())) + " (this CPU: " + Supported() + "), " +
         (MallocOnHugePages() ? "malloc on huge pages" : "malloc on small pages");
}

}  // namespace seqflow::cli
