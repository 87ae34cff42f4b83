"""Reading a Post Studio placement as a module -> device plan, and applying it to a model."""

import json
from collections import Counter

import torch

PLACEMENT_FORMAT = "post-placement/1"
TORCH_MAP_FORMAT = "post-torch-map/1"


class PlacementError(ValueError):
    """A placement that does not fit the model or the device map; the message names the culprit."""


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise PlacementError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise PlacementError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None


def modules_to_devices(placement, modules, source="placement"):
    """{module path: Post Studio device} from {op: device} and {op: module path}.

    A module's device is the one most of its ops run on (ties: of those, the one that comes
    first in the placement's order). Ops without a module path are not counted. `post-cli
    export-placement --to torch` applies the same rule.
    """
    votes = {}
    for op, device in placement.items():
        module = modules.get(op)
        if module is not None:
            votes.setdefault(module, Counter())[device] += 1  # a Counter keeps first-seen order
    result = {}
    for module, counter in votes.items():
        top = max(counter.values())
        result[module] = next(d for d, n in counter.items() if n == top)
    return result


def load_plan(path):
    """{module path: Post Studio device name} from a post-placement/1 file that carries module
    paths (`post-cli place` of an export with its .modules.json) or a post-torch-map/1 file."""
    doc = _read_json(path)
    if not isinstance(doc, dict):
        raise PlacementError(f"{path}: expected a JSON object")
    fmt = doc.get("format")
    if fmt == TORCH_MAP_FORMAT:
        modules = doc.get("modules")
        if not isinstance(modules, dict) or not all(isinstance(v, str) for v in modules.values()):
            raise PlacementError(f"{path}: field 'modules' must map module paths to device names")
        return dict(modules)
    if fmt == PLACEMENT_FORMAT:
        placement, modules = doc.get("placement"), doc.get("modules")
        if not isinstance(placement, dict):
            raise PlacementError(f"{path}: field 'placement' must map op names to device names")
        if not isinstance(modules, dict):
            raise PlacementError(
                f"{path}: field 'modules' is missing: place the export with its .modules.json beside it "
                "(post_torch.export writes it), or convert with `post-cli export-placement --to torch`")
        return modules_to_devices(placement, modules, path)
    raise PlacementError(f"{path}: field 'format' is {fmt!r}, expected {PLACEMENT_FORMAT!r} or {TORCH_MAP_FORMAT!r}")


def _move(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(_move(v, device) for v in value)
    if isinstance(value, list):
        return [_move(v, device) for v in value]
    if isinstance(value, dict):
        return {k: _move(v, device) for k, v in value.items()}
    return value


def resolve(model, plan, device_map, source="placement"):
    """{module path: torch.device} for every module of `model`.

    A module the plan names runs on its mapped device; a module it does not name (a container,
    or a module whose ops the export folded into another's) runs where its parent runs; the
    root, when unnamed, runs where the first named module runs. Raises PlacementError for a
    module path the model lacks or a device the map lacks.
    """
    named = dict(model.named_modules())
    for module in plan:
        if module not in named:
            raise PlacementError(f"{source}: module '{module}' is not in the model ({type(model).__name__})")
    for module, device in plan.items():
        if device not in device_map:
            raise PlacementError(
                f"{source}: device '{device}' (of module '{module}') is not in device_map "
                f"(which maps {', '.join(sorted(device_map)) or 'nothing'})")
    torch_devices = {name: torch.device(d) for name, d in device_map.items()}
    if not plan:
        raise PlacementError(f"{source}: the placement names no module of the model")
    root = plan.get("", next(iter(plan.values())))
    homes = {"": torch_devices[root]}
    for path, _ in model.named_modules():
        if path == "":
            continue
        parent = path.rsplit(".", 1)[0] if "." in path else ""
        homes[path] = torch_devices[plan[path]] if path in plan else homes[parent]
    return homes


def apply(model, placement_path, device_map):
    """Moves every module of `model` to the device a Post Studio placement gives it.

    `placement_path`: a post-placement/1 file with module paths, or a post-torch-map/1 file.
    `device_map`: Post Studio device names to torch devices, e.g. {"/device:GPU:1": "cuda:1"}.
    Each module's own parameters and buffers move to its device, and a forward pre-hook moves
    its inputs there. A module that has ops of its own in the placement (an Add in a residual
    block's forward, say) also gets its children's outputs moved back to it, so that its own
    code sees tensors on one device; a pure container does not, so consecutive children on one
    device pass tensors without a round trip. Returns the model.
    """
    plan = load_plan(placement_path)
    homes = resolve(model, plan, device_map, str(placement_path))
    owners = set(plan)  # modules with ops of their own
    for path, module in model.named_modules():
        device = homes[path]
        for name, param in list(module.named_parameters(recurse=False)):
            moved = torch.nn.Parameter(param.data.to(device), requires_grad=param.requires_grad)
            setattr(module, name, moved)
        for name, buf in list(module.named_buffers(recurse=False)):
            module._buffers[name] = buf.to(device)
        module.register_forward_pre_hook(lambda _m, args, device=device: _move(args, device))
        parent = path.rsplit(".", 1)[0] if "." in path else ""
        if path != "" and parent in owners:
            back = homes[parent]
            module.register_forward_hook(lambda _m, _args, out, back=back: _move(out, back))
    return model
