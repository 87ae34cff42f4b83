#!/usr/bin/env python3
"""Regenerates docs/results.md: the comparison tables on the real graphs in ../shared/data
(what `post-cli compare` prints, computed from one `post-cli sweep` of every graph, cluster,
algorithm and seed: docs/sweeps.md) and learning curves (mean best step time against samples).

The sweep runs as --shards local shards at a time into --sweep-dir; jobs whose result file is
there already are skipped, so a folder filled by a Slurm job array or GNU parallel
(`post-cli sweep MANIFEST --shard I/N --out DIR` with the manifest this script writes into
that folder, see --manifest-only) only gets its missing jobs run here.

usage: bench/results.py [--cli build/release/app/cli/post-cli] [--data ../shared/data]
                        [--seeds 5] [--samples 2400] [--out docs/results.md]
                        [--sweep-dir DIR] [--shards 1] [--threads 0] [--manifest-only]
                        [--graphs SUBSTRING] [--clusters k80x4,v100x4-nvlink] [--no-curves]
"""
import argparse, csv, glob, io, json, os, subprocess, sys, time

GRAPHS = [
    ("pipedream/inception_v3/graph.txt", "PipeDream inception_v3"),
    ("pipedream/resnet50/graph.txt", "PipeDream resnet50"),
    ("pipedream/gnmt/graph.txt", "PipeDream gnmt"),
    ("pipedream/nasnetamobile/graph.txt", "PipeDream nasnetamobile"),
    ("msr/LayerGraphs/inceptionv3_training.json", "MSR inceptionv3_training"),
    ("msr/LayerGraphs/resnet50_training.json", "MSR resnet50_training"),
    ("msr/LayerGraphs/gnmt_training.json", "MSR gnmt_training"),
    ("msr/LayerGraphs/bert24_training.json", "MSR bert24_training"),
    ("msr/OperatorGraphs/bert_l-3_training.json", "MSR bert_l-3_training (operators)"),
]
CLUSTERS = ["k80x4", "v100x4-nvlink"]
# The classical placers (PlacerKind::Classical in core/run/PlacerRegistry.cpp).
CLASSICAL = {"single", "cpu", "round-robin", "m-topo", "m-etf", "m-sct", "metis", "offload"}
# `post-cli compare`'s default: every algorithm, in its order (core/run/PlacerRegistry.cpp).
ALGOS = ["post", "post-alg1", "ce", "ppo", "reinforce", "random", "post@best", "local-search", "single", "cpu",
         "round-robin", "m-topo", "m-etf", "m-sct", "metis", "offload"]
CURVE_GRAPHS = GRAPHS[:4]
CURVE_ALGOS = ["post", "ce", "ppo", "reinforce", "random"]
CHECKPOINTS = [100, 200, 400, 800, 1200, 1600, 2000, 2400]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p.stdout


def write_manifest(a, graphs, clusters, path):
    manifest = {"format": "post-sweep/1", "graphs": [os.path.abspath(g) for g in graphs], "clusters": clusters,
                "algorithms": ALGOS, "seeds": list(range(1, a.seeds + 1)), "samples": a.samples}
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=2)
    os.replace(path + ".tmp", path)


def sweep(a, manifest, out_dir):
    """Runs the manifest's jobs missing from out_dir as a.shards shards at once; returns
    {(graph, cluster, algo): row} with compare's figures per row."""
    shards = max(1, a.shards)
    procs = [subprocess.Popen([a.cli, "sweep", manifest, "--shard", f"{i}/{shards}", "--threads", str(a.threads),
                               "--out", out_dir], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(shards)]
    failed = []
    for i, p in enumerate(procs):
        _, err = p.communicate()
        print(err.strip(), file=sys.stderr)
        if p.returncode != 0:
            failed.append(f"shard {i}/{shards} failed ({p.returncode}):\n{err}")
    if failed:
        sys.exit("\n".join(failed))
    table = json.loads(run([a.cli, "sweep", "merge", out_dir, "--json"]))
    if table["missing"]:
        sys.exit(f"{out_dir}: jobs {table['missing']} are missing after the sweep")
    extra = {}  # samples and wall time per run: the job files have them, the table does not
    for path in glob.glob(os.path.join(out_dir, "job-*.json")):
        with open(path) as f:
            j = json.load(f)
        e = extra.setdefault((j["graph"], j["cluster"], j["algo"]), {"samples": [], "wall": []})
        e["samples"].append(j["samples_used"])
        e["wall"].append(j["wall_s"])
    rows = {}
    for r in table["rows"]:
        e = extra[(r["graph"], r["cluster"], r["algo"])]
        rows[(r["graph"], r["cluster"], r["algo"])] = {
            "algo": r["algo"], "mean_ms": r["mean_ms"], "std_ms": r["std_ms"],
            "runs": r["runs"], "feasible_runs": r["feasible_runs"], "feasible": r["feasible_runs"] == r["runs"],
            "samples": sum(e["samples"]) / len(e["samples"]), "wall_s": sum(e["wall"]) / len(e["wall"])}
    return rows


def curve(cli, graph, cluster, algo, seed, samples, tmp):
    log = os.path.join(tmp, "run.csv")
    run([cli, "place", graph, "--cluster", cluster, "--algo", algo, "--samples", str(samples),
         "--seed", str(seed), "--log", log, "--json"])
    best, out = float("inf"), []
    with open(log) as f:
        for row in csv.DictReader(f):
            if row["event"] == "sample" and row["feasible"] == "1":
                best = min(best, float(row["step_time_ms"]))
                out.append(best)
            elif row["event"] == "sample":
                out.append(best)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/release/app/cli/post-cli")
    ap.add_argument("--data", default="../shared/data")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--samples", type=int, default=2400)
    ap.add_argument("--out", default="docs/results.md")
    ap.add_argument("--sweep-dir", help="the sweep's results folder (default: a temporary one, removed at the end)")
    ap.add_argument("--shards", type=int, default=1, help="local shards run at once")
    ap.add_argument("--threads", type=int, default=0, help="evaluation threads per job (0: all cores)")
    ap.add_argument("--manifest-only", action="store_true",
                    help="write SWEEP_DIR/manifest.json for running the sweep elsewhere, and stop")
    ap.add_argument("--graphs", default="", help="only the graphs whose path contains this")
    ap.add_argument("--clusters", default=",".join(CLUSTERS))
    ap.add_argument("--no-curves", action="store_true", help="leave out the learning curves")
    a = ap.parse_args()
    if not os.path.isdir(a.data):
        sys.exit(f"{a.data} is absent: the results need the real graphs")
    graphs = [(rel, title) for rel, title in GRAPHS if a.graphs in rel]
    clusters = [c for c in a.clusters.split(",") if c]
    tmp = os.path.join(os.path.dirname(a.out) or ".", ".results-tmp")
    os.makedirs(tmp, exist_ok=True)
    sweep_dir = a.sweep_dir or os.path.join(tmp, "sweep")
    os.makedirs(sweep_dir, exist_ok=True)
    manifest = os.path.join(sweep_dir, "manifest.json")
    write_manifest(a, [os.path.join(a.data, rel) for rel, _ in graphs], clusters, manifest)
    if a.manifest_only:
        print(f"wrote {manifest}: run `post-cli sweep {manifest} --shard I/N --out {sweep_dir}`, then this "
              f"script with --sweep-dir {sweep_dir}")
        return
    t0 = time.time()
    rows = sweep(a, manifest, sweep_dir)
    print(f"sweep: {time.time() - t0:.1f} s", file=sys.stderr)
    md = io.StringIO()
    w = md.write
    w("# Results\n\nGenerated by `bench/results.py` (commands below reproduce every number). "
      f"{a.samples} samples per learner run, {a.seeds} seeds (1..{a.seeds}); classical placers are "
      "deterministic and run once. The runs are the jobs of one `post-cli sweep` (docs/sweeps.md), "
      "whose figures are those `post-cli compare` gives for the same samples and seeds. Step times are "
      "simulated (docs/simulator.md) in ms; `mean` is the mean over seeds of each run's best step, "
      "`+-` their standard deviation; speed-up is the mean's over the single best device (infeasible single "
      "devices fall back to the CPU); gap to LB is the mean's to the lower bound of docs/simulator.md, the largest of critical path, work / speed, fork-join, ancestry and device windows.\n\n"
      "`post` is Post Studio's Post from scratch (guided sampling, symmetry breaking, local search, "
      "restarts: docs/learners.md); `post-alg1` is the paper's Algorithm 1 with its ablations `ce` "
      "and `ppo`; `post@best`, the default, runs every classical placer, `local-search`'s climb from "
      "the best of them, then a race of warm and cold `post` runs, all within the same samples. What "
      "these figures say, and why: [docs/learners.md](learners.md#what-the-figures-say).\n\n")
    summary = []
    for rel, title in graphs:
        graph = os.path.join(a.data, rel)
        key_graph = os.path.abspath(graph)
        for cluster in clusters:
            # The lower bound and the single-device reference, as compare computes them.
            ref = json.loads(run([a.cli, "compare", graph, "--cluster", cluster, "--algos", "single",
                                  "--samples", "1", "--seeds", "1", "--json"]))
            lb = ref["lower_bound_ms"]
            single = ref["single_device_ms"]
            w(f"## {title} on `{cluster}`\n\n`post-cli compare ../shared/data/{rel} --cluster {cluster} "
              f"--samples {a.samples} --seeds {a.seeds}` (lower bound {lb:.3f} ms)\n\n")
            w("| algorithm | mean (ms) | +- | feasible | samples | wall (s) | speed-up | gap to LB |\n"
              "|---|--:|--:|--:|--:|--:|--:|--:|\n")
            results = [rows[(key_graph, cluster, algo)] for algo in ALGOS if (key_graph, cluster, algo) in rows]
            classical_best = min((r["mean_ms"] for r in results
                                  if r["algo"] in CLASSICAL and r["feasible"]), default=float("inf"))
            by = {r["algo"]: r for r in results}
            for r in results:
                m = r["mean_ms"]
                w(f"| {r['algo']} | {m:.3f} | {r['std_ms']:.3f} | "
                  f"{r['feasible_runs']}/{r['runs']} | {r['samples']:.0f} | {r['wall_s']:.2f} | "
                  f"{single / m if m > 0 else 0.0:.2f}x | {100 * (m / lb - 1.0 if lb > 0 else 0.0):.1f}% |\n")
            w("\n")
            def ok(algo):  # an algorithm with an infeasible run does not count as faster
                r = by[algo]
                return r["mean_ms"] if r["feasible"] else float("inf")
            others = min((ok(r["algo"]) for r in results if r["algo"] != "post@best"), default=float("inf"))
            summary.append((title, cluster, ok("post"), ok("post@best"), ok("local-search"), ok("reinforce"),
                            classical_best, others))

    w("## Summary: does Post beat every other placer?\n\n"
      "A learner with any infeasible (out-of-memory) best placement over the seeds counts as `inf`.\n\n"
      "Best classical: the best of the classical placers (" + ", ".join(sorted(CLASSICAL)) + "). "
      "`post@best` <= all: at least as fast as every other row of its table, learners and "
      "`local-search` included.\n\n"
      "| graph | cluster | post (scratch) | post@best | local-search | REINFORCE | best classical | post@best <= all? | scratch <= classical? |\n"
      "|---|---|--:|--:|--:|--:|--:|---|---|\n")
    for title, cluster, post, warm, local, rf, cl, others in summary:
        w(f"| {title} | {cluster} | {post:.3f} | {warm:.3f} | {local:.3f} | {rf:.3f} | {cl:.3f} | "
          f"{'yes' if warm <= others + 1e-9 else 'NO'} | {'yes' if post <= cl + 1e-9 else 'no'} |\n")

    curve_graphs = [] if a.no_curves else [(rel, title) for rel, title in CURVE_GRAPHS if a.graphs in rel]
    if curve_graphs:
        w("\n## Learning curves (mean best feasible step time in ms after n samples, k80x4)\n\n")
    for rel, title in curve_graphs:
        graph = os.path.join(a.data, rel)
        curves = {}
        for algo in CURVE_ALGOS:
            runs = [curve(a.cli, graph, "k80x4", algo, s, a.samples, tmp) for s in range(1, a.seeds + 1)]
            curves[algo] = [sum(r[i] for r in runs) / len(runs) for i in range(a.samples)]
        w(f"### {title}\n\n`post-cli place ../shared/data/{rel} --cluster k80x4 --algo ALGO --samples "
          f"{a.samples} --seed S --log run.csv`, S = 1..{a.seeds}, averaged.\n\n")
        w("| samples | " + " | ".join(CURVE_ALGOS) + " |\n|--:|" + "--:|" * len(CURVE_ALGOS) + "\n")
        for n in CHECKPOINTS:
            if n <= a.samples:
                w(f"| {n} | " + " | ".join(f"{curves[x][n - 1]:.1f}" for x in CURVE_ALGOS) + " |\n")
        final_rf = curves["reinforce"][-1]
        reach = next((i + 1 for i, v in enumerate(curves["post"]) if v <= final_rf), None)
        w(f"\nPost reaches REINFORCE's final quality ({final_rf:.1f} ms) after "
          + (f"**{reach}** samples ({100 * reach / a.samples:.0f}% of the budget).\n\n" if reach else "— never.\n\n"))
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    tmp_out = a.out + ".tmp"
    with open(tmp_out, "w") as f:
        f.write(md.getvalue())
    os.replace(tmp_out, a.out)
    if not a.sweep_dir:
        for name in os.listdir(sweep_dir):
            os.remove(os.path.join(sweep_dir, name))
        os.rmdir(sweep_dir)
    for name in os.listdir(tmp):
        if os.path.isfile(os.path.join(tmp, name)):
            os.remove(os.path.join(tmp, name))
    if not os.listdir(tmp):
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
