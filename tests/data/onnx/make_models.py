#!/usr/bin/python3
"""Writes the tiny ONNX models that tests/core/test_onnx_reader.cpp reads.

Run with Debian's python3-onnx (`/usr/bin/python3 tests/data/onnx/make_models.py`); the
outputs are committed, so the tests need no Python. Weights come from a fixed seed, so
re-running gives identical files.

  cnn.onnx          conv/bn/relu/pool/conv/relu/global-pool, a PyTorch-style flatten
                    (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), gemm; batch "N"
  transformer.onnx  one pre-norm transformer block: layernorm, matmul attention with two
                    heads (reshapes from a Shape chain), softmax, erf-gelu feed-forward,
                    residual adds; batch "batch", sequence 8, hidden 16
  bad_opset.onnx    a valid graph that claims ai.onnx opset 99
  no_graph.onnx     a ModelProto with an opset but no graph
  bad_shapes.onnx   MatMul of [2, 3] x [4, 5]: shape inference must fail at node 1 'mm'
  undefined_input.onnx  node 0 'add' reads a tensor nothing defines
  custom_op.onnx    an op of a custom domain (no schema, no inferred shape), an unnamed
                    node, and a graph output without a declared shape
  external_data.onnx  a MatMul whose [16, 8] weight lives in an external file that does not
                    exist (never read: sizes come from the dims)
  short_raw_data.onnx  Range whose int64 delta Constant (node 3 'delta') holds 1 byte of
                    raw data, after a custom-domain op (which makes ONNX's inference errors
                    non-fatal): libonnx 1.12 writes through a null pointer reading it
                    (its Python infer_shapes crashes on this file)
  short_weight.onnx a [2, 3] float weight initializer 'w' with 5 values in float_data
  modern_opset21.onnx  IR 10 / opset 21: ReduceMean with axes as an input, Split
                    num_outputs, Resize antialias, Pad, Gelu (new in opset 20), Cast saturate
  unsorted.onnx     a MatMul -> Add -> Relu chain written in reverse order
  cycle.onnx        the same with Add and Relu reading each other's outputs
  symbolic_dims.onnx  a Conv over images ["batch", 3, "height", "width"]
  quantized.onnx    QuantizeLinear, QLinearConv, ConvInteger, DequantizeLinear, a float
                    Constant weight, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul
  unknown_new_op.onnx  CenterCropPad (opset 21), which nobody infers, before a Relu
  control_flow.onnx If on an input, If on a constant, Loop x 5, Scan over 7 steps
  tensor_types.onnx initializers of every data type, stored in their typed field and as raw
                    bytes, a sparse initializer and a sparse Constant: all fit their dims
  data_sizes.onnx   sizes that depend on the data: x [16] > 0 -> NonZero -> the rows of a
                    [16, 64] input it picks -> MatMul by [64, 32]; a NonMaxSuppression of 10
                    boxes in one class keeping at most 5
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(5)


def weight(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)


def const(name, values, dtype=np.int64):
    """A Constant node producing `values` as a tensor named `name`."""
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.array(values, dtype=dtype), name + "_value"))


def save(model, name, check=True):
    if check:
        onnx.checker.check_model(model)
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    onnx.save(model, os.path.join(HERE, name))


def cnn():
    nodes = [
        helper.make_node("Conv", ["x", "conv1.W", "conv1.B"], ["c1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn1.scale", "bn1.B", "bn1.mean", "bn1.var"], ["b1"],
                         name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        # No kernel_shape (it is optional): the importer takes it from the weight.
        helper.make_node("Conv", ["p1", "conv2.W"], ["c2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        # torch.flatten as exported by PyTorch: the batch size read from the input's shape.
        helper.make_node("Shape", ["g"], ["g_shape"], name="shape"),
        const("zero", 0),
        helper.make_node("Gather", ["g_shape", "zero"], ["n"], name="gather", axis=0),
        const("axes0", [0]),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsqueeze"),
        const("minus_one", [-1]),
        helper.make_node("Concat", ["n1", "minus_one"], ["flat_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["g", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc.W", "fc.B"], ["y"], name="fc", transB=1),
    ]
    inits = [
        weight("conv1.W", 8, 3, 3, 3), weight("conv1.B", 8),
        weight("bn1.scale", 8), weight("bn1.B", 8), weight("bn1.mean", 8),
        numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "bn1.var"),
        weight("conv2.W", 16, 8, 3, 3),
        weight("fc.W", 10, 16), weight("fc.B", 10),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        inits)
    return helper.make_model(graph, producer_name="post-studio make_models.py",
                             opset_imports=[helper.make_opsetid("", 13)])


def transformer():
    S, H, D, F = 8, 2, 8, 64
    E = H * D
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln1.gamma", "ln1.beta"], ["ln1"], name="ln1", axis=-1),
        helper.make_node("MatMul", ["ln1", "Wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["ln1", "Wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["ln1", "Wv"], ["v"], name="v_proj"),
        # [batch, S, H, D] and [batch, S, E] from the input's batch size (PyTorch style).
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
        const("zero", 0),
        helper.make_node("Gather", ["x_shape", "zero"], ["b"], name="gather", axis=0),
        const("axes0", [0]),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"], name="unsqueeze"),
        helper.make_node("Concat", ["b1", "heads_shape"], ["shape4"], name="concat4", axis=0),
        const("seq_hidden", [S, E]),
        helper.make_node("Concat", ["b1", "seq_hidden"], ["shape3"], name="concat3", axis=0),
        helper.make_node("Reshape", ["q", "shape4"], ["q4"], name="q_split"),
        helper.make_node("Reshape", ["k", "shape4"], ["k4"], name="k_split"),
        helper.make_node("Reshape", ["v", "shape4"], ["v4"], name="v_split"),
        helper.make_node("Transpose", ["q4"], ["qh"], name="q_heads", perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k4"], ["kh"], name="k_heads_t", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v4"], ["vh"], name="v_heads", perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["qh", "kh"], ["scores"], name="scores"),
        const("scale", np.sqrt(D), np.float32),
        helper.make_node("Div", ["scores", "scale"], ["scaled"], name="scale_scores"),
        helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["probs", "vh"], ["ctx"], name="context"),
        helper.make_node("Transpose", ["ctx"], ["ctx_t"], name="merge_heads_t", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_t", "shape3"], ["ctx3"], name="merge_heads"),
        helper.make_node("MatMul", ["ctx3", "Wo"], ["attn"], name="out_proj"),
        helper.make_node("Add", ["x", "attn"], ["h"], name="residual1"),
        helper.make_node("LayerNormalization", ["h", "ln2.gamma", "ln2.beta"], ["ln2"], name="ln2", axis=-1),
        helper.make_node("MatMul", ["ln2", "W1"], ["f1"], name="ffn1"),
        helper.make_node("Add", ["f1", "b1_bias"], ["f1b"], name="ffn1_bias"),
        # gelu(x) = 0.5 x (1 + erf(x / sqrt 2)): ONNX has no Gelu before opset 20.
        const("sqrt2", np.sqrt(2.0), np.float32),
        helper.make_node("Div", ["f1b", "sqrt2"], ["g_div"], name="gelu_div"),
        helper.make_node("Erf", ["g_div"], ["g_erf"], name="gelu_erf"),
        const("one", 1.0, np.float32),
        helper.make_node("Add", ["g_erf", "one"], ["g_add"], name="gelu_add"),
        helper.make_node("Mul", ["f1b", "g_add"], ["g_mul"], name="gelu_mul"),
        const("half", 0.5, np.float32),
        helper.make_node("Mul", ["g_mul", "half"], ["gelu"], name="gelu_half"),
        helper.make_node("MatMul", ["gelu", "W2"], ["f2"], name="ffn2"),
        helper.make_node("Add", ["f2", "b2_bias"], ["f2b"], name="ffn2_bias"),
        helper.make_node("Add", ["h", "f2b"], ["y"], name="residual2"),
    ]
    inits = [
        weight("ln1.gamma", E), weight("ln1.beta", E),
        weight("Wq", E, E), weight("Wk", E, E), weight("Wv", E, E), weight("Wo", E, E),
        weight("ln2.gamma", E), weight("ln2.beta", E),
        weight("W1", E, F), weight("b1_bias", F), weight("W2", F, E), weight("b2_bias", E),
        # A shape constant stored as an initializer: int64, so not a parameter.
        numpy_helper.from_array(np.array([S, H, D], dtype=np.int64), "heads_shape"),
    ]
    graph = helper.make_graph(
        nodes, "transformer_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", S, E])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", S, E])],
        inits)
    return helper.make_model(graph, producer_name="post-studio make_models.py",
                             opset_imports=[helper.make_opsetid("", 17)])


def single_node_graph(nodes, inputs, outputs, opset=13, inits=()):
    graph = helper.make_graph(nodes, "bad", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def main():
    save(cnn(), "cnn.onnx")
    save(transformer(), "transformer.onnx")

    relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
    vi = helper.make_tensor_value_info
    save(single_node_graph([relu], [vi("x", TensorProto.FLOAT, [2, 3])], [vi("y", TensorProto.FLOAT, [2, 3])],
                           opset=99), "bad_opset.onnx", check=False)

    no_graph = onnx.ModelProto()
    no_graph.ir_version = 8
    no_graph.opset_import.append(helper.make_opsetid("", 13))
    save(no_graph, "no_graph.onnx", check=False)

    save(single_node_graph(
        [helper.make_node("Relu", ["a"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "b"], ["y"], name="mm")],
        [vi("a", TensorProto.FLOAT, [2, 3]), vi("b", TensorProto.FLOAT, [4, 5])],
        [vi("y", TensorProto.FLOAT, [2, 5])]), "bad_shapes.onnx", check=False)

    save(single_node_graph(
        [helper.make_node("Add", ["x", "ghost"], ["y"], name="add")],
        [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])]), "undefined_input.onnx", check=False)

    custom = single_node_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("FancyOp", ["r"], ["f"], name="fancy", domain="com.example"),
         helper.make_node("Relu", ["f"], ["y"], name="relu2"),
         helper.make_node("Relu", ["x"], ["z"])],
        [vi("x", TensorProto.FLOAT, ["B", 4])], [vi("y", TensorProto.FLOAT, None), vi("z", TensorProto.FLOAT, ["B", 4])])
    custom.opset_import.append(helper.make_opsetid("com.example", 1))
    save(custom, "custom_op.onnx", check=False)

    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[16, 8])
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="external_data.bin")
    save(single_node_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
                           [vi("x", TensorProto.FLOAT, ["N", 16])], [vi("y", TensorProto.FLOAT, ["N", 8])], inits=[w]),
         "external_data.onnx", check=False)

    def int64_constant(name, raw):
        t = TensorProto(name=name + "_v", data_type=TensorProto.INT64, raw_data=raw)
        return helper.make_node("Constant", [], [name], name=name, value=t)
    short_raw = single_node_graph(
        [helper.make_node("FancyOp", ["x"], ["f"], name="fancy", domain="com.example"),
         int64_constant("start", (0).to_bytes(8, "little")),
         int64_constant("limit", (4).to_bytes(8, "little")),
         int64_constant("delta", b"`"),
         helper.make_node("Range", ["start", "limit", "delta"], ["r"], name="range"),
         helper.make_node("Add", ["x", "r"], ["y"], name="add")],
        [vi("x", TensorProto.INT64, [4])], [vi("y", TensorProto.INT64, [4]), vi("f", TensorProto.INT64, None)])
    short_raw.opset_import.append(helper.make_opsetid("com.example", 1))
    save(short_raw, "short_raw_data.onnx", check=False)

    short_w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2, 3], float_data=[1, 2, 3, 4, 5])
    save(single_node_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                           [vi("x", TensorProto.FLOAT, [2, 3])], [vi("y", TensorProto.FLOAT, [2, 3])], inits=[short_w]),
         "short_weight.onnx", check=False)

    save(tensor_types(), "tensor_types.onnx", check=False)


def tensor_types():
    T = TensorProto
    typed = [helper.make_tensor("t_" + T.DataType.Name(t).lower(), t, [2], v) for t, v in (
        (T.FLOAT, [1.0, 2.0]), (T.DOUBLE, [1.0, 2.0]), (T.COMPLEX64, [1 + 2j, 3 + 4j]),
        (T.COMPLEX128, [1 + 2j, 3 + 4j]), (T.FLOAT16, [1.0, 2.0]), (T.BFLOAT16, [1.0, 2.0]),
        (T.INT64, [1, 2]), (T.UINT64, [1, 2]), (T.UINT32, [1, 2]), (T.INT32, [1, 2]), (T.INT16, [1, 2]),
        (T.INT8, [1, 2]), (T.UINT8, [1, 2]), (T.UINT16, [1, 2]), (T.BOOL, [True, False]),
        (T.STRING, [b"a", b"b"]))]
    raw = [numpy_helper.from_array(np.array([1, 2], dtype=t), "r_" + np.dtype(t).name)
           for t in (np.float32, np.float64, np.complex64, np.complex128, np.float16, np.int64,
                     np.uint64, np.uint32, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.bool_)]
    sparse = helper.make_sparse_tensor(helper.make_tensor("sv", T.FLOAT, [2], [1.0, 2.0]),
                                       helper.make_tensor("si", T.INT64, [2], [1, 3]), [5])
    weight = helper.make_sparse_tensor(helper.make_tensor("sw", T.FLOAT, [1], [4.0]),
                                       helper.make_tensor("swi", T.INT64, [1], [0]), [3])
    graph = helper.make_graph([helper.make_node("Constant", [], ["sc"], name="sc", sparse_value=sparse),
                               helper.make_node("Identity", ["t_float"], ["y"], name="y")],
                              "tensor_types", [], [helper.make_tensor_value_info("y", T.FLOAT, None)],
                              typed + raw, sparse_initializer=[weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def modern():
    """IR 10, opset 21: ops whose form changed in opsets 18-21, and Gelu (new in 20)."""
    i64 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.int64), name)
    f32 = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("ReduceMean", ["c", "axes23"], ["m"], name="mean", keepdims=1),     # axes input: 18
        helper.make_node("Sub", ["c", "m"], ["centred"], name="centre"),
        helper.make_node("Split", ["centred"], ["s0", "s1"], name="split", axis=1, num_outputs=2),  # 18
        helper.make_node("Resize", ["s0", "", "scales"], ["up"], name="resize", mode="linear",
                         antialias=0),                                                          # 18
        helper.make_node("Pad", ["up", "pads"], ["padded"], name="pad", mode="constant"),
        helper.make_node("Gelu", ["padded"], ["g"], name="gelu"),                               # new in 20
        helper.make_node("Cast", ["g"], ["g16"], name="cast", to=TensorProto.FLOAT16, saturate=1),  # 19
        helper.make_node("ReduceMax", ["s1"], ["all_max"], name="max_all", keepdims=0),       # no axes: all
    ]
    inits = [weight("w", 8, 3, 3, 3), i64("axes23", [2, 3]), f32("scales", [1, 1, 2, 2]),
             i64("pads", [0, 0, 1, 1, 0, 0, 1, 1])]
    graph = helper.make_graph(
        nodes, "modern",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("g16", TensorProto.FLOAT16, None),
         helper.make_tensor_value_info("all_max", TensorProto.FLOAT, None)],
        inits)
    model = helper.make_model(graph, producer_name="post-studio make_models.py",
                              opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def unsorted(cycle=False):
    """The nodes of a small chain in reverse order (ONNX Runtime runs it); with
    cycle=True two of them read each other's outputs."""
    nodes = [
        helper.make_node("Relu", ["b"], ["y"], name="last"),
        helper.make_node("Add", ["a", "y" if cycle else "x"], ["b"], name="middle"),
        helper.make_node("MatMul", ["x", "w"], ["a"], name="first"),
    ]
    graph = helper.make_graph(nodes, "unsorted", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], [weight("w", 4, 4)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def symbolic():
    """A detector-style input with symbolic batch, height and width."""
    nodes = [helper.make_node("Conv", ["images", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "symbolic",
                              [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, "height", "width"])],
                              [weight("w", 4, 3, 3, 3)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def quantized():
    """int8 ops: QuantizeLinear -> QLinearConv -> DequantizeLinear, ConvInteger,
    MatMulInteger, QLinearMatMul, DynamicQuantizeLinear; int8 weights as initializers and
    a float weight as a Constant node."""
    q = lambda name, shape: numpy_helper.from_array(rng.randint(-100, 100, size=shape).astype(np.int8), name)
    s = lambda name, v: numpy_helper.from_array(np.array(v, dtype=np.float32), name)
    z8 = lambda name: numpy_helper.from_array(np.array(0, dtype=np.int8), name)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quant"),
        helper.make_node("QLinearConv", ["xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz"], ["yq"], name="qconv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("ConvInteger", ["yq", "wq2"], ["ci"], name="conv_int", kernel_shape=[1, 1]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dequant"),
        helper.make_node("Constant", [], ["fcw"], name="fc_weight",
                         value=numpy_helper.from_array(rng.standard_normal((144, 10)).astype(np.float32), "fcw_v")),
        helper.make_node("Reshape", ["y", "flat"], ["yf"], name="flatten"),
        helper.make_node("DynamicQuantizeLinear", ["yf"], ["dq", "dqs", "dqz"], name="dyn_quant"),
        helper.make_node("MatMulInteger", ["dq", "mq", "dqz"], ["mi"], name="matmul_int"),
        helper.make_node("MatMul", ["yf", "fcw"], ["logits"], name="fc"),
        helper.make_node("QLinearMatMul", ["dq", "dqs", "dqz", "mq8", "ms", "mz8", "ys", "yz8"], ["qm"], name="qmatmul"),
    ]
    u8z = lambda name: numpy_helper.from_array(np.array(0, dtype=np.uint8), name)
    inits = [s("xs", 0.1), z8("xz"), q("wq", (8, 4, 3, 3)), s("ws", 0.05), z8("wz"), s("ys", 0.2), z8("yz"),
             q("wq2", (16, 8, 1, 1)), numpy_helper.from_array(np.array([2, -1], dtype=np.int64), "flat"),
             numpy_helper.from_array(rng.randint(0, 200, size=(8 * 6 * 6 // 2, 12)).astype(np.uint8), "mq"),
             numpy_helper.from_array(rng.randint(0, 200, size=(8 * 6 * 6 // 2, 12)).astype(np.uint8), "mq8"),
             s("ms", 0.1), u8z("mz8"), u8z("yz8")]
    graph = helper.make_graph(nodes, "quantized", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                              [helper.make_tensor_value_info("ci", TensorProto.INT32, None),
                               helper.make_tensor_value_info("mi", TensorProto.INT32, None),
                               helper.make_tensor_value_info("qm", TensorProto.UINT8, None),
                               helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def control_flow():
    """If on a graph input (then: a 64x64 MatMul, else: a Relu), If on a constant false
    condition, Loop with a constant trip count of 5 and Scan over 7 steps."""
    vi = helper.make_tensor_value_info
    mm = lambda out: helper.make_graph([helper.make_node("MatMul", ["x", "w"], [out], name="mm_" + out)],
                                       "then", [], [vi(out, TensorProto.FLOAT, [4, 64])])
    relu = lambda out: helper.make_graph([helper.make_node("Relu", ["x"], [out], name="relu_" + out)],
                                         "else", [], [vi(out, TensorProto.FLOAT, [4, 64])])
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep"),
         helper.make_node("MatMul", ["h", "w"], ["h_next"], name="step")],
        "loop_body", [vi("iter", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                      vi("h", TensorProto.FLOAT, [4, 64])],
        [vi("cond_out", TensorProto.BOOL, []), vi("h_next", TensorProto.FLOAT, [4, 64])])
    scan_body = helper.make_graph(
        [helper.make_node("MatMul", ["xt", "w"], ["yt"], name="scan_mm"),
         helper.make_node("Add", ["acc", "yt"], ["acc_next"], name="scan_add")],
        "scan_body", [vi("acc", TensorProto.FLOAT, [4, 64]), vi("xt", TensorProto.FLOAT, [4, 64])],
        [vi("acc_next", TensorProto.FLOAT, [4, 64]), vi("yt", TensorProto.FLOAT, [4, 64])])
    nodes = [
        helper.make_node("If", ["flag"], ["a"], name="if_input", then_branch=mm("a_then"), else_branch=relu("a_else")),
        helper.make_node("If", ["false"], ["b"], name="if_false", then_branch=mm("b_then"), else_branch=relu("b_else")),
        helper.make_node("Loop", ["trips", "", "x"], ["h_final"], name="loop", body=loop_body),
        helper.make_node("Scan", ["x", "seq"], ["acc_final", "ys"], name="scan", body=scan_body, num_scan_inputs=1),
    ]
    inits = [weight("w", 64, 64), numpy_helper.from_array(np.array(False), "false"),
             numpy_helper.from_array(np.array(5, dtype=np.int64), "trips")]
    graph = helper.make_graph(nodes, "control_flow",
                              [vi("x", TensorProto.FLOAT, [4, 64]), vi("flag", TensorProto.BOOL, []),
                               vi("seq", TensorProto.FLOAT, [7, 4, 64])],
                              [vi("a", TensorProto.FLOAT, None), vi("b", TensorProto.FLOAT, None),
                               vi("h_final", TensorProto.FLOAT, None), vi("acc_final", TensorProto.FLOAT, None),
                               vi("ys", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


def unknown_new_op():
    """CenterCropPad (new in opset 18; no shape rule of the project's either) before a Relu."""
    nodes = [helper.make_node("CenterCropPad", ["x", "crop"], ["cropped"], name="crop"),
             helper.make_node("Relu", ["cropped"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "unknown_new_op", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(np.array([2, 2], dtype=np.int64), "crop")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


def data_sizes():
    """A NonZero whose count the shapes after it need, and a NonMaxSuppression."""
    nodes = [const("zero", 0.0, np.float32),
             helper.make_node("Greater", ["x", "zero"], ["mask"], name="mask"),
             helper.make_node("NonZero", ["mask"], ["pick"], name="pick"),
             const("axis0", [0]),
             helper.make_node("Squeeze", ["pick", "axis0"], ["picked"], name="picked"),
             helper.make_node("Gather", ["table", "picked"], ["rows"], name="rows", axis=0),
             helper.make_node("MatMul", ["rows", "v"], ["y"], name="project"),
             const("most", [5]),
             helper.make_node("NonMaxSuppression", ["boxes", "scores", "most"], ["keep"], name="keep")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16]),
              helper.make_tensor_value_info("table", TensorProto.FLOAT, [16, 64]),
              helper.make_tensor_value_info("v", TensorProto.FLOAT, [64, 32]),
              helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 10, 4]),
              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 10])]
    graph = helper.make_graph(nodes, "data_sizes", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                                                            helper.make_tensor_value_info("keep", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def main_newer():
    """The models of issue 17 (written after the others, so their weights leave the older
    files unchanged)."""
    save(modern(), "modern_opset21.onnx", check=False)  # libonnx 1.12 cannot check opset 21
    save(unsorted(), "unsorted.onnx", check=False)       # the checker wants sorted nodes
    save(unsorted(cycle=True), "cycle.onnx", check=False)
    save(symbolic(), "symbolic_dims.onnx")
    save(quantized(), "quantized.onnx", check=False)  # outputs declared without shapes
    save(control_flow(), "control_flow.onnx", check=False)
    save(unknown_new_op(), "unknown_new_op.onnx", check=False)
    save(data_sizes(), "data_sizes.onnx", check=False)  # outputs declared without shapes


if __name__ == "__main__":
    main()
    main_newer()
