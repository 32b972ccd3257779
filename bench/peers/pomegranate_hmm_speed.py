#!/usr/bin/python3
"""pomegranate 0.14.8 speed on the synthetic HMM workload of bench/kernels/hmm_bench_data.h.

Same recipe as the C++ benchmark: K states, V = 5,000 symbols, rows of pi, A and B drawn from a
flat Dirichlet, sentences sampled from that HMM with lengths uniform in [12, 36] (mean 24).
Times, on one thread:
  fb       one Baum-Welch E-step: model.summarize(X, algorithm="baum-welch"), i.e.
           forward-backward plus expected transition and emission counts (no M-step)
  viterbi  model.predict(x, algorithm="viterbi") for every sentence (the state path, like ours;
           slightly faster than model.viterbi, which also builds state objects)
and prints one JSON line per K with tokens/s (best of --repeat runs).

Run with Debian's interpreter (python3-pomegranate lives there):
  /usr/bin/python3 bench/peers/pomegranate_hmm_speed.py [--states 12,23,45] [--fb-sentences 200]
        [--viterbi-sentences 1000] [--repeat 3] [--seed 2024]
"""
import argparse
import json
import sys
import time

import numpy

V = 5000
MIN_LEN, MAX_LEN = 12, 36


def make_workload(K, n_sentences, seed):
    rng = numpy.random.default_rng(seed + K)
    pi = rng.dirichlet(numpy.ones(K))
    A = rng.dirichlet(numpy.ones(K), size=K)
    B = rng.dirichlet(numpy.ones(V), size=K)
    sentences = []
    for _ in range(n_sentences):
        n = int(rng.integers(MIN_LEN, MAX_LEN + 1))
        y = rng.choice(K, p=pi)
        x = []
        for t in range(n):
            if t > 0:
                y = rng.choice(K, p=A[y])
            x.append(int(rng.choice(V, p=B[y])))
        sentences.append(x)
    return pi, A, B, sentences


def build_model(pi, A, B):
    from pomegranate import DiscreteDistribution, HiddenMarkovModel
    dists = [DiscreteDistribution({w: float(B[k, w]) for w in range(V)}) for k in range(len(pi))]
    return HiddenMarkovModel.from_matrix(A, dists, pi, name="synthetic")


def best_seconds(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(K, a):
    import pomegranate
    n = max(a.fb_sentences, a.viterbi_sentences)
    pi, A, B, sentences = make_workload(K, n, a.seed)
    model = build_model(pi, A, B)
    fb_x = sentences[:a.fb_sentences]
    vit_x = sentences[:a.viterbi_sentences]
    fb_tokens = sum(len(s) for s in fb_x)
    vit_tokens = sum(len(s) for s in vit_x)
    fb_s = best_seconds(lambda: model.summarize(fb_x, algorithm="baum-welch"), a.repeat)
    model.clear_summaries()
    vit_s = best_seconds(lambda: [model.predict(x, algorithm="viterbi") for x in vit_x], a.repeat)
    return {"tool": "pomegranate", "version": pomegranate.__version__, "numpy": numpy.__version__,
            "states": K, "symbols": V, "threads": 1,
            "fb_tokens": fb_tokens, "fb_s": round(fb_s, 4), "fb_tokens_per_s": round(fb_tokens / fb_s),
            "viterbi_tokens": vit_tokens, "viterbi_s": round(vit_s, 4),
            "viterbi_tokens_per_s": round(vit_tokens / vit_s)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--states", default="12,23,45")
    ap.add_argument("--fb-sentences", type=int, default=200)
    ap.add_argument("--viterbi-sentences", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    for K in (int(k) for k in a.states.split(",")):
        print(json.dumps(measure(K, a)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
