#!/usr/bin/env python3
"""Estimated against measured steps of recorded execution traces (docs/cost-model.md, "An H200
with PyTorch 2.11").

    python3 bench/estimates_vs_trace.py DIR [--cluster bench/h200.json] [--type h200]
        [--post-cli build/release/app/cli/post-cli] [--memory-efficiency E ...]

DIR holds what bench/record_training_step.py writes: TAG_et.json.gz, TAG_kineto.json.gz and
TAG_step.json per recorded step. For each step, one GPU of the cluster runs every op
(`post-cli simulate --all-on /device:GPU:0`): the measured step is the execution trace with the
Kineto trace's times as the times of the GPU's type (`--costs TYPE=KINETO`, the step's GPU time
to the microsecond), the estimate the execution trace alone (roofline from the recorded shapes).
Each --memory-efficiency adds a column: the cluster with that memory efficiency on its GPUs.
Prints a Markdown table and the range and geometric mean of each column's ratios.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile


def step_ms(post_cli, et, cluster, extra):
    cmd = [post_cli, "simulate", et, "--cluster", cluster, "--all-on", "/device:GPU:0", "--json"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("post-cli failed on %s: %s" % (et, (r.stderr.strip().splitlines() or ["?"])[-1]))
    return json.loads(r.stdout)["step_time_ms"]


def with_memory_efficiency(cluster, efficiency, folder):
    with open(cluster, encoding="utf-8") as f:
        doc = json.load(f)
    for device in doc["devices"]:
        if device["kind"] == "gpu":
            device["memory_efficiency"] = efficiency
    path = os.path.join(folder, "cluster-%g.json" % efficiency)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir")
    p.add_argument("--cluster", default=os.path.join(here, "h200.json"))
    p.add_argument("--type", default="h200", help="the device type the Kineto trace's times are given as")
    p.add_argument("--post-cli", default=os.path.join(here, "..", "build", "release", "app", "cli", "post-cli"))
    p.add_argument("--memory-efficiency", type=float, action="append", default=[])
    args = p.parse_args()
    tags = sorted(os.path.basename(f)[: -len("_et.json.gz")] for f in glob.glob(os.path.join(args.dir, "*_et.json.gz")))
    if not tags:
        sys.exit("%s: no TAG_et.json.gz (bench/record_training_step.py writes them)" % args.dir)
    with tempfile.TemporaryDirectory() as scratch:
        clusters = [("estimate", args.cluster)] + [
            ("memory efficiency %g" % e, with_memory_efficiency(args.cluster, e, scratch)) for e in args.memory_efficiency]
        print("| step | measured GPU time (ms) | unprofiled wall (ms) | "
              + " | ".join("%s (ms) | / measured" % name for name, _ in clusters) + " |")
        print("|---|---:|---:|" + "---:|---:|" * len(clusters))
        ratios = [[] for _ in clusters]
        for tag in tags:
            et = os.path.join(args.dir, tag + "_et.json.gz")
            kineto = os.path.join(args.dir, tag + "_kineto.json.gz")
            measured = step_ms(args.post_cli, et, args.cluster, ["--costs", "%s=%s" % (args.type, kineto)])
            wall = "?"
            step_file = os.path.join(args.dir, tag + "_step.json")
            if os.path.exists(step_file):
                with open(step_file, encoding="utf-8") as f:
                    wall = "%.2f" % json.load(f)["median_wall_ms"]
            cells = []
            for i, (_, cluster) in enumerate(clusters):
                estimate = step_ms(args.post_cli, et, cluster, [])
                ratios[i].append(estimate / measured)
                cells.append("%.2f | %.2fx" % (estimate, estimate / measured))
            print("| %s | %.2f | %s | %s |" % (tag, measured, wall, " | ".join(cells)))
        print()
        for (name, _), r in zip(clusters, ratios):
            mean = math.exp(sum(math.log(x) for x in r) / len(r))
            print("%s: %.2f-%.2fx, geometric mean %.2f" % (name, min(r), max(r), mean))
    return 0


if __name__ == "__main__":
    sys.exit(main())
