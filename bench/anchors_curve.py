#!/usr/bin/python3
"""Figure 2 of Marinho et al. (2016) over seeded repeats, from a run record of
pipelines/twitter_anchors_curve.yaml.

    python3 bench/anchors_curve.py OUT

Prints per labeled-set size N the Daily547 accuracy of every model as mean ± sd (sample sd) over
the seeds, then the anchor HMM λ = 1 against the supervised HMM and FHMM and self-training (HMM),
and the anchor FHMM λ = 1 (Algorithm 2, and on the anchor HMM's means) against the supervised FHMM: the
mean accuracy difference over seeds, a paired t-test on the per-seed differences, and a paired
approximate randomization test over test sentences pooled over the seeds (stratified: swaps stay
within a seed, the statistic is the mean over seeds of the accuracy difference, as
stats/significance.h does for `seqflow report`, which compares rows, not these columns).
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hysol_splits import mean_sd, paired_t  # noqa: E402

MODELS = [("supervised_score", "supervised HMM"), ("fhmm_supervised_score", "supervised FHMM"),
          ("self_train_score", "self-training HMM"), ("fhmm_self_train_score", "self-training FHMM"),
          ("anchor0_score", "anchor HMM λ = 0"), ("anchor1_score", "anchor HMM λ = 1"),
          ("fhmm_anchor0_score", "anchor FHMM λ = 0"), ("fhmm_anchor1_score", "anchor FHMM λ = 1"),
          ("fhmm_anchor1_word_means_score", "anchor FHMM λ = 1, means: words")]
COMPARISONS = [("anchor1_score", "supervised_score", "anchors λ=1 − supervised HMM"),
               ("anchor1_score", "self_train_score", "anchors λ=1 − self-training HMM"),
               ("anchor1_score", "fhmm_supervised_score", "anchors λ=1 − supervised FHMM"),
               ("fhmm_anchor1_score", "fhmm_supervised_score", "anchor FHMM λ=1 − supervised FHMM"),
               ("fhmm_anchor1_word_means_score", "fhmm_supervised_score", "anchor FHMM λ=1 (words) − supervised FHMM")]
SHUFFLES = 2000


def load(out):
    """{N: {seed: (nodes, prefix)}}"""
    with open(os.path.join(out, "summary.json")) as f:
        runs = json.load(f)["runs"]
    by_size = {}
    for i, run in enumerate(runs):
        ablation = run["ablation"]
        size = int(ablation["labeled.count"])
        seed = ablation.get("labeled.seed", "1")
        prefix = os.path.join(out, "" if len(runs) == 1 else "run-%d" % i)
        by_size.setdefault(size, {})[seed] = (run["nodes"], prefix)
    return by_size


def accuracy(run, node):
    return 100 * run[0][node]["metrics"]["accuracy"]


def sentences(run, node):
    rows = []
    with open(os.path.join(run[1], node + ".sentences.csv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("correct"):
                continue
            correct, tokens = (int(x) for x in line.strip().split(",")[:2])
            rows.append((correct, tokens))
    return rows


def randomization(strata, rng):
    """strata: per seed, (A, B) sentence by sentence (correct, tokens). Two-sided p of the mean accuracy difference."""
    prepared, observed = [], 0.0
    for a, b in strata:
        tokens = sum(t for _, t in a)
        ca, cb = sum(c for c, _ in a), sum(c for c, _ in b)
        differing = [sb[0] - sa[0] for sa, sb in zip(a, b) if sa[0] != sb[0]]
        prepared.append((tokens, ca, cb, differing))
        observed += (ca - cb) / tokens
    observed /= len(strata)
    extreme = 0
    for _ in range(SHUFFLES):
        stat = 0.0
        for tokens, ca, cb, differing in prepared:
            shift = sum(d for d in differing if rng.random() < 0.5)
            stat += ((ca + shift) - (cb - shift)) / tokens
        extreme += abs(stat / len(prepared)) >= abs(observed) - 1e-12
    return (extreme + 1) / (SHUFFLES + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    args = parser.parse_args()
    by_size = load(args.out)
    rng = random.Random(2016)
    sizes = sorted(by_size)
    print("| N | seeds | " + " | ".join(label for _, label in MODELS) + " |")
    print("|---" * (len(MODELS) + 2) + "|")
    for n in sizes:
        runs = by_size[n]
        cells = []
        for node, _ in MODELS:
            m, sd = mean_sd([accuracy(runs[s], node) for s in sorted(runs)])
            cells.append("%.1f ± %.1f" % (m, sd))
        print("| %d | %d | %s |" % (n, len(runs), " | ".join(cells)))
    print("\n| N | comparison | mean diff ± sd | per seed | paired t | randomization p |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        runs = by_size[n]
        seeds = sorted(runs)
        for a, b, label in COMPARISONS:
            diffs = [accuracy(runs[s], a) - accuracy(runs[s], b) for s in seeds]
            m, sd = mean_sd(diffs)
            t, p_t = paired_t(diffs)
            p_r = randomization([(sentences(runs[s], a), sentences(runs[s], b)) for s in seeds], rng)
            t_text = "t = %.2f, p = %.3f" % (t, p_t) if t is not None else "one seed"
            print("| %d | %s | %+.2f ± %.2f | %s | %s | %.4f |" % (n, label, m, sd, " ".join("%+.1f" % d for d in diffs),
                                                                 t_text, p_r))


if __name__ == "__main__":
    main()
