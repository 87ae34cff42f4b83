"""Measured CPU times of the ONNX nodes of an export, with torch.profiler.

Each module's forward runs inside a ``record_function("module::PATH")`` range, so every
top-level operator the profiler records (``aten::conv2d``, ``aten::batch_norm``, ...) is known
to belong to one module. Within a module, its own ONNX nodes (in graph order) and its own
operators (in execution order) are aligned by operator kind (`ATEN_OF_ONNX` below): the
longest common subsequence in which a node and an operator match when the node's kind lists
the operator; an operator left out (views, copies, ``aten::empty``) adds its time to the node
matched before it; a node that no operator matches is reported as unmatched and keeps its
estimated time. The result is the
post-costs/1 document that ``post-cli --costs`` reads (docs/pytorch.md).
"""

import json
import os
import time

import torch
from torch.autograd import profiler as autograd_profiler

COSTS_FORMAT = "post-costs/1"
SCOPE_PREFIX = "module::"

# ONNX op type -> the aten operators it is exported from (top level, as the profiler sees
# them). One table for this module and post-cli's --costs, which compiles the same file in.
with open(os.path.join(os.path.dirname(__file__), "aten_of_onnx.json"), encoding="utf-8") as _f:
    ATEN_OF_ONNX = {k: set(v) for k, v in json.load(_f)["table"].items()}


def _own_operators(events):
    """{module path: [(aten name, cpu time us)]}: top-level operators directly inside each
    module's range, in the order they ran."""
    by_module = {}
    for event in events:
        parent = event.cpu_parent
        if parent is None or not parent.name.startswith(SCOPE_PREFIX):
            continue
        if event.name.startswith(SCOPE_PREFIX):
            continue
        module = parent.name[len(SCOPE_PREFIX):]
        by_module.setdefault(module, []).append((event.name, event.time_range.start, event.cpu_time_total))
    return {m: [(n, us) for n, _, us in sorted(ops, key=lambda o: o[1])] for m, ops in by_module.items()}


def _match_module(nodes, operators):
    """Matches one module's nodes [(name, op_type)] with its operators [(aten, us)]: the longest
    common subsequence, where an operator and a node match when the node's kind lists the
    operator; an operator left out adds its time to the node matched before it (post-cli's
    --costs aligns a whole trace the same way). Returns ({node: us}, [unmatched node names])."""
    candidates = [(name, kind) for name, kind in nodes if kind in ATEN_OF_ONNX]
    n, m = len(operators), len(candidates)
    length = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            match = length[i + 1][j + 1] + 1 if operators[i][0] in ATEN_OF_ONNX[candidates[j][1]] else 0
            length[i][j] = max(match, length[i + 1][j], length[i][j + 1])
    times, last, i, j, linear = {}, None, 0, 0, []
    while i < n:
        matched = j < m and operators[i][0] in ATEN_OF_ONNX[candidates[j][1]] and \
            length[i][j] == length[i + 1][j + 1] + 1
        if matched:
            last = candidates[j][0]
            times[last] = times.get(last, 0.0) + operators[i][1]
            if operators[i][0] == "aten::linear":
                linear.append(last)
            i, j = i + 1, j + 1
        elif j >= m or length[i + 1][j] >= length[i][j + 1]:
            if last is not None:
                times[last] += operators[i][1]
            i += 1
        else:
            j += 1
    missed = [name for name, _ in nodes if name not in times]
    # A Linear on a 3-D input exports as Transpose (of the weight), MatMul and Add (the bias),
    # while PyTorch runs one aten::linear, matched to the MatMul: the other two are part of its
    # time, not ops left unmeasured (which would keep an estimate and count the bias twice).
    kinds = dict(nodes)
    if len(linear) == 1 and missed and all(kinds[name] in _PARTS_OF_LINEAR for name in missed):
        times.update({name: 0.0 for name in missed})
        missed = []
    return times, missed


_PARTS_OF_LINEAR = frozenset({"Transpose", "Add"})


def _scoped(model):
    """Wraps each module's forward in a record_function range named after its path. A module
    reachable by two paths (shared by two parents) is named by the path of the module it is
    called from, as the export's scopes name it ('a.shared' from 'a', 'b.shared' from 'b')."""
    handles, stack, paths = [], [], {}
    for path, module in model.named_modules(remove_duplicate=False):
        paths.setdefault(id(module), {}).setdefault(path.rsplit(".", 1)[0] if "." in path else "", path)

    def enter(m, _args):
        by_parent = paths[id(m)]
        caller = stack[-1][0] if stack else None
        path = by_parent.get(caller, next(iter(by_parent.values())))
        r = autograd_profiler.record_function(SCOPE_PREFIX + path)
        r.__enter__()
        stack.append((path, r))

    def leave(_m, _args, _out):
        stack.pop()[1].__exit__(None, None, None)

    for module in {id(m): m for _, m in model.named_modules(remove_duplicate=False)}.values():
        handles.append(module.register_forward_pre_hook(enter))
        handles.append(module.register_forward_hook(leave))
    return handles


def measure(model, example_inputs, nodes, modules, repeats=3):
    """post-costs/1 for ONNX `nodes` [(name, op_type)] with their `modules` {name: path}: each
    node's fastest time over `repeats` profiled forward passes (after one warm-up) on the CPU,
    over the passes that matched it. The minimum, not the mean or the median: on a loaded
    machine other processes only ever add time, and ResNet-18's per-op times varied up to 7x
    between profiles as means of 3 passes, 5x as medians, 2.3x as minimums (90th percentile
    over 8 profiles, docs/pytorch.md). Records the inputs' shapes as "x-inputs" (post-cli
    ignores x- keys)."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"profile_runs must be a whole number >= 1, got {repeats!r}")
    args = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    handles = _scoped(model)
    runs, unmatched = {}, set()
    try:
        with torch.no_grad():
            model(*args)  # warm-up: first-call allocations are not the operator's cost
            for _ in range(repeats):
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                    model(*args)
                operators = _own_operators(prof.events())
                unmatched = set()
                for module in {modules[name] for name, _ in nodes}:
                    own = [(n, t) for n, t in nodes if modules[n] == module]
                    times, missed = _match_module(own, operators.get(module, []))
                    unmatched.update(missed)
                    for name, us in times.items():
                        runs.setdefault(name, []).append(us)
    finally:
        for handle in handles:
            handle.remove()
    ops = {name: min(runs[name]) for name, _ in nodes if name in runs}
    return {
        "format": COSTS_FORMAT,
        "device": "cpu",
        "measured_by": f"torch.profiler (PyTorch {torch.__version__}), fastest of {repeats} forward passes",
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "forward_us": ops,
        "unmatched": [name for name, _ in nodes if name in unmatched and name not in ops],
        "x-inputs": [list(a.shape) if isinstance(a, torch.Tensor) else None for a in args],
    }
