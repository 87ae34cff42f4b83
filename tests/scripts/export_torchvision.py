#!/usr/bin/python3
"""Exports real networks with Debian's python3-torch / python3-torchvision to ONNX, for
tests/core/test_onnx_real.cpp (a CTest fixture; the files go to the build folder and are
never committed). Weights are random (weights=None: nothing is downloaded); FLOPs and
parameter counts depend only on the architecture.

  resnet50.onnx             torchvision ResNet-50, 1x3x224x224, opset 17
  mobilenet_v2.onnx         torchvision MobileNetV2, 1x3x224x224, opset 17
  resnet18_dynamic.onnx     ResNet-18 with symbolic batch, height and width (dynamic_axes)
  mobilenet_v2_noweights.onnx  MobileNetV2 exported without its weights (export_params=False:
                            every parameter a graph input, no initializer)
  resnet18_train.onnx       ResNet-18 exported for training (training=TrainingMode.TRAINING:
                            batch norms in training form, nothing folded), ~1 s
  swin_t.onnx               torchvision Swin-T, 1x3x224x224, opset 17: its window padding is
                            integer shape arithmetic (Mod, Where, Range, ScatterND, ...), ~15 s

Exits 0 with a message and writes SKIPPED when torch or torchvision is missing, so the
test can say why it skips.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torchvision_export import export as export_model, import_torch  # noqa: E402

out = sys.argv[1]
torch, torchvision = import_torch(out, "exports")


def export(model, name, shape, dynamic=None, params=True, training=False):
    export_model(torch, out, model, name, shape, dynamic, params, training)


export(torchvision.models.resnet50(weights=None), "resnet50.onnx", (1, 3, 224, 224))
export(torchvision.models.mobilenet_v2(weights=None), "mobilenet_v2.onnx", (1, 3, 224, 224))
export(torchvision.models.resnet18(weights=None), "resnet18_dynamic.onnx", (1, 3, 224, 224),
       {"input": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}})
export(torchvision.models.mobilenet_v2(weights=None), "mobilenet_v2_noweights.onnx", (1, 3, 224, 224),
       params=False)
export(torchvision.models.resnet18(weights=None), "resnet18_train.onnx", (1, 3, 224, 224), training=True)
if hasattr(torchvision.models, "swin_t"):  # torchvision >= 0.13
    export(torchvision.models.swin_t(weights=None), "swin_t.onnx", (1, 3, 224, 224))
print("exported to", out)
