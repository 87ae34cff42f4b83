#!/usr/bin/python3
"""Exports torchvision networks in training form (batch 32, random weights: nothing is
downloaded) for bench/certified_gaps.py --torchvision: real models as users bring them, ONNX
from PyTorch, none of them in ../shared/data. Run by /usr/bin/python3 (Debian's python3-torch);
an existing file is kept. EfficientNet's and ConvNeXt's stochastic depth is exported as the
identity, as post_torch.export does (torch 1.13 cannot export its Bernoulli draw in training
mode; docs/pytorch.md); ViT-B/16's training export did not end within 10 minutes on this
machine.

usage: export_torchvision_gaps.py OUT_DIR
"""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "scripts"))
from torchvision_export import export, import_torch  # noqa: E402

MODELS = [  # (file, constructor name, keyword arguments, input shape)
    ("googlenet_b32.onnx", "googlenet", {"aux_logits": False, "init_weights": False}, (32, 3, 224, 224)),
    ("inception_v3_b32.onnx", "inception_v3", {"aux_logits": False, "init_weights": False}, (32, 3, 299, 299)),
    ("resnet50_b32.onnx", "resnet50", {}, (32, 3, 224, 224)),
    ("resnext101_b32.onnx", "resnext101_32x8d", {}, (32, 3, 224, 224)),
    ("densenet121_b32.onnx", "densenet121", {}, (32, 3, 224, 224)),
    ("vgg16_b32.onnx", "vgg16", {}, (32, 3, 224, 224)),
    ("squeezenet1_0_b32.onnx", "squeezenet1_0", {}, (32, 3, 224, 224)),
    ("mobilenet_v3_large_b32.onnx", "mobilenet_v3_large", {}, (32, 3, 224, 224)),
    ("mnasnet1_0_b32.onnx", "mnasnet1_0", {}, (32, 3, 224, 224)),
    ("shufflenet_v2_x1_0_b32.onnx", "shufflenet_v2_x1_0", {}, (32, 3, 224, 224)),
    ("regnet_y_400mf_b32.onnx", "regnet_y_400mf", {}, (32, 3, 224, 224)),
    ("efficientnet_b0_b32.onnx", "efficientnet_b0", {}, (32, 3, 224, 224)),
    ("convnext_tiny_b32.onnx", "convnext_tiny", {}, (32, 3, 224, 224)),
    ("swin_t_b32.onnx", "swin_t", {}, (32, 3, 224, 224)),
    ("efficientnet_v2_s_b32.onnx", "efficientnet_v2_s", {}, (32, 3, 224, 224)),
]


def without_stochastic_depth(model):
    """Drop probability 0 for torchvision's StochasticDepth modules: the identity, as
    post_torch.export exports them."""
    for m in model.modules():
        if type(m).__name__ == "StochasticDepth":
            m.p = 0.0
    return model


if __name__ == "__main__":
    out = sys.argv[1]
    torch, torchvision = import_torch(out, "held-out exports")
    warnings.filterwarnings("ignore")  # one "Removing mutation" warning per BatchNorm
    for name, constructor, kwargs, shape in MODELS:
        model = without_stochastic_depth(getattr(torchvision.models, constructor)(weights=None, **kwargs))
        export(torch, out, model, name, shape, training=True)
        print(name, flush=True)
