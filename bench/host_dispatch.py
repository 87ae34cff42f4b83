#!/usr/bin/env python3
"""Measures how long eager PyTorch's host thread takes to issue a training step.

    python3 bench/host_dispatch.py OUT.json [--steps 20] [--configs resnet50:32,densenet121:64:amp,...]

For each configuration (torchvision model, batch, optionally `amp` for autocast to bfloat16;
by default the ten steps of docs/cost-model.md, "An H200 with PyTorch 2.11") it times, over
--steps steps after a warm-up, without the profiler:
  issue_ms  from the step's start until the host has issued all of it (step() returns),
  wall_ms   until the GPU has finished it too (synchronised),
at the configuration's batch and at batch 2, where the kernels are small enough that the wall
time is the host's. Medians are written to OUT.json with the host's CPU model and the versions.
The ops each step issues are counted from its execution trace (bench/record_training_step.py),
not here. Nothing here is needed by the tests.
"""
import argparse
import json
import platform
import statistics
import sys
import time

DEFAULT_CONFIGS = ("resnet50:32,resnet50:128,resnet50:32:amp,resnet50:128:amp,resnet18:128,vit_b_16:64,"
                   "vit_b_16:64:amp,mobilenet_v3_large:128,densenet121:64,convnext_tiny:64:amp")


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def measure(torch, torchvision, name, batch, amp, steps, device):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(batch, 3, 224, 224, device=device)
    y = torch.randint(0, 1000, (batch,), device=device)

    def step():
        optimizer.zero_grad()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=amp):
            out = model(x)
            out = getattr(out, "logits", out)
            loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        optimizer.step()

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    issues, walls = [], []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        issued = time.perf_counter()
        torch.cuda.synchronize()
        end = time.perf_counter()
        issues.append((issued - start) * 1e3)
        walls.append((end - start) * 1e3)
    del model, optimizer, x, y
    torch.cuda.empty_cache()
    return round(statistics.median(issues), 3), round(statistics.median(walls), 3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--configs", default=DEFAULT_CONFIGS)
    args = parser.parse_args()

    import torch
    import torchvision

    device = torch.device("cuda")
    rows = []
    for config in args.configs.split(","):
        parts = config.split(":")
        name, batch, amp = parts[0], int(parts[1]), len(parts) > 2 and parts[2] == "amp"
        issue, wall = measure(torch, torchvision, name, batch, amp, args.steps, device)
        issue2, wall2 = measure(torch, torchvision, name, 2, amp, args.steps, device)
        row = {"model": name, "batch": batch, "amp": amp, "issue_ms": issue, "wall_ms": wall,
               "batch2_issue_ms": issue2, "batch2_wall_ms": wall2}
        print(json.dumps(row), flush=True)
        rows.append(row)
    summary = {"device": torch.cuda.get_device_name(device), "host_cpu": cpu_model(), "torch": torch.__version__,
               "torchvision": torchvision.__version__, "python": platform.python_version(), "steps": args.steps,
               "rows": rows}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
