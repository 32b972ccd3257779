// The instruction sets the hot kernels are compiled for, and the one this process runs.
//
// The default build targets x86-64-v2 (SSE4.2: every x86-64 server and desktop since 2009-2011)
// and runs anywhere. The hot kernels (the chain library's lane passes, the CRF's scatter and
// gather) are compiled three times, for that baseline, for AVX2 (x86-64-v3) and for AVX-512
// (x86-64-v4), by SEQFLOW_ISA_CLONES, and one variant is chosen once per process: the best the
// CPU supports, or the one SEQFLOW_ISA names (cli/ rejects a name the CPU cannot run).
//
// The variants compute the same bits: the lanes of a kernel are independent (vector width only
// changes how many go per instruction), the build turns FMA contraction off for every target,
// reductions run in a fixed order, and transcendentals come from portable_math.h. So a result
// never depends on the variant, and the variant is not part of any cache key (tests/nodes/chain
// and tests/e2e/isa_variants_test.cpp run every variant this machine has and compare bits).
// Thread safety: ActiveIsa is safe from any thread; SetActiveIsa belongs to start-up (or a test).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seqflow {

enum class Isa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

std::string_view IsaName(Isa isa);
// "baseline", "avx2" or "avx512"; nullopt for anything else.
std::optional<Isa> ParseIsa(std::string_view name);
bool CpuSupports(Isa isa);
// Every variant this CPU runs, baseline first.
std::vector<Isa> SupportedIsas();
// The variant the kernels run: set by SetActiveIsa, else SEQFLOW_ISA if the CPU runs it, else the
// best the CPU supports.
Isa ActiveIsa();
// REQUIRES: CpuSupports(isa).
void SetActiveIsa(Isa isa);

}  // namespace seqflow

// Defines `ret name params`, which runs `body args` compiled for the active Isa: three flattened
// clones (everything `body` calls is inlined into each, so each is compiled for its instruction set
// alone) and a switch. `params` and `args` are parenthesised lists, e.g.
//   SEQFLOW_ISA_CLONES(double, SumRows, (const double* x, int n), SumRowsKernel, (x, n))
// `body` must be visible in the translation unit (a template or inline function).
#define SEQFLOW_ISA_CLONES(ret, name, params, body, args) \
  SEQFLOW_ISA_CLONES_CALLING(ret, name, params, body, body, body, args)

// SEQFLOW_ISA_CLONES for a `body` that takes the clone's native vector width in bytes as its
// template argument (kNativeBytesAvx512 = 64, kNativeBytesAvx2 = 32, kNativeBytesBaseline = 16 in
// nodes/common/lanes.h), so that its lane code can work on pieces the target has registers for.
#define SEQFLOW_ISA_WIDTH_CLONES(ret, name, params, body, args) \
  SEQFLOW_ISA_CLONES_CALLING(ret, name, params, body<64>, body<32>, body<16>, args)

// The clones and the switch of the two above; each clone calls its own body. A clang build (the
// sanitizer and fuzz build) runs the baseline variant only (isa.cpp says why), so it compiles that
// one alone, unflattened: the other two clones would never run, and compiling them flattened under
// ASan took two to three times as long for each lane kernel's file, in a build CI makes afresh.
#if defined(__clang__)
#define SEQFLOW_ISA_CLONES_CALLING(ret, name, params, avx512_body, avx2_body, baseline_body, args) \
  ret name params { return baseline_body args; }
#else
#define SEQFLOW_ISA_CLONES_CALLING(ret, name, params, avx512_body, avx2_body, baseline_body, args)          \
  [[gnu::target("arch=x86-64-v4"), gnu::flatten]] static ret name##Avx512 params { return avx512_body args; } \
  [[gnu::target("arch=x86-64-v3"), gnu::flatten]] static ret name##Avx2 params { return avx2_body args; }     \
  [[gnu::flatten]] static ret name##Baseline params { return baseline_body args; }                            \
  ret name params {                                                                                            \
    switch (::seqflow::ActiveIsa()) {                                                                          \
      case ::seqflow::Isa::kAvx512:                                                                            \
        return name##Avx512 args;                                                                              \
      case ::seqflow::Isa::kAvx2:                                                                              \
        return name##Avx2 args;                                                                                \
      case ::seqflow::Isa::kBaseline:                                                                          \
        break;                                                                                                 \
    }                                                                                                          \
    return name##Baseline args;                                                                                \
  }
#endif
