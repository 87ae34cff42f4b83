#!/usr/bin/env python3
"""Records one training step of a torchvision network for `post-cli --costs` and measures it.

    python3 bench/record_training_step.py OUT_DIR [--model resnet50] [--batch 32] [--amp]
                                          [--device cuda] [--steps 30] [--tag NAME]

--model names a classification network (torchvision.models) or a detection one
(torchvision.models.detection: fasterrcnn_resnet50_fpn, retinanet_resnet50_fpn, ...; then
--batch images of --image-size, two boxes each, and the sum of its losses).

Writes into OUT_DIR (TAG: --tag, else MODEL):
  TAG_et.json.gz        the execution trace of one step (torch.profiler.ExecutionTraceObserver;
                        ExecutionGraphObserver on torch 1.13)
  TAG_kineto.json.gz    the Kineto (Chrome) trace of the same step, the same run, shapes recorded
  TAG_step.json         what was measured without the profiler: each of --steps steps' wall time
                        (synchronised), their median, and the versions and device

The numbers checked against the simulator in docs/pytorch.md ("Measured on an H200") come from
this script run on the device machine; it also runs on the CPU (torch 1.13, Debian) for a check
of the script itself. Nothing here is needed by the tests.
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--amp", action="store_true", help="the forward pass under autocast to bfloat16")
    parser.add_argument("--tag", help="the files' name (default: the model's)")
    parser.add_argument("--image-size", type=int, help="the input's height and width (default: 299 for "
                        "inception_v3, else 224)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    import torch
    import torchvision
    from torch.profiler import ProfilerActivity, profile

    observer_class = getattr(torch.profiler, "ExecutionTraceObserver", None) or getattr(
        torch.profiler, "ExecutionGraphObserver", None)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    torch.manual_seed(0)
    # torchvision's detection models (fasterrcnn_resnet50_fpn, retinanet_resnet50_fpn, ...) train
    # on a list of images with their boxes and return their losses; they do not export to ONNX in
    # training mode (post_torch.ExportError), so their step is recorded here.
    detection = hasattr(torchvision.models.detection, args.model)
    if detection:
        model = getattr(torchvision.models.detection, args.model)(weights=None, weights_backbone=None).to(device)
    else:
        model = getattr(torchvision.models, args.model)().to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    size = args.image_size or (299 if args.model == "inception_v3" else 224)
    x = torch.randn(args.batch, 3, size, size, device=device)
    y = torch.randint(0, 1000, (args.batch,), device=device)
    images, targets = [], []
    if detection:  # two boxes an image, of classes 1 and 3 (masks and keypoints where the model needs them)
        images = [torch.rand(3, size, size, device=device) for _ in range(args.batch)]
        for _ in images:
            target = {"boxes": torch.tensor([[0.1, 0.1, 0.6, 0.7], [0.3, 0.2, 0.9, 0.8]], device=device) * size,
                      "labels": torch.tensor([1, 3], device=device)}
            if "mask" in args.model:
                target["masks"] = torch.zeros(2, size, size, dtype=torch.uint8, device=device)
            if "keypoint" in args.model:
                target["keypoints"] = torch.rand(2, 17, 3, device=device) * size
            targets.append(target)

    def sync():
        if cuda:
            torch.cuda.synchronize()

    def step():
        optimizer.zero_grad()
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.amp):
            if detection:
                loss = sum(model(images, targets).values())
            else:
                out = model(x)
                # Inception-V3 and GoogLeNet return their auxiliary logits beside the main ones in training.
                out = getattr(out, "logits", out)
                loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        optimizer.step()

    for _ in range(5):  # warm-up: cuDNN's algorithm choice, the momentum buffers
        step()
    sync()
    walls = []
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        sync()
        walls.append((time.perf_counter() - start) * 1e3)

    tag = args.tag or args.model
    et_path = os.path.join(args.out, f"{tag}_et.json")
    kineto_path = os.path.join(args.out, f"{tag}_kineto.json")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    observer = observer_class()
    observer.register_callback(et_path)
    step()  # one step more before the recorded one, as in the loop above
    sync()
    with profile(activities=activities, record_shapes=True) as prof:
        observer.start()
        step()
        sync()
        observer.stop()
    observer.unregister_callback()
    prof.export_chrome_trace(kineto_path)
    for path in (et_path, kineto_path):
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(path)

    summary = {
        "model": args.model,
        "batch": args.batch,
        "image_size": size,
        "amp": args.amp,
        "device": torch.cuda.get_device_name(device) if cuda else "cpu",
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "steps": args.steps,
        "wall_ms": [round(w, 3) for w in walls],
        "median_wall_ms": round(statistics.median(walls), 3),
    }
    with open(os.path.join(args.out, f"{tag}_step.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "wall_ms"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
