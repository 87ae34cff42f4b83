#!/usr/bin/env python3
"""Writes a large torch.profiler (Kineto) trace for the --costs memory measurement
(docs/performance.md, "Large --costs traces"): the events of a real trace repeated with
shifted timestamps and ids until the JSON text is at least --mb megabytes, as more profiled
steps of the same run.

    bench/large_kineto_trace.py ../shared/data/traces/kineto/resnet50_num_workers_0_worker0.1623143089861.pt.trace.json.gz \
        --mb 200 --out /tmp/large.pt.trace.json
"""
import argparse
import gzip
import json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    opener = gzip.open if open(args.trace, "rb").read(2) == b"\x1f\x8b" else open
    with opener(args.trace, "rt") as f:
        root = json.load(f)
    events = root["traceEvents"]
    times = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(times) - min(times) + 1000
    ids = [e.get("args", {}).get(k) for e in events for k in ("correlation", "External id", "external id")]
    id_span = max(i for i in ids if isinstance(i, int)) + 1
    step_span = max(int(e["name"].split("#")[1]) for e in events if e.get("name", "").startswith("ProfilerStep#")) + 1
    head = {k: v for k, v in root.items() if k != "traceEvents"}
    target = args.mb * 1e6
    written = 0
    copies = 0
    with open(args.out, "w") as out:
        out.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
        first = True
        while written < target:
            for e in events:
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] = e["ts"] + copies * span
                if "id" in e and isinstance(e["id"], int):
                    e["id"] = e["id"] + copies * id_span
                if isinstance(e.get("args"), dict):
                    a = dict(e["args"])
                    for k in ("correlation", "External id", "external id"):
                        if isinstance(a.get(k), int):
                            a[k] = a[k] + copies * id_span
                    e["args"] = a
                if e.get("name", "").startswith("ProfilerStep#"):
                    e["name"] = "ProfilerStep#%d" % (int(e["name"].split("#")[1]) + copies * step_span)
                text = ("" if first else ",\n") + json.dumps(e)
                first = False
                out.write(text)
                written += len(text)
            copies += 1
        out.write("\n]}\n")
    print(f"{args.out}: {written / 1e6:.0f} MB, {copies} copies of {len(events)} events")


if __name__ == "__main__":
    main()
