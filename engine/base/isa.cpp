#include "engine/base/isa.h"

#include <atomic>
#include <cstdlib>

namespace seqflow {
namespace {

constexpr std::string_view kNames[] = {"baseline", "avx2", "avx512"};

std::atomic<int> active{-1};

Isa BestIsa() {
  if (CpuSupports(Isa::kAvx512)) return Isa::kAvx512;
  if (CpuSupports(Isa::kAvx2)) return Isa::kAvx2;
  return Isa::kBaseline;
}

// SEQFLOW_ISA when it names a variant this CPU runs (so benchmarks and tests can be pointed at
// one), else the best; the command line rejects a bad SEQFLOW_ISA before any kernel runs.
Isa DefaultIsa() {
  const char* requested = std::getenv("SEQFLOW_ISA");
  const std::optional<Isa> isa = ParseIsa(requested == nullptr ? "" : requested);
  return isa && CpuSupports(*isa) ? *isa : BestIsa();
}

}  // namespace

std::string_view IsaName(Isa isa) { return kNames[static_cast<int>(isa)]; }

std::optional<Isa> ParseIsa(std::string_view name) {
  for (int i = 0; i < 3; ++i) {
    if (kNames[i] == name) return static_cast<Isa>(i);
  }
  return std::nullopt;
}

// A clang build (the sanitizer and fuzz build) runs the baseline variant only. Its AVX2 and
// AVX-512 clones computed wrong values (tests/nodes/chain tangent_lanes_test and
// second_order_lanes_test fail under SEQFLOW_ISA=avx2 or avx512 and pass under baseline): clang's
// `flatten` leaves calls out of a clone that GCC inlines, and a 64-byte lane vector passed by
// value across that target boundary changes ABI (the -Wno-psabi warning). The release build is
// GCC's; clang's level names in __builtin_cpu_supports arrive only with clang 16 anyway.
namespace {
#if defined(__clang__)
bool CpuHasX86_64_v3() { return false; }
bool CpuHasX86_64_v4() { return false; }
#else
bool CpuHasX86_64_v3() { return __builtin_cpu_supports("x86-64-v3"); }
bool CpuHasX86_64_v4() { return __builtin_cpu_supports("x86-64-v4"); }
#endif
}  // namespace

bool CpuSupports(Isa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case Isa::kAvx512:
      return CpuHasX86_64_v4();
    case Isa::kAvx2:
      return CpuHasX86_64_v3();
    case Isa::kBaseline:
      return true;  // the whole binary is built for it
  }
  return false;
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (CpuSupports(isa)) out.push_back(isa);
  }
  return out;
}

Isa ActiveIsa() {
  int isa = active.load(std::memory_order_relaxed);
  if (isa < 0) {
    isa = static_cast<int>(DefaultIsa());
    active.store(isa, std::memory_order_relaxed);
  }
  return static_cast<Isa>(isa);
}

void SetActiveIsa(Isa isa) { active.store(static_cast<int>(isa), std::memory_order_relaxed); }

}  // namespace seqflow
