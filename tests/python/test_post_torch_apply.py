"""post_torch.apply is all or nothing (issue 31, class 5), on a small model on the CPU.

A failed apply (a device this torch lacks, a module the model lacks, a bad file) leaves the model
exactly as it was: the same parameter objects on the same devices, no hooks, the same output,
and a later correct apply works. Every error is post_torch.PlacementError naming the file, and a
FIFO is refused instead of waited on. Run by CTest as python/test_post_torch_apply with Debian's
python3-torch; skips with exit code 77 where torch is missing.
"""

import json
import os
import sys
import tempfile
import threading
import unittest
import warnings
from collections import Counter

try:
    import torch
except ImportError as e:  # pragma: no cover - the skip path
    print(f"SKIP: {e} (install python3-torch; scripts/dev does)")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import post_torch  # noqa: E402

GPU0, GPU1 = "/device:GPU:0", "/device:GPU:1"


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.bn = torch.nn.BatchNorm1d(8)
        self.b = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.b(torch.relu(self.bn(self.a(x)))) * 2


def state(model):
    """What must not change when an apply fails: each tensor's identity, device and values, and
    the hooks of every module."""
    tensors = {name: (id(t), t.device, t.detach().clone()) for name, t in model.state_dict(keep_vars=True).items()}
    hooks = {path: (len(m._forward_pre_hooks), len(m._forward_hooks), "forward" in m.__dict__)
             for path, m in model.named_modules()}
    return tensors, hooks


class WithMaps(unittest.TestCase):
    """A temporary folder for the maps and files a test applies."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def file(self, name, document):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w" if isinstance(document, (str, dict)) else "wb") as f:
            if isinstance(document, dict):
                json.dump(document, f)
            else:
                f.write(document)
        return path

    def torch_map(self, modules, name="map.json"):
        return self.file(name, {"format": "post-torch-map/1", "modules": modules})

    def exported(self, model, x, name):
        """`model` exported to `name` in the temporary folder: its path and its sidecar's
        {node: module}."""
        path = os.path.join(self.tmp.name, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            post_torch.export(model, (x,), path)
        with open(path + ".modules.json") as f:
            return path, json.load(f)["modules"]


class ApplyIsAllOrNothing(WithMaps):
    def setUp(self):
        quiet = warnings.catch_warnings()  # maps that leave "bn" out: PlacementWarning, tested below
        quiet.__enter__()
        self.addCleanup(quiet.__exit__, None, None, None)
        warnings.simplefilter("ignore", post_torch.PlacementWarning)
        super().setUp()
        torch.manual_seed(0)
        self.model = Net().eval()
        self.x = torch.randn(3, 8)
        with torch.no_grad():
            self.expected = self.model(self.x)

    def assertUnchanged(self, before):
        tensors, hooks = state(self.model)
        self.assertEqual(hooks, before[1])
        self.assertEqual(tensors.keys(), before[0].keys())
        for name, (ident, device, value) in tensors.items():
            self.assertEqual((ident, device), before[0][name][:2], name)
            self.assertTrue(torch.equal(value, before[0][name][2]), name)
        with torch.no_grad():
            self.assertTrue(torch.equal(self.model(self.x), self.expected))

    def assertAppliesAfterwards(self):
        """A correct apply after the failed one works, and the model still computes the same."""
        path = self.torch_map({"a": GPU0, "bn": GPU0, "b": GPU1}, "good.json")
        post_torch.apply(self.model, path, {GPU0: "cpu", GPU1: "cpu"})
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.model(self.x), self.expected, atol=1e-6))

    def assertRefused(self, path, device_map, pattern):
        before = state(self.model)
        with self.assertRaises(post_torch.PlacementError) as raised:
            post_torch.apply(self.model, path, device_map)
        self.assertIn(os.fspath(path), str(raised.exception))
        self.assertRegex(str(raised.exception), pattern)
        self.assertUnchanged(before)
        self.assertAppliesAfterwards()

    def test_a_cuda_device_past_the_last_is_refused_before_anything_moves(self):
        # "a" and "bn" come first and would go to the meta device: an apply that moved them before
        # failing on "b" would leave a model whose every forward fails.
        path = self.torch_map({"a": GPU0, "bn": GPU0, "b": GPU1})
        self.assertRefused(path, {GPU0: "meta", GPU1: "cuda:97"}, r"device_map\['/device:GPU:1'\] = 'cuda:97'")

    def test_a_device_this_torch_cannot_copy_to_changes_nothing(self):
        # torch.device("vulkan") is a device string torch accepts; the copy itself fails.
        path = self.torch_map({"a": GPU0, "bn": GPU0, "b": GPU1})
        self.assertRefused(path, {GPU0: "meta", GPU1: "vulkan"}, r"cannot move module 'b' to 'vulkan'")

    def test_a_device_string_torch_does_not_know_is_named(self):
        path = self.torch_map({"a": GPU0, "b": GPU1})
        self.assertRefused(path, {GPU0: "cpu", GPU1: "gpu-number-one"}, r"device_map\['/device:GPU:1'\]")

    def test_a_module_the_model_lacks_changes_nothing(self):
        path = self.torch_map({"a": GPU0, "no_such": GPU1})
        self.assertRefused(path, {GPU0: "meta", GPU1: "cpu"}, "module 'no_such' is not in the model")

    def test_a_device_the_map_lacks_changes_nothing(self):
        path = self.torch_map({"a": GPU0, "b": "/device:GPU:3"})
        self.assertRefused(path, {GPU0: "meta"}, "device '/device:GPU:3'")

    def test_bad_files_are_placement_errors_naming_the_file(self):
        cases = {
            "not-json.json": ("{\"format\": ", r":1: not JSON"),
            "latin1.json": (b"{\"format\": \"post-torch-map/1\", \"modules\": {\"a\": \"\xe9\"}}", "byte 49: not UTF-8"),
            "array.json": ("[1, 2]", "expected a JSON object"),
            "format.json": ({"format": 7}, "field 'format' is 7"),
            "modules-list.json": ({"format": "post-torch-map/1", "modules": ["a"]}, "field 'modules' must map"),
            "device-number.json": ({"format": "post-torch-map/1", "modules": {"a": 5}}, "field 'modules': 'a' maps to 5"),
            "placement-null.json": ({"format": "post-placement/1", "placement": {"x": None}, "modules": {}},
                                    "field 'placement': 'x' maps to null"),
            "module-list.json": ({"format": "post-placement/1", "placement": {"x": GPU0}, "modules": {"x": [1]}},
                                 r"field 'modules': op 'x' maps to \[1\]"),
            "no-modules.json": ({"format": "post-placement/1", "placement": {"x": GPU0}}, "field 'modules' is missing"),
            "dispatch.json": ({"format": "post-placement/1", "placement": {"x": GPU0}, "modules": {"x": "m"},
                               "dispatch": "bogus"}, "field 'dispatch' is \"bogus\""),
            "deep.json": ("[" * 100000 + "]" * 100000, "nested too deeply"),
            "long-int.json": ("{\"format\": " + "9" * 5000 + "}", "not JSON we read"),
            "empty-plan.json": ({"format": "post-torch-map/1", "modules": {}}, "names no module"),
        }
        for name, (document, pattern) in cases.items():
            with self.subTest(name):
                self.assertRefused(self.file(name, document), {GPU0: "cpu"}, pattern)
        self.assertRefused(os.path.join(self.tmp.name, "absent.json"), {GPU0: "cpu"}, "cannot read: No such file")
        self.assertRefused(self.tmp.name, {GPU0: "cpu"}, "cannot read: a folder")

    def test_a_critical_path_placement_warns_that_pytorch_keeps_program_order(self):
        doc = {"format": "post-placement/1", "placement": {"x": GPU0}, "modules": {"x": ""},
               "dispatch": "critical-path"}
        with self.assertWarnsRegex(UserWarning, "critical-path dispatch; PyTorch runs the ops in program order"):
            plan = post_torch.load_plan(self.file("cp.json", doc))
        self.assertEqual(plan, {"": GPU0})

    def test_a_fifo_is_refused_not_waited_on(self):
        fifo = os.path.join(self.tmp.name, "fifo.json")
        os.mkfifo(fifo)
        outcome = []

        def attempt():
            try:
                post_torch.apply(self.model, fifo, {GPU0: "cpu"})
                outcome.append("applied")
            except post_torch.PlacementError as e:
                outcome.append(str(e))

        thread = threading.Thread(target=attempt, daemon=True)
        thread.start()
        thread.join(10)
        if thread.is_alive():  # unblock the reader so the process can end, then fail
            with open(fifo, "w"):
                pass
            self.fail("post_torch.apply blocked on a FIFO")
        self.assertEqual(len(outcome), 1)
        self.assertIn(fifo, outcome[0])
        self.assertIn("a FIFO", outcome[0])

    def test_a_path_that_is_no_path_is_a_placement_error(self):
        with self.assertRaisesRegex(post_torch.PlacementError, "expected a file path"):
            post_torch.apply(self.model, 42, {GPU0: "cpu"})

    def test_a_second_apply_replaces_the_first_ones_hooks(self):
        first = self.torch_map({"a": GPU0, "bn": GPU0, "b": GPU1}, "first.json")
        post_torch.apply(self.model, first, {GPU0: "meta", GPU1: "meta"})
        self.assertEqual(self.model.a.weight.device.type, "meta")
        torch.manual_seed(0)  # meta tensors have no values: start again from the same real model
        self.model = Net().eval()
        for _ in range(3):
            post_torch.apply(self.model, first, {GPU0: "cpu", GPU1: "cpu"})
        for path, module in self.model.named_modules():  # the root's forward is routed instead
            self.assertEqual(len(module._forward_pre_hooks), 0 if path == "" else 1, path)
            self.assertEqual(len(module._forward_hooks), 0 if path == "" else 1, path)
        self.assertIs(self.model.forward.__wrapped__.__func__, Net.forward)  # routed once, not three times
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.model(self.x), self.expected, atol=1e-6))

    def test_parameters_already_on_their_device_keep_their_identity(self):
        weight = self.model.a.weight
        post_torch.apply(self.model, self.torch_map({"a": GPU0}), {GPU0: "cpu"})
        self.assertIs(self.model.a.weight, weight)  # an optimizer holding it still trains the model


class Residual(torch.nn.Module):
    """A ResNet block: children, an in-place ReLU module called twice, and an op of its own (the
    residual `out += x`)."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(4)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = torch.nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        out = self.conv2(self.relu(self.bn1(self.conv1(x))))
        out += x
        return self.relu(out)


class ResidualNet(torch.nn.Module):
    """A stem, two blocks in a Sequential (a container: no op of its own), and the root's own
    Flatten before the head."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.layer = torch.nn.Sequential(Residual(), Residual())
        self.fc = torch.nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.layer(self.stem(x)), 1))


def label_of(plan, module):
    """The placement's device of a module: its own, or its nearest named parent's."""
    while module not in plan and module:
        module = module.rsplit(".", 1)[0] if "." in module else ""
    return plan.get(module)


def cut_edges(onnx_path, device):
    """What the simulator sends in a forward (docs/simulator.md, "Transfers"): one transfer per op
    output and other device that one of its consumers runs on, as a Counter of (from, to).
    `device(node name, module path)`: the device a node runs on, or None for a node the graph
    leaves out (an ONNX Constant: a literal in PyTorch)."""
    import onnx
    graph = onnx.load(onnx_path).graph
    with open(onnx_path + ".modules.json") as f:
        modules = json.load(f)["modules"]
    producer = {out: node.name for node in graph.node for out in node.output}
    where = {node.name: device(node.name, modules[node.name]) for node in graph.node}
    sent = {(tensor, where[producer[tensor]], where[node.name]) for node in graph.node for tensor in node.input
            if tensor in producer and None not in (where[producer[tensor]], where[node.name])
            and where[producer[tensor]] != where[node.name]}
    return Counter((source, to) for _, source, to in sent)


class ApplyRunsWhatWasTimed(WithMaps):
    """Each op runs on its module's device with its inputs sent straight from where they were
    made, once per destination: the transfers of a forward are the placement's cut edges."""

    PLAN = {"": "G0", "stem": "G0", "layer.0": "G1", "layer.0.conv1": "G1", "layer.0.bn1": "G1",
            "layer.0.relu": "G1", "layer.0.conv2": "G2", "layer.1": "G2", "layer.1.conv1": "G3",
            "layer.1.bn1": "G3", "layer.1.relu": "G3", "layer.1.conv2": "G3", "fc": "G0"}
    DEVICES = {name: "cpu" for name in ("G0", "G1", "G2", "G3")}

    def setUp(self):
        super().setUp()
        try:
            import onnx  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e} (install python3-onnx; scripts/dev does)")
        torch.manual_seed(0)
        self.model = ResidualNet()
        self.x = torch.randn(2, 3, 8, 8)
        self.onnx = os.path.join(self.tmp.name, "net.onnx")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.onnx's notes on BatchNorm's counter
            post_torch.export(self.model, (self.x,), self.onnx)

    def sent(self, model=None):
        """The transfers of the last forward, between devices of the placement."""
        transfers = post_torch.transfers(model or self.model)
        return Counter((source, to) for source, to, _ in transfers if source is not None)

    def test_a_forward_sends_what_the_simulator_times(self):
        expected = cut_edges(self.onnx, lambda _node, module: label_of(self.PLAN, module))
        # The hooks apply used before sent layer.1's input through the Sequential's device and
        # every child's output back to its block's: G1 -> G2 -> G3 where the graph has G1 -> G3.
        self.assertIn(("G1", "G3"), expected)
        for training in (False, True):
            with self.subTest(training=training):
                model = self.model.train(training)
                with torch.no_grad():
                    before = model(self.x)
                post_torch.apply(model, self.torch_map(self.PLAN), self.DEVICES)
                with torch.no_grad():
                    after = model(self.x)
                self.assertTrue(torch.allclose(after, before, atol=1e-6))
                self.assertEqual(self.sent(), expected)
                self.assertTrue(all(size == 2 * 4 * 8 * 8 * 4 for _, _, size in post_torch.transfers(model)))

    def test_inference_mode_sends_the_same(self):
        """Tensors made under torch.inference_mode() keep no version counter: the forward still
        runs, computes the same and sends the cut edges."""
        with torch.no_grad():
            before = self.model.eval()(self.x)
        post_torch.apply(self.model, self.torch_map(self.PLAN), self.DEVICES)
        with torch.inference_mode():
            after = self.model(self.x)
        self.assertTrue(torch.allclose(after, before, atol=1e-6))
        self.assertEqual(self.sent(), cut_edges(self.onnx, lambda _node, module: label_of(self.PLAN, module)))

    def test_gradients_flow_back_through_the_transfers(self):
        post_torch.apply(self.model, self.torch_map(self.PLAN), self.DEVICES)
        self.model(self.x).sum().backward()
        self.assertTrue(all(p.grad is not None for p in self.model.parameters()))

    def test_one_device_sends_nothing(self):
        plan = {module: "G0" for module in self.PLAN}
        post_torch.apply(self.model, self.torch_map(plan), self.DEVICES)
        self.model(self.x)
        self.assertEqual(post_torch.transfers(self.model), [])
        self.assertEqual(cut_edges(self.onnx, lambda _node, module: label_of(plan, module)), Counter())

    def test_a_child_called_on_its_own_still_gets_its_inputs(self):
        warnings.simplefilter("ignore", post_torch.PlacementWarning)  # the blocks' children left out
        post_torch.apply(self.model, self.torch_map({"stem": GPU0, "layer": GPU1, "fc": GPU1}),
                         {GPU0: "cpu", GPU1: "meta"})
        self.assertEqual(self.model.layer(self.x.new_zeros(2, 4, 8, 8)).device.type, "meta")

    def test_an_in_place_statement_runs_where_its_tensor_is(self):
        class Bump(torch.nn.Module):
            def __init__(self, statement):
                super().__init__()
                self.inner = torch.nn.Linear(4, 4)
                self.statement = statement

            def forward(self, x):
                y = self.inner(x)
                if self.statement:
                    y.add_(1)  # the caller keeps `y`: moving it first would lose the update
                else:
                    y += 1  # Python rebinds `y` to the result: it may be moved
                return y

        for statement, sent in ((True, Counter()), (False, Counter({("G1", "G0"): 1}))):
            with self.subTest(statement=statement):
                model = Bump(statement)
                x = torch.randn(3, 4)
                with torch.no_grad():
                    before = model(x)
                    post_torch.apply(model, self.torch_map({"": "G0", "inner": "G1"}), self.DEVICES)
                    self.assertTrue(torch.equal(model(x), before))
                self.assertEqual(self.sent(model), sent)

    def test_transfers_of_a_model_apply_did_not_place_is_refused(self):
        with self.assertRaisesRegex(post_torch.PlacementError, "not placed by post_torch.apply"):
            post_torch.transfers(ResidualNet())


class ListedBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class Listed(torch.nn.Module):
    """Layers held in a ModuleList and a ModuleDict, as MViT and most transformers hold them:
    neither container is called, so neither has a scope in the export."""

    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([ListedBlock(), ListedBlock()])
        self.heads = torch.nn.ModuleDict({"out": torch.nn.Linear(8, 3)})

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["out"](x)


class LayersInModuleLists(WithMaps):
    """Each node of a ModuleList's or ModuleDict's layers belongs to its layer (the sidecar named
    them all the root's before, so a placement put the whole model in one group on one device),
    and a placement that puts the layers on different devices sends the cut edges."""

    def test_the_sidecar_names_the_listed_layers(self):
        try:
            import onnx  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e} (install python3-onnx; scripts/dev does)")
        torch.manual_seed(0)
        model, x = Listed(), torch.randn(2, 8)
        path, modules = self.exported(model, x, "listed.onnx")
        self.assertEqual(modules["/blocks.0/fc/Gemm"], "blocks.0.fc")
        self.assertEqual(modules["/blocks.1/act/Relu"], "blocks.1.act")
        self.assertEqual(modules["/blocks.1/Add"], "blocks.1")
        self.assertEqual(modules["/out/Gemm"], "heads.out")
        plan = {"": "G0", "blocks.0": "G0", "blocks.0.fc": "G1", "blocks.0.act": "G1", "blocks.1": "G2",
                "blocks.1.fc": "G2", "blocks.1.act": "G3", "heads.out": "G0"}
        with torch.no_grad():
            before = model(x)
            post_torch.apply(model, self.torch_map(plan), {d: "cpu" for d in ("G0", "G1", "G2", "G3")})
            self.assertTrue(torch.allclose(model(x), before, atol=1e-6))
        sent = Counter((source, to) for source, to, _ in post_torch.transfers(model) if source is not None)
        expected = cut_edges(path, lambda _node, module: label_of(plan, module))
        self.assertIn(("G1", "G0"), expected)  # blocks.0's residual add on G0 reads its ReLU on G1
        self.assertEqual(sent, expected)


class MaskBlock(torch.nn.Module):
    """Prepares the mask it is given, as each nn.TransformerEncoderLayer's attention does."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x, mask):
        return self.fc(x) + mask.unsqueeze(0) * -100.0


class Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([MaskBlock(), MaskBlock()])
        self.register_buffer("mask", torch.triu(torch.ones(4, 4), 1))

    def forward(self, x):
        for block in self.blocks:
            x = block(x, self.mask)
        return x


class Encoder(torch.nn.Module):
    """Ends in a concatenation, as RAFT's motion encoder does."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.cat([self.fc(x), x], dim=1)


class Concatenates(torch.nn.Module):
    """Concatenates its child's concatenation at once, as RAFT's update block does."""

    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.out = torch.nn.Linear(12, 4)

    def forward(self, x):
        return self.out(torch.cat([x, self.encoder(x)], dim=1))


class ExportsWhatEagerRuns(WithMaps):
    """torch.onnx's TorchScript passes rewrote what the model runs: the common-subexpression
    pass kept one of two layers' identical computations (nn.TransformerEncoder's masks) and the
    peephole pass merged a module's closing concatenation into its parent's (RAFT). A placement
    putting the modules apart then sent tensors eager PyTorch does not send."""

    def routed(self, model, x, name, plan):
        path, modules = self.exported(model, x, name)
        with torch.no_grad():
            before = model(x)
            post_torch.apply(model, self.torch_map(plan), {d: "cpu" for d in set(plan.values())})
            self.assertTrue(torch.allclose(model(x), before, atol=1e-6))
        sent = Counter((source, to) for source, to, _ in post_torch.transfers(model) if source is not None)
        return modules, sent, cut_edges(path, lambda _node, module: label_of(plan, module))

    def test_a_concatenation_of_a_concatenation_stays_two(self):
        try:
            import onnx  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e} (install python3-onnx; scripts/dev does)")
        torch.manual_seed(0)
        plan = {"": "G0", "encoder": "G1", "encoder.fc": "G1", "out": "G0"}
        modules, sent, expected = self.routed(Concatenates(), torch.randn(2, 4), "concat.onnx", plan)
        self.assertEqual(sorted(module for node, module in modules.items() if "Concat" in node), ["", "encoder"])
        self.assertEqual(sent, expected)

    def test_identical_computations_of_two_modules_stay_two(self):
        try:
            import onnx  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e} (install python3-onnx; scripts/dev does)")
        torch.manual_seed(0)
        plan = {"": "G0", "blocks.0": "G1", "blocks.0.fc": "G1", "blocks.1": "G2", "blocks.1.fc": "G2"}
        modules, sent, expected = self.routed(Masked(), torch.randn(2, 4, 4), "masked.onnx", plan)
        self.assertEqual({module for node, module in modules.items() if "Unsqueeze" in node}, {"blocks.0", "blocks.1"})
        self.assertEqual(sent, expected)


class Tied(torch.nn.Module):
    """A language model's tied embedding and output weights: one Parameter held by two modules."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 8)
        self.mid = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 10, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, x):
        return self.head(torch.relu(self.mid(self.emb(x))))


class Block(torch.nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.pre = torch.nn.Linear(8, 8)
        self.shared = shared

    def forward(self, x):
        return self.shared(torch.relu(self.pre(x)))


class Shared(torch.nn.Module):
    """One Linear reachable by two paths, 'a.shared' and 'b.shared' (named_modules() lists only the first)."""

    def __init__(self):
        super().__init__()
        shared = torch.nn.Linear(8, 8)
        self.a = Block(shared)
        self.b = Block(shared)

    def forward(self, x):
        return self.b(self.a(x))


class SharedTensorsAndModules(WithMaps):
    """Tied weights stay one Parameter; a module reachable by two paths is found under both; either
    on two devices is refused with the model unchanged."""

    def setUp(self):
        super().setUp()
        torch.manual_seed(0)

    def test_tied_weights_stay_tied_on_one_device(self):
        x = torch.randint(0, 10, (3, 5))
        for target in ("cpu", "meta"):
            with self.subTest(target):
                model = Tied()
                weight = model.emb.weight
                with torch.no_grad():
                    expected = model(x)
                path = self.torch_map({"emb": GPU0, "mid": GPU1, "head": GPU0})
                post_torch.apply(model, path, {GPU0: target, GPU1: "cpu"})
                self.assertIs(model.head.weight, model.emb.weight)
                self.assertEqual(model.emb.weight.device.type, target)
                self.assertEqual(len(list(model.parameters())), 3)  # emb.weight, mid.weight, mid.bias
                if target == "cpu":
                    self.assertIs(model.emb.weight, weight)  # already there: the same object
                    self.assertTrue(torch.equal(model(x), expected.detach()))
                    # One gradient, summed over both uses, as in the unplaced model.
                    reference = Tied()
                    reference.load_state_dict(model.state_dict())
                    reference(x).sum().backward()
                    model(x).sum().backward()
                    self.assertTrue(torch.allclose(model.emb.weight.grad, reference.emb.weight.grad))

    def test_tied_weights_on_two_devices_are_refused(self):
        path = self.torch_map({"emb": GPU0, "mid": GPU0, "head": GPU1})
        for first, second in (("cpu", "meta"), ("meta", "cpu")):
            with self.subTest(emb=first, head=second):
                model = Tied()
                before = state(model)
                with self.assertRaises(post_torch.PlacementError) as raised:
                    post_torch.apply(model, path, {GPU0: first, GPU1: second})
                message = str(raised.exception)
                self.assertIn(path, message)
                self.assertIn("parameter 'emb.weight' is also 'head.weight' (tied weights)", message)
                self.assertIn(f"module 'emb' runs on '{GPU0}' ({first})", message)
                self.assertIn(f"module 'head' on '{GPU1}' ({second})", message)
                self.assertIs(model.head.weight, model.emb.weight)
                tensors, hooks = state(model)
                self.assertEqual(hooks, before[1])
                self.assertEqual({k: v[:2] for k, v in tensors.items()}, {k: v[:2] for k, v in before[0].items()})

    def test_a_module_reachable_by_two_paths_is_found_under_both(self):
        x = torch.randn(3, 8)
        for target in ("cpu", "meta"):
            with self.subTest(target):
                model = Shared()
                with torch.no_grad():
                    expected = model(x)
                path = self.torch_map({"a.pre": GPU0, "a": GPU1, "a.shared": GPU1, "b.pre": GPU0, "b": GPU1,
                                       "b.shared": GPU1})
                homes = post_torch.resolve(model, post_torch.load_plan(path), {GPU0: "cpu", GPU1: target})
                self.assertEqual(homes["a.shared"], homes["b.shared"])
                post_torch.apply(model, path, {GPU0: "cpu", GPU1: target})
                self.assertIs(model.a.shared, model.b.shared)
                self.assertEqual(model.a.shared.weight.device.type, target)
                self.assertEqual(len(model.a.shared._forward_pre_hooks), 1)  # hooked once, not once a path
                if target == "cpu":
                    with torch.no_grad():
                        self.assertTrue(torch.equal(model(x), expected))

    def test_a_module_reachable_by_two_paths_on_two_devices_is_refused(self):
        cases = {
            "named": ({"a.pre": GPU0, "a": GPU0, "a.shared": GPU0, "b.pre": GPU0, "b": GPU0, "b.shared": GPU1},
                      f"module 'a.shared' is also 'b.shared' (one module reachable by two paths) and would run on "
                      f"'{GPU0}' (cpu) as 'a.shared' and on '{GPU1}' (meta) as 'b.shared'"),
            "inherited": ({"a.pre": GPU0, "a": GPU0, "b.pre": GPU1, "b": GPU1},
                          f"on '{GPU1}' (meta, from its parent) as 'b.shared'"),
            "parents": ({"a.pre": GPU0, "a": GPU0, "a.shared": GPU0, "b.pre": GPU1, "b": GPU1, "b.shared": GPU0},
                        "its parents 'a' and 'b', which have ops of their own, run on"),
        }
        for name, (modules, pattern) in cases.items():
            with self.subTest(name):
                model = Shared()
                before = state(model)
                path = self.torch_map(modules)
                with self.assertRaises(post_torch.PlacementError) as raised:
                    post_torch.apply(model, path, {GPU0: "cpu", GPU1: "meta"})
                self.assertIn(path, str(raised.exception))
                self.assertIn(pattern, str(raised.exception))
                tensors, hooks = state(model)
                self.assertEqual(hooks, before[1])
                self.assertEqual({k: v[:2] for k, v in tensors.items()}, {k: v[:2] for k, v in before[0].items()})

    def test_the_export_sidecar_of_a_shared_module_applies(self):
        try:
            import onnx  # noqa: F401
        except ImportError:
            self.skipTest("onnx is missing")
        model, x = Shared(), torch.randn(3, 8)
        with torch.no_grad():
            expected = model(x)
        onnx_path, modules = self.exported(model, x, "shared.onnx")
        self.assertEqual(modules.get("/b/shared/Gemm"), "b.shared")
        placement = os.path.join(self.tmp.name, "placement.json")
        with open(placement, "w") as f:
            json.dump({"format": "post-placement/1", "modules": modules,
                       "placement": {op: GPU1 if "shared" in op else GPU0 for op in modules}}, f)
        post_torch.apply(model, placement, {GPU0: "cpu", GPU1: "cpu"})
        with torch.no_grad():
            self.assertTrue(torch.equal(model(x), expected))


class PlacementOfAnotherModel(WithMaps):
    """A placement that leaves modules with parameters or buffers out warns; one naming none of the
    model's modules is refused."""

    def setUp(self):
        super().setUp()
        self.model = Net()

    def test_modules_left_out_are_counted_and_named(self):
        path = self.torch_map({"": GPU0, "a": GPU0, "b": GPU1})
        with self.assertWarnsRegex(post_torch.PlacementWarning,
                                   r"1 of the 3 modules with parameters or buffers of the model \(Net\) are not "
                                   r"in the placement and run where their parent runs: 'bn'; a placement of another "
                                   r"model"):
            post_torch.apply(self.model, path, {GPU0: "cpu", GPU1: "cpu"})
        with self.assertWarns(UserWarning):  # PlacementWarning is a UserWarning, as filters expect
            post_torch.resolve(Net(), post_torch.load_plan(path), {GPU0: "cpu", GPU1: "cpu"})

    def test_a_placement_naming_every_module_with_tensors_does_not_warn(self):
        path = self.torch_map({"a": GPU0, "bn": GPU0, "b": GPU1})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            post_torch.apply(self.model, path, {GPU0: "cpu", GPU1: "cpu"})
        self.assertEqual([str(w.message) for w in caught], [])

    def test_attentions_out_proj_is_not_missed(self):
        # nn.MultiheadAttention uses out_proj's weight in a function call, so no export gives
        # out_proj an op and no placement names it: not a sign of another model (ViT-B/16).
        model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.MultiheadAttention(8, 2))
        path = self.torch_map({"0": GPU0, "1": GPU1})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            post_torch.apply(model, path, {GPU0: "cpu", GPU1: "cpu"})
        self.assertEqual([str(w.message) for w in caught], [])
        self.assertTrue(hasattr(model[1], "out_proj"))  # it is there, and owns a weight

    def test_a_placement_naming_none_of_the_models_modules_is_refused(self):
        path = self.torch_map({"": GPU0, "conv1": GPU0, "layer1.0.conv1": GPU1, "fc": GPU1})
        before = state(self.model)
        with self.assertRaisesRegex(post_torch.PlacementError,
                                    r"none of the placement's 3 modules is in the model \(Net\): 'conv1', "
                                    r"'layer1.0.conv1', 'fc'; is it a placement of another model\?"):
            post_torch.apply(self.model, path, {GPU0: "cpu", GPU1: "cpu"})
        self.assertEqual(state(self.model)[1], before[1])

    def test_resnet18s_placement_on_resnet34_warns(self):
        try:
            import torchvision
        except ImportError:
            self.skipTest("torchvision is missing")
        r18, r34 = torchvision.models.resnet18(), torchvision.models.resnet34()
        owning = [p for p, m in r18.named_modules() if any(True for _ in m.parameters(recurse=False))]
        path = self.torch_map({p: GPU0 for p in [""] + owning})
        with self.assertWarnsRegex(post_torch.PlacementWarning, r"32 of the 73 modules with parameters or buffers "
                                   r"of the model \(ResNet\) are not in the placement .*'layer1.2.conv1'"):
            post_torch.apply(r34, path, {GPU0: "cpu"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
