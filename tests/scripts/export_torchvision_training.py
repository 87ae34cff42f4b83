#!/usr/bin/python3
"""Exports torchvision networks in training form (training=TrainingMode.TRAINING: BatchNorm
with its batch statistics, as the profiled runs had) for the measured-costs tests
(tests/core/test_kineto_costs.cpp, a CTest fixture; the files go to the build folder and are
never committed). Weights are random (weights=None: nothing is downloaded).

  resnet50_train_b32.onnx    ResNet-50, 32x3x224x224: the V100 traces of shared/data/traces/kineto
  resnet18_train_b128.onnx   ResNet-18, 128x3x224x224: shared/data/traces/param/resnet_kineto

Exits 0 with a message and writes SKIPPED when torch or torchvision is missing.
"""
import os
import sys
import warnings

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
try:
    import torch
    import torchvision
except Exception as e:  # noqa: BLE001 - any import failure means: skip
    with open(os.path.join(out, "SKIPPED"), "w") as f:
        f.write("python3-torch / python3-torchvision not importable: %s\n" % e)
    print("skipping the torchvision training exports:", e)
    sys.exit(0)

warnings.filterwarnings("ignore")  # one "Removing mutation" warning per BatchNorm
torch.manual_seed(0)


def export(model, name, shape):
    path = os.path.join(out, name)
    if os.path.exists(path):
        return
    model.train()
    torch.onnx.export(model, torch.randn(*shape), path + ".tmp", opset_version=17, input_names=["input"],
                      output_names=["logits"], training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False)
    os.replace(path + ".tmp", path)


export(torchvision.models.resnet50(weights=None), "resnet50_train_b32.onnx", (32, 3, 224, 224))
export(torchvision.models.resnet18(weights=None), "resnet18_train_b128.onnx", (128, 3, 224, 224))
print("exported to", out)
