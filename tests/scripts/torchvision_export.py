"""The export loop shared by export_torchvision.py and export_torchvision_training.py: import
torch and torchvision or write SKIPPED (so a test can say why it skips), and export one model
to ONNX atomically (a .tmp file renamed into place; an existing file is kept)."""
import os
import sys


def import_torch(out, what):
    """Returns (torch, torchvision), or writes out/SKIPPED and exits 0 when either is missing."""
    os.makedirs(out, exist_ok=True)
    try:
        import torch
        import torchvision
    except Exception as e:  # noqa: BLE001 - any import failure means: skip
        with open(os.path.join(out, "SKIPPED"), "w") as f:
            f.write("python3-torch / python3-torchvision not importable: %s\n" % e)
        print("skipping the torchvision %s:" % what, e)
        sys.exit(0)
    torch.manual_seed(0)
    return torch, torchvision


def export(torch, out, model, name, shape, dynamic=None, params=True, training=False):
    """Exports model (opset 17, input "input", output "logits") to out/name unless it exists."""
    path = os.path.join(out, name)
    if os.path.exists(path):
        return
    kwargs = {}
    if dynamic:
        kwargs["dynamic_axes"] = dynamic
    if training:
        model.train()
        kwargs["training"] = torch.onnx.TrainingMode.TRAINING
    else:
        model.eval()
    torch.onnx.export(model, torch.randn(*shape), path + ".tmp", opset_version=17, input_names=["input"],
                      output_names=["logits"], do_constant_folding=not training, export_params=params,
                      **kwargs)
    os.replace(path + ".tmp", path)
