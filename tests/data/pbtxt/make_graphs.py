#!/usr/bin/env python3
"""Writes the TensorFlow text GraphDefs that the pbtxt tests read (no TensorFlow needed).

  train_pipeline.pbtxt  a TF1 training graph as tf.train.write_graph(as_text=True) writes
                        one: an input pipeline (file queue, WholeFileReader, DecodeJpeg, a
                        batch queue), two layers with Momentum slots, ApplyMomentum updates
                        colocated with their variables (_class: "loc:@..."), and a Saver
                        (SaveV2, RestoreV2, Assign).
  saved_model.pbtxt     a TF2 SavedModel (tf.saved_model.save of a Keras Dense model): the
                        GraphDef inside meta_graphs, a StatefulPartitionedCall into library
                        functions, save/restore functions.

Run from this folder: python3 make_graphs.py
"""


def shape(dims):
    if dims is None:
        return "shape {\n  unknown_rank: true\n}"
    return "shape {\n" + "".join(f"  dim {{\n    size: {d}\n  }}\n" for d in dims) + "}"


def indent(text, n):
    pad = " " * n
    return "\n".join(pad + line if line else line for line in text.split("\n"))


class Node:
    def __init__(self, name, op, inputs=(), device=None, **attrs):
        self.name, self.op, self.inputs, self.device, self.attrs = name, op, list(inputs), device, attrs

    def text(self, depth=0):
        lines = ["node {", f'  name: "{self.name}"', f'  op: "{self.op}"']
        lines += [f'  input: "{i}"' for i in self.inputs]
        if self.device:
            lines.append(f'  device: "{self.device}"')
        for key in sorted(self.attrs):
            lines += ["  attr {", f'    key: "{key}"', "    value {", indent(self.attrs[key], 6), "    }", "  }"]
        lines.append("}")
        return indent("\n".join(lines), depth)


def t(dtype):
    return f"type: {dtype}"


def s(value):
    return f's: "{value}"'


def loc(name):
    return "list {\n  " + s("loc:@" + name) + "\n}"


def shapes(*dims):
    return "list {\n" + "\n".join(indent(shape(d), 2) for d in dims) + "\n}"


def ints(*values):
    return "list {\n" + "".join(f"  i: {v}\n" for v in values) + "}"


def types(*dtypes):
    return "list {\n" + "".join(f"  type: {d}\n" for d in dtypes) + "}"


def const(name, dtype, dims, body, cls=None):
    attrs = dict(dtype=t(dtype), value="tensor {\n  dtype: " + dtype + "\n  tensor_shape {\n"
                 + "".join(f"    dim {{\n      size: {d}\n    }}\n" for d in dims) + "  }\n" + body + "\n}")
    if cls:
        attrs["_class"] = loc(cls)
    return Node(name, "Const", **attrs)


def variable(name, dims, cls=None):
    attrs = dict(dtype=t("DT_FLOAT"), shape=shape(dims), container=s(""), shared_name=s(""))
    if cls:
        attrs["_class"] = loc(cls)
    return Node(name, "VariableV2", **attrs)


def train_pipeline():
    B = 32
    n = []
    # Input pipeline: a queue of file names, a reader, JPEG decoding, a batch queue.
    n.append(const("input_producer/Const", "DT_STRING", [2], '  string_val: "img0.jpg"\n  string_val: "img1.jpg"'))
    n.append(Node("input_producer", "FIFOQueueV2", component_types=types("DT_STRING"), capacity="i: 32",
                  shapes="list {\n  shape {\n  }\n}", _output_shapes=shapes([])))
    n.append(Node("input_producer/input_producer_EnqueueMany", "QueueEnqueueManyV2",
                  ["input_producer", "input_producer/Const"], Tcomponents=types("DT_STRING")))
    n.append(Node("WholeFileReaderV2", "WholeFileReaderV2", _output_shapes=shapes([])))
    n.append(Node("ReaderReadV2", "ReaderReadV2", ["WholeFileReaderV2", "input_producer"],
                  _output_shapes=shapes([], [])))
    n.append(Node("DecodeJpeg", "DecodeJpeg", ["ReaderReadV2:1"], channels="i: 3",
                  _output_shapes=shapes([-1, -1, 3])))
    n.append(Node("Cast", "Cast", ["DecodeJpeg"], SrcT=t("DT_UINT8"), DstT=t("DT_FLOAT"),
                  _output_shapes=shapes([-1, -1, 3])))
    n.append(const("resize/size", "DT_INT32", [2], "  int_val: 32\n  int_val: 32"))
    n.append(Node("resize/ExpandDims", "ExpandDims", ["Cast", "resize/ExpandDims/dim"],
                  _output_shapes=shapes([1, -1, -1, 3])))
    n.append(const("resize/ExpandDims/dim", "DT_INT32", [], "  int_val: 0"))
    n.append(Node("resize/ResizeBilinear", "ResizeBilinear", ["resize/ExpandDims", "resize/size"],
                  _output_shapes=shapes([1, 32, 32, 3])))
    n.append(Node("resize/Squeeze", "Squeeze", ["resize/ResizeBilinear"], squeeze_dims=ints(0),
                  _output_shapes=shapes([32, 32, 3])))
    n.append(Node("batch/fifo_queue", "FIFOQueueV2", component_types=types("DT_FLOAT", "DT_INT32"),
                  capacity="i: 128", _output_shapes=shapes([])))
    n.append(const("label", "DT_INT32", [], "  int_val: 1"))
    n.append(Node("batch/fifo_queue_enqueue", "QueueEnqueueV2", ["batch/fifo_queue", "resize/Squeeze", "label"],
                  Tcomponents=types("DT_FLOAT", "DT_INT32")))
    n.append(const("batch/n", "DT_INT32", [], f"  int_val: {B}"))
    n.append(Node("batch", "QueueDequeueManyV2", ["batch/fifo_queue", "batch/n"],
                  component_types=types("DT_FLOAT", "DT_INT32"), _output_shapes=shapes([B, 32, 32, 3], [B])))
    # Two layers, their Momentum slots, the loss.
    layers = [("conv1/weights", [3, 3, 3, 16]), ("fc/weights", [16, 10])]
    for name, dims in layers:
        n.append(variable(name, dims))
        n.append(Node(name + "/read", "Identity", [name], T=t("DT_FLOAT"), _class=loc(name),
                      _output_shapes=shapes(dims)))
        n.append(variable(name + "/Momentum", dims, cls=name))
    n.append(Node("conv1/Conv2D", "Conv2D", ["batch", "conv1/weights/read"], T=t("DT_FLOAT"),
                  strides=ints(1, 1, 1, 1), padding=s("SAME"), data_format=s("NHWC"),
                  _output_shapes=shapes([B, 32, 32, 16])))
    n.append(Node("conv1/Relu", "Relu", ["conv1/Conv2D"], T=t("DT_FLOAT"), _output_shapes=shapes([B, 32, 32, 16])))
    n.append(const("pool/reduction_indices", "DT_INT32", [2], "  int_val: 1\n  int_val: 2"))
    n.append(Node("pool", "Mean", ["conv1/Relu", "pool/reduction_indices"], T=t("DT_FLOAT"),
                  _output_shapes=shapes([B, 16])))
    n.append(Node("fc/MatMul", "MatMul", ["pool", "fc/weights/read"], T=t("DT_FLOAT"),
                  transpose_a="b: false", transpose_b="b: false", _output_shapes=shapes([B, 10])))
    n.append(Node("loss/xent", "SparseSoftmaxCrossEntropyWithLogits", ["fc/MatMul", "batch:1"], T=t("DT_FLOAT"),
                  _output_shapes=shapes([B], [B, 10])))
    n.append(Node("loss", "Mean", ["loss/xent", "loss/Const"], T=t("DT_FLOAT"), _output_shapes=shapes([])))
    n.append(const("loss/Const", "DT_INT32", [1], "  int_val: 0"))
    # Gradients and the updates, each ApplyMomentum colocated with its variable.
    n.append(Node("gradients/loss_grad/Tile", "Tile", ["loss", "gradients/loss_grad/Shape"], T=t("DT_FLOAT"),
                  _output_shapes=shapes([B])))
    n.append(const("gradients/loss_grad/Shape", "DT_INT32", [1], f"  int_val: {B}"))
    n.append(Node("gradients/xent_grad/mul", "Mul", ["gradients/loss_grad/Tile", "loss/xent:1"], T=t("DT_FLOAT"),
                  _output_shapes=shapes([B, 10])))
    n.append(Node("gradients/fc/MatMul_grad/MatMul", "MatMul", ["gradients/xent_grad/mul", "fc/weights/read"],
                  T=t("DT_FLOAT"), transpose_b="b: true", _output_shapes=shapes([B, 16])))
    n.append(Node("gradients/fc/MatMul_grad/MatMul_1", "MatMul", ["pool", "gradients/xent_grad/mul"],
                  T=t("DT_FLOAT"), transpose_a="b: true", _output_shapes=shapes([16, 10])))
    n.append(Node("gradients/pool_grad/Tile", "Tile", ["gradients/fc/MatMul_grad/MatMul", "gradients/pool_grad/m"],
                  T=t("DT_FLOAT"), _output_shapes=shapes([B, 32, 32, 16])))
    n.append(const("gradients/pool_grad/m", "DT_INT32", [4], "  int_val: 1\n  int_val: 32\n  int_val: 32\n  int_val: 1"))
    n.append(Node("gradients/conv1/Relu_grad/ReluGrad", "ReluGrad", ["gradients/pool_grad/Tile", "conv1/Relu"],
                  T=t("DT_FLOAT"), _output_shapes=shapes([B, 32, 32, 16])))
    n.append(const("gradients/conv1/Conv2D_grad/Shape", "DT_INT32", [4], "  int_val: 3\n  int_val: 3\n  int_val: 3\n  int_val: 16"))
    n.append(Node("gradients/conv1/Conv2D_grad/Conv2DBackpropFilter", "Conv2DBackpropFilter",
                  ["batch", "gradients/conv1/Conv2D_grad/Shape", "gradients/conv1/Relu_grad/ReluGrad"],
                  T=t("DT_FLOAT"), strides=ints(1, 1, 1, 1), padding=s("SAME"), data_format=s("NHWC"),
                  _output_shapes=shapes([3, 3, 3, 16])))
    n.append(const("Momentum/learning_rate", "DT_FLOAT", [], "  float_val: 0.01"))
    n.append(const("Momentum/momentum", "DT_FLOAT", [], "  float_val: 0.9"))
    grads = {"conv1/weights": "gradients/conv1/Conv2D_grad/Conv2DBackpropFilter",
             "fc/weights": "gradients/fc/MatMul_grad/MatMul_1"}
    for k, (name, dims) in enumerate(layers):
        update = "Momentum/update_" + name.split("/")[0] + "/ApplyMomentum"
        n.append(Node(update, "ApplyMomentum",
                      [name, name + "/Momentum", "Momentum/learning_rate", grads[name], "Momentum/momentum"],
                      T=t("DT_FLOAT"), use_locking="b: false", use_nesterov="b: false", _class=loc(name),
                      _output_shapes=shapes(dims)))
    n.append(Node("Momentum", "NoOp", ["^Momentum/update_conv1/ApplyMomentum", "^Momentum/update_fc/ApplyMomentum"]))
    # Initialisers and the Saver.
    for name, dims in layers:
        n.append(const(name + "/Initializer/zeros", "DT_FLOAT", dims, "  float_val: 0", cls=name))
        n.append(Node(name + "/Assign", "Assign", [name, name + "/Initializer/zeros"], T=t("DT_FLOAT"),
                      _class=loc(name), _output_shapes=shapes(dims)))
    n.append(const("save/filename", "DT_STRING", [], '  string_val: "model"'))
    names = [v for name, _ in layers for v in (name, name + "/Momentum")]
    n.append(const("save/SaveV2/tensor_names", "DT_STRING", [len(names)],
                   "\n".join(f'  string_val: "{v}"' for v in names)))
    n.append(const("save/SaveV2/shape_and_slices", "DT_STRING", [len(names)],
                   "\n".join('  string_val: ""' for _ in names)))
    n.append(Node("save/SaveV2", "SaveV2", ["save/filename", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices"]
                  + names, dtypes=types(*["DT_FLOAT"] * len(names))))
    n.append(Node("save/control_dependency", "Identity", ["save/filename", "^save/SaveV2"], T=t("DT_STRING"),
                  _class=loc("save/filename"), _output_shapes=shapes([])))
    n.append(Node("save/RestoreV2", "RestoreV2", ["save/filename", "save/SaveV2/tensor_names",
                                                  "save/SaveV2/shape_and_slices"],
                  dtypes=types(*["DT_FLOAT"] * len(names)), _output_shapes=shapes(*[None] * len(names))))
    for k, v in enumerate(names):
        n.append(Node(f"save/Assign_{k}", "Assign", [v, f"save/RestoreV2:{k}"] if k else [v, "save/RestoreV2"],
                      T=t("DT_FLOAT"), _class=loc(v.replace("/Momentum", "")), validate_shape="b: true"))
    n.append(Node("save/restore_all", "NoOp", [f"^save/Assign_{k}" for k in range(len(names))]))
    return "\n".join(x.text() for x in n) + "\nversions {\n  producer: 27\n}\n"


def saved_model():
    g = []
    g.append(Node("dense/kernel", "VarHandleOp", dtype=t("DT_FLOAT"), shape=shape([784, 128]),
                  shared_name=s("dense/kernel"), _output_shapes=shapes([])))
    g.append(Node("dense/bias", "VarHandleOp", dtype=t("DT_FLOAT"), shape=shape([128]),
                  shared_name=s("dense/bias"), _output_shapes=shapes([])))
    g.append(Node("serving_default_input_1", "Placeholder", dtype=t("DT_FLOAT"), shape=shape([-1, 784]),
                  _output_shapes=shapes([-1, 784])))
    g.append(Node("StatefulPartitionedCall", "StatefulPartitionedCall",
                  ["serving_default_input_1", "dense/kernel", "dense/bias"],
                  f="func {\n  name: \"__inference_signature_wrapper_95\"\n}",
                  Tin=types("DT_FLOAT", "DT_RESOURCE", "DT_RESOURCE"), Tout=types("DT_FLOAT"),
                  _output_shapes=shapes([-1, 128])))
    g.append(Node("saver_filename", "Placeholder", dtype=t("DT_STRING"), shape=shape([]),
                  _output_shapes=shapes([])))
    g.append(Node("StatefulPartitionedCall_1", "StatefulPartitionedCall",
                  ["saver_filename", "dense/kernel", "dense/bias"],
                  f="func {\n  name: \"__inference__traced_save_140\"\n}",
                  Tin=types("DT_STRING", "DT_RESOURCE", "DT_RESOURCE"), Tout=types("DT_STRING"),
                  _output_shapes=shapes([])))
    g.append(Node("StatefulPartitionedCall_2", "StatefulPartitionedCall",
                  ["saver_filename", "dense/kernel", "dense/bias"],
                  f="func {\n  name: \"__inference__traced_restore_156\"\n}",
                  Tin=types("DT_STRING", "DT_RESOURCE", "DT_RESOURCE"), Tout=types("DT_STRING"),
                  _output_shapes=shapes([])))
    functions = []
    for name, body in [
        ("__inference_signature_wrapper_95", [
            Node("StatefulPartitionedCall", "StatefulPartitionedCall", ["input_1", "unknown", "unknown_0"],
                 f="func {\n  name: \"__inference_call_80\"\n}")]),
        ("__inference_call_80", [
            Node("MatMul/ReadVariableOp", "ReadVariableOp", ["matmul_readvariableop_resource"], dtype=t("DT_FLOAT")),
            Node("MatMul", "MatMul", ["inputs", "MatMul/ReadVariableOp:value:0"], T=t("DT_FLOAT")),
            Node("BiasAdd/ReadVariableOp", "ReadVariableOp", ["biasadd_readvariableop_resource"], dtype=t("DT_FLOAT")),
            Node("BiasAdd", "BiasAdd", ["MatMul:product:0", "BiasAdd/ReadVariableOp:value:0"], T=t("DT_FLOAT")),
            Node("Relu", "Relu", ["BiasAdd:output:0"], T=t("DT_FLOAT"))]),
        ("__inference__traced_save_140", [
            Node("SaveV2", "SaveV2", ["file_prefix", "SaveV2/tensor_names", "SaveV2/shape_and_slices"])]),
        ("__inference__traced_restore_156", [
            Node("RestoreV2", "RestoreV2", ["file_prefix", "RestoreV2/tensor_names", "RestoreV2/shape_and_slices"])]),
    ]:
        nodes = "\n".join(x.text().replace("node {", "node_def {", 1) for x in body)
        functions.append("function {\n  signature {\n    name: \"" + name + "\"\n  }\n" + indent(nodes, 2) + "\n}")
    graph_def = "\n".join(x.text() for x in g) + "\nlibrary {\n" + indent("\n".join(functions), 2) \
        + "\n}\nversions {\n  producer: 1395\n  min_consumer: 12\n}"
    meta = ("meta_info_def {\n  stripped_op_list {\n    op {\n      name: \"MatMul\"\n    }\n  }\n"
            "  tags: \"serve\"\n  tensorflow_version: \"2.15.0\"\n  tensorflow_git_version: \"v2.15.0-rc1-8-g6887368d6d4\"\n"
            "  stripped_default_attrs: true\n}\ngraph_def {\n" + indent(graph_def, 2) + "\n}\n"
            "signature_def {\n  key: \"serving_default\"\n  value {\n    method_name: \"tensorflow/serving/predict\"\n  }\n}")
    return "saved_model_schema_version: 1\nmeta_graphs {\n" + indent(meta, 2) + "\n}\n"


if __name__ == "__main__":
    header = "# Generated by tests/data/pbtxt/make_graphs.py (written for Post Studio's tests; no TensorFlow needed).\n"
    with open("train_pipeline.pbtxt", "w") as f:
        f.write(header + train_pipeline())
    with open("saved_model.pbtxt", "w") as f:
        f.write(header + saved_model())
