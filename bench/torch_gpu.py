#!/usr/bin/env python3
"""PyTorch on the same GPU: the op rows of bench_gpu (element-wise ops and reductions on
64M float32 and an 8192 x 8192 matrix, result allocation included, in GB/s of memory
traffic; the 2x3 add back to back in microseconds per op). Prints the same row names as
bench_gpu so the two tables compare line by line. Exits 0 with a message where PyTorch or
a CUDA device is missing.

Usage: torch_gpu.py [--quick]
"""
import statistics
import sys
import time


def median_time(reps, fn, sync):
    fn()  # warm-up
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    quick = "--quick" in sys.argv[1:]
    try:
        import torch
    except ImportError:
        print("torch_gpu: PyTorch is not importable; nothing to measure")
        return 0
    if not torch.cuda.is_available():
        print("torch_gpu: PyTorch sees no CUDA device; nothing to measure")
        return 0
    reps = 3 if quick else 10
    sync = torch.cuda.synchronize
    dev = torch.device("cuda:0")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}\n")
    print(f"{'op':22s} {'size':10s} {'torch GB/s':>12s}")
    n = 64 << 20
    torch.manual_seed(1)
    x = torch.rand(n, device=dev)
    y = torch.rand(n, device=dev)
    m = x.view(8192, 8192)
    f = 4.0
    rows = [
        ("x + y", "64M f32", 3 * f * n, lambda: x + y),
        ("exp(x)", "64M f32", 2 * f * n, lambda: x.exp()),
        ("x.to(float16)", "64M f32", 6.0 * n, lambda: x.to(torch.float16)),
        ("x.sum().item()", "64M f32", f * n, lambda: x.sum().item()),
        ("x.max().item()", "64M f32", f * n, lambda: x.max().item()),
        ("x.norm().item()", "64M f32", f * n, lambda: x.norm().item()),
        ("m.sum(1)", "8192^2 f32", f * n, lambda: m.sum(1)),
        ("m.sum(0)", "8192^2 f32", f * n, lambda: m.sum(0)),
        ("m.argmax(1)", "8192^2 f32", f * n, lambda: m.argmax(1)),
    ]
    for name, size, traffic, fn in rows:
        t = median_time(reps, fn, sync)
        print(f"{name:22s} {size:10s} {traffic / t * 1e-9:12.1f}")
    a = torch.ones(2, 3, device=dev)
    b = torch.ones(2, 3, device=dev)
    ops = 2000

    def many():
        for _ in range(ops):
            a + b

    t = median_time(5, many, sync)
    print(f"{'2x3 add':22s} {t / ops * 1e6:10.2f} us/op")
    return 0


if __name__ == "__main__":
    sys.exit(main())
