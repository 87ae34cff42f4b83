#!/usr/bin/env python3
"""Records a tiny training step with Debian's python3-torch (1.13, CPU) into OUT_DIR:
tiny_et.json (torch.profiler.ExecutionGraphObserver, the execution trace) and
tiny_kineto.json (the Kineto / Chrome trace of the same step). A set-up step of the tests
(fixtures/record-torch-trace); the files live in the build folder, never in the repository.
Prints SKIPPED and exits 0 when torch is not there."""
import os
import sys


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except ImportError as e:
        print(f"SKIPPED: no torch ({e})")
        return 0
    observer_class = getattr(torch.profiler, "ExecutionTraceObserver", None) or getattr(
        torch.profiler, "ExecutionGraphObserver", None)
    if observer_class is None:
        print("SKIPPED: this torch has no execution trace observer")
        return 0
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 10, (4,))

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    step()  # the momentum buffers exist from now on
    et_path = os.path.join(out, "tiny_et.json")
    observer = observer_class()
    observer.register_callback(et_path)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        observer.start()
        step()
        observer.stop()
    observer.unregister_callback()
    prof.export_chrome_trace(os.path.join(out, "tiny_kineto.json"))
    print(f"recorded {et_path} with torch {torch.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
