"""Reading a Post Studio placement as a module -> device plan, and applying it to a model."""

import dis
import json
import os
import stat
import sys
import warnings
import weakref
from collections import Counter

import torch

PLACEMENT_FORMAT = "post-placement/1"
TORCH_MAP_FORMAT = "post-torch-map/1"
# The cap post-cli's readers of post-placement/1 use (200k ops with module paths: 20 MB).
MAX_FILE_BYTES = 64 << 20


class PlacementError(ValueError):
    """A placement that does not fit the model or the device map; the message names the file and
    the culprit (field, module or device)."""


class PlacementWarning(UserWarning):
    """A placement that applies but may not be this model's: modules with parameters or buffers
    that it does not name (they run where their parent runs)."""


def _source(path):
    try:
        return os.fsdecode(os.fspath(path))
    except TypeError:
        raise PlacementError(f"{path!r}: expected a file path (str or os.PathLike)") from None


def _read_bytes(name):
    """The bytes of a regular file, opened without blocking (a FIFO or a device is refused, not
    waited on) and read up to MAX_FILE_BYTES."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except OSError as e:
        raise PlacementError(f"{name}: cannot read: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise PlacementError(f"{name}: cannot read: {kind} (a placement is a regular file)")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise PlacementError(f"{name}: cannot read: {e.strerror}") from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise PlacementError(f"{name}: larger than {MAX_FILE_BYTES >> 20} MiB, the most a placement may be")
    return b"".join(chunks)


def _read_json(path):
    name = _source(path)
    data = _read_bytes(name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PlacementError(f"{name}: byte {e.start}: not UTF-8") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise PlacementError(f"{name}:{e.lineno}: not JSON: {e.msg}") from None
    except RecursionError:
        raise PlacementError(f"{name}: not JSON we read: nested too deeply") from None
    except ValueError as e:  # an integer of more digits than Python converts
        raise PlacementError(f"{name}: not JSON we read: {e}") from None


def _string_map(doc, field, path, what):
    """doc[field] as {str: str}, or PlacementError naming the file, the field and the entry."""
    value = doc.get(field)
    if not isinstance(value, dict):
        raise PlacementError(f"{path}: field '{field}' must map {what} to device names")
    for key, device in value.items():
        if not isinstance(device, str):
            raise PlacementError(f"{path}: field '{field}': '{key}' maps to {json.dumps(device)[:40]}, "
                                 f"expected a device name (a string)")
    return value


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
    path = _source(path)
    if not isinstance(doc, dict):
        raise PlacementError(f"{path}: expected a JSON object")
    fmt = doc.get("format")
    if fmt == TORCH_MAP_FORMAT:
        return dict(_string_map(doc, "modules", path, "module paths"))
    if fmt == PLACEMENT_FORMAT:
        placement = _string_map(doc, "placement", path, "op names")
        if not isinstance(doc.get("modules"), dict):
            raise PlacementError(
                f"{path}: field 'modules' is missing: place the export with its .modules.json beside it "
                "(post_torch.export writes it), or convert with `post-cli export-placement --to torch`")
        dispatch = doc.get("dispatch", "ready")
        if dispatch not in ("ready", "critical-path"):
            raise PlacementError(f"{path}: field 'dispatch' is {json.dumps(dispatch)[:40]}, "
                                 "expected \"ready\" or \"critical-path\"")
        if dispatch == "critical-path":
            # The plan carries devices, not the order the search timed the placement in.
            warnings.warn(f"{path} was placed under critical-path dispatch; PyTorch runs the ops in program "
                          "order, so the step may differ from the file's step_time_us", stacklevel=2)
        modules = doc["modules"]
        for op, module in modules.items():
            if not isinstance(module, str):
                raise PlacementError(f"{path}: field 'modules': op '{op}' maps to {json.dumps(module)[:40]}, "
                                     "expected a module path (a string)")
        return modules_to_devices(placement, modules, path)
    raise PlacementError(f"{path}: field 'format' is {json.dumps(fmt)[:60]}, "
                         f"expected {PLACEMENT_FORMAT!r} or {TORCH_MAP_FORMAT!r}")


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


def _torch_device(name, value, source):
    """torch.device for device_map[name], refused (PlacementError) where this process cannot
    hold tensors there: an unknown device string, a CUDA device without CUDA or past the last."""
    try:
        device = torch.device(value)
    except (RuntimeError, TypeError, ValueError) as e:
        raise PlacementError(f"{source}: device_map['{name}'] = {value!r} is not a torch device: {e}") from None
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise PlacementError(f"{source}: device_map['{name}'] = '{device}': this torch has no CUDA device")
        if device.index is not None and device.index >= count:
            raise PlacementError(f"{source}: device_map['{name}'] = '{device}': this machine has CUDA devices "
                                 f"0 to {count - 1}")
        if device.index is None:  # "cuda" is the current device: compared with tensors' devices by index
            device = torch.device("cuda", torch.cuda.current_device())
    return device


def _parent(path):
    return path.rsplit(".", 1)[0] if "." in path else ""


def _paths(model):
    """[(path, module)] for every path of every module, parents first: a module shared by two
    parents (one object reachable as 'a.shared' and 'b.shared') is listed under each path, as the
    export's scopes and its .modules.json name it."""
    return list(model.named_modules(remove_duplicate=False))


def _qualified(path, name):
    return f"{path}.{name}" if path else name


def _owns_tensors(module):
    return any(True for _ in module.parameters(recurse=False)) or any(True for _ in module.buffers(recurse=False))


def _folded(model, plan):
    """{path: the planned module it was folded into}: a BatchNorm the placement does not name,
    defined right after a sibling it does (a Conv), is what an export with training=False folds
    into that sibling's node, so it runs where that sibling runs (not where its parent runs,
    which would send the convolution's output there and back)."""
    folded = {}
    for path, module in model.named_modules(remove_duplicate=False):
        before = None
        for name, child in module.named_children():
            child_path = _qualified(path, name)
            if (child_path not in plan and before is not None
                    and isinstance(child, torch.nn.modules.batchnorm._BatchNorm)):
                folded[child_path] = before
            before = child_path if child_path in plan and isinstance(child, torch.nn.modules.conv._ConvNd) else None
    return folded


def _resolve(model, plan, device_map, source):
    """resolve(), and {path: the Post Studio device it runs on, named or inherited}."""
    if not isinstance(device_map, dict):
        raise PlacementError(f"{source}: device_map must be a dict of Post Studio device names to torch devices")
    paths = _paths(model)
    named = dict(paths)
    missing = [module for module in plan if module not in named]
    if missing:
        below_root = [module for module in plan if module != ""]
        if not any(module in named for module in below_root):
            shown = ", ".join(f"'{m}'" for m in missing[:3]) + (", ..." if len(missing) > 3 else "")
            raise PlacementError(f"{source}: none of the placement's {len(below_root)} modules is in the model "
                                 f"({type(model).__name__}): {shown}; is it a placement of another model?")
        raise PlacementError(f"{source}: module '{missing[0]}' is not in the model ({type(model).__name__})")
    for module, device in plan.items():
        if device not in device_map:
            raise PlacementError(
                f"{source}: device '{device}' (of module '{module}') is not in device_map "
                f"(which maps {', '.join(sorted(map(str, device_map))) or 'nothing'})")
    if not plan:
        raise PlacementError(f"{source}: the placement names no module of the model")
    used = set(plan.values())
    torch_devices = {name: _torch_device(name, d, source) for name, d in device_map.items() if name in used}
    labels = {"": plan.get("", next(iter(plan.values())))}
    folded = _folded(model, plan)
    for path, _ in paths:
        if path != "":
            labels[path] = plan[path] if path in plan else plan[folded[path]] if path in folded \
                else labels[_parent(path)]
    homes = {path: torch_devices[label] for path, label in labels.items()}

    def where(path):
        how = "" if path in plan else f", with '{folded[path]}'" if path in folded else ", from its parent"
        return f"'{labels[path]}' ({homes[path]}{how})"

    by_module = {}
    for path, module in paths:
        by_module.setdefault(id(module), (module, []))[1].append(path)
    for module, ps in by_module.values():
        other = next((p for p in ps if homes[p] != homes[ps[0]]), None)
        if other is not None:
            raise PlacementError(
                f"{source}: module '{ps[0]}' is also '{other}' (one module reachable by two paths) and would run on "
                f"{where(ps[0])} as '{ps[0]}' and on {where(other)} as '{other}'; its parameters live on one device: "
                "place both paths on one device")
    owning = [(module, ps) for module, ps in by_module.values() if _owns_tensors(module)]
    # nn.MultiheadAttention passes its out_proj's weight to a function instead of calling it, so
    # out_proj has no op of its own in any export and is never in a placement (ViT, BERT).
    modules_at = dict(paths)
    functional = {p for p, _ in paths
                  if p and isinstance(modules_at.get(_parent(p)), torch.nn.MultiheadAttention)}
    uncovered = [ps[0] for _, ps in owning if not any(p in plan or p in functional or p in folded for p in ps)]
    if uncovered:
        shown = ", ".join(f"'{p}'" for p in uncovered[:5]) + (", ..." if len(uncovered) > 5 else "")
        warnings.warn(PlacementWarning(
            f"{source}: {len(uncovered)} of the {len(owning)} modules with parameters or buffers of the model "
            f"({type(model).__name__}) are not in the placement and run where their parent runs: {shown}; "
            "a placement of another model?"), stacklevel=3)
    return homes, labels


def resolve(model, plan, device_map, source="placement"):
    """{module path: torch.device} for every path of every module of `model` (a module shared by
    two parents under each of its paths).

    A module the plan names runs on its mapped device; a module it does not name (a container,
    or a module whose ops the export folded into another's) runs where its parent runs; the
    root, when unnamed, runs where the first named module runs. Raises PlacementError, naming
    `source`, for a module path the model lacks, a device the map lacks, a mapped device this
    process cannot use, or a module reachable by two paths that would run on two devices. Warns
    (PlacementWarning) when modules that own parameters or buffers are not in the plan. Changes
    nothing.
    """
    return _resolve(model, plan, device_map, source)[0]


def _stage(model, homes, labels, owners, source):
    """Every parameter and buffer of `model` copied to its module's device, before the model is
    touched: [(module, path, device, label, back, {name: Parameter}, {name: tensor})], one entry per
    module (a module reachable by two paths once), where `back` is the device its output goes
    back to (its parent's, when the parent has ops of its own) or None. A tensor held by two
    modules (tied weights) is copied once and both get the copy; held by modules on two devices it
    is refused. A copy that fails (a device this torch lacks, out of memory) raises PlacementError
    with the model unchanged."""
    paths = _paths(model)
    backs = {}
    for path, module in paths:
        parent = _parent(path)
        if path == "" or parent not in owners:
            continue
        first = backs.setdefault(id(module), (homes[parent], path))
        if first[0] != homes[parent]:
            raise PlacementError(
                f"{source}: module '{first[1]}' is also '{path}' (one module reachable by two paths), and its "
                f"parents '{_parent(first[1])}' and '{parent}', which have ops of their own, run on "
                f"'{labels[_parent(first[1])]}' ({first[0]}) and '{labels[parent]}' ({homes[parent]}): its output "
                "cannot go back to both; place both parents on one device")
    staged, seen, moved = [], set(), {}  # moved: id(tensor) -> (tensor on its device, device, path, name)
    for path, module in paths:
        if id(module) in seen:
            continue
        seen.add(id(module))
        device = homes[path]
        params, buffers = {}, {}
        try:
            for is_param, tensors, out in ((True, module._parameters, params), (False, module._buffers, buffers)):
                for name, t in tensors.items():
                    if t is None:
                        continue
                    prior = moved.get(id(t))
                    if prior is not None:
                        copy, at, owner, owner_name = prior
                        if at != device:
                            what = "parameter" if is_param else "buffer"
                            raise PlacementError(
                                f"{source}: {what} '{_qualified(owner, owner_name)}' is also "
                                f"'{_qualified(path, name)}' (tied weights), but module '{owner}' runs on "
                                f"'{labels[owner]}' ({at}) and module '{path}' on '{labels[path]}' ({device}); "
                                f"a shared {what} lives on one device: place both modules on one device")
                        if copy is not t:
                            out[name] = copy
                        continue
                    copy = t
                    if t.device != device:
                        copy = (torch.nn.Parameter(t.data.to(device), requires_grad=t.requires_grad) if is_param
                                else t.to(device))
                        out[name] = copy
                    moved[id(t)] = (copy, device, path, name)
        except PlacementError:
            raise
        except Exception as e:  # noqa: BLE001 - torch raises RuntimeError, AssertionError, NotImplementedError...
            where = f"module '{path}'" if path else "the root module"
            raise PlacementError(f"{source}: cannot move {where} to '{device}': "
                                 f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
        back = backs.get(id(module), (None,))[0]
        staged.append((module, path, device, labels[path], back, params, buffers))
    return staged


_HOOKS = "_post_torch_hooks"  # a module's hook handles from the last apply, removed by the next
_ROUTING = "_post_torch_routing"  # a routed forward's attribute: its _Routing (what transfers() reads)

# Tensor methods and properties that read a tensor without computing on it: they run where the
# tensor is, and explicit moves (.to, .cuda, .cpu) are the caller's.
_READS = frozenset({
    "__get__", "__set__", "__delete__", "dim", "size", "numel", "nelement", "stride", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "data_ptr", "storage_offset", "get_device",
    "__len__", "__repr__", "__format__", "__str__", "__bool__", "__int__", "__float__", "__index__", "__hash__",
    "__reduce_ex__", "__deepcopy__", "__iter__", "__contains__", "to", "cuda", "cpu", "type", "tolist", "item",
    "numpy", "register_hook", "backward", "retain_grad", "requires_grad_"})
# Python rebinds the target of an augmented assignment (`out += identity`) to what the method
# returns, so its left operand may be moved: the result is the moved copy, updated.
_AUGMENTED = frozenset({
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__imatmul__",
    "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"})


_COMPUTE, _READ, _IN_PLACE = 0, 1, 2
_KINDS = {}  # torch function -> _COMPUTE, _READ or _IN_PLACE (an in-place op its caller may not rebind)


def _kind(name):
    if name in _READS:
        return _READ
    if name in _AUGMENTED:
        return _COMPUTE
    return _IN_PLACE if name == "__setitem__" or (name.endswith("_") and not name.endswith("__")) else _COMPUTE


_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep  # not torchvision, beside it
_AUGMENTED_AT = {}  # code object -> offsets of its augmented assignments


def _rebinds(frame):
    """Whether the Python code that called a torch operation (the first frame outside torch and
    this file) is an augmented assignment (`out += x`, which PyTorch runs as `out.add_(x)`):
    Python then rebinds `out` to the result, so the tensor may be moved first."""
    while frame is not None and (frame.f_code.co_filename.startswith(_TORCH_DIR)
                                 or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    if frame is None:
        return False
    code = frame.f_code
    offsets = _AUGMENTED_AT.get(code)
    if offsets is None:
        offsets = frozenset(i.offset for i in dis.get_instructions(code)
                            if i.opname.startswith("INPLACE_")  # Python 3.10 and earlier
                            or (i.opname == "BINARY_OP" and i.argrepr.endswith("=")))
        _AUGMENTED_AT[code] = offsets
    return frame.f_lasti in offsets


_HOLDERS = (torch.Tensor, tuple, list, dict)


def _version(t):
    """The tensor's version counter, which each in-place change raises; None for a tensor made
    under torch.inference_mode(), which keeps none (forget() covers its in-place changes)."""
    return None if t.is_inference() else t._version


class _Routing:
    """What a routed forward needs: each module's (label, torch device, is a torch.nn leaf), the
    modules being run, the tensors this forward made (by label), the copies already sent, and
    the transfers made (the last forward's, kept for transfers())."""

    def __init__(self, where):
        self.where = where  # id(module) -> (label, device, torch_nn_leaf)
        self.stack, self.made, self.sent, self.log = [], {}, {}, []
        self.active = False

    def begin(self, root):
        self.stack, self.made, self.sent, self.log = [self.where[id(root)]], {}, {}, []
        self.active = True

    def end(self):
        self.stack, self.made, self.sent = [], {}, {}
        self.active = False

    def label_of(self, t):
        hit = self.made.get(id(t))
        return hit[1] if hit is not None and hit[0]() is t else None

    def tag(self, value, label, device):
        if isinstance(value, torch.Tensor):
            if value.device == device:
                self.made[id(value)] = (weakref.ref(value), label)
        elif isinstance(value, (tuple, list)):
            for v in value:
                self.tag(v, label, device)

    def send(self, t, label, device):
        """`t` where an op on `label` reads it: itself where it is there, else one copy per
        tensor and destination for the whole forward, as the simulator sends it (docs/simulator.md,
        "Transfers"); sent again where `t` was changed in place since (its version counter, or an
        in-place operation of the forward on it: forget())."""
        source = self.label_of(t)
        if source == label or (source is None and t.device == device):
            return t
        entry = self.sent.get(id(t))
        if entry is None or entry[0]() is not t or entry[1] != _version(t):  # new, or changed in place
            entry = self.sent[id(t)] = (weakref.ref(t), _version(t), {})
        copy = entry[2][label]() if label in entry[2] else None
        if copy is not None:
            return copy
        copy = t.to(device)
        entry[2][label] = weakref.ref(copy)
        if copy is not t:
            self.tag(copy, label, device)
        self.log.append((source, label, t.numel() * t.element_size()))
        return copy

    def forget(self, t):
        """`t` was changed in place: the copies sent of it are stale."""
        if isinstance(t, torch.Tensor):
            self.sent.pop(id(t), None)

    def route(self, value, label, device):
        if isinstance(value, torch.Tensor):
            return self.send(value, label, device)
        if isinstance(value, (tuple, list)):
            if not any(isinstance(v, _HOLDERS) for v in value) or hasattr(value, "_fields"):
                return value  # no tensor in it (a stride, a shape), or a named tuple: kept as it is
            routed = [self.send(v, label, device) if isinstance(v, torch.Tensor) else self.route(v, label, device)
                      for v in value]
            return routed if isinstance(value, list) else tuple(routed)
        if isinstance(value, dict):
            return {k: self.route(v, label, device) for k, v in value.items()} if value else value
        return value


class _Router(torch.overrides.TorchFunctionMode):
    """Runs every torch operation of a routed forward on the device of the module whose code
    calls it, each tensor input sent there straight from where it was made. An in-place
    operation whose result the caller might not rebind (`x.add_(y)` as a statement, `x[i] = y`)
    runs where its tensor is instead; one in an augmented assignment or in a torch.nn leaf
    module (ReLU(inplace=True)) returns the updated tensor to its caller and is moved."""

    def __init__(self, routing):
        super().__init__()
        self.routing = routing

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        routing = self.routing
        kind = _KINDS.get(func)
        if kind is None:
            kind = _KINDS[func] = _kind(getattr(func, "__name__", ""))
        if kind == _READ or not routing.stack:
            return func(*args, **kwargs)
        label, device, leaf = routing.stack[-1]
        out = kwargs.get("out")
        held = out if isinstance(out, torch.Tensor) else None
        if (held is None and kind == _IN_PLACE and not leaf and args and isinstance(args[0], torch.Tensor)
                and not _rebinds(sys._getframe(1))):
            held = args[0]
        if held is not None:
            label = routing.label_of(held) or (label if held.device == device else None)
            device = held.device
        if label is None:  # written in place into a tensor this forward did not make, elsewhere
            return func(*_move(args, device), **_move(kwargs, device))
        if kwargs:
            kwargs = routing.route(kwargs, label, device)
        args = routing.route(args, label, device)
        result = func(*args, **kwargs)
        routing.tag(result, label, device)
        if kind == _IN_PLACE or held is not None:  # what it changed: its copies elsewhere are stale
            routing.forget(kwargs.get("out") if held is not None and held is out else args[0] if args else None)
        return result


def _routed_forward(model, original, routing):
    def forward(*args, **kwargs):
        if routing.active:  # the model called inside its own forward: one routing for both
            return original(*args, **kwargs)
        routing.begin(model)
        try:
            with _Router(routing):
                return original(*args, **kwargs)
        finally:
            routing.end()
    forward.__wrapped__ = original
    forward.__dict__[_ROUTING] = routing
    return forward


def _unroute(model):
    forward = model.__dict__.get("forward")
    if forward is not None and _ROUTING in getattr(forward, "__dict__", {}):
        del model.__dict__["forward"]


def transfers(model):
    """The transfers the model's last forward made, after post_torch.apply: a list of
    (from, to, bytes), from and to the placement's device names, `from` None for a tensor the
    forward did not make (its inputs, parameters). One per tensor and destination, as the
    simulator times them (docs/pytorch.md, "Where each op runs"). Empty before the first forward;
    raises PlacementError on a model apply did not route."""
    forward = model.__dict__.get("forward")
    routing = getattr(forward, "__dict__", {}).get(_ROUTING)
    if routing is None:
        raise PlacementError(f"{type(model).__name__}: not placed by post_torch.apply")
    return list(routing.log)


def _commit(model, staged):
    """Puts the staged tensors in place, the hooks on and the root's forward routed, replacing an
    earlier apply's; on any exception (an interrupt) it restores every parameter and buffer and
    removes the new hooks."""
    undo, new_hooks = [], []
    where = {id(module): (label, device, type(module).__module__.startswith("torch.nn.")
                          and next(iter(module.children()), None) is None)
             for module, _path, device, label, _back, _params, _buffers in staged}
    routing = _Routing(where)

    def enter(module, args, device):
        if routing.active:
            routing.stack.append(where[id(module)])
            return None
        return _move(args, device)  # called on its own, outside the model's forward

    def leave(module, out, back):
        if routing.active:
            if len(routing.stack) > 1:
                routing.stack.pop()
            return None
        return _move(out, back) if back is not None else None

    try:
        for module, _path, device, _label, back, params, buffers in staged:
            for name, param in params.items():
                undo.append((module, name, module._parameters[name], True))
                setattr(module, name, param)
            for name, buf in buffers.items():
                undo.append((module, name, module._buffers[name], False))
                module._buffers[name] = buf
            hooks = []
            new_hooks.append((module, hooks))
            if module is model:
                continue  # the root's forward is routed: no hook moves its inputs or outputs
            hooks.append(module.register_forward_pre_hook(lambda m, args, device=device: enter(m, args, device)))
            hooks.append(module.register_forward_hook(lambda m, _args, out, back=back: leave(m, out, back)))
    except BaseException:
        for _, hooks in new_hooks:
            for handle in hooks:
                handle.remove()
        for module, name, value, is_param in reversed(undo):
            (module._parameters if is_param else module._buffers)[name] = value
        raise
    for module, hooks in new_hooks:
        for handle in module.__dict__.get(_HOOKS, []):
            handle.remove()
        module.__dict__[_HOOKS] = hooks
    _unroute(model)
    model.forward = _routed_forward(model, model.forward, routing)


def apply(model, placement_path, device_map):
    """Moves every module of `model` to the device a Post Studio placement gives it.

    `placement_path`: a post-placement/1 file with module paths, or a post-torch-map/1 file.
    `device_map`: Post Studio device names to torch devices, e.g. {"/device:GPU:1": "cuda:1"}.
    Each module's own parameters and buffers move to its device, and the model's forward is
    routed: every torch operation runs on the device of the module whose code calls it, its
    tensor inputs sent there straight from where they were made, once per tensor and device,
    as post-cli's simulator times the placement (transfers(model) lists them). An in-place
    operation a caller might rely on (`y.add_(1)` as a statement) runs where its tensor is.
    A module called on its own, outside the model's forward, moves its inputs to its device.
    Returns the model.

    All or nothing: every check and every copy to a device is done before the model changes, so
    when apply raises (always PlacementError, naming the file) the model is as it was. Until
    then the moved copies and the originals both exist. A later apply replaces this one's hooks
    and routing.
    """
    source = _source(placement_path)
    plan = load_plan(source)
    homes, labels = _resolve(model, plan, device_map, source)
    staged = _stage(model, homes, labels, set(plan), source)
    _commit(model, staged)
    return model
