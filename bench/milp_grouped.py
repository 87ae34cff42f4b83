#!/usr/bin/env python3
"""milp's grouped mode on the real graphs of ../shared/data (docs/results.md, "milp's grouped
bound"): for every graph and cluster, `post@best` at --time 10, then `milp` (grouped: the graphs
are above its op-level limits) at --time 10, 30 and 60: its placement re-timed at op level, its
grouped bound (valid for the coarse graph only, never a bound of the graph), the chunks, and
whether it proved the coarse optimum. Prints one markdown table.

usage: bench/milp_grouped.py [--cli build/release/app/cli/post-cli] [--data ../shared/data]
                             [--out DIR] [--reuse]
--out keeps each run's JSON (best_CLUSTER_GRAPH.json, milp_CLUSTER_GRAPH_T.json); --reuse reads
the files already there instead of running again.
"""
import argparse, json, os, subprocess, sys

GRAPHS = [
    "pipedream/resnet50/graph.txt", "pipedream/inception_v3/graph.txt", "pipedream/nasnetamobile/graph.txt",
    "pipedream/gnmt/graph.txt", "pipedream/vgg16/graph.txt", "msr/LayerGraphs/bert24_training.json",
    "msr/OperatorGraphs/bert_l-3_training.json",
]
CLUSTERS = ["k80x4", "v100x4-nvlink"]
TIMES = [10, 30, 60]


def result(args, path, cmd):
    if args.reuse and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    with open(path, "w") as f:
        f.write(p.stdout)
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/release/app/cli/post-cli")
    ap.add_argument("--data", default=os.environ.get("POST_SHARED_DATA", "../shared/data"))
    ap.add_argument("--out", default="milp-grouped-runs")
    ap.add_argument("--reuse", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("| graph | cluster | post@best | op-level bound | chunks | "
          + " | ".join(f"milp {t} s: placement / grouped bound" for t in TIMES) + " |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(TIMES))
    for cluster in CLUSTERS:
        for graph in GRAPHS:
            name = graph.replace("/", "_")
            src = os.path.join(args.data, graph)
            best = result(args, os.path.join(args.out, f"best_{cluster}_{name}.json"),
                          [args.cli, "place", src, "--cluster", cluster, "--algo", "post@best", "--time", "10",
                           "--json"])
            cells = []
            chunks = ""
            for t in TIMES:
                m = result(args, os.path.join(args.out, f"milp_{cluster}_{name}_{t}.json"),
                           [args.cli, "place", src, "--cluster", cluster, "--algo", "milp", "--time", str(t),
                            "--json"])
                chunks = m.get("grouped_bound_groups", "")
                mark = " (optimal there)" if m.get("grouped_optimal") else ""
                mark += ", proven optimal" if m.get("proven_optimal") else ""
                cells.append(f"{m['best_step_time_ms']:.1f} / {m.get('grouped_bound_ms', 0):.1f}{mark}"
                             f" [{m['wall_s']:.1f} s]")
            short = graph.rsplit("/", 1)[0] if graph.startswith("pipedream") else graph.rsplit(".", 1)[0]
            print(f"| {short} | {cluster} | {best['best_step_time_ms']:.1f} | {best['lower_bound_ms']:.1f} "
                  f"({best['lower_bound_source']}) | {chunks} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
