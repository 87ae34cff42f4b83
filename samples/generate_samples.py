#!/usr/bin/env python3
"""Writes the sample graphs in samples/graphs/ (post-graph/1). Deterministic: run it
again and the files come out byte-identical.

    python3 samples/generate_samples.py [--zoo build/app/cli/post-cli]

With --zoo it also writes the model-zoo samples (docs/zoo.md) with `post-cli zoo generate`,
whose costs come from the shape-based cost model (docs/cost-model.md), not the one below.

Times are estimates for the profiling reference GPU of docs/clusters.md (a Tesla V100,
speed 1.0), from a roofline-style cost model:
  compute-bound ops (convolutions, matmuls): FLOPs / 7.85 TFLOP/s (half the V100's
      15.7 TFLOP/s FP32 peak, a typical cuDNN efficiency), backward = 2x forward
      (gradients of inputs and of weights);
  memory-bound ops (pooling, concat, loss, parameter updates): bytes moved / 700 GB/s
      (about 80% of the V100's 900 GB/s HBM2 bandwidth);
  plus 5 us of launch overhead per op.
CPU times are left out so readers derive them with ImportOptions::cpuSlowdown, except for
the input op whose CPU time (decoding and copying a batch) is given explicitly.
Sizes are fp32 (4 bytes per value).
"""
import argparse
import json
import os
import subprocess

FLOPS = 7.85e12      # effective FLOP/s of the reference GPU
MEM_BW = 700e9       # effective bytes/s of the reference GPU's memory
LAUNCH_US = 5.0
F32 = 4


def us(seconds):
    return round(seconds * 1e6 + LAUNCH_US, 1)


class Net:
    def __init__(self, batch):
        self.batch = batch
        self.ops = []        # forward ops in order: dicts
        self.by_name = {}

    def add(self, name, type_, inputs, shape, flops=0.0, params=0, gpu_us=None, cpu_us=None, colocate=True):
        out_bytes = self.batch * shape[0] * shape[1] * shape[2] * F32
        in_bytes = sum(self.by_name[i]["output_bytes"] for i in inputs)
        if gpu_us is None:
            gpu_us = us(flops / FLOPS) if flops else us((in_bytes + out_bytes) / MEM_BW)
        op = {"name": name, "type": type_, "inputs": inputs, "shape": shape, "gpu_us": gpu_us, "cpu_us": cpu_us,
              "output_bytes": out_bytes, "param_bytes": params * F32, "flops": flops, "colocate": colocate}
        self.ops.append(op)
        self.by_name[name] = op
        return name

    def conv(self, name, src, cout, k, stride=1, pad=None):
        h, w, cin = self.by_name[src]["shape"]
        pad = (k - 1) // 2 if pad is None else pad
        ho, wo = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        flops = 2.0 * self.batch * ho * wo * cout * cin * k * k
        return self.add(name, "Conv2D", [src], (ho, wo, cout), flops=flops, params=k * k * cin * cout + 2 * cout)

    def pool(self, name, src, k, stride, kind="MaxPool", pad=0):
        h, w, c = self.by_name[src]["shape"]
        ho, wo = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        return self.add(name, kind, [src], (ho, wo, c))

    def concat(self, name, srcs):
        h, w, _ = self.by_name[srcs[0]]["shape"]
        return self.add(name, "Concat", srcs, (h, w, sum(self.by_name[s]["shape"][2] for s in srcs)))

    def fc(self, name, src, out):
        h, w, c = self.by_name[src]["shape"]
        cin = h * w * c
        return self.add(name, "MatMul", [src], (1, 1, out), flops=2.0 * self.batch * cin * out, params=cin * out + out)

    def training_step(self):
        """Forward ops, one backward op per forward op (colocated with it), and one
        parameter update per op that owns parameters (colocated too)."""
        ops, edges = [], []
        consumers = {o["name"]: [] for o in self.ops}
        for o in self.ops:
            for i in o["inputs"]:
                consumers[i].append(o["name"])

        def group(o):
            return o["name"] if o["colocate"] else None

        for o in self.ops:
            times = {"gpu": o["gpu_us"]}
            if o["cpu_us"] is not None:
                times["cpu"] = o["cpu_us"]
            ops.append(op_entry(o["name"], o["type"], times, o["output_bytes"], o["param_bytes"], group(o)))
            for i in o["inputs"]:
                edges.append((i, o["name"], None))
        for o in reversed(self.ops):
            if not o["inputs"]:
                continue  # nothing to differentiate for the input
            grad = "grad/" + o["name"]
            in_bytes = sum(self.by_name[i]["output_bytes"] for i in o["inputs"])
            if o["flops"]:
                gpu = us(2.0 * o["flops"] / FLOPS)
            else:
                gpu = us((2 * o["output_bytes"] + in_bytes) / MEM_BW)
            ops.append(op_entry(grad, o["type"] + "Grad", {"gpu": gpu}, in_bytes, 0, group(o)))
            # The upstream gradients, or the op's own output for the loss.
            for c in consumers[o["name"]] or []:
                edges.append(("grad/" + c, grad, o["output_bytes"]))
            if not consumers[o["name"]]:
                edges.append((o["name"], grad, None))
            # Forward inputs are needed for weight gradients and masks.
            for i in o["inputs"]:
                edges.append((i, grad, None))
            if o["param_bytes"]:
                update = "update/" + o["name"]
                # Momentum SGD reads weights, gradient and momentum and writes two of them.
                ops.append(op_entry(update, "ApplyMomentum", {"gpu": us(5 * o["param_bytes"] / MEM_BW)}, 0, 0, group(o)))
                edges.append((grad, update, o["param_bytes"]))
        return ops, edges


def op_entry(name, type_, times, output_bytes, param_bytes, colocate):
    e = {"name": name, "type": type_, "time_us": times, "output_bytes": output_bytes}
    if param_bytes:
        e["param_bytes"] = param_bytes
    if colocate:
        e["colocate"] = colocate
    return e


def inception_block():
    n = Net(batch=32)
    # Decoding and copying a batch of 299x299 images: an explicit CPU time.
    x = n.add("data", "Input", [], (299, 299, 3), gpu_us=50.0, cpu_us=400.0, colocate=False)
    x = n.conv("stem/conv1", x, 32, 3, stride=2, pad=0)
    x = n.conv("stem/conv2", x, 32, 3, pad=0)
    x = n.conv("stem/conv3", x, 64, 3)
    x = n.pool("stem/pool1", x, 3, 2)
    x = n.conv("stem/conv4", x, 80, 1)
    x = n.conv("stem/conv5", x, 192, 3, pad=0)
    x = n.pool("stem/pool2", x, 3, 2)
    # Three Inception-A blocks (Inception-v3's mixed_5b/5c/5d) with four branches each.
    for block, pool_proj in (("mixed_5b", 32), ("mixed_5c", 64), ("mixed_5d", 64)):
        b1 = n.conv(block + "/branch1x1", x, 64, 1)
        b5 = n.conv(block + "/branch5x5_1", x, 48, 1)
        b5 = n.conv(block + "/branch5x5_2", b5, 64, 5)
        b3 = n.conv(block + "/branch3x3dbl_1", x, 64, 1)
        b3 = n.conv(block + "/branch3x3dbl_2", b3, 96, 3)
        b3 = n.conv(block + "/branch3x3dbl_3", b3, 96, 3)
        bp = n.pool(block + "/branch_pool", x, 3, 1, kind="AvgPool", pad=1)
        bp = n.conv(block + "/branch_pool_proj", bp, pool_proj, 1)
        x = n.concat(block + "/concat", [b1, b5, b3, bp])
    x = n.pool("head/avgpool", x, 35, 1, kind="AvgPool")
    x = n.fc("head/logits", x, 1000)
    n.add("head/loss", "SoftmaxCrossEntropy", [x], (1, 1, 1))
    return n


def tiny_mlp():
    n = Net(batch=64)
    x = n.add("data", "Input", [], (1, 1, 784), gpu_us=10.0, cpu_us=60.0, colocate=False)
    x = n.fc("fc1", x, 512)
    x = n.add("relu1", "Relu", [x], (1, 1, 512))
    x = n.fc("fc2", x, 10)
    n.add("loss", "SoftmaxCrossEntropy", [x], (1, 1, 1))
    return n


def write(path, name, notes, net):
    ops, edges = net.training_step()
    lines = ["{", '  "format": "post-graph/1",', '  "name": %s,' % json.dumps(name), '  "x-notes": %s,' % json.dumps(notes),
             '  "ops": [']
    lines += ["    " + json.dumps(o) + ("," if k + 1 < len(ops) else "") for k, o in enumerate(ops)]
    lines += ["  ],", '  "edges": [']
    for k, (a, b, bytes_) in enumerate(edges):
        e = {"from": a, "to": b}
        if bytes_ is not None:
            e["bytes"] = bytes_
        lines.append("    " + json.dumps(e) + ("," if k + 1 < len(edges) else ""))
    lines += ["  ]", "}"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d ops, %d edges" % (path, len(ops), len(edges)))


# Model-zoo samples: (name, batch). Batches are the papers' (ColocRL, Post) except the
# NMT model, whose batch 64 is kept but whose file is the largest of the set.
# inception-v3 (1.06 MB) and nmt-2 (3.4 MB) are left to `post-cli zoo generate` to keep the
# repository lean (scripts/dev demo generates inception-v3).
ZOO_SAMPLES = [("resnet-50", 32), ("rnnlm-2", 64)]


def write_zoo(here, post_cli):
    for name, batch in ZOO_SAMPLES:
        path = os.path.join(here, name + ".json")
        subprocess.run([post_cli, "zoo", "generate", name, "--batch", str(batch), "--out", path], check=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--zoo", metavar="POST_CLI", help="also write the model-zoo samples with this post-cli")
    args = parser.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "graphs")
    os.makedirs(here, exist_ok=True)
    write(os.path.join(here, "inception-block.json"), "inception-block",
          "One training step of an Inception-v3-style network, batch 32: a stem, three Inception-A blocks "
          "with four parallel branches each and a classifier; every backward op and parameter update is "
          "colocated with its forward op. Made by samples/generate_samples.py (cost model in its docstring).",
          inception_block())
    write(os.path.join(here, "tiny-mlp.json"), "tiny-mlp",
          "One training step of a two-layer perceptron on 28x28 images, batch 64. "
          "Made by samples/generate_samples.py.", tiny_mlp())
    if args.zoo:
        write_zoo(here, args.zoo)
