#!/usr/bin/env python3
"""PyTorch's convolution on cuda:0 (cuDNN) at bench_conv_gpu's rows, in its own process:
conv2d with its bias, forward or forward + backward, median of --reps repetitions in ms.
torch_ms is full float32 (torch.backends.cudnn.allow_tf32 = False, as hetero's float32);
tf32_ms is PyTorch's default (TF32 tensor cores for float32 convolutions), for reference.
With --hetero FILE (bench_conv_gpu's output) it prints each row's speed ratio,
torch_ms / hetero_ms (> 1: hetero faster). Exits 0 with a message where PyTorch or a CUDA
device is missing.

Usage: torch_conv_gpu.py [--reps N] [--hetero FILE]
"""
import argparse
import statistics
import time

# name, n, c, h, o, k, padding, stride, dtype, backward: bench_conv_gpu.cpp's rows.
ROWS = [
    ("lenet1_fwd", 256, 1, 28, 6, 5, 2, 1, "float32", False),
    ("lenet1_fwdbwd", 256, 1, 28, 6, 5, 2, 1, "float32", True),
    ("lenet2_fwd", 256, 6, 14, 16, 5, 0, 1, "float32", False),
    ("lenet2_fwdbwd", 256, 6, 14, 16, 5, 0, 1, "float32", True),
    ("r64_32_fwd", 32, 64, 32, 64, 3, 1, 1, "float32", False),
    ("r64_32_fwdbwd", 32, 64, 32, 64, 3, 1, 1, "float32", True),
    ("r64_128_s2_fwdbwd", 32, 64, 32, 128, 3, 1, 2, "float32", True),
    ("r128_16_fwdbwd", 32, 128, 16, 128, 3, 1, 1, "float32", True),
    ("r256_8_fwdbwd", 32, 256, 8, 256, 3, 1, 1, "float32", True),
    ("r512_4_fwdbwd", 32, 512, 4, 512, 3, 1, 1, "float32", True),
    ("r512_7_fwd", 32, 512, 7, 512, 3, 1, 1, "float32", False),
    ("r512_7_fwdbwd", 32, 512, 7, 512, 3, 1, 1, "float32", True),
    ("r64_32_f16_fwdbwd", 32, 64, 32, 64, 3, 1, 1, "float16", True),
]


def median_ms(torch, reps, fn):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def measure(torch, reps, row, tf32):
    name, n, c, h, o, k, padding, stride, dtype, backward = row
    torch.backends.cudnn.allow_tf32 = tf32
    torch.manual_seed(1)
    dt = getattr(torch, dtype)
    dev = torch.device("cuda:0")
    x = torch.randn(n, c, h, h, device=dev, dtype=dt, requires_grad=backward)
    w = torch.randn(o, c, k, k, device=dev, dtype=dt, requires_grad=backward)
    b = torch.randn(o, device=dev, dtype=dt, requires_grad=backward)

    def step():
        y = torch.nn.functional.conv2d(x, w, b, stride, padding)
        if backward:
            y.backward(torch.ones_like(y))

    return median_ms(torch, reps, step)


def read_hetero(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[0] != "row":
                out[parts[0]] = float(parts[1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--hetero", help="bench_conv_gpu's output, to join")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_conv_gpu: PyTorch is not importable; nothing to measure")
        return 0
    if not torch.cuda.is_available():
        print("torch_conv_gpu: PyTorch sees no CUDA device; nothing to measure")
        return 0
    hetero = read_hetero(args.hetero) if args.hetero else {}
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}")
    print(f"{'row':20s} {'torch_ms':>10s} {'tf32_ms':>10s} {'hetero_ms':>10s} {'torch/hetero':>13s}")
    for row in ROWS:
        full = measure(torch, args.reps, row, tf32=False)
        tf32 = measure(torch, args.reps, row, tf32=True) if row[8] == "float32" else full
        h = hetero.get(row[0])
        ratio = f"{full / h:13.2f}" if h else f"{'-':>13s}"
        hs = f"{h:10.4f}" if h else f"{'-':>10s}"
        print(f"{row[0]:20s} {full:10.4f} {tf32:10.4f} {hs} {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
