#!/usr/bin/python3
"""Writes small ONNX models into OUT (argv[1]) as extra seeds for fuzz_onnx: one per branch of
the importer that tests/data/onnx/*.onnx do not reach (every op the constant folder folds,
opset-9 attribute forms, raw/typed integer data, optional inputs, a subgraph). Seeds only:
they are built under build/ by scripts/fuzz-seeds, never committed. Needs Debian's python3-onnx."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
vi = helper.make_tensor_value_info
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def c(name, values, dtype=np.int64, **kw):
    if kw:
        return helper.make_node("Constant", [], [name], name=name, **kw)
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.array(values, dtype=dtype), name + "_v"))


def n(op, ins, outs, **kw):
    return helper.make_node(op, ins, outs, name=outs[0], **kw)


def save(name, nodes, inputs, outputs, opset=13, inits=()):
    model = helper.make_model(helper.make_graph(nodes, name, inputs, outputs, list(inits)),
                              opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


x4 = vi("x", F, ["N", 3, 8, 8])
save("shape_chain", [
    n("Shape", ["x"], ["s"]), c("st", [1]), c("en", [100]), c("ax", [0]), c("sp", [1]),
    n("Slice", ["s", "st", "en", "ax", "sp"], ["hw"]), c("m1", [-1]), c("z", [0]), c("mx", [-100]),
    n("Slice", ["s", "m1", "mx", "z", "m1"], ["rev"]),
    n("Cast", ["hw"], ["hw32"], to=TensorProto.INT32), n("Cast", ["hw32"], ["hw64"], to=TensorProto.INT64),
    n("Size", ["x"], ["sz"]), n("Unsqueeze", ["sz", "ax"], ["sz1"]), n("Squeeze", ["sz1", "ax"], ["sz0"]),
    c("z0", 0), n("Gather", ["s", "z0"], ["b0"], axis=0), n("Unsqueeze", ["b0", "ax"], ["b1"]),
    n("Concat", ["b1", "m1"], ["flat"], axis=0), n("Reshape", ["x", "flat"], ["y"]),
    n("Shape", ["x"], ["s2"], start=1, end=-1),
], [x4], [vi("y", F, None)], opset=15)  # Shape's start/end: opset 15

save("arithmetic", [
    n("Shape", ["x"], ["s"]), c("two", 2, value_int=2), c("twos", None, value_ints=[2, 2, 2, 2]),
    n("Mul", ["s", "twos"], ["m"]), n("Div", ["m", "twos"], ["d"]), n("Sub", ["d", "twos"], ["sb"]),
    n("Add", ["sb", "twos"], ["a"]), n("Equal", ["a", "s"], ["eq"]), n("Where", ["eq", "a", "twos"], ["w"]),
    c("two1", [2]), c("zero", 0), c("four", 4), c("one", 1),
    n("ConstantOfShape", ["two1"], ["ones"], value=numpy_helper.from_array(np.array([1], dtype=np.int64))),
    n("Range", ["zero", "four", "one"], ["r"]), c("f", None, value_float=0.5), c("fs", None, value_floats=[1.0, 2.0]),
    n("Expand", ["x", "w"], ["y"]),
], [x4], [vi("y", F, None)])

save("opset9", [
    n("Shape", ["x"], ["s"]), n("Slice", ["s"], ["hw"], starts=[2], ends=[4], axes=[0]),
    n("Unsqueeze", ["hw"], ["u"], axes=[0]), n("Squeeze", ["u"], ["q"], axes=[0]),
    n("Concat", ["q", "q"], ["qq"], axis=0), n("Relu", ["x"], ["y"]),
], [x4], [vi("y", F, None)], opset=9)

ints = [numpy_helper.from_array(np.array([1, 2, 3], dtype=t), "i_" + np.dtype(t).name)
        for t in (np.int32, np.uint8, np.int8, np.int16, np.uint16, np.uint32, np.uint64, np.bool_)]
typed = helper.make_tensor("typed", TensorProto.INT32, [2], [4, 5])
ext = helper.make_tensor("ext", TensorProto.INT64, [1], [0])
ext.data_location = TensorProto.EXTERNAL
ext.ClearField("int64_data")
ext.external_data.add(key="location", value="w.bin")
save("layers", [
    n("Conv", ["x", "W", ""], ["c"], pads=[1, 1, 1, 1], strides=[2, 2], group=1),
    n("ConvTranspose", ["c", "Wt"], ["ct"], strides=[2, 2]),
    n("AveragePool", ["ct"], ["p"], kernel_shape=[2, 2]), n("GlobalAveragePool", ["p"], ["g"]),
    n("Flatten", ["g"], ["fl"]), n("Gemm", ["fl", "G"], ["gm"], transB=1),
    n("MatMul", ["gm", "M"], ["mm"]), n("Softmax", ["mm"], ["y"], axis=-1),
    n("Identity", ["typed"], ["tid"]),
], [x4], [vi("y", F, ["N", 4])], inits=[
    numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "W"),
    numpy_helper.from_array(np.ones((4, 2, 2, 2), np.float32), "Wt"),
    numpy_helper.from_array(np.ones((5, 2), np.float32), "G"),
    numpy_helper.from_array(np.ones((5, 4), np.float32), "M"), typed] + ints)
save("external", [n("Relu", ["ext"], ["y"])], [], [vi("y", I64, None)], inits=[ext])

then_g = helper.make_graph([n("Relu", ["x"], ["t"])], "then", [], [vi("t", F, None)])
else_g = helper.make_graph([n("Sigmoid", ["x"], ["e"])], "else", [], [vi("e", F, None)])
save("subgraph", [c("cond", True, np.bool_), n("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g)],
     [x4], [vi("y", F, None)])
