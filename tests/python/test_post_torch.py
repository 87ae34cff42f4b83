"""post_torch on real torchvision networks, on the CPU (Debian's python3-torch 1.13).

Run by CTest as python/test_post_torch (and python/test_post_torch_vit for the slow ViT case);
skips with exit code 77 where torch or torchvision is missing. Needs POST_CLI (post-cli).
"""

import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import warnings
from collections import Counter

try:
    import torch
    import torchvision
except ImportError as e:  # pragma: no cover - the skip path
    print(f"SKIP: {e} (install python3-torch and python3-torchvision; scripts/dev does)")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(__file__))
import post_torch  # noqa: E402
from test_post_torch_apply import cut_edges  # noqa: E402

CLI = os.environ.get("POST_CLI", "post-cli")
CLUSTER = "k80x4"
DEVICES = ["/device:CPU:0"] + [f"/device:GPU:{i}" for i in range(4)]


def cli(*args):
    run = subprocess.run([CLI, *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise AssertionError(f"post-cli {' '.join(args)} exited {run.returncode}: {run.stderr}")
    return run.stdout


class ExportPlaceApply:
    """The round trip for one torchvision network; subclasses set `name` and `inputs`."""

    name = None
    batch = 2
    spread = False  # whether m-etf puts the network on more than one device
    joins_modules = False  # whether a module has ops in two colocation groups (a ReLU called twice)
    profile = False
    export_params = True

    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = getattr(torchvision.models, cls.name)().eval()
        cls.x = torch.randn(cls.batch, 3, 224, 224)
        cls.onnx = os.path.join(cls.tmp.name, cls.name + ".onnx")
        cls.written = post_torch.export(cls.model, (cls.x,), cls.onnx, profile=cls.profile,
                                        export_params=cls.export_params)
        with torch.no_grad():
            cls.unplaced = cls.model(cls.x)  # what every applied model must compute
        cls.placement = os.path.join(cls.tmp.name, "placement.json")
        # m-etf: a real placer that spreads a graph over several GPUs in well under a second.
        cli("place", cls.onnx, "--cluster", CLUSTER, "--algo", "m-etf", "--out", cls.placement)
        with open(cls.placement, encoding="utf-8") as f:
            cls.doc = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def torch_map(self, modules):
        path = os.path.join(self.tmp.name, "map-of-the-test.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"format": "post-torch-map/1", "modules": modules}, f)
        return path

    def test_sidecar_maps_every_node_to_a_module_of_the_model(self):
        with open(self.onnx + ".modules.json", encoding="utf-8") as f:
            sidecar = json.load(f)
        self.assertEqual(sidecar["format"], "post-torch-modules/1")
        named = dict(self.model.named_modules())
        for node, module in sidecar["modules"].items():
            self.assertIn(module, named, f"node {node}")
        # Most nodes belong to a module below the root (the root holds only functional code).
        below_root = sum(1 for m in sidecar["modules"].values() if m)
        self.assertGreater(below_root, 0.5 * len(sidecar["modules"]))

    def test_placement_carries_the_module_of_every_forward_op(self):
        modules = self.doc.get("modules")
        self.assertIsInstance(modules, dict)
        named = dict(self.model.named_modules())
        for op, module in modules.items():
            self.assertIn(module, named, f"op {op}")
            self.assertIn(op, self.doc["placement"])
        # Backward ops carry the module of their forward op.
        grads = [op for op in modules if op.endswith("/grad")]
        self.assertTrue(grads)
        for op in grads:
            self.assertEqual(modules[op], modules[op[: -len("/grad")]])

    def test_applied_model_computes_what_the_unplaced_model_does(self):
        expected = self.unplaced
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            placed = post_torch.apply(copy.deepcopy(self.model), self.placement, {d: "cpu" for d in DEVICES})
        # The model's own placement names every module with parameters or buffers.
        self.assertEqual([str(w.message) for w in caught if issubclass(w.category, post_torch.PlacementWarning)], [])
        got = placed(self.x)
        self.assertEqual(got.shape, expected.shape)
        self.assertLessEqual((got - expected).abs().max().item(), 1e-5)
        # Each op ran where the placement puts it and each tensor went straight to each other
        # device that reads it: the forward's transfers are the placement's cut edges, no more.
        sent = Counter((s, t) for s, t, _ in post_torch.transfers(placed) if s is not None)
        expected_sent = cut_edges(self.onnx, lambda node, _module: self.doc["placement"].get(node))
        if self.spread:
            self.assertGreater(sum(expected_sent.values()), 0)  # m-etf spreads this network
        self.assertEqual(sent, expected_sent)

    def test_modules_on_alternating_gpus_send_only_the_cut_edges(self):
        """Every module with ops on another GPU than the one before it: the hooks apply used
        before sent tensors through parents and containers; now each goes straight."""
        plan = {module: DEVICES[1 + i % 4] for i, module in enumerate(post_torch.load_plan(self.placement))}
        placed = post_torch.apply(copy.deepcopy(self.model), self.torch_map(plan), {d: "cpu" for d in DEVICES})
        with torch.no_grad():
            got = placed(self.x)
        self.assertLessEqual((got - self.unplaced).abs().max().item(), 1e-5)
        sent = Counter((s, t) for s, t, _ in post_torch.transfers(placed) if s is not None)
        placed_ops = self.doc["placement"]  # the graph's ops: no ONNX Constant, a literal in PyTorch
        expected = cut_edges(self.onnx, lambda node, module: plan.get(module) if node in placed_ops else None)
        self.assertGreater(sum(expected.values()), len(plan) // 2)
        self.assertEqual(sent, expected)

    def test_plan_follows_the_placement(self):
        plan = post_torch.load_plan(self.placement)
        homes = post_torch.resolve(self.model, plan, {d: "cpu" for d in DEVICES})
        self.assertEqual(set(homes), {p for p, _ in self.model.named_modules()})
        # Every module the placement gives ops to gets the device most of its ops have.
        for module, device in plan.items():
            ops = [op for op, m in self.doc["modules"].items() if m == module]
            devices = [self.doc["placement"][op] for op in ops]
            self.assertEqual(devices.count(device), max(devices.count(d) for d in set(devices)), module)

    def test_compare_places_each_module_on_one_device_as_place_does(self):
        run = subprocess.run([CLI, "compare", self.onnx, "--cluster", CLUSTER, "--algos", "m-etf", "--json"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        if self.joins_modules:
            self.assertIn("each PyTorch module's ops are placed together", run.stderr)
        row = json.loads(run.stdout)["results"][0]
        self.assertAlmostEqual(row["best_step_time_ms"] * 1000.0, self.doc["step_time_us"], places=3)

    def test_torch_map_from_the_cli_gives_the_same_plan(self):
        out = os.path.join(self.tmp.name, "map.json")
        cli("export-placement", self.placement, "--to", "torch", "--out", out)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["format"], "post-torch-map/1")
        self.assertEqual(post_torch.load_plan(out), post_torch.load_plan(self.placement))

    def test_a_module_the_model_lacks_is_named(self):
        doc = copy.deepcopy(self.doc)
        op = next(iter(doc["modules"]))
        doc["modules"][op] = "no_such.block"
        bad = os.path.join(self.tmp.name, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(post_torch.PlacementError, "module 'no_such.block' is not in the model"):
            post_torch.apply(copy.deepcopy(self.model), bad, {d: "cpu" for d in DEVICES})

    def test_a_device_the_map_lacks_is_named(self):
        used = set(self.doc["placement"].values())
        missing = sorted(used)[0]
        partial = {d: "cpu" for d in DEVICES if d != missing}
        with self.assertRaisesRegex(post_torch.PlacementError, f"device '{missing}'"):
            post_torch.apply(copy.deepcopy(self.model), self.placement, partial)


class ResNet18(ExportPlaceApply, unittest.TestCase):
    name = "resnet18"
    profile = True
    spread = True
    joins_modules = True

    def test_profile_matches_at_least_95_percent_of_the_ops(self):
        with open(self.onnx + ".costs.json", encoding="utf-8") as f:
            costs = json.load(f)
        self.assertEqual(costs["format"], "post-costs/1")
        with open(self.onnx + ".modules.json", encoding="utf-8") as f:
            nodes = json.load(f)["modules"]
        matched = len(costs["forward_us"])
        self.assertGreaterEqual(matched, 0.95 * len(nodes), costs["unmatched"])
        # The fastest of the passes, in whole microseconds: a sub-microsecond op may take 0.
        self.assertTrue(all(us >= 0 for us in costs["forward_us"].values()))
        self.assertGreater(sum(costs["forward_us"].values()), 0)
        self.assertIn("fastest of 3 forward passes", costs["measured_by"])
        self.assertEqual(costs["x-inputs"], [[self.batch, 3, 224, 224]])

    def cli_matched(self, costs_file):
        """post-cli's own report of --costs: (matched, forward ops)."""
        run = subprocess.run([CLI, "simulate", self.onnx, "--cluster", CLUSTER, "--all-on", "/device:CPU:0",
                              "--costs", costs_file], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        match = re.search(r"measured CPU times for (\d+) of (\d+) forward ops", run.stderr)
        self.assertIsNotNone(match, run.stderr)
        return int(match.group(1)), int(match.group(2))

    def test_cli_imports_the_profile_and_a_plain_chrome_trace(self):
        matched, total = self.cli_matched(self.onnx + ".costs.json")
        self.assertGreaterEqual(matched, 0.95 * total)
        # A trace as a user records it, without post_torch's module ranges.
        trace = os.path.join(self.tmp.name, "trace.json")
        with torch.no_grad():
            self.model(self.x)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                self.model(self.x)
        prof.export_chrome_trace(trace)
        matched, total = self.cli_matched(trace)
        self.assertGreaterEqual(matched, 0.95 * total)

    def test_cli_refuses_the_profile_at_another_input_shape(self):
        # The profile records the shapes it ran at: a graph read at 4x the batch is refused, not
        # given the small batch's times; --costs-partial takes them with a note.
        shape = f"{self.graph_input()}={4 * self.batch},3,224,224"
        run = subprocess.run([CLI, "info", self.onnx, "--input-shape", shape, "--costs", self.onnx + ".costs.json"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn(f"x-inputs: profiled with input 0 of {self.batch}x3x224x224, but the graph's is "
                      f"{4 * self.batch}x3x224x224", run.stderr)
        run = subprocess.run([CLI, "info", self.onnx, "--input-shape", shape, "--costs", self.onnx + ".costs.json",
                              "--costs-partial"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("taken as they are (--costs-partial)", run.stderr)

    def graph_input(self):
        """The ONNX graph's one data input's name, as --input-shape takes it (python3-onnx)."""
        import onnx
        return onnx.load(self.onnx).graph.input[0].name


class MobileNetV3Small(ExportPlaceApply, unittest.TestCase):
    name = "mobilenet_v3_small"


class EvalExport(unittest.TestCase):
    """An export with training=False folds each BatchNorm into the Conv before it: the placement
    names no BatchNorm, and apply runs each with its Conv, without a warning, so the forward
    sends only the placement's cut edges."""

    def test_folded_batchnorms_run_with_their_convolutions(self):
        torch.manual_seed(0)
        model = torchvision.models.resnet18().eval()
        x = torch.randn(2, 3, 64, 64)
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.onnx's own notes
            onnx_path = os.path.join(tmp, "eval.onnx")
            post_torch.export(model, (x,), onnx_path, training=False)
            with open(onnx_path + ".modules.json", encoding="utf-8") as f:
                modules = list(dict.fromkeys(json.load(f)["modules"].values()))
            self.assertFalse(any(m.endswith("bn1") for m in modules))  # folded away
            plan = {module: DEVICES[1 + i % 4] for i, module in enumerate(modules)}
            map_path = os.path.join(tmp, "map.json")
            with open(map_path, "w", encoding="utf-8") as f:
                json.dump({"format": "post-torch-map/1", "modules": plan}, f)
            with torch.no_grad():
                expected = model(x)
            warnings.simplefilter("error", post_torch.PlacementWarning)
            placed = post_torch.apply(copy.deepcopy(model), map_path, {d: "cpu" for d in DEVICES})
            with torch.no_grad():
                got = placed(x)
            placed_path = os.path.join(tmp, "placement.json")
            cli("place", onnx_path, "--cluster", CLUSTER, "--algo", "m-etf", "--out", placed_path)
            with open(placed_path, encoding="utf-8") as f:
                ops = json.load(f)["placement"]  # the graph's ops: no Constant, no Identity of a weight
            edges = cut_edges(onnx_path, lambda node, module: plan.get(module) if node in ops else None)
        self.assertLessEqual((got - expected).abs().max().item(), 1e-5)
        sent = Counter((s, t) for s, t, _ in post_torch.transfers(placed) if s is not None)
        self.assertGreater(sum(edges.values()), 20)
        self.assertEqual(sent, edges)


if os.environ.get("POST_TORCH_VIT") == "1":
    class VitB16(ExportPlaceApply, unittest.TestCase):
        name = "vit_b_16"
        batch = 1
        export_params = False  # 330 MB of weights would only slow the test down


if __name__ == "__main__":
    unittest.main(verbosity=2)
