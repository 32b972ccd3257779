#!/usr/bin/env bash
# Fails when code whose results reach an artifact calls a libm transcendental (or Eigen's array
# forms of them): glibc chooses those per CPU and their last bits differ between its variants, so
# nodes/, datasets/, engine/api/ and stats/ use nodes/common/portable_math.h instead.
# Usage: numerics_lint.sh SOURCE_DIR
set -euo pipefail
cd "$1"
banned='(std::)?\b(exp|exp2|expm1|log|log2|log10|log1p|pow|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|hypot|erf|erfc|lgamma|tgamma|cbrt)\(|\.(exp|log|log1p|expm1|pow|sin|cos|tanh|lgamma|digamma)\(\)'
found=""
while IFS= read -r hit; do
  code="${hit#*:*:}"
  code="${code%%//*}"  # a call named in a comment is no call
  code="$(sed -E 's/"([^"\\]|\\.)*"//g' <<< "$code")"  # nor one named in a string
  if grep -qE "$banned" <<< "$code"; then found+="$hit"$'\n'; fi
done < <(grep -rnE --include='*.cpp' --include='*.h' "$banned" nodes datasets engine/api stats | grep -v '^nodes/common/portable_math.h:' || true)
if [[ -n "$found" ]]; then
  echo "libm transcendentals whose bits depend on the CPU (use nodes/common/portable_math.h):"
  echo "$found"
  exit 1
fi
echo "no CPU-dependent libm calls in nodes/, datasets/, engine/api/, stats/"
