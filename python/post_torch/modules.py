"""Which module of an nn.Module produced each node of its ONNX export.

PyTorch (1.13 and later) names the nodes of an export by the module scopes they ran in:
``/layer1/layer1.0/conv1/Conv`` is the Conv of module ``layer1.0.conv1``. Each scope is
the module's *unqualified* name (the qualified name from its last non-numeric atom on:
``layer1.0`` for ``layer1.0``, ``downsample.0`` for ``layer2.0.downsample.0``), and a module
called a second time in one forward gets a ``_N`` suffix (``relu_1``). This module walks the
model's tree along those scopes, so the mapping is exact for every node that carries a
scope; nodes without one (``Identity_3``, ``Constant_12``) and nodes of functional code in
the top-level ``forward`` belong to the root module, whose path is ``""``.
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


def _child_for_scope(module, path, scope):
    exact, repeated = None, None
    stem = _REPEAT.match(scope)
    for name, child in module.named_children():
        qualified = f"{path}.{name}" if path else name
        unq = unqualified_name(qualified)
        if unq == scope:
            exact = (qualified, child)
            break
        if stem and unq == stem.group(1) and repeated is None:
            repeated = (qualified, child)
    return exact or repeated


def module_of_node(model, node_name):
    """The qualified path of the module that produced ONNX node `node_name` ("" for the root)."""
    if not node_name.startswith("/"):
        return ""
    scopes = node_name.split("/")[1:-1]  # drop the leading "" and the op part
    module, path = model, ""
    for scope in scopes:
        found = _child_for_scope(module, path, scope)
        if found is None:
            break  # a scope that is no child module (functional code): stay at the parent
        path, module = found
    return path


def module_map(model, onnx_node_names):
    """{onnx node name: module path} for every node."""
    return {name: module_of_node(model, name) for name in onnx_node_names}
