"""Which module of an nn.Module produced each node of its ONNX export.

PyTorch (1.13 and later) names the nodes of an export by the module scopes they ran in:
``/layer1/layer1.0/conv1/Conv`` is the Conv of module ``layer1.0.conv1``. Each scope is
the module's *unqualified* name (the qualified name from its last non-numeric atom on:
``layer1.0`` for ``layer1.0``, ``downsample.0`` for ``layer2.0.downsample.0``), and a module
called a second time in one forward gets a ``_N`` suffix (``relu_1``). This module walks the
model's tree along those scopes, so the mapping is exact for every node that carries a
scope; nodes without one (``Identity_3``, ``Constant_12``) and nodes of functional code in
the top-level ``forward`` belong to the root module, whose path is ``""``. A ModuleList or
ModuleDict is never called, so it has no scope: its children's scopes come right under its
parent's (``/blocks.0/fc/Gemm`` is module ``blocks.0.fc``). A module reachable by
two paths (shared by two parents) is named in its scopes by its first path, under either
parent; its node gets the path of the parent it was called from.
"""

import re

_REPEAT = re.compile(r"^(.*)_([0-9]+)$")


def unqualified_name(qualified):
    """PyTorch's scope name of a module: its qualified name from the last non-numeric atom."""
    atoms = qualified.split(".")
    for i in range(len(atoms) - 1, -1, -1):
        if not atoms[i].isnumeric():
            return ".".join(atoms[i:])
    return qualified


def scope_names(model):
    """{id(module): the name PyTorch's exporter gives its scope}: the unqualified name of the
    module's first path in ``named_modules()``. A module reachable by two paths (one Linear held
    by Sequentials ``a`` and ``b`` as ``a.1`` and ``b.1``) keeps that name under both parents:
    its nodes are ``/a/a.1/Gemm`` and ``/b/a.1/Gemm``."""
    return {id(m): unqualified_name(p) for p, m in model.named_modules() if p}


def _children(module, path):
    """(qualified path, module) of each child, and of the children of each child that is a
    ModuleList or ModuleDict: those are never called, so they have no scope of their own, and
    their children's scopes come right under the parent (``/blocks.0/attn/...`` for
    ``blocks.0`` of a ModuleList ``blocks``, as MViT and most transformers hold their layers)."""
    import torch

    for name, child in module.named_children():
        qualified = f"{path}.{name}" if path else name
        yield qualified, child
        if isinstance(child, (torch.nn.ModuleList, torch.nn.ModuleDict)):
            yield from _children(child, qualified)


def _child_for_scope(module, path, scope, names):
    stem = _REPEAT.match(scope)
    children = list(_children(module, path))
    # A child's own unqualified name first, then the one its scope has when it is shared.
    keys = [lambda q, c: unqualified_name(q), lambda q, c: names.get(id(c))]
    for key in keys:
        for qualified, child in children:
            if key(qualified, child) == scope:
                return qualified, child
    if stem:
        for key in keys:
            for qualified, child in children:
                if key(qualified, child) == stem.group(1):
                    return qualified, child
    return None


def module_of_node(model, node_name, names=None):
    """The qualified path of the module that produced ONNX node `node_name` ("" for the root).

    A module reachable by two paths is given the path it was called by (``b.1`` for
    ``/b/a.1/Gemm``). `names`: scope_names(model), when the caller has it already."""
    if not node_name.startswith("/"):
        return ""
    if names is None:
        names = scope_names(model)
    scopes = node_name.split("/")[1:-1]  # drop the leading "" and the op part
    module, path = model, ""
    for scope in scopes:
        found = _child_for_scope(module, path, scope, names)
        if found is None:
            break  # a scope that is no child module (functional code): stay at the parent
        path, module = found
    return path


def module_map(model, onnx_node_names):
    """{onnx node name: module path} for every node."""
    names = scope_names(model)
    return {name: module_of_node(model, name, names) for name in onnx_node_names}
