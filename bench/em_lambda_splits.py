#!/usr/bin/python3
"""Haffari & Sarkar's Fig. 2 over seeded splits, from a run record of citations_em_lambda_splits.yaml.

    python3 bench/em_lambda_splits.py OUT [--every 0.1] [--best error|f1|accuracy]

Reads OUT/run-N/sweep_cold.path.csv and sweep_warm.path.csv (one per `repeat` seed) and prints,
for (a) cold and (b) warm starts, per λ of the grid (every `--every`, default 0.1, plus the λ
with the best mean `--best` metric, default error): the test token error and segment F1 as
mean ± sd over the splits (sample sd), and their paired differences to λ = 0 (EM_0: the smoothed
supervised model both sweeps start from) with the t over splits (mean / (sd / √n)) and the
splits better/worse than λ = 0. Markdown tables.
"""
import argparse
import csv
import json
import math
import os

SWEEPS = [("sweep_cold", "(a) cold"), ("sweep_warm", "(b) warm")]
METRICS = ["test.error", "test.f1", "test.accuracy"]


def runs_of(out):
    with open(os.path.join(out, "summary.json")) as f:
        runs = json.load(f)["runs"]
    return [os.path.join(out, "" if len(runs) == 1 else "run-%d" % i) for i in range(len(runs))]


def read_sweep(run_dir, node):
    """{λ: {metric: value}} of one sweep's path.csv."""
    rows = {}
    with open(os.path.join(run_dir, node + ".path.csv")) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[round(float(row["lambda"]), 6)] = {m: float(row[m]) for m in METRICS}
    return rows


def mean_sd(xs):
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return m, sd


def paired_t(diffs):
    m, sd = mean_sd(diffs)
    if sd == 0:
        return m, (0.0 if m == 0 else math.copysign(math.inf, m))
    return m, m / (sd / math.sqrt(len(diffs)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--every", type=float, default=0.1, help="print λ at multiples of this (and the best λ)")
    parser.add_argument("--best", choices=["error", "f1", "accuracy"], default="error",
                        help="the metric whose best mean λ is shown")
    args = parser.parse_args()
    runs = runs_of(args.out)
    key = "test." + args.best
    sign = -1 if args.best == "error" else 1  # best = lowest error, highest F1 / accuracy
    print("%d splits (%s)\n" % (len(runs), args.out))
    for node, title in SWEEPS:
        sweeps = [read_sweep(r, node) for r in runs]
        lambdas = sorted(set.intersection(*(set(s) for s in sweeps)))
        if 0.0 not in lambdas:
            raise SystemExit("%s: no λ = 0 in every split" % node)
        means = {lam: mean_sd([s[lam][key] for s in sweeps])[0] for lam in lambdas}
        best = max(lambdas, key=lambda lam: sign * means[lam])
        shown = [lam for lam in lambdas
                 if abs(lam / args.every - round(lam / args.every)) < 1e-9 or lam == best or lam == lambdas[-1]]
        print("%s start: differences to λ = 0 paired by split (t over splits, better/worse splits); "
              "best mean %s at λ = %g\n" % (title, args.best, best))
        print("| λ | error | Δerror (t, better/worse) | F1 | ΔF1 (t, better/worse) |")
        print("|---|---|---|---|---|")
        for lam in shown:
            cells = []
            for m, better in (("test.error", -1), ("test.f1", 1)):
                mu, sd = mean_sd([s[lam][m] for s in sweeps])
                cells.append("%.4f ± %.4f" % (mu, sd))
                if lam == 0:
                    cells.append("")
                    continue
                diffs = [s[lam][m] - s[0.0][m] for s in sweeps]
                d, t = paired_t(diffs)
                wins = sum(1 for x in diffs if better * x > 0)
                losses = sum(1 for x in diffs if better * x < 0)
                cells.append("%+.4f (%.2f, %d/%d)" % (d, t, wins, losses))
            mark = " (best)" if lam == best else ""
            print("| %g%s | %s |" % (lam, mark, " | ".join(cells)))
        print()


if __name__ == "__main__":
    main()
