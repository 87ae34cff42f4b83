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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchvision_export import export as export_model, import_torch  # noqa: E402

out = sys.argv[1]
torch, torchvision = import_torch(out, "training exports")
warnings.filterwarnings("ignore")  # one "Removing mutation" warning per BatchNorm


def export(model, name, shape):
    export_model(torch, out, model, name, shape, training=True)


export(torchvision.models.resnet50(weights=None), "resnet50_train_b32.onnx", (32, 3, 224, 224))
export(torchvision.models.resnet18(weights=None), "resnet18_train_b128.onnx", (128, 3, 224, 224))
print("exported to", out)
