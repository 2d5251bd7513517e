#!/usr/bin/env python3
"""PyTorch's side of bench_large_ops (issue #26) on any device PyTorch has, for the devices
whose peer cannot run in bench_large_ops' process (Debian's libtorch is CPU-only; on a GPU
machine the peer is the PyTorch wheel's CUDA build).

Same rows (4096 x 4096 float32, float16 where named "_f16", integers 0..99 for the sums
into int64), same timing method as `bench_large_ops --device DEV --paired ROUNDS`: every
round times each side as the best of 3 calls, a call being CALLS ops queued back to back
and one synchronize, the order of the sides reversed every other round; a time is the
median over the rounds, in milliseconds per op. Two sides: "torch" (allocating its result,
as a user's code does; PyTorch's caching allocator on a GPU) and "torch_out" (writing into
a preallocated result: only the kernel). Before timing, each row checks that its two sides
agree, so that a wrong `out=` form cannot pass for a fast one.

Prints a Markdown table; bench/report.py --join-large-ops sets it beside hetero's.
Exits 0 with a message where PyTorch or the device is missing.

Usage: torch_large_ops.py [--device cuda:0] [--rounds 10] [--calls N] [--only TEXT]
  --calls: ops per timed call (default 20 off the cpu, 1 on it, as bench_large_ops)
"""
import argparse
import os
import statistics
import sys
import time


def rows(torch, dev):
    """[(op, allocating, into_out)]: closures over tensors on dev."""
    g = torch.Generator().manual_seed(1)
    x = torch.rand(4096, 4096, generator=g).to(dev)
    y = torch.rand(4096, 4096, generator=g).to(dev)
    h, hy = x.half(), y.half()
    xi, xu = (x * 100).int(), (x * 100).to(torch.uint8)
    out = []

    def add(op, alloc, into, result):
        out.append((op, alloc, lambda: into(result), result))

    def like(t, shape=(4096, 4096), dtype=None):
        return torch.empty(shape, dtype=dtype or t.dtype, device=dev)

    scalar = lambda t, dtype=None: like(t, (), dtype)  # noqa: E731
    vec = lambda t: like(t, (4096,))  # noqa: E731
    add("sum", lambda: x.sum(), lambda o: torch.sum(x, (0, 1), out=o), scalar(x))
    add("sum0", lambda: x.sum(0), lambda o: torch.sum(x, 0, out=o), vec(x))
    add("sum1", lambda: x.sum(1), lambda o: torch.sum(x, 1, out=o), vec(x))
    add("max", lambda: x.max(), lambda o: torch.amax(x, (0, 1), out=o), scalar(x))
    add("max0", lambda: x.amax(0), lambda o: torch.amax(x, 0, out=o), vec(x))
    add("argmax", lambda: x.argmax(), lambda o: torch.argmax(x, out=o), scalar(x, torch.int64))
    r64 = x.view(262144, 64)  # short rows, as bench_large_ops.cpp's *_rows64
    add("mean_rows64", lambda: r64.mean(1), lambda o: torch.mean(r64, 1, out=o), like(x, (262144,)))
    add("max_rows64", lambda: r64.amax(1), lambda o: torch.amax(r64, 1, out=o), like(x, (262144,)))
    add("argmax_rows64", lambda: r64.argmax(1), lambda o: torch.argmax(r64, 1, out=o),
        like(x, (262144,), torch.int64))
    add("add", lambda: x + y, lambda o: torch.add(x, y, out=o), like(x))
    add("exp", lambda: x.exp(), lambda o: torch.exp(x, out=o), like(x))
    add("tanh", lambda: x.tanh(), lambda o: torch.tanh(x, out=o), like(x))
    add("sigmoid", lambda: x.sigmoid(), lambda o: torch.sigmoid(x, out=o), like(x))
    add("relu", lambda: x.relu(), lambda o: torch.clamp_min(x, 0, out=o), like(x))
    add("mul2", lambda: x * 2, lambda o: torch.mul(x, 2, out=o), like(x))
    softmax_out = torch.ops.aten._softmax.out
    add("softmax1", lambda: x.softmax(1), lambda o: softmax_out(x, 1, False, out=o), like(x))
    add("softmax0", lambda: x.softmax(0), lambda o: softmax_out(x, 0, False, out=o), like(x))
    add("to_float16", lambda: x.half(), lambda o: o.copy_(x), like(x, dtype=torch.float16))
    add("to_bfloat16", lambda: x.bfloat16(), lambda o: o.copy_(x), like(x, dtype=torch.bfloat16))
    add("from_float16", lambda: h.float(), lambda o: o.copy_(h), like(x))
    add("transpose", lambda: x.t().contiguous(), lambda o: o.copy_(x.t()), like(x))
    add("add_f16", lambda: h + hy, lambda o: torch.add(h, hy, out=o), like(h))
    add("mul2_f16", lambda: h * 2, lambda o: torch.mul(h, 2, out=o), like(h))
    add("sum_f16", lambda: h.sum(), lambda o: torch.sum(h, (0, 1), out=o), scalar(h))
    add("max_f16", lambda: h.max(), lambda o: torch.amax(h, (0, 1), out=o), scalar(h))
    add("transpose_f16", lambda: h.t().contiguous(), lambda o: o.copy_(h.t()), like(h))
    add("sum_i32", lambda: xi.sum(), lambda o: torch.sum(xi, (0, 1), out=o), scalar(xi, torch.int64))
    add("sum_u8", lambda: xu.sum(), lambda o: torch.sum(xu, (0, 1), out=o), scalar(xu, torch.int64))
    return out


def agree(torch, a, b):
    """The two sides' results: equal dtype and shape, values within float16's rounding
    (the sums' reduction orders may differ between the two forms)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.is_floating_point:
        return torch.allclose(a.double(), b.double(), rtol=1e-3, atol=1e-3)
    return torch.equal(a, b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_large_ops: PyTorch is not importable; nothing to measure")
        return 0
    try:
        dev = torch.device(args.device)
        torch.empty(1, device=dev)
    except (RuntimeError, AssertionError) as e:
        print(f"torch_large_ops: no {args.device} for PyTorch ({e}); nothing to measure")
        return 0
    on_cpu = dev.type == "cpu"
    if on_cpu:
        threads = os.environ.get("HETERO_CPU_THREADS")
        torch.set_num_threads(int(threads) if threads else os.cpu_count())
    calls = args.calls or (1 if on_cpu else 20)
    sync = (lambda: None) if on_cpu else (lambda: torch.cuda.synchronize(dev))
    print(f"device: {args.device} ({torch.cuda.get_device_name(dev) if dev.type == 'cuda' else 'cpu'}), "
          f"torch {torch.__version__}, {calls} ops per call\n")
    print("| op | torch ms | torch_out ms |\n|---|---:|---:|")
    for op, alloc, into, result in rows(torch, dev):
        if args.only not in op:
            continue
        first = alloc()
        into()
        sync()
        if not agree(torch, first, result):
            print(f"torch_large_ops: {op}: the allocating and out= forms disagree", file=sys.stderr)
            return 1
        sides = [("torch", alloc), ("torch_out", into)]
        ms = {name: [] for name, _ in sides}
        for r in range(args.rounds):
            for name, f in (sides if r % 2 == 0 else sides[::-1]):
                best = float("inf")
                for _ in range(3):
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        f()
                    sync()
                    best = min(best, (time.perf_counter() - t0) * 1e3 / calls)
                ms[name].append(best)
        print(f"| {op} | {statistics.median(ms['torch']):.3f} | {statistics.median(ms['torch_out']):.3f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
