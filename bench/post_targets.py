#!/usr/bin/env python3
"""Turns the output of bench/bench_post_targets (a file, or stdin) into the Markdown tables of
docs/learners.md ("Figures"): one row per graph/cluster pair, then the summary lines.

usage: build/release/bench/bench_post_targets ../shared/data --ablations > out.txt
       bench/post_targets.py out.txt
"""
import sys


def main():
    lines = (open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin).read().splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("graph "))
    cols = lines[header].split()
    ablations = [c for c in cols if c.startswith("-")]
    print("| graph | cluster | ops | best classical | m-ETF | m-SCT | post | local-search | default | post / classical "
          "| default / local-search | REINFORCE reached at | wall (s) |" + "".join(f" post {a} |" for a in ablations))
    print("|" + "---|" * (13 + len(ablations)))
    for l in lines[header + 1:]:
        if not l.strip():
            break
        f = l.split()
        graph, cluster, ops, classical, which = f[0], f[1], f[2], f[3], f[4]
        metf, msct, post, local, default, pc, dl, r, wall = f[5:14]
        rest = f[15:15 + len(ablations)]
        r = "never" if r == "inf" else f"{float(r):.1%}"
        print(f"| {graph.replace('/graph.txt', '').replace('.json', '')} | {cluster} | {ops} | {classical} ({which}) | "
              f"{metf} | {msct} | {post} | {local} | {default} | {pc} | {dl} | {r} | {wall} |"
              + "".join(f" {x} |" for x in rest))
    print()
    summary = next(i for i, l in enumerate(lines) if l.startswith("summary"))
    print("```")
    print("\n".join(lines[summary:]))
    print("```")


if __name__ == "__main__":
    main()
