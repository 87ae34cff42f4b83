"""post_torch.export on small models on the CPU: what it leaves behind.

The model is exactly as it was after an export (values of every parameter and buffer, requires_grad,
.grad, every submodule's training flag), with and without profile, for models in eval and in train
mode; stochastic depth exports as the identity in training mode, and adaptive pooling whose
output size does not divide the input's as average pooling. Run by CTest as
python/test_post_torch_export with Debian's python3-torch; needs no post-cli; skips with exit code
77 where torch or onnx is missing.
"""

import copy
import json
import os
import sys
import tempfile
import unittest
import warnings

try:
    import onnx  # noqa: F401 - export needs it
    import torch
except ImportError as e:  # pragma: no cover - the skip path
    print(f"SKIP: {e} (install python3-torch and python3-onnx; scripts/dev does)")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import post_torch  # noqa: E402


class Net(torch.nn.Module):
    """BatchNorm (running statistics and a counter), Dropout (random numbers) and a frozen part."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.frozen_bn = torch.nn.BatchNorm2d(8)
        self.drop = torch.nn.Dropout(0.5)
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.frozen_bn(self.bn(self.conv(x))))
        return self.fc(self.drop(x.mean((2, 3))))


def bits(t):
    """The bytes of a tensor (bit-identical, NaN or not)."""
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


def snapshot(model):
    """Each state entry's identity and bits, requires_grad and .grad (identity and bits), and every
    module's training flag."""
    tensors = {}
    for name, t in model.state_dict(keep_vars=True).items():
        grad = t.grad
        tensors[name] = (id(t), t.detach().clone(), t.requires_grad, id(grad) if grad is not None else None,
                         grad.clone() if grad is not None else None)
    flags = {path: m.training for path, m in model.named_modules()}
    return tensors, flags


def export_saying(about, model, args, path, **options):
    """Exports `model` and returns the messages of the warnings it gave that mention `about`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post_torch.export(model, args, path, **options)
    return [str(w.message) for w in caught if about in str(w.message)]


class ExportLeavesTheModelAsItWas(unittest.TestCase):
    def setUp(self):
        warnings.simplefilter("ignore")
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "net.onnx")

    def tearDown(self):
        self.tmp.cleanup()

    def assertSame(self, before, after):
        self.assertEqual(after[1], before[1], "training flags")
        self.assertEqual(after[0].keys(), before[0].keys())
        for name, (ident, value, requires_grad, grad_id, grad) in after[0].items():
            b = before[0][name]
            self.assertEqual(ident, b[0], f"{name}: another tensor object")
            self.assertEqual(value.dtype, b[1].dtype, name)
            self.assertTrue(torch.equal(bits(value), bits(b[1])), f"{name}: values changed")
            self.assertEqual(requires_grad, b[2], f"{name}: requires_grad")
            self.assertEqual(grad_id, b[3], f"{name}: .grad object")
            if grad is not None:
                self.assertTrue(torch.equal(grad, b[4]), f"{name}: .grad values")

    def outputs(self, model, x):
        """The model's output, computed on a copy (a train-mode forward changes BatchNorm's
        statistics) with the same random numbers."""
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(1)
            return copy.deepcopy(model)(x).detach()

    def check(self, model, x, **kwargs):
        before, out = snapshot(model), self.outputs(model, x)
        example = torch.randn_like(x)
        rng = torch.random.get_rng_state()
        written = post_torch.export(model, (example,), self.path, **kwargs)
        self.assertIn(self.path + ".modules.json", written)
        self.assertEqual(self.path + ".costs.json" in written, bool(kwargs.get("profile")))
        self.assertSame(before, snapshot(model))
        self.assertTrue(torch.equal(self.outputs(model, x), out), "output changed")
        self.assertTrue(torch.equal(torch.random.get_rng_state(), rng), "torch's random number state changed")

    def small(self, train):
        torch.manual_seed(0)
        model = Net().train(train)
        with torch.no_grad():  # "pretrained": statistics that random inputs would move
            model.bn.running_mean.uniform_(-1, 1)
            model.bn.running_var.uniform_(0.5, 2)
            model.bn.num_batches_tracked.fill_(1000)
        if train:  # fine-tuning: a frozen BatchNorm in eval mode, frozen weights, gradients of a step
            model.frozen_bn.eval()
            model.frozen_bn.weight.requires_grad_(False)
            model(torch.randn(2, 3, 16, 16)).sum().backward()
        return model

    def test_eval_model_without_profile(self):
        self.check(self.small(False), torch.randn(2, 3, 16, 16), profile=False)

    def test_eval_model_with_profile(self):
        self.check(self.small(False), torch.randn(2, 3, 16, 16), profile=True)

    def test_train_model_without_profile(self):
        model = self.small(True)
        self.assertIsNotNone(model.conv.weight.grad)
        self.check(model, torch.randn(2, 3, 16, 16), profile=False)

    def test_train_model_with_profile(self):
        self.check(self.small(True), torch.randn(2, 3, 16, 16), profile=True)

    def test_eval_export_of_a_train_model(self):
        self.check(self.small(True), torch.randn(2, 3, 16, 16), training=False)

    def test_resnet18_eval_and_train_with_profile(self):
        try:
            import torchvision
        except ImportError:
            self.skipTest("torchvision is missing")
        for train in (False, True):
            with self.subTest(train=train):
                torch.manual_seed(0)
                model = torchvision.models.resnet18().train(train)
                self.check(model, torch.randn(2, 3, 64, 64), profile=True)

    def test_what_a_forward_keeps_on_its_modules_is_put_back(self):
        """A forward that keeps what it computed (RAFT's correlation block keeps its pyramid):
        the export's trace left those tensors behind, holding its autograd graph, and the model
        no longer deep-copied. Attributes the forward sets go, and those it changes come back."""

        class Keeps(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)
                self.note = "as it was"

            def forward(self, x):
                y = self.fc(x)
                self.pyramid = [y, 2 * y]
                self.note = "changed by a forward"
                return y

        model = Keeps()
        self.check(model, torch.randn(2, 4))
        self.assertFalse(hasattr(model, "pyramid"))
        self.assertEqual(model.note, "as it was")
        copy.deepcopy(model)  # raised "Only Tensors created explicitly by the user ..." before

    def test_a_training_step_onnx_cannot_hold_points_to_execution_traces(self):
        """torchvision's detection models sample proposals with torch.randperm in training,
        which torch.onnx cannot export: the error says what reads such a step instead."""

        class Samples(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(8, 4)

            def forward(self, x):
                picked = torch.randperm(x.shape[0])[:2] if self.training else torch.arange(2)
                return self.fc(x[picked])

        model = Samples()
        before = snapshot(model)
        with self.assertRaises(post_torch.ExportError) as caught:
            post_torch.export(model, (torch.randn(6, 8),), self.path)
        message = str(caught.exception)
        self.assertIn("Samples does not export to ONNX in training mode", message)
        self.assertIn("randperm", message)
        self.assertIn("ExecutionGraphObserver", message)
        self.assertIn("bench/record_training_step.py", message)
        self.assertSame(before, snapshot(model))
        # In eval mode it exports.
        post_torch.export(model, (torch.randn(6, 8),), self.path, training=False)
        self.assertTrue(os.path.exists(self.path))

    def test_a_failed_export_leaves_the_model_as_it_was_too(self):
        model = self.small(True)
        before = snapshot(model)
        with self.assertRaises(Exception):
            post_torch.export(model, (torch.randn(2, 5, 16, 16),), self.path)  # 5 channels: the conv fails
        self.assertSame(before, snapshot(model))


class DropPath(torch.nn.Module):
    """timm's stochastic depth, as timm writes it: an in-place Bernoulli draw per sample."""

    def __init__(self, drop_prob):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep = 1 - self.drop_prob
        mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
        return x * mask / keep


class Residual(torch.nn.Module):
    """Two residual branches, one behind torchvision's StochasticDepth (EfficientNet's, ConvNeXt's)
    and one behind DropPath."""

    def __init__(self, depth):
        super().__init__()
        self.a = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.b = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.depth = depth
        self.drop = DropPath(0.3)

    def forward(self, x):
        x = x + self.depth(self.a(x))
        return x + self.drop(self.b(x))


class StochasticDepthExportsAsTheIdentity(unittest.TestCase):
    """torch 1.13's exporter refuses the in-place Bernoulli draw of stochastic depth in training
    mode (EfficientNet and ConvNeXt failed to export): post_torch exports those modules as the
    identity, says so, and leaves the model as it was."""

    def test_training_export_of_stochastic_depth(self):
        try:
            from torchvision.ops import StochasticDepth
        except ImportError:
            self.skipTest("torchvision is missing")
        torch.manual_seed(0)
        model = Residual(StochasticDepth(0.2, "row")).train()
        before = snapshot(model)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "residual.onnx")
            said = export_saying("stochastic-depth", model, (torch.randn(2, 4, 8, 8),), path)
            self.assertEqual(len(said), 1, said)
            self.assertIn("2 stochastic-depth module(s)", said[0])
            kinds = {node.op_type for node in onnx.load(path).graph.node}
            self.assertNotIn("Bernoulli", kinds)
            self.assertNotIn("RandomUniformLike", kinds)
            self.assertIn("Conv", kinds)
        self.assertEqual(model.depth.p, 0.2)
        self.assertEqual(model.drop.drop_prob, 0.3)
        self.assertEqual(snapshot(model)[1], before[1], "training flags")

    def test_dropout_between_recurrent_layers(self):
        """torch 1.13 refuses an LSTM's dropout between its layers in training mode ("ONNX export
        of operator RNN/GRU/LSTM, dropout in training mode"): it exports as none, said so, and
        the model keeps it."""

        class LanguageModel(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = torch.nn.Embedding(50, 16)
                self.rnn = torch.nn.LSTM(16, 16, 2, batch_first=True, dropout=0.5)
                self.out = torch.nn.Linear(16, 50)

            def forward(self, ids):
                return self.out(self.rnn(self.embed(ids))[0])

        model = LanguageModel().train()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "lm.onnx")
            said = export_saying("recurrent", model, (torch.randint(0, 50, (4, 7)),), path)
            self.assertEqual(len(said), 1, said)
            self.assertIn("1 recurrent module(s) (LSTM, p = 0.5)", said[0])
            self.assertIn("LSTM", {node.op_type for node in onnx.load(path).graph.node})
        self.assertEqual(model.rnn.dropout, 0.5)
        self.assertTrue(model.rnn.training)

    def test_an_inference_export_says_nothing(self):
        model = Residual(DropPath(0.2)).train()
        with tempfile.TemporaryDirectory() as tmp:
            said = export_saying("stochastic-depth", model, (torch.randn(2, 4, 8, 8),), os.path.join(tmp, "r.onnx"),
                                 training=False)
        self.assertFalse(said)
        self.assertEqual(model.depth.drop_prob, 0.2)


class AuxHead(torch.nn.Module):
    """GoogLeNet's auxiliary classifier in small: a functional adaptive pooling of 14x14 to 4x4
    (4 does not divide 14), and a module one of 14x14 to 7x7 (7 does)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d((7, 7))
        self.fc = torch.nn.Linear(4 * 16 + 4 * 49, 2)

    def forward(self, x):
        x = self.conv(x)
        aux = torch.nn.functional.adaptive_avg_pool2d(x, (4, 4))
        return self.fc(torch.cat([torch.flatten(aux, 1), torch.flatten(self.pool(x), 1)], 1))


class AdaptivePoolingExportsWhereItDoesNotDivide(unittest.TestCase):
    """torch.onnx refuses adaptive average pooling whose output size does not divide the input's
    (torchvision's GoogLeNet, whose auxiliary classifiers run in training mode, failed to
    export): post_torch exports it as average pooling of the same output shape and says so."""

    def pooling(self, path):
        """(kernel, strides) of each AveragePool node of the ONNX file."""
        found = []
        for node in onnx.load(path).graph.node:
            if node.op_type == "AveragePool":
                ints = {a.name: list(a.ints) for a in node.attribute}
                found.append((ints["kernel_shape"], ints["strides"]))
        return found

    def test_an_output_size_that_does_not_divide(self):
        original = torch.nn.functional.adaptive_avg_pool2d
        model = AuxHead()
        x = torch.randn(2, 3, 14, 14)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "aux.onnx")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with self.assertRaises(Exception):  # what post_torch works around
                    torch.onnx.export(model, (x,), path, opset_version=17)
            said = export_saying("adaptive average pooling", model, (x,), path)
            self.assertEqual(len(said), 1, said)
            self.assertIn("1 adaptive average pooling call(s)", said[0])
            self.assertIn("1 of 14x14 -> 4x4 (kernel 5x5, stride 3x3)", said[0])
            # The 14 -> 4 pooling: a 5x5 window every 3 (4 outputs); 14 -> 7 is torch's own
            # (a 2x2 window every 2).
            self.assertEqual(sorted(self.pooling(path)), [([2, 2], [2, 2]), ([5, 5], [3, 3])])
            self.assertEqual([d.dim_value for d in onnx.load(path).graph.output[0].type.tensor_type.shape.dim],
                             [2, 2])
        self.assertIs(torch.nn.functional.adaptive_avg_pool2d, original)
        self.assertEqual(model(x).shape, (2, 2))

    def test_googlenet_with_its_auxiliary_classifiers(self):
        try:
            import torchvision
        except ImportError:
            self.skipTest("torchvision is missing")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torchvision's note on init_weights
            model = torchvision.models.googlenet(aux_logits=True, init_weights=False)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "googlenet.onnx")
            said = export_saying("adaptive average pooling", model, (torch.randn(2, 3, 224, 224),), path)
            self.assertEqual(len(said), 1, said)
            self.assertIn("2 of 14x14 -> 4x4 (kernel 5x5, stride 3x3)", said[0])
            with open(path + ".modules.json", encoding="utf-8") as f:
                modules = set(json.load(f)["modules"].values())
        self.assertTrue({"aux1.fc2", "aux2.fc2"} <= modules, "the auxiliary classifiers are in the step")


class SharedModule(torch.nn.Module):
    """One Linear reachable as 'a.1' and 'b.1' (named_modules() lists only the first)."""

    def __init__(self):
        super().__init__()
        shared = torch.nn.Linear(8, 8)
        self.a = torch.nn.Sequential(torch.nn.Linear(8, 8), shared)
        self.b = torch.nn.Sequential(torch.nn.Linear(8, 8), shared)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class ExportNamesEveryPathOfASharedModule(unittest.TestCase):
    def test_the_sidecars_and_the_profile_name_both_paths(self):
        warnings.simplefilter("ignore")
        import json
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "shared.onnx")
            post_torch.export(SharedModule(), (torch.randn(2, 8),), path, profile=True)
            with open(path + ".modules.json") as f:
                modules = json.load(f)["modules"]
            with open(path + ".costs.json") as f:
                costs = json.load(f)
        self.assertEqual(sorted(m for m in modules.values() if m.endswith(".1")), ["a.1", "b.1"])
        # Each call of the shared module is timed under the path it was called by.
        self.assertEqual(costs["unmatched"], [])
        self.assertEqual(set(costs["forward_us"]), set(modules))


class ExportsNet(unittest.TestCase):
    """A small eval-mode Net, an example batch and a path in a temporary folder to export to."""

    def setUp(self):
        warnings.simplefilter("ignore")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, "net.onnx")
        torch.manual_seed(0)
        self.model = Net().eval()
        self.x = torch.randn(2, 3, 16, 16)


class SidecarFiles(ExportsNet):
    """The sidecars' modes, and what is left in the folder."""

    def export(self, umask, **kwargs):
        old = os.umask(umask)
        try:
            return post_torch.export(self.model, (self.x,), self.path, **kwargs)
        finally:
            os.umask(old)

    def mode(self, suffix=""):
        return os.stat(self.path + suffix).st_mode & 0o777

    def test_new_sidecars_follow_the_umask_like_the_onnx(self):
        for umask, expected in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
            with self.subTest(umask=oct(umask)):
                for name in os.listdir(self.tmp.name):
                    os.unlink(os.path.join(self.tmp.name, name))
                self.export(umask, profile=True)
                self.assertEqual(self.mode(), expected)  # torch's own open()
                self.assertEqual(self.mode(".modules.json"), expected)
                self.assertEqual(self.mode(".costs.json"), expected)
                # Written through a temporary file and a rename: nothing else is left.
                self.assertEqual(sorted(os.listdir(self.tmp.name)),
                                 ["net.onnx", "net.onnx.costs.json", "net.onnx.modules.json"])

    def test_an_existing_sidecar_keeps_its_mode(self):
        self.export(0o022, profile=True)
        os.chmod(self.path + ".modules.json", 0o640)
        os.chmod(self.path + ".costs.json", 0o604)
        self.export(0o077, profile=True)
        self.assertEqual(self.mode(".modules.json"), 0o640)
        self.assertEqual(self.mode(".costs.json"), 0o604)


class AnEarlierProfileIsNotLeftBehind(ExportsNet):
    """export(profile=False) removes the costs sidecar an earlier export with profile=True wrote at
    that path, and only that file; anything else there is left, with a warning."""

    def export(self, batch, **kwargs):
        return post_torch.export(self.model, (torch.randn(batch, 3, 16, 16),), self.path, **kwargs)

    def test_export_without_profile_removes_the_earlier_profile(self):
        other = os.path.join(self.tmp.name, "other.onnx.costs.json")
        with open(other, "w") as f:
            f.write('{"format": "post-costs/1", "measured_by": "torch.profiler", "forward_us": {}}')
        self.export(1, profile=True)
        self.assertTrue(os.path.exists(self.path + ".costs.json"))
        written = self.export(8, profile=False)
        self.assertEqual(written, [self.path, self.path + ".modules.json"])
        self.assertFalse(os.path.exists(self.path + ".costs.json"))
        self.assertTrue(os.path.exists(other))  # only that exact sidecar
        self.export(8, profile=False)  # none there: nothing to do
        # A profile that fails (here: every forward after the trace's) leaves none either.
        self.export(1, profile=True)

        class Fails(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)
                self.calls = 0

            def forward(self, x):
                self.calls += 1
                if self.calls > 1:
                    raise RuntimeError("the profile's pass")
                return self.fc(x)

        with self.assertRaisesRegex(RuntimeError, "the profile's pass"):
            post_torch.export(Fails(), (torch.randn(2, 4),), self.path, profile=True)
        self.assertFalse(os.path.exists(self.path + ".costs.json"))

    def test_a_file_post_torch_did_not_write_is_left_with_a_warning(self):
        cases = {"trace": '{"traceEvents": []}', "hand-made": '{"format": "post-costs/1", "forward_us": {}}',
                 "not json": "times"}
        for name, text in cases.items():
            with self.subTest(name):
                with open(self.path + ".costs.json", "w") as f:
                    f.write(text)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    self.export(1, profile=False)
                self.assertTrue(any("is not a costs file an earlier post_torch.export wrote: left in place"
                                    in str(w.message) for w in caught), [str(w.message) for w in caught])
                with open(self.path + ".costs.json") as f:
                    self.assertEqual(f.read(), text)


class Profile(ExportsNet):
    """profile=True: the fastest of `profile_runs` passes per node, and the inputs' shapes."""

    def costs(self):
        import json
        with open(self.path + ".costs.json") as f:
            return json.load(f)

    def test_each_node_takes_its_fastest_pass(self):
        from unittest import mock
        from post_torch import profile
        passes = []  # one entry per profiled pass: _own_operators runs once a pass
        times = [30.0, 10.0, 20.0, 50.0, 40.0]  # a loaded machine: one pass slow, one fast

        def own_operators(events):
            passes.append(len(passes))
            return {}

        def match_module(nodes, _operators):
            return {name: times[passes[-1]] for name, _ in nodes}, []

        with mock.patch.object(profile, "_own_operators", own_operators), \
                mock.patch.object(profile, "_match_module", match_module):
            post_torch.export(self.model, (self.x,), self.path, profile=True, profile_runs=5)
        costs = self.costs()
        self.assertEqual(len(passes), 5)
        self.assertEqual(set(costs["forward_us"].values()), {10.0})
        self.assertIn("fastest of 5 forward passes", costs["measured_by"])

    def test_the_run_count_is_checked_and_the_inputs_recorded(self):
        for runs in (0, -1, 2.5, True, "3"):
            with self.subTest(runs=runs):
                with self.assertRaisesRegex(ValueError, "profile_runs must be a whole number >= 1"):
                    post_torch.export(self.model, (self.x,), self.path, profile=True, profile_runs=runs)
                self.assertFalse(os.path.exists(self.path))  # refused before anything is written
        post_torch.export(self.model, (self.x,), self.path, profile=True, profile_runs=1)
        costs = self.costs()
        self.assertIn("fastest of 1 forward passes", costs["measured_by"])
        # post-costs/1 readers ignore x- keys (docs/formats.md): post-cli reads the file as before.
        self.assertEqual(costs["x-inputs"], [[2, 3, 16, 16]])
        self.assertIn("/conv/Conv", costs["forward_us"])

    def test_a_linear_on_a_sequence_is_measured_whole(self):
        """Linear on a 3-D input exports as Transpose, MatMul and Add; PyTorch runs one
        aten::linear. Its time goes to the MatMul and the other two take none: neither is left
        unmeasured (an estimate on top would count the bias twice), nor is anything else."""

        class Sequence(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(32, 32)

            def forward(self, x):
                return torch.relu(self.fc(x)) + x

        post_torch.export(Sequence(), (torch.randn(2, 8, 32),), self.path, profile=True, profile_runs=1)
        costs = self.costs()
        self.assertEqual(costs["unmatched"], [])
        self.assertGreater(costs["forward_us"]["/fc/MatMul"], 0.0)
        self.assertEqual(costs["forward_us"]["/fc/Add"], 0.0)
        self.assertEqual(costs["forward_us"]["/fc/Transpose"], 0.0)
        self.assertGreater(costs["forward_us"]["/Add"], 0.0)  # the residual add is the root's own


if __name__ == "__main__":
    unittest.main(verbosity=2)
