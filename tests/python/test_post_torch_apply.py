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
    hooks = {path: (len(m._forward_pre_hooks), len(m._forward_hooks)) for path, m in model.named_modules()}
    return tensors, hooks


class ApplyIsAllOrNothing(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.tmp = tempfile.TemporaryDirectory()
        self.model = Net().eval()
        self.x = torch.randn(3, 8)
        with torch.no_grad():
            self.expected = self.model(self.x)

    def tearDown(self):
        self.tmp.cleanup()

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
        for path, module in self.model.named_modules():
            self.assertEqual(len(module._forward_pre_hooks), 1, path)
        with torch.no_grad():
            self.assertTrue(torch.allclose(self.model(self.x), self.expected, atol=1e-6))

    def test_parameters_already_on_their_device_keep_their_identity(self):
        weight = self.model.a.weight
        post_torch.apply(self.model, self.torch_map({"a": GPU0}), {GPU0: "cpu"})
        self.assertIs(self.model.a.weight, weight)  # an optimizer holding it still trains the model


if __name__ == "__main__":
    unittest.main(verbosity=2)
