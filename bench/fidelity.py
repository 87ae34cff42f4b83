#!/usr/bin/env python3
"""Fidelity of the cost model against measured GPU traces (docs/cost-model.md,
"Fidelity against measured traces").

For each torch.profiler (Kineto) trace given, prints the measured GPU time per op class and per
training step next to the model's prediction for the same network (a torchvision export
simulated by post-cli on one GPU of the matching cluster) and, where `post-cli simulate --costs
TRACE` takes GPU kernel times, the replayed step.

    bench/fidelity.py --post-cli build/release/app/cli/post-cli --out build/release/fidelity \
        /work/shared/data/traces/kineto/*.pt.trace.json.gz /work/shared/data/traces/param/resnet_kineto.json.gz

With --conv-layers it also prints the convolutions per layer class (first layer, 1x1, strided,
Winograd 3x3), each layer's backward kernels split into its input and weight gradients, against
the model's forward and backward ops of the same layers (docs/cost-model.md, "Backward of strided
convolutions").

Measured side: every GPU kernel, memcpy and memset is attributed to the CPU operator that
launched it (by its launch event: `cuda_runtime`, or `cuda_driver` for the kernels cuDNN and
cuBLAS launch through the driver; PyTorch 1.8: the kernel's args["external id"] = the
operator's "External id"; 2.x: args["External id"] on both), and through that operator's enclosing operators (same
thread, by time) to an op class. Steps are `ProfilerStep#N` (1.8) or, where the trace has no
step annotations (the 2.x param trace), the spans between successive data-loader
`__next__` annotations, or, in a trace of one step (bench/record_training_step.py), the whole
trace to its last kernel; the first step of several is dropped (warm-up) and the median of the others is
taken. The measured step is decided step by step: the profiled step where the GPU is the
bottleneck (busy >= 90 % of it), the GPU's busy time (the union of its kernel, memcpy and memset
intervals) where something else (data loading) stalls it; then the median. The report says
how many steps were of each kind.

Predicted side: torchvision's resnet50 (or resnet18: the model is recognised from the number of
convolution backward ops per step) exported with training=TRAINING at the traced batch (from the
input copy's bytes, else the first convolution's recorded input) by /usr/bin/python3 with torch, then `post-cli simulate --json --ops-csv`
with every op on /device:GPU:0 of the cluster; each op of the training step is classified by its
type and name.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys

CLASSES = ["conv fwd", "conv bwd", "bn fwd", "bn bwd", "relu fwd", "relu bwd", "add", "pool", "linear",
           "optimizer", "memcpy", "other"]

GPU_CATS = {"Kernel", "Memcpy", "Memset", "kernel", "gpu_memcpy", "gpu_memset"}
CPU_CATS = {"Operator", "cpu_op", "user_annotation"}


def load_trace(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f)


def classify_measured(chain):
    """Op class of a GPU event from the names of its launching operator and its enclosing
    operators (outermost first)."""
    names = [n.lower() for n in chain]
    joined = " | ".join(names)
    if "optimizer." in joined or "accumulategrad" in joined:
        return "optimizer"
    backward = any("backward" in n or "autograd::engine" in n for n in names)
    if "convolution" in joined or "conv2d" in joined:
        return "conv bwd" if backward else "conv fwd"
    if "batch_norm" in joined or "batchnorm" in joined:
        return "bn bwd" if backward else "bn fwd"
    if "relu" in joined or "threshold" in joined:
        return "relu bwd" if backward else "relu fwd"
    if "pool" in joined or "meanbackward" in joined:
        return "pool"
    if "addmm" in joined or "linear" in joined or "aten::mm" in joined or "tbackward" in joined:
        return "linear"
    if "addbackward" in joined or "aten::add" in joined:
        # the residual add forward, and in backward the accumulation add where a tensor fans out
        return "add"
    return "other"


def profiled_steps(cpu):
    """The profiled steps (start, end) and what marks them."""
    marks = sorted((e for e in cpu if e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    if marks:
        return [(e["ts"], e["ts"] + e["dur"]) for e in marks], "ProfilerStep#N"
    loads = sorted((e for e in cpu if e["name"].startswith("enumerate(DataLoader)")), key=lambda e: e["ts"])
    if len(loads) > 1:
        return [(a["ts"], b["ts"]) for a, b in zip(loads, loads[1:])], "between data-loader __next__ annotations"
    # A trace of one step (bench/record_training_step.py): the span of its operators, to the
    # end of the last kernel (added by the caller), as the one step.
    ops = [e for e in cpu if e.get("cat") != "user_annotation"]
    if not ops:
        return [], "no steps"
    return [(min(e["ts"] for e in ops), max(e["ts"] + e["dur"] for e in ops))], "the whole trace, one step"


class Measured:
    def __init__(self, path):
        self.path = path
        trace = load_trace(path)
        self.device = ", ".join(sorted({d.get("name", "?") for d in trace.get("deviceProperties", [])})) or "?"
        events = trace["traceEvents"]
        cpu = [e for e in events if e.get("cat") in CPU_CATS and e.get("ph") == "X"]
        gpu = [e for e in events if e.get("cat") in GPU_CATS and e.get("ph") == "X"]
        self.layout = "PyTorch 1.8" if any(e.get("cat") == "Operator" for e in cpu) else "PyTorch 2.x"
        runtime = {}
        for e in events:
            if e.get("cat") in ("Runtime", "cuda_runtime", "cuda_driver") and e.get("ph") == "X":
                corr = e.get("args", {}).get("correlation")
                if corr is not None:
                    runtime[corr] = e
        chains = self._chains(cpu, runtime.values())
        self.steps = self._steps(cpu)
        if self.step_source.startswith("the whole trace") and gpu:
            # the one step ends with its last kernel, not with the last operator's launch
            a, b = self.steps[0]
            self.steps = [(a, max(b, max(k["ts"] + k["dur"] for k in gpu)) + 1)]
        self.batch = None
        self.conv_bwd_ops = sum(1 for e in cpu if e["name"] in ("CudnnConvolutionBackward", "ConvolutionBackward0"))
        per_step = [collections.Counter() for _ in self.steps]
        intervals = [[] for _ in self.steps]
        unattributed = 0.0
        for k in gpu:
            args = k.get("args", {})
            launch = runtime.get(args.get("correlation"))
            if "Memcpy HtoD" in k["name"] and args.get("bytes", 0) > 1 << 20:
                self.batch = self.batch or args["bytes"] // (3 * 224 * 224 * 4)
            step = self._step_of(launch["ts"] if launch else k["ts"])
            if step is None:
                continue
            chain = chains.get(id(launch), []) if launch else []
            if "Memcpy" in k["name"]:
                cls = "memcpy"
            elif not chain:
                unattributed += k["dur"]
                cls = "other"
            else:
                cls = classify_measured(chain)
            per_step[step][cls] += k["dur"] / 1000.0
            intervals[step].append((k["ts"], k["ts"] + k["dur"]))
        if self.batch is None:
            # no input copy (the batch made on the GPU): the first convolution's recorded input
            convs = sorted((e for e in cpu if e["name"] == "aten::conv2d" and e.get("args", {}).get("Input Dims")),
                           key=lambda e: e["ts"])
            if convs and convs[0]["args"]["Input Dims"][0]:
                self.batch = convs[0]["args"]["Input Dims"][0][0]
        self.unattributed_ms = unattributed / 1000.0
        self.per_step = per_step
        self.busy = [union_ms(iv) for iv in intervals]
        self.wall = [(b - a) / 1000.0 for a, b in self.steps]

    def _steps(self, cpu):
        steps, self.step_source = profiled_steps(cpu)
        return steps

    def _step_of(self, ts):
        for i, (a, b) in enumerate(self.steps):
            if a <= ts < b:
                return i
        return None

    @staticmethod
    def _chains(cpu, launches):
        """Per launch event (by id): the names of the CPU operators enclosing it on its thread,
        outermost first (operators nest on a thread, so one sweep with a stack finds them)."""
        by_tid = collections.defaultdict(list)
        for e in cpu:
            if not e["name"].startswith("ProfilerStep#") and e.get("cat") != "user_annotation" \
                    or e["name"].startswith("Optimizer."):
                by_tid[str(e["tid"])].append((e["ts"], 0, -e["dur"], e))
        for e in launches:
            by_tid[str(e["tid"])].append((e["ts"], 1, 0, e))
        chains = {}
        for items in by_tid.values():
            items.sort(key=lambda x: (x[0], x[1], x[2]))
            stack = []
            for ts, kind, _, e in items:
                while stack and stack[-1]["ts"] + stack[-1]["dur"] <= ts:
                    stack.pop()
                if kind == 0:
                    stack.append(e)
                else:
                    chains[id(e)] = [o["name"] for o in stack]
        return chains

    def steady(self):
        """Median over the steps after the first, per class and per step."""
        keep = range(1, len(self.steps)) if len(self.steps) > 1 else range(len(self.steps))
        classes = {c: statistics.median(self.per_step[i][c] for i in keep) for c in CLASSES}
        busy = statistics.median(self.busy[i] for i in keep)
        wall = statistics.median(self.wall[i] for i in keep)
        # Each step on its own: the profiled step where its GPU is the bottleneck (busy >= 90 %
        # of it), its GPU busy time where the data loader stalls it.
        bound = [i for i in keep if self.busy[i] >= 0.9 * self.wall[i]]
        step = statistics.median(self.wall[i] if i in bound else self.busy[i] for i in keep)
        return classes, busy, wall, step, len(bound), len(keep)


def union_ms(intervals):
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total / 1000.0


# --- predicted side ------------------------------------------------------------------------

EXPORT_SCRIPT = r"""
import sys, torch, torchvision
name, batch, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
model = getattr(torchvision.models, name)()
model.train()
x = torch.randn(batch, 3, 224, 224)
torch.onnx.export(model, x, out, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                  input_names=["input"], output_names=["logits"], opset_version=17)
"""


def export_model(name, batch, out_dir):
    path = os.path.join(out_dir, "%s_b%d_train.onnx" % (name, batch))
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", "-c", EXPORT_SCRIPT, name, str(batch), path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def classify_predicted(op_type):
    t = op_type
    backward = t.endswith("Grad") and t not in ("ApplyMomentum", "ApplyAdam")
    base = t[:-4] if backward else t
    if t in ("ApplyMomentum", "ApplyAdam"):
        return "optimizer"
    if t == "MemcpyHtoD":
        return "memcpy"
    if base in ("Conv", "ConvTranspose"):
        return "conv bwd" if backward else "conv fwd"
    if base == "BatchNormalization":
        return "bn bwd" if backward else "bn fwd"
    if base == "Relu":
        return "relu bwd" if backward else "relu fwd"
    if base in ("Add", "Sum"):
        return "add"
    if "Pool" in base:
        return "pool"
    if base in ("Gemm", "MatMul"):
        return "linear"
    return "other"


def simulate(post_cli, graph, cluster, extra, csv_path):
    cmd = [post_cli, "simulate", graph, "--cluster", cluster, "--all-on", "/device:GPU:0", "--json"] + extra
    if csv_path:
        cmd += ["--ops-csv", csv_path, "--force"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        message = (r.stderr.strip().splitlines() or ["no message"])[-1]
        return None, "n/a (exit %d, %s)" % (r.returncode, message[:160])
    per_class = collections.Counter()
    if csv_path:
        with open(csv_path, newline="") as f:
            for row in csv.DictReader(f):
                per_class[classify_predicted(row["type"])] += float(row["time_us"]) / 1000.0
    return (json.loads(r.stdout)["step_time_ms"], per_class), None


def gpu_type(cluster):
    """The device type of /device:GPU:0 of a preset or cluster file."""
    if not cluster.endswith(".json"):
        return {"v100x4-nvlink": "v100", "k80x4": "k80", "a100x8-nvlink": "a100", "h100x8-nvlink": "h100"}[cluster]
    with open(cluster) as f:
        return next(d["type"] for d in json.load(f)["devices"] if d["name"] == "/device:GPU:0")


def ratio(model, measured):
    return "%.2fx" % (model / measured) if measured > 0 else "-"


def report(path, args):
    m = Measured(path)
    measured, busy, wall, step, bound, kept = m.steady()
    model_name = "resnet50" if m.conv_bwd_ops and m.conv_bwd_ops % 53 == 0 else "resnet18"
    batch = m.batch or 32
    cluster = args.v100_cluster if "V100" in m.device else args.h200_cluster if "H200" in m.device \
        else args.rtx_cluster
    onnx = export_model(model_name, batch, args.out)
    name = os.path.basename(path)
    for suffix in (".gz", ".json", ".pt.trace"):
        name = name[:-len(suffix)] if name.endswith(suffix) else name
    base = os.path.join(args.out, name)
    # The default follows the framework: a PyTorch export is costed unfused, as eager PyTorch runs it.
    default, err = simulate(args.post_cli, onnx, cluster, [], base + ".ops.csv")
    fused, err2 = simulate(args.post_cli, onnx, cluster, ["--fusion"], base + ".fused.ops.csv")
    # The trace's times as the times of the cluster GPU's type: not scaled by its speed, which
    # only an untyped measured time is (docs/clusters.md, "Device types").
    replayed, why = simulate(args.post_cli, onnx, cluster, ["--costs", "%s=%s" % (gpu_type(cluster), path)], None)
    print("## %s" % os.path.basename(path))
    print("%s, %s; torchvision %s, batch %d; cluster %s, one GPU" % (m.device, m.layout, model_name, batch,
                                                                      os.path.basename(cluster)))
    over = "medians over steps 2-%d" % len(m.steps) if len(m.steps) > 1 else "the step"
    print("steps: %d (%s); %s: wall %.1f ms, GPU busy %.1f ms; %d of %d steps GPU-bound "
          "(busy >= 90 %% of the step): measured step %.1f ms = the median of each step's %s"
          % (len(m.steps), m.step_source, over, wall, busy, bound, kept, step,
             "wall time (GPU-bound)" if bound == kept else "GPU busy time (data loading stalls it)" if bound == 0
             else "wall time where GPU-bound, GPU busy time where data loading stalls it"))
    if err or err2:
        print("model failed: %s %s" % (err or "", err2 or ""))
        return
    print()
    print("| class | measured ms | share | model ms (default) | model / measured | model, --fusion | ratio |")
    print("|---|---|---|---|---|---|---|")
    for c in CLASSES:
        mine, fus = default[1][c], fused[1][c]
        share = measured[c] / step * 100.0
        print("| %s | %.2f | %.1f %% | %.2f | %s | %.2f | %s |" % (c, measured[c], share, mine, ratio(mine, measured[c]),
                                                                 fus, ratio(fus, measured[c])))
    replay = "%.1f ms (%s)" % (replayed[0], ratio(replayed[0], step)) if replayed else why
    print("| **step** | **%.1f** | | **%.1f** | **%s** | **%.1f** | **%s** |" % (
        step, default[0], ratio(default[0], step), fused[0], ratio(fused[0], step)))
    print("\nreplayed (simulate --costs TRACE): %s\n" % replay)
    if args.conv_layers:
        report_conv_layers(path, model_name, batch, base + ".ops.csv", args)


# --- per convolution layer (--conv-layers) ------------------------------------------------

SHAPES_SCRIPT = r"""
import sys, json, torch, torchvision
name, batch, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
m = getattr(torchvision.models, name)()
rows = []
def hook(mod, inp, outp):
    rows.append(dict(name=mod.post_name, x=[batch] + list(inp[0].shape[1:]), y=[batch] + list(outp.shape[1:]),
                     k=list(mod.kernel_size), s=list(mod.stride), cin=mod.in_channels, cout=mod.out_channels))
for n, mod in m.named_modules():
    if isinstance(mod, torch.nn.Conv2d):
        mod.post_name = n
        mod.register_forward_hook(hook)
m.eval()
m(torch.randn(1, 3, 224, 224))
json.dump(rows, open(out, "w"))
"""

CONV_FWD = ("aten::cudnn_convolution",)
CONV_BWD = ("aten::cudnn_convolution_backward", "aten::convolution_backward")


def conv_shapes(name, batch, out_dir):
    """torchvision's convolutions in call order (the order of the export and of the trace's
    forward), with their shapes at the traced batch."""
    path = os.path.join(out_dir, "%s_b%d_convs.json" % (name, batch))
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", "-c", SHAPES_SCRIPT, name, str(batch), path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def measured_conv_layers(path):
    """Per convolution of a step: forward kernel time, and its backward split into the input
    gradient and the weight gradient (cuDNN runs the input gradient first: the kernels from the
    first weight-gradient one, a memset or a split-K kernel on are the weight gradient's). Medians
    over the complete steps after the first; backward ops matched to the forward ones in reverse."""
    trace = load_trace(path)
    events = trace["traceEvents"]
    cpu = [e for e in events if e.get("cat") in CPU_CATS and e.get("ph") == "X"]
    gpu = [e for e in events if e.get("cat") in GPU_CATS and e.get("ph") == "X" and "Memcpy" not in e["name"]]
    runtime = {e["args"]["correlation"]: e for e in events if e.get("cat") in ("Runtime", "cuda_runtime", "cuda_driver")
               and e.get("ph") == "X" and "correlation" in e.get("args", {})}
    steps, _ = profiled_steps(cpu)
    ops = sorted((e for e in cpu if e["name"] in CONV_FWD + CONV_BWD), key=lambda e: e["ts"])
    by_tid = collections.defaultdict(list)
    for o in ops:
        by_tid[str(o["tid"])].append(o)
    kernels = collections.defaultdict(list)
    for k in gpu:
        launch = runtime.get(k.get("args", {}).get("correlation"))
        if launch:
            for o in by_tid.get(str(launch["tid"]), []):
                if o["ts"] <= launch["ts"] <= o["ts"] + o["dur"]:
                    kernels[id(o)].append(k)
                    break
    per_step = []
    for a, b in steps[1:] if len(steps) > 1 else steps:  # a one-step trace: its only step
        fwd, bwd = [], []
        for o in ops:
            if not a <= o["ts"] < b:
                continue
            ks = sorted(kernels[id(o)], key=lambda k: k["ts"])
            if o["name"] in CONV_FWD:
                fwd.append(sum(k["dur"] for k in ks))
                continue
            d = w = 0.0
            weight = False
            for k in ks:
                n = k["name"].lower()
                weight = weight or "wgrad" in n or "splitk" in n or "memset" in n
                if weight:
                    w += k["dur"]
                else:
                    d += k["dur"]
            bwd.append((d, w))
        per_step.append((fwd, bwd))
    n = max((len(f) for f, _ in per_step), default=0)
    complete = [(f, bw) for f, bw in per_step if len(f) == n and len(bw) == n]
    layers = []
    for i in range(n):
        j = n - 1 - i
        layers.append((statistics.median(f[i] for f, _ in complete) / 1000.0,
                       statistics.median(bw[j][0] for _, bw in complete) / 1000.0,
                       statistics.median(bw[j][1] for _, bw in complete) / 1000.0))
    return layers, len(complete)


def onnx_conv_name(module):
    parts = module.split(".")
    if len(parts) == 1:
        return "/%s/Conv" % module
    if "downsample" in parts:
        return "/%s/%s.%s/downsample/downsample.0/Conv" % (parts[0], parts[0], parts[1])
    return "/%s/%s.%s/%s/Conv" % (parts[0], parts[0], parts[1], parts[2])


def conv_class(s):
    if s["cin"] <= 4:
        return "first %dx%d" % tuple(s["k"])
    name = "%dx%d stride %d" % (s["k"][0], s["k"][1], s["s"][0])
    return name + (", Winograd" if s["k"] == [3, 3] and s["s"] == [1, 1] else "")


def report_conv_layers(path, model_name, batch, csv_path, args):
    layers, steps = measured_conv_layers(path)
    shapes = conv_shapes(model_name, batch, args.out)
    if len(layers) != len(shapes):
        print("per-layer split: %d convolutions in the trace, %d in %s: skipped\n" % (len(layers), len(shapes),
                                                                                    model_name))
        return
    model = {}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            model[row["name"]] = float(row["time_us"]) / 1000.0
    total = collections.OrderedDict()
    for (fwd, d, w), s in zip(layers, shapes):
        name = onnx_conv_name(s["name"])
        c = total.setdefault(conv_class(s), collections.Counter())
        c["n"] += 1
        c["fwd"] += fwd
        c["d"] += d
        c["w"] += w
        c["model fwd"] += model.get(name, 0.0)
        c["model bwd"] += model.get(name + "/grad", 0.0)
    print("Convolutions per layer class (%d complete steps; kernels of each layer's backward split into "
          "input and weight gradient):\n" % steps)
    print("| layer class | n | fwd measured | model | ratio | bwd measured (input + weight grad) | model | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for cls, c in total.items():
        bwd = c["d"] + c["w"]
        print("| %s | %d | %.2f | %.2f | %s | %.2f (%.2f + %.2f) | %.2f | %s |" % (
            cls, c["n"], c["fwd"], c["model fwd"], ratio(c["model fwd"], c["fwd"]), bwd, c["d"], c["w"],
            c["model bwd"], ratio(c["model bwd"], bwd)))
    print()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("traces", nargs="+", help="torch.profiler traces (.pt.trace.json[.gz])")
    p.add_argument("--post-cli", default=os.path.join(here, "..", "build", "release", "app", "cli", "post-cli"))
    p.add_argument("--out", default=os.path.join(here, "..", "build", "release", "fidelity"),
                   help="folder for the exports and per-op CSVs")
    p.add_argument("--v100-cluster", default="v100x4-nvlink")
    p.add_argument("--rtx-cluster", default=os.path.join(here, "rtx2080ti.json"))
    p.add_argument("--h200-cluster", default=os.path.join(here, "h200.json"))
    p.add_argument("--conv-layers", action="store_true",
                   help="also the convolutions per layer class, backward split into input and weight gradient")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for path in args.traces:
        report(path, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
