#!/usr/bin/env python3
"""The certified gap of the best placement found on the real graphs of ../shared/data (its
profiles, graphs and recorded training steps), and
what milp proves on the ones small enough for it (a model too big goes to milp's grouped
mode, whose grouped bound is shown as such and never counted in the certified gap) (docs/results.md, "How far from optimal").

For every graph and cluster: the polynomial lower bound (`simulate --all-on`, its source),
the best of `post@best` (`--time T`), and best / bound - 1. On graphs of up to 60 ops, also
`milp` at increasing budgets: its proven bound, its placement, whether it is optimal.

With `--torchvision DIR`, also torchvision's networks exported from PyTorch in training form
(bench/export_torchvision_gaps.py writes them into DIR; docs/results.md, "torchvision's
networks"); `--graphs torchvision` then measures those alone.

usage: bench/certified_gaps.py [--cli build/release/app/cli/post-cli] [--data ../shared/data]
                               [--time 2] [--milp-times 5,20,60] [--dispatch ready]
                               [--torchvision DIR] [--graphs SUBSTRINGS]
"""
import argparse, json, os, subprocess, sys, tarfile, tempfile

GRAPHS = [  # every graph of ../shared/data
    "pipedream/alexnet/graph.txt", "pipedream/vgg16/graph.txt", "pipedream/gnmt/graph.txt",
    "pipedream/resnet18/graph.txt", "pipedream/resnet50/graph.txt", "pipedream/resnet101/graph.txt",
    "pipedream/resnext50/graph.txt", "pipedream/squeezenet1_0/graph.txt",
    "pipedream/inception_v3/graph.txt", "pipedream/nasnetamobile/graph.txt",
    "msr/LayerGraphs/bert24_inference.json", "msr/LayerGraphs/bert24_training.json",
    "msr/LayerGraphs/gnmt_inference.json", "msr/LayerGraphs/gnmt_training.json",
    "msr/LayerGraphs/resnet50_inference.json", "msr/LayerGraphs/resnet50_training.json",
    "msr/LayerGraphs/inceptionv3_inference.json", "msr/LayerGraphs/inceptionv3_training.json",
    "msr/OperatorGraphs/bert_l-3_inference.json", "msr/OperatorGraphs/bert_l-3_training.json",
    "msr/OperatorGraphs/bert_l-6_inference.json", "msr/OperatorGraphs/resnet50_inference.json",
    # The training steps recorded as traces: PyTorch execution traces (op times from the
    # roofline: the Kineto traces beside them are of other runs) and the Chakra step, read from
    # its archive (ARCHIVE#MEMBER, extracted into a temporary folder).
    "traces/param/resnet_et.json.gz", "traces/param/linear_et.json.gz",
    "traces/chakra/json_trace.tar.gz#jsonData/chakra.0.json",
]
CLUSTERS = ["k80x4", "v100x4-nvlink"]
MILP_MAX_OPS = 60


def run(cmd, refusable=False):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 1 and refusable:
        return {"refused": p.stderr.strip()}  # milp's size limit (exit 1, the reason on stderr)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/release/app/cli/post-cli")
    ap.add_argument("--data", default=os.environ.get("POST_SHARED_DATA", "../shared/data"))
    ap.add_argument("--time", type=float, default=2.0)
    ap.add_argument("--milp-times", default="5,20,60", help="empty: no milp runs")
    ap.add_argument("--graphs", default="", help="comma-separated substrings: only the graphs matching one")
    ap.add_argument("--torchvision", default="", metavar="DIR",
                    help="also torchvision's networks, exported in training form into DIR by "
                         "bench/export_torchvision_gaps.py (/usr/bin/python3 with python3-torch; files kept)")
    ap.add_argument("--clusters", default=",".join(CLUSTERS))
    ap.add_argument("--dispatch", default="ready", choices=["ready", "critical-path"],
                    help="the simulator's dispatch rule for every search and bound (docs/simulator.md; the bound's "
                         "ready-order part holds only under ready)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a learner option for every post@best run (post-cli place --set; repeatable)")
    a = ap.parse_args()
    sets = [x for kv in a.set for x in ("--set", kv)]
    if not os.path.isdir(a.data):
        sys.exit(f"no data at {a.data} (set --data or POST_SHARED_DATA)")
    print("| graph | ops | cluster | bound (ms) | source | post@best (ms) | cert gap |")
    print("|---|---:|---|---:|---|---:|---:|")
    small = []
    graphs = GRAPHS
    if a.torchvision:
        export = os.path.join(os.path.dirname(os.path.abspath(__file__)), "export_torchvision_gaps.py")
        subprocess.run(["/usr/bin/python3", export, a.torchvision], check=True, capture_output=True)
        graphs = graphs + sorted(os.path.join(os.path.abspath(a.torchvision), f)
                                 for f in os.listdir(a.torchvision) if f.endswith(".onnx"))
    graphs = [g for g in graphs if not a.graphs or any(s in g for s in a.graphs.split(","))]
    scratch = tempfile.TemporaryDirectory(prefix="certified-gaps-")
    for rel in graphs:
        path = os.path.join(a.data, rel)  # a torchvision export's path is absolute
        if os.path.isabs(rel):
            rel = "torchvision/" + os.path.basename(rel)
        if not os.path.exists(path.split("#")[0]):
            print(f"| {rel} | | | | not in {a.data}: skipped | | |", flush=True)
            continue
        if "#" in rel:  # a member of an archive
            archive, member = path.split("#")
            with tarfile.open(archive) as tar:
                tar.extract(member, scratch.name)
            path = os.path.join(scratch.name, member)
        for cluster in a.clusters.split(","):
            sim = run([a.cli, "simulate", path, "--cluster", cluster, "--all-on", "/device:GPU:0", "--dispatch", a.dispatch,
                       "--json"])
            best = run([a.cli, "place", path, "--cluster", cluster, "--algo", "post@best", "--time", str(a.time),
                        "--dispatch", a.dispatch, "--json"] + sets)
            ops = sum(best["ops_per_device"].values())
            bound = sim["lower_bound_ms"]
            gap = best["best_step_time_ms"] / bound - 1
            if best["feasible"] and gap < -1e-9:  # a bound above a placement that fits is a bug
                sys.exit(f"{rel} on {cluster}: post@best {best['best_step_time_ms']} ms below the bound {bound} ms")
            gap = max(0.0, gap)
            print(f"| {rel} | {ops} | {cluster} | {bound:.3f} | {sim['lower_bound_source']} | "
                  f"{best['best_step_time_ms']:.3f}{'' if best['feasible'] else ' (out of memory)'} | "
                  f"{100 * gap:.1f}% |", flush=True)
            if ops <= MILP_MAX_OPS and a.milp_times:
                small.append((rel, path, cluster, best["best_step_time_ms"], bound))
    print()
    print("| graph | cluster | --time (s) | milp (ms) | milp bound (ms) | optimal | wall (s) | "
          "post@best cert gap with milp's bound |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    for rel, path, cluster, best, bound in small:
        for t in filter(None, a.milp_times.split(",")):
            m = run([a.cli, "place", path, "--cluster", cluster, "--algo", "milp", "--time", t, "--dispatch",
                     a.dispatch, "--json"], True)
            if "refused" in m:
                print(f"| {rel} | {cluster} | {t} | refused: {m['refused']} | | | | |", flush=True)
                break
            proven = m.get("solver_bound_ms", 0.0)  # op-level only: a grouped bound never certifies
            certified = max(bound, proven)
            shown = (f"{proven:.3f}" if "grouped_bound_ms" not in m else
                     f"grouped ({m['grouped_bound_groups']} chunks) {m['grouped_bound_ms']:.3f}")
            print(f"| {rel} | {cluster} | {t} | {m['best_step_time_ms']:.3f} | {shown} | "
                  f"{'yes' if m['proven_optimal'] else 'no'} | {m['wall_s']:.1f} | "
                  f"{100 * max(0.0, min(best, m['best_step_time_ms']) / certified - 1):.1f}% |", flush=True)


if __name__ == "__main__":
    main()
