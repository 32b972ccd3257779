#!/usr/bin/python3
"""Fig. 1's numbers from a run record of conll2002_multiview.yaml or conll2002_multiview_svm.yaml.

    python3 bench/multiview_table.py OUT [--baseline SYSTEM]

For each n (the labeled.labeled axis) and each system of the `compare` node: token error
(1 - accuracy) as mean ± sd (sample sd) over the draws, conlleval F1 (compare's f1.SYSTEM) as the
mean, and a two-sided paired t-test over the draws against the baseline system (default: the first
one) on the token error. The draws are the repeat axis: one run per (n, seed).
"""
import argparse
import json
import math
import os


def incomplete_beta(a, b, x):
    """Regularized incomplete beta I_x(a, b) by its continued fraction (modified Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - incomplete_beta(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            numerator = 1.0
        elif i % 2 == 0:
            numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + numerator * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + numerator / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(1 - c * d) < 1e-14:
            break
    return front * (f - 1)


def paired_t_p(a, b):
    diffs = [x - y for x, y in zip(a, b)]
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        return 1.0 if mean == 0 else 0.0
    t = mean / math.sqrt(var / n)
    df = n - 1
    return incomplete_beta(df / 2, 0.5, df / (df + t * t))


def mean_sd(xs):
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--baseline")
    args = parser.parse_args()
    with open(os.path.join(args.out, "summary.json")) as f:
        runs = json.load(f)["runs"]
    metrics = runs[0]["nodes"]["compare"]["metrics"]
    systems = [k[len("accuracy."):] for k in metrics if k.startswith("accuracy.")]
    baseline = args.baseline or systems[0]
    by_n = {}
    for run in runs:
        n = int(run["ablation"].get("labeled.labeled", 10))
        by_n.setdefault(n, []).append(run["nodes"]["compare"]["metrics"])
    for n in sorted(by_n):
        draws = by_n[n]
        print("n = %d (%d draws)" % (n, len(draws)))
        errors = {s: [100 * (1 - d["accuracy." + s]) for d in draws] for s in systems}
        for s in systems:
            m, sd = mean_sd(errors[s])
            f1 = sum(100 * d.get("f1." + s, float("nan")) for d in draws) / len(draws)
            p = "" if s == baseline else "  p = %.3f vs %s" % (paired_t_p(errors[s], errors[baseline]), baseline)
            print("  %-12s %6.2f ± %.2f %%  F1 %5.1f%s" % (s, m, sd, f1, p))


if __name__ == "__main__":
    main()
