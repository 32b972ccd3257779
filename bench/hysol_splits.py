#!/usr/bin/python3
"""HySOL's rows over seeded splits, from a run record of conll20{00,03}_hysol_splits.yaml.

    python3 bench/hysol_splits.py OUT [--against OUT2]

Prints, per row of the paper's Tables 3/4 (the eval.segments nodes), F1 per seed and mean ± sd
(sample sd), then HySOL against CRF, LOP-CRF and HySOL without HMMs: the mean F1 difference over
seeds, a paired t-test on the per-seed differences, and a paired approximate randomization test
over test sentences pooled over the seeds (stratified: swaps stay within a seed, the statistic is
the mean over seeds of the F1 difference, as stats/significance.h does for `seqflow report`).
With --against OUT2 (the same pipeline run otherwise, e.g. with the rewrite rules), each row of
OUT against the same row of OUT2, paired by seed.
"""
import argparse
import json
import math
import os
import random

ROWS = [("crf", "CRF"), ("crf45", "CRF 4/5"), ("lop_crf", "LOP-CRF"), ("hysol_crf", "HySOL"),
        ("hysol_no_prior", "HySOL w/o prior"), ("hysol_no_hmm", "HySOL w/o HMMs")]
SHUFFLES = 10000


def load(out):
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    runs = summary["runs"]
    record = {}
    for i, run in enumerate(runs):
        seed = str(run.get("axes", {}).get("repeat", i))
        prefix = "" if len(runs) == 1 else "run-%d/" % i
        record[seed] = {"nodes": run["nodes"], "prefix": os.path.join(out, prefix)}
    return record


def f1_of(run, node):
    return run["nodes"][node]["metrics"]["f1"]


def sentence_stats(run, node):
    rows = []
    with open(run["prefix"] + node + ".sentences.csv") as f:
        for line in f:
            if line.startswith("#") or line.startswith("correct"):
                continue
            rows.append(tuple(int(x) for x in line.strip().split(",")[:3]))
    return rows


def f1(correct, guessed, gold):
    p = correct / guessed if guessed else 0.0
    r = correct / gold if gold else 0.0
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def mean_sd(xs):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b) by Lentz's continued fraction."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h


def paired_t(diffs):
    """Two-sided p of a paired t-test on per-seed differences (None for fewer than 2 seeds)."""
    n = len(diffs)
    if n < 2:
        return None, None
    m, sd = mean_sd(diffs)
    if sd == 0:
        return math.inf, 0.0
    t = m / (sd / math.sqrt(n))
    df = n - 1
    return t, betainc(df / 2, 0.5, df / (df + t * t))


def randomization(strata, rng):
    """strata: per seed, (stats of A, stats of B) sentence by sentence. Two-sided p of the mean F1 difference."""
    prepared = []
    observed = 0.0
    for a, b in strata:
        total_a = [sum(s[k] for s in a) for k in range(3)]
        total_b = [sum(s[k] for s in b) for k in range(3)]
        differing = [(sa, sb) for sa, sb in zip(a, b) if sa != sb]
        prepared.append((total_a, total_b, differing))
        observed += f1(*total_a) - f1(*total_b)
    observed /= len(strata)
    extreme = 0
    for _ in range(SHUFFLES):
        stat = 0.0
        for total_a, total_b, differing in prepared:
            ta, tb = list(total_a), list(total_b)
            for sa, sb in differing:
                if rng.random() < 0.5:
                    for k in range(3):
                        delta = sb[k] - sa[k]
                        ta[k] += delta
                        tb[k] -= delta
            stat += f1(*ta) - f1(*tb)
        extreme += abs(stat / len(prepared)) >= abs(observed) - 1e-12
    return (extreme + 1) / (SHUFFLES + 1)


def compare(name, a_runs, a_node, b_runs, b_node, seeds, rng):
    diffs = [100 * (f1_of(a_runs[s], a_node) - f1_of(b_runs[s], b_node)) for s in seeds]
    m, sd = mean_sd(diffs)
    t, p_t = paired_t(diffs)
    strata = [(sentence_stats(a_runs[s], a_node), sentence_stats(b_runs[s], b_node)) for s in seeds]
    p_r = randomization(strata, rng)
    t_text = "t = %.2f, p = %.3f" % (t, p_t) if t is not None else "t: one seed"
    print("| %s | %+.2f ± %.2f | %s | %s | %.4f |" % (name, m, sd, " ".join("%+.2f" % d for d in diffs), t_text, p_r))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--against")
    args = parser.parse_args()
    runs = load(args.out)
    seeds = sorted(runs, key=lambda s: (len(s), s))
    rng = random.Random(1)

    print("| row | " + " | ".join("seed " + s for s in seeds) + " | mean ± sd |")
    print("|---|" + "---|" * (len(seeds) + 1))
    for node, label in ROWS:
        f1s = [100 * f1_of(runs[s], node) for s in seeds]
        m, sd = mean_sd(f1s)
        print("| %s | %s | %.2f ± %.2f |" % (label, " | ".join("%.2f" % x for x in f1s), m, sd))

    print()
    print("| comparison | mean F1 difference ± sd | per seed | paired t over seeds | randomization p (pooled) |")
    print("|---|---|---|---|---|")
    if args.against:
        other = load(args.against)
        common = [s for s in seeds if s in other]
        for node, label in ROWS:
            compare("%s: %s − %s" % (label, args.out, args.against), runs, node, other, node, common, rng)
    else:
        for node, label in [("crf", "CRF"), ("lop_crf", "LOP-CRF"), ("hysol_no_hmm", "HySOL w/o HMMs")]:
            compare("HySOL − " + label, runs, "hysol_crf", runs, node, seeds, rng)


if __name__ == "__main__":
    main()
