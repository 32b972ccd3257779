#!/usr/bin/python3
"""Anchors against EM and self-training, HMM and FHMM: time and accuracy in one invocation
(Marinho et al. 2016, "Runtime comparison").

    python3 bench/anchors_speed.py [--seqflow build/seqflow] [--work /tmp/anchors_speed] [--repeats N]

Runs pipelines/anchors_speed_malagasy.yaml and pipelines/anchors_speed_twitter.yaml each once on a
fresh cache with -j 1 (every node on one thread, one node at a time), and reads every node's wall
seconds from the run record (with --repeats N, each node's least over N runs on fresh caches).
A method's time is the time of the nodes only it needs:
  anchors HMM   moments.collect + moments.anchors + moments.anchor_hmm (one-hot contexts), or
                + the feature-context moments.collect + features.cca (the configuration chosen
                on oct27.dev: feature contexts seen 5 times, 200 CCA dims)
  anchors FHMM  the latter + moments.anchor_fhmm (Algorithm 2's QP per feature, or `means:
                words`: the anchor HMM's QP per word, then the same L-BFGS)
  EM            hmm.em / fhmm.em (the supervised start, common to EM and self-training, apart)
  self-training hmm.self_train (HMM, or FHMM with emissions: loglinear)
Reading the text and building the Vocab are common to all and listed apart. EM runs to
convergence (tol 1e-5 on L_λ, at most 100 iterations); its time to the dev-best
iteration is the per-iteration time times that iteration. fhmm.em records its dev accuracy at
every iteration; for hmm.em the Twitter pipeline is re-run with --set em_iterations=k on the same
cache and em_dev_score read (Malagasy has no usable dev set). Prints a markdown table and the
invocations' CPU and wall seconds (the machine is shared: wall > CPU under load, and all methods
of one invocation see the same load).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run(seqflow, pipeline, cache, out, sets=()):
    args = [seqflow, "run", os.path.join(REPO, "pipelines", pipeline), "-j", "1", "--cache", cache, "--out", out]
    for s in sets:
        args += ["--set", s]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(os.path.join(out, "summary.json")) as f:
        nodes = json.load(f)["runs"][0]["nodes"]
    return nodes, cpu, wall


def run_fastest(seqflow, pipeline, work, tag, repeats):
    """The pipeline run `repeats` times, each on a fresh cache; every node's seconds are its least
    over the runs (the machine is shared: the least is the closest to the node's own cost). Returns
    the nodes, the last cache, the last output directory, and the runs' total CPU and wall."""
    best, total_cpu, total_wall = None, 0.0, 0.0
    for i in range(repeats):
        cache = os.path.join(work, "cache_%s%d" % (tag, i))
        out = os.path.join(work, "%s%d" % (tag, i))
        nodes, cpu, wall = run(seqflow, pipeline, cache, out)
        total_cpu, total_wall = total_cpu + cpu, total_wall + wall
        if best is None:
            best = nodes
        else:
            for name, node in nodes.items():
                best[name]["seconds"] = min(best[name]["seconds"], node["seconds"])
    return best, cache, out, total_cpu, total_wall


def seconds(nodes, *names):
    return sum(nodes[n]["seconds"] for n in names)


def accuracy(nodes, node):
    return 100 * nodes[node]["metrics"]["accuracy"]


def em_dev_best(seqflow, cache, work, nodes, ks):
    """hmm.em's dev accuracy after k iterations (0: the start), from re-runs on the same cache."""
    dev = {0: nodes["supervised_dev_score"]["metrics"]["accuracy"]}
    test = {0: accuracy(nodes, "supervised_score")}
    for k in ks:
        out = os.path.join(work, "twitter_em%d" % k)
        sub, _, _ = run(seqflow, "anchors_speed_twitter.yaml", cache, out, ["em_iterations=%d" % k])
        dev[k] = sub["em_dev_score"]["metrics"]["accuracy"]
        test[k] = accuracy(sub, "em_score")
    best = max(sorted(dev), key=lambda k: (dev[k], -k))
    return best, dev, test[best]


def fhmm_em_dev_best(out):
    with open(os.path.join(out, "fhmm_em.em.csv")) as f:
        rows = [line.strip().split(",") for line in f][1:]
    dev = {int(r[0]): float(r[2]) for r in rows}
    return max(sorted(dev), key=lambda k: (dev[k], -k)), dev


def table(name, nodes, em_best, em_best_accuracy, fhmm_best, cpu, wall):
    moments = seconds(nodes, "moments", "anchors")
    tuned = moments + seconds(nodes, "moments_features", "cca_features")
    em_it, fem_it = nodes["em"]["metrics"]["iterations"], nodes["fhmm_em"]["metrics"]["iterations"]
    em_per, fem_per = nodes["em"]["seconds"] / em_it, nodes["fhmm_em"]["seconds"] / fem_it
    fem_label = "EM FHMM, %d iterations%s" % (fem_it, ", converged" if nodes["fhmm_em"]["metrics"]["converged"] else "")
    rows = [("anchors HMM λ = 1, one-hot contexts", moments + nodes["anchor_hmm"]["seconds"], "one pass + QPs",
             "anchor_hmm_score"),
            ("anchors HMM λ = 1, feature contexts + CCA", tuned + nodes["anchor_hmm_cca"]["seconds"],
             "two passes + CCA + QPs", "anchor_hmm_cca_score"),
            ("EM HMM, to convergence", nodes["em"]["seconds"], "%d it." % em_it, "em_score")]
    if em_best is not None:
        rows.append(("EM HMM, to its dev-best", em_per * em_best, "%d it." % em_best, em_best_accuracy))
    rows += [("self-training HMM", nodes["self_train"]["seconds"], "one round", "self_train_score"),
             ("anchors FHMM λ = 1, Algorithm 2 (feature contexts + CCA)", tuned + nodes["anchor_fhmm"]["seconds"],
              "+ QP per feature + L-BFGS", "anchor_fhmm_score"),
             ("anchors FHMM λ = 1, means: words (feature contexts + CCA)",
              tuned + nodes["anchor_fhmm_word_means"]["seconds"], "+ QP per word + L-BFGS",
              "anchor_fhmm_word_means_score")]
    if fhmm_best is not None:
        rows += [(fem_label, nodes["fhmm_em"]["seconds"], "%d it." % fem_it, None),
                 ("EM FHMM, to its dev-best (returned)", fem_per * fhmm_best, "%d it." % fhmm_best, "fhmm_em_score")]
    else:
        rows.append((fem_label, nodes["fhmm_em"]["seconds"], "%d it." % fem_it, "fhmm_em_score"))
    rows.append(("self-training FHMM", nodes["fhmm_self_train"]["seconds"], "one round", "fhmm_self_train_score"))
    print("\n### %s\n" % name)
    print("| method | seconds (-j 1) | work | test accuracy |")
    print("|---|---|---|---|")
    for label, secs, work, score in rows:
        acc = "%.1f" % (score if isinstance(score, float) else accuracy(nodes, score)) if score is not None else "—"
        print("| %s | %.3f | %s | %s |" % (label, secs, work, acc))
    print("| supervised HMM / FHMM (the baselines' start) | %.3f / %.3f | | %.1f / %.1f |" % (
        nodes["supervised"]["seconds"], nodes["fhmm_supervised"]["seconds"], accuracy(nodes, "supervised_score"),
        accuracy(nodes, "fhmm_supervised_score")))
    common = [n for n in nodes if nodes[n]["kind"] in ("read.text", "read.conll", "read.tagged", "split", "features.vocab")]
    print("\nCommon to all (reading, splitting, Vocab): %.3f s. Tokens in the moments: %d. One-hot pass + anchors "
          "%.3f s, feature-context pass %.3f s, CCA %.3f s. Per EM iteration: HMM %.3f s, FHMM %.3f s. Ratios: EM HMM "
          "to convergence / anchors HMM = %.1fx (one-hot), %.1fx (feature contexts + CCA); EM FHMM (%d it.) / anchors "
          "FHMM (Algorithm 2) = %.1fx. The invocation: %.1f s CPU, %.1f s wall." % (
              seconds(nodes, *common), nodes["moments"]["metrics"]["tokens"], moments,
              nodes["moments_features"]["seconds"], nodes["cca_features"]["seconds"], em_per, fem_per,
              nodes["em"]["seconds"] / (moments + nodes["anchor_hmm"]["seconds"]),
              nodes["em"]["seconds"] / (tuned + nodes["anchor_hmm_cca"]["seconds"]), fem_it,
              nodes["fhmm_em"]["seconds"] / (tuned + nodes["anchor_fhmm"]["seconds"]), cpu, wall))

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seqflow", default=os.path.join(REPO, "build", "seqflow"))
    parser.add_argument("--work", default="/tmp/anchors_speed")
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of each pipeline; a node's time is its least over them")
    args = parser.parse_args()
    os.environ.setdefault("SEQFLOW_DATA", os.path.join(REPO, "..", "shared", "data"))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    nodes, _, _, cpu, wall = run_fastest(args.seqflow, "anchors_speed_malagasy.yaml", args.work, "malagasy",
                                         args.repeats)
    table("Malagasy raw text", nodes, None, None, None, cpu, wall)

    nodes, cache, out, cpu, wall = run_fastest(args.seqflow, "anchors_speed_twitter.yaml", args.work, "twitter",
                                               args.repeats)
    em_best, em_dev, em_best_accuracy = em_dev_best(args.seqflow, cache, args.work, nodes, [1, 2, 3, 5])
    fhmm_best, fhmm_dev = fhmm_em_dev_best(out)
    table("Twitter: Oct27 text + Reuters", nodes, em_best, em_best_accuracy, fhmm_best, cpu, wall)
    print("\nDev accuracy of hmm.em by iteration: %s; of fhmm.em: %s." % (
        ", ".join("%d: %.1f" % (k, 100 * v) for k, v in sorted(em_dev.items())),
        ", ".join("%d: %.1f" % (k, 100 * v) for k, v in sorted(fhmm_dev.items()) if k <= 5)))


if __name__ == "__main__":
    main()
