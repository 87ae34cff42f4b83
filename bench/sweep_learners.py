#!/usr/bin/env python3
"""One-at-a-time option sweep of the learners on real graphs (results in docs/learners.md).

usage: sweep_learners.py BUILD_DIR DATA_DIR [--seeds 5] [--only KEY]
Each configuration runs bench/sweep_learners on every graph for every seed; the score of a
configuration is the geometric mean over graphs of (its mean best step time / the default's).
"""
import argparse
import math
import re
import subprocess

GRAPHS = ["pipedream/resnet50/graph.txt", "pipedream/inception_v3/graph.txt",
          "pipedream/nasnetamobile/graph.txt", "pipedream/gnmt/graph.txt",
          "pipedream/vgg16/graph.txt", "pipedream/resnet101/graph.txt"]

SWEEP = {
    "K": ["K=10 N=100", "K=50 N=100"],
    "N": ["N=60", "N=200", "N=400"],
    "rho": ["rho=0.05", "rho=0.2"],
    "eps": ["eps=0.02", "eps=0.1", "eps=0.2"],
    "lr": ["lr=0.01", "lr=0.2"],
    "epochs": ["epochs=3", "epochs=20"],
    "clip": ["clip=0.1", "clip=0.3"],
    "grouping": ["chain_share=0.125", "chain_share=0.03125", "chain_share=0.015625", "grouping=chunks groups=64",
                 "grouping=none"],
}


def run(build, data, graph, cfg, seeds):
    out = subprocess.run([f"{build}/bench/sweep_learners", f"{data}/{graph}", f"seeds={seeds}", *cfg.split()],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"RESULT \S+ \S+ mean (\d+) sd (\d+) feasible (\d+)/(\d+)", out)
    return float(m.group(1)), float(m.group(2))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("data")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--base", default="")
    p.add_argument("--configs", nargs="*")
    a = p.parse_args()
    base = {g: run(a.build, a.data, g, a.base, a.seeds) for g in GRAPHS}
    names = [g.split("/")[1] for g in GRAPHS]
    print("| config | " + " | ".join(names) + " | score |")
    print("|---|" + "---|" * (len(names) + 1))
    print(f"| default {a.base} | " + " | ".join(f"{base[g][0]:.0f} ± {base[g][1]:.0f}" for g in GRAPHS) + " | 1.000 |",
          flush=True)
    configs = a.configs if a.configs else [c for k, v in SWEEP.items() if not a.only or k == a.only for c in v]
    for cfg in configs:
        res = {g: run(a.build, a.data, g, f"{a.base} {cfg}", a.seeds) for g in GRAPHS}
        score = math.exp(sum(math.log(res[g][0] / base[g][0]) for g in GRAPHS) / len(GRAPHS))
        print(f"| {cfg} | " + " | ".join(f"{res[g][0]:.0f} ± {res[g][1]:.0f}" for g in GRAPHS) + f" | {score:.3f} |",
              flush=True)


if __name__ == "__main__":
    main()
