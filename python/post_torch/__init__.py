"""post_torch: from a PyTorch nn.Module to a Post Studio placement and back.

    import post_torch
    post_torch.export(model, (x,), "model.onnx", profile=True)
    #   writes model.onnx, model.onnx.modules.json (ONNX node -> module path) and, with
    #   profile=True, model.onnx.costs.json (measured CPU times, post-costs/1)
    # post-cli place model.onnx --costs model.onnx.costs.json --cluster k80x4 --out p.json
    post_torch.apply(model, "p.json", {"/device:GPU:0": "cuda:0", "/device:GPU:1": "cuda:1"})

See docs/pytorch.md for the walk-through and the rules.
"""

import json
import os
import secrets
import stat
import warnings

from .modules import module_map, module_of_node, unqualified_name
from .placement import PlacementError, PlacementWarning, apply, load_plan, modules_to_devices, resolve, transfers

__all__ = ["export", "ExportError", "apply", "transfers", "load_plan", "resolve", "modules_to_devices", "module_map", "module_of_node",
           "unqualified_name", "PlacementError", "PlacementWarning", "MODULES_FORMAT"]

MODULES_FORMAT = "post-torch-modules/1"


def _write_json_atomically(path, document):
    """Writes `document` to `path` through a temporary file in the same folder and a rename, so a
    reader sees the old file or the new one, never half of one. A new file gets the mode a plain
    open() would give it (0666 less the umask: readable by others where the .onnx is); a file
    that exists keeps its mode."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".post_torch-{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for open(path, "w")
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"{folder}: no free name for a temporary file")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)
            json.dump(document, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _remove_earlier_profile(costs_path, warn=True):
    """Removes `costs_path` when it is a costs sidecar an earlier export with profile=True wrote
    (a regular file of format post-costs/1 measured by torch.profiler): its times are of the
    model that was at `path` before, and `post-cli --costs` would take them for this one's. Any
    other file there is left, with a warning when `warn` (an export with profile=True overwrites
    it). Returns whether it removed one."""
    try:
        info = os.lstat(costs_path)
    except FileNotFoundError:
        return False
    ours = False
    if stat.S_ISREG(info.st_mode) and info.st_size <= 64 << 20:
        try:
            with open(costs_path, encoding="utf-8") as f:
                doc = json.load(f)
            ours = isinstance(doc, dict) and doc.get("format") == "post-costs/1" and \
                str(doc.get("measured_by", "")).startswith("torch.profiler")
        except (OSError, ValueError, RecursionError):
            ours = False
    if not ours:
        if warn:
            warnings.warn(f"{costs_path} is not a costs file an earlier post_torch.export wrote: left in "
                          "place, but it does not measure this export", stacklevel=3)
        return False
    os.unlink(costs_path)
    return True


class _ModelState:
    """Everything an export may change in a model, taken before and put back after it: the values
    of every parameter and buffer (a training-mode trace and the profile's passes update
    BatchNorm's running statistics and counter in place), each tensor's requires_grad and .grad,
    the training flag of every submodule (a model in train mode with frozen BatchNorms keeps
    them in eval mode), which tensor object each module holds, each module's own attributes
    (a forward that caches what it computed, as RAFT's correlation block keeps its pyramid:
    left behind, those tensors hold the trace's autograd graph and the model no longer
    deep-copies), and torch's random number generators (a training-mode Dropout draws from
    them)."""

    def __init__(self, model):
        import torch

        self.modules = list({id(m): m for _, m in model.named_modules(remove_duplicate=False)}.values())
        self.training = [(m, m.training) for m in self.modules]
        self.attributes = [(m, {k: v for k, v in vars(m).items() if self._own(k)}) for m in self.modules]
        self.slots = [(m, dict(m._parameters), dict(m._buffers)) for m in self.modules]
        seen, self.tensors = set(), []
        for _, params, buffers in self.slots:
            for t in list(params.values()) + list(buffers.values()):
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                self.tensors.append((t, t.detach().clone(), t.requires_grad, t.grad if t.is_leaf else None))
        self.cuda = sorted({t.device.index or 0 for t, *_ in self.tensors if t.device.type == "cuda"})
        self.rng = torch.random.fork_rng(devices=self.cuda)

    @staticmethod
    def _own(name):
        """An attribute of a module's own, not torch.nn.Module's bookkeeping (its parameters,
        buffers, children, hooks and training flag, which the rest of this class handles)."""
        return not name.startswith("_") and name != "training"

    def __enter__(self):
        self.rng.__enter__()
        return self

    def __exit__(self, *exc):
        import torch

        try:
            for m, params, buffers in self.slots:
                m._parameters.clear()
                m._parameters.update(params)
                m._buffers.clear()
                m._buffers.update(buffers)
            with torch.no_grad():
                for t, saved, requires_grad, grad in self.tensors:
                    t.copy_(saved)
                    if t.is_leaf:
                        if t.requires_grad != requires_grad:
                            t.requires_grad_(requires_grad)
                        if t.grad is not grad:
                            t.grad = grad
            for m, training in self.training:
                m.training = training
            for m, saved in self.attributes:
                for k in [k for k in vars(m) if self._own(k) and k not in saved]:
                    del m.__dict__[k]  # made by the export's passes
                for k, v in saved.items():
                    if m.__dict__.get(k, self) is not v:
                        m.__dict__[k] = v
        finally:
            self.rng.__exit__(*exc)
        return False


# Modules that drop whole residual branches at random in training, and the attribute holding
# their drop probability: torchvision's StochasticDepth (EfficientNet, ConvNeXt), timm's
# DropPath. Their per-sample mask comes from an in-place Bernoulli draw, which torch 1.13's
# ONNX exporter refuses; with the probability 0 they return their input.
_STOCHASTIC_DEPTH = {"StochasticDepth": "p", "DropPath": "drop_prob"}
_RECURRENT = {"LSTM", "GRU", "RNN"}


class _DropsOff:
    """Sets a random drop of `model`'s modules that torch.onnx cannot export in training mode
    to 0 (the exporter puts every module in train mode, so eval mode would not do), puts it
    back on exit, and warns how many modules there were and what the step leaves out:
    - stochastic depth (torchvision's StochasticDepth, timm's DropPath) is exported as the
      identity: its mask, one element-wise product per residual branch, is not in the step;
    - the dropout between the layers of a multi-layer LSTM, GRU or RNN (its `dropout`): torch
      1.13 refuses it ("dropout in training mode"); one element-wise product per layer
      boundary is not in the step."""

    def __init__(self, model):
        self.saved = []
        for m in model.modules():
            kind = type(m).__name__
            # A one-layer recurrent module has no layer boundary: torch ignores its dropout.
            layered = kind in _RECURRENT and getattr(m, "num_layers", 1) > 1
            attribute = _STOCHASTIC_DEPTH.get(kind) or ("dropout" if layered else None)
            if attribute is not None and getattr(m, attribute, 0.0):
                self.saved.append((m, attribute, getattr(m, attribute)))

    def __enter__(self):
        for m, attribute, _ in self.saved:
            setattr(m, attribute, 0.0)
        depth = [m for m, attribute, _ in self.saved if attribute != "dropout"]
        recurrent = [(m, value) for m, attribute, value in self.saved if attribute == "dropout"]
        if depth:
            warnings.warn(f"post_torch.export: {len(depth)} stochastic-depth module(s) "
                          f"({type(depth[0]).__name__}) exported as the identity: ONNX has no form for "
                          "their random mask in training mode; the step leaves out their element-wise product",
                          stacklevel=3)
        if recurrent:
            warnings.warn(f"post_torch.export: the dropout between the layers of {len(recurrent)} recurrent "
                          f"module(s) ({type(recurrent[0][0]).__name__}, p = {recurrent[0][1]:g}) exported as none: torch.onnx cannot export it in training mode; the step "
                          "leaves out one element-wise product per layer boundary", stacklevel=3)
        return self

    def __exit__(self, *exc):
        for m, attribute, value in self.saved:
            setattr(m, attribute, value)
        return False


class _AdaptivePoolingAsAveragePooling:
    """While it is entered, torch.nn.functional's adaptive average pooling (which AdaptiveAvgPool
    modules call too) runs as a plain average pooling wherever an output size does not divide
    the input's: torch.onnx has no form for those (GoogLeNet's auxiliary classifiers pool 14x14 to
    4x4 in training mode). The stride is input // output and the kernel input - (output - 1) x
    stride, so the output has the same shape and each window about the same size (14 -> 4:
    kernel 5, stride 3, where PyTorch's bins are 4 or 5 wide). Warns once, on exit, how many
    calls ran that way and with which sizes."""

    _NAMES = ("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d")

    def __init__(self):
        self.saved, self.seen = [], {}

    def __enter__(self):
        import torch.nn.functional as F

        for dims, name in enumerate(self._NAMES, start=1):
            original = getattr(F, name)
            self.saved.append((F, name, original))
            setattr(F, name, self._wrap(original, dims))
        return self

    def _wrap(self, original, dims):
        import torch.nn.functional as F

        average = (F.avg_pool1d, F.avg_pool2d, F.avg_pool3d)[dims - 1]

        def pool(input, output_size):
            import torch

            with warnings.catch_warnings():  # a trace takes the shapes as constants, as wanted here
                warnings.simplefilter("ignore", torch.jit.TracerWarning)
                sizes = [int(s) for s in input.shape[-dims:]]
            wanted = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * dims
            wanted = [size if w is None else int(w) for w, size in zip(wanted, sizes)]
            if all(w > 0 and size % w == 0 for w, size in zip(wanted, sizes)):
                return original(input, output_size)
            stride = [max(size // w, 1) for w, size in zip(wanted, sizes)]
            kernel = [size - (w - 1) * s for w, size, s in zip(wanted, sizes, stride)]
            if min(kernel) < 1:  # more outputs than inputs: no such pooling (torch's own error)
                return original(input, output_size)
            key = ("x".join(map(str, sizes)), "x".join(map(str, wanted)),
                   "x".join(map(str, kernel)), "x".join(map(str, stride)))
            self.seen[key] = self.seen.get(key, 0) + 1
            # Without padding to count, the export needs no Pad node before the pooling.
            return average(input, kernel, stride, count_include_pad=False)

        return pool

    def __exit__(self, *exc):
        for module, name, original in self.saved:
            setattr(module, name, original)
        if self.seen and exc[0] is None:
            told = "; ".join(f"{n} of {src} -> {dst} (kernel {k}, stride {s})"
                             for (src, dst, k, s), n in self.seen.items())
            warnings.warn(f"post_torch.export: {sum(self.seen.values())} adaptive average pooling call(s) whose "
                          f"output size does not divide the input's exported as average pooling of the same "
                          f"output shape: {told}. ONNX has no exact form for them; their step keeps the shapes "
                          "and about the work", stacklevel=3)
        return False


class _AsEagerRuns:
    """Keeps torch.onnx from rewriting what the model runs while it is entered: TorchScript's
    common-subexpression pass (torch._C._jit_pass_cse) and its peephole pass
    (torch._C._jit_pass_peephole), which torch.onnx runs before converting. Eager PyTorch runs
    each module's computations as written, and the simulator should time those:
    - the common-subexpression pass merged identical computations of different modules into
      one node: each nn.TransformerEncoderLayer's attention prepares the mask it is given, and
      the export kept the first layer's only, so a placement putting the layers on two devices
      sent the first layer's mask to the second, where PyTorch computes it there;
    - the peephole pass merged a concatenation of a concatenation into one node: RAFT's motion
      encoder ends in torch.cat and its parent concatenates that at once, and the merged node,
      scoped to the parent, sent the flow straight to the parent's device where PyTorch sends it
      through the encoder's (48 of RAFT-small's 382 transfers differed; now 1). Inception-V3's
      InceptionE blocks keep their two cats too (866 ops -> 874).
    The graphs otherwise stay as they were (ResNet-18, EfficientNet-B0, ViT-B/32, ConvNeXt-T,
    DenseNet-121 and others op for op; Swin-T, whose blocks each build their attention mask,
    1,797 ops -> 1,848)."""

    _PASSES = ("_jit_pass_cse", "_jit_pass_peephole")

    def __enter__(self):
        import torch

        self.saved = {}
        for name in self._PASSES:
            original = getattr(torch._C, name, None)
            if original is not None:
                self.saved[name] = original
                # "nothing changed", as the passes report it (the peephole pass returns nothing)
                setattr(torch._C, name, lambda graph, *args, **kwargs: False)
        return self

    def __exit__(self, *exc):
        import torch

        for name, original in self.saved.items():
            setattr(torch._C, name, original)
        return False


class ExportError(RuntimeError):
    """A model that torch.onnx cannot export as asked, with what to do instead."""


def export(model, example_inputs, path, profile=False, opset_version=17, export_params=True, training=True,
           profile_runs=3):
    """Exports `model` to ONNX at `path` and writes `path + ".modules.json"`.

    The export keeps PyTorch's module-scoped node names and, with `training=True` (the
    default: Post Studio places training steps), keeps BatchNormalization and Dropout as
    nodes of their own instead of folding them, so each module with parameters has a node.
    Stochastic depth (torchvision's StochasticDepth in EfficientNet and ConvNeXt, timm's
    DropPath) is exported as the identity, with a warning: ONNX has no form for its random
    mask in training mode, and the step leaves out that one element-wise product per branch.
    The dropout between the layers of a multi-layer LSTM, GRU or RNN is exported as none, with a
    warning: torch 1.13 cannot export it in training mode.
    Adaptive average pooling whose output size does not divide the input's (GoogLeNet's
    auxiliary classifiers, 14x14 -> 4x4) is exported as average pooling of the same output
    shape, with a warning: ONNX has no exact form for it.
    With `profile=True` it also times the model's operators on this machine's CPU with
    torch.profiler and writes `path + ".costs.json"` (post-costs/1): each node's fastest time over
    `profile_runs` profiled forward passes after one warm-up, and the inputs' shapes
    ("x-inputs"). Without it, a
    `path + ".costs.json"` that an earlier export with profile=True wrote is removed: its times
    are of the model that was at `path` before. Returns the paths written.

    The model is left exactly as it was: the values of its parameters and buffers (which the
    training-mode trace and the profile's passes update: BatchNorm's running statistics),
    requires_grad and .grad, every submodule's training flag and its own attributes (what a
    forward keeps on it) are put back, also when the export fails; so is torch's random number
    generator state.
    """
    import onnx
    import torch

    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    if profile and (isinstance(profile_runs, bool) or not isinstance(profile_runs, int) or profile_runs < 1):
        raise ValueError(f"profile_runs must be a whole number >= 1, got {profile_runs!r}")
    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
    path = os.fspath(path)
    with _ModelState(model), _DropsOff(model if training else torch.nn.Module()), \
            _AdaptivePoolingAsAveragePooling(), _AsEagerRuns():
        model.train(training)
        failure = None
        try:
            torch.onnx.export(model, args, path, opset_version=opset_version, export_params=export_params,
                              training=mode, do_constant_folding=not training)
        except torch.onnx.errors.UnsupportedOperatorError as e:
            if not training:
                raise
            failure = str(e)
        # Raised here, without the torch error as its cause: that error's traceback holds the
        # half-converted graph of torch 1.13's ONNX pass, and while it lives the next export in
        # the process fails ("Unable to cast from non-held to held instance").
        if failure is not None:
            raise ExportError(
                f"{type(model).__name__} does not export to ONNX in training mode: {failure} A training step "
                "that samples at random or computes losses ONNX has no form for (torchvision's detection "
                "models: torch.randperm, smooth_l1_loss) is read as a PyTorch execution trace instead: "
                "record one step with torch.profiler.ExecutionTraceObserver (ExecutionGraphObserver in torch "
                "1.13) and a Kineto trace of the same step for --costs, as bench/record_training_step.py "
                "does (docs/importers.md, \"PyTorch execution traces\"); or export it in eval mode "
                "(training=False), whose sizes that depend on the data post-cli asks for (--count, "
                "--count-max)")
    # The model at `path` is new: an earlier profile's times beside it are not of it. With
    # profile=True the new times replace them (the file keeping its mode), or, when the profile
    # fails, they are removed then.
    if not profile:
        _remove_earlier_profile(path + ".costs.json")
    graph = onnx.load(path, load_external_data=False).graph
    nodes = [(node.name, node.op_type) for node in graph.node]
    modules = module_map(model, [name for name, _ in nodes])
    written = [path]
    _write_json_atomically(path + ".modules.json", {
        "format": MODULES_FORMAT,
        "model": type(model).__name__,
        "modules": modules,
    })
    written.append(path + ".modules.json")
    if profile:
        from .profile import measure

        try:
            with _ModelState(model):
                costs = measure(model, args, nodes, modules, repeats=profile_runs)
        except BaseException:
            _remove_earlier_profile(path + ".costs.json", warn=False)
            raise
        _write_json_atomically(path + ".costs.json", costs)
        written.append(path + ".costs.json")
    return written
