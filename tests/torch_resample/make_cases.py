#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random torch.nn.functional.pad and interpolate cases computed by PyTorch (Debian's
python3-torch), written as one safetensors file for test_torch_resample: per case `<i>.x`
(the input), `<i>.gy` (the output's gradient), `<i>.y` and `<i>.gx` (torch's output and input
gradient), and the arguments as JSON in the metadata under `<i>` ("error" where torch
raised). Usage: make_cases.py OUT.safetensors [SEED] [CASES].

Not drawn, on purpose:
- nearest on a 4-d or 5-d input with one channel: torch 1.13 then takes its channels-last
  kernel (such a tensor is channels-last too), whose legacy index rule copies when the sizes
  are equal and halves when they double, where its contiguous kernel (hetero's rule)
  computes floor(j * scale): interpolate(x [1, 1, 4, 4], scale_factor=1.1) gives rows
  0 1 2 3 there and 0 0 1 2 for two channels;
- circular pads wider than what the crops keep: torch's _pad_circular copies from
  uninitialised memory then;
- pads that torch 1.13 refuses only because an output dimension would be empty (hetero
  allows empty outputs; refused_for_empty_output).
Gradients are not compared where torch 1.13's backward disagrees with its own forward
(inconsistent_backward).
bfloat16 cases: the reference is torch's float32 result on the same values rounded once
(torch 1.13's bfloat16 kernels round along the way; hetero computes 16-bit in float32)."""
import json
import math
import random
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/torch_conv")
from make_cases import write_safetensors  # noqa: E402

F = torch.nn.functional
MODES = ["constant", "reflect", "replicate", "circular"]
SPATIAL = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def pad_case(r):
    mode = r.choice(MODES)
    bad = r.random() < 0.05  # amounts torch may refuse: hetero must refuse them too
    if mode == "constant":
        rank = r.randint(1, 4)
        shape = [r.randint(0 if r.random() < 0.1 else 1, 4) for _ in range(rank)]
        pairs = r.randint(0, rank + (1 if bad else 0))
        amounts = []
        for j in range(pairs):
            n = shape[-1 - j] if j < rank else 1
            # a bad case may crop more than the dimension holds (torch refuses even where
            # the other side's padding would leave a non-negative size)
            amounts += [r.randint(-(n + 2) if bad else -min(n, 2), 3) for _ in range(2)]
            if not bad and j < rank and n + amounts[-1] + amounts[-2] < 0:
                amounts[-2:] = [0, 0]
        if bad and r.random() < 0.5:
            amounts.append(1)
        value = r.choice([0.0, 0.0, 1.5, -2.0])
        return shape, {"op": "pad", "mode": mode, "pad": amounts, "value": value}
    pairs = r.randint(1, 3)
    rank = pairs + 2 if mode == "circular" else pairs + r.randint(1, 2)
    if bad:
        rank = r.randint(2, 5)
    shape = [r.randint(1, 4) for _ in range(rank)]
    if rank == pairs + 2:
        shape[0] = r.randint(0, 2)
    amounts = []
    for j in range(pairs):
        n = shape[-1 - j] if j < rank else 1
        while True:
            a, b = r.randint(-n, n), r.randint(-n, n)
            kept = n - max(-a, 0) - max(-b, 0)
            if bad:
                break
            if mode == "reflect" and a < n and b < n and n + a + b >= 1:
                break
            if mode == "replicate" and n + a + b >= 1:
                break
            if mode == "circular" and kept >= 0 and a <= kept and b <= kept:
                break
        if bad and mode == "circular" and a <= n and b <= n and (a > kept or b > kept):
            a, b = -n, 0  # torch would read uninitialised memory (see the file comment)
        amounts += [a, b]
    return shape, {"op": "pad", "mode": mode, "pad": amounts, "value": 0.0}


def interpolate_case(r):
    mode = r.choice(["nearest", "nearest", "nearest-exact", "linear", "bilinear", "bilinear",
                     "bicubic", "trilinear", "area"])
    bad = r.random() < 0.05
    dims = SPATIAL.get(mode, r.randint(1, 3))
    if bad and r.random() < 0.5:
        dims = r.randint(0, 4)
    ins = [r.randint(0 if bad else 1, 6) for _ in range(dims)]
    channels = r.randint(2 if mode == "nearest" and dims >= 2 else 1, 3)
    shape = [r.randint(0, 2) if r.random() < 0.1 else r.randint(1, 2), channels] + ins
    args = {"op": "interpolate", "mode": mode, "size": None, "scale_factor": None,
            "align_corners": None, "recompute_scale_factor": None}
    if mode in SPATIAL and r.random() < 0.6:
        args["align_corners"] = r.random() < 0.5
    elif bad and r.random() < 0.3:
        args["align_corners"] = True
    if r.random() < 0.5:
        size = [r.randint(0 if bad else 1, 9) for _ in range(dims)]
        args["size"] = size[0] if dims and r.random() < 0.2 else size
    else:
        pick = [0.5, 0.75, 1.1, 1.5, 1.7, 2.0, 2.5, 3.0, 1 / 3, 0.3]
        scale = [r.choice(pick) for _ in range(dims)]
        if not bad:  # every output size >= 1
            scale = [s if math.floor(n * s) >= 1 else 2.0 for n, s in zip(ins, scale)]
        args["scale_factor"] = scale[0] if dims and r.random() < 0.2 and \
            all(math.floor(n * scale[0]) >= 1 for n in ins) else scale
        if r.random() < 0.3:
            args["recompute_scale_factor"] = True
    return shape, args


def refused_for_empty_output(shape, args, error):
    """torch 1.13 refused a pad only because an output dimension would be empty, which hetero
    allows (<hetero/padding.hpp>): such cases are drawn again."""
    if args["op"] != "pad" or not ("negative output size" in error or "too small" in error):
        return False
    amounts = args["pad"]
    for j in range(len(amounts) // 2):
        if j >= len(shape) or shape[-1 - j] + amounts[2 * j] + amounts[2 * j + 1] < 0:
            return False
    return True


def inconsistent_backward(shape, args, y):
    """Whether torch 1.13's backward disagrees with its own forward here (gradcheck fails):
    its nearest backward keeps the legacy rule (copy at equal sizes, halve at double sizes)
    and its bicubic backward copies at equal sizes, where the forward maps by 1 /
    scale_factor; its reflection_pad3d backward of an empty output is not zeros. hetero's
    gradient is its forward's; such cases compare the forward only."""
    if args["op"] == "pad" and args["mode"] != "constant" and y.numel() == 0:
        return True
    if args["op"] != "interpolate" or args["mode"] not in ("nearest", "bicubic") or \
            args["scale_factor"] is None or args["recompute_scale_factor"]:
        return False
    ins = shape[2:]
    scales = args["scale_factor"] if isinstance(args["scale_factor"], list) else \
        [args["scale_factor"]] * len(ins)
    for n, s in zip(ins, scales):
        out = math.floor(float(n) * s)
        if out == n or (args["mode"] == "nearest" and out == 2 * n):
            return True
    return False


def run(args, x):
    if args["op"] == "pad":
        if args["mode"] == "constant":
            return F.pad(x, args["pad"], "constant", args["value"])
        return F.pad(x, args["pad"], args["mode"])
    return F.interpolate(x, size=args["size"], scale_factor=args["scale_factor"],
                         mode=args["mode"], align_corners=args["align_corners"],
                         recompute_scale_factor=args["recompute_scale_factor"])


def main():
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    r = random.Random(seed)
    torch.manual_seed(seed)
    tensors, meta = {}, {}
    for i in range(count):
        while True:
            shape, args = pad_case(r) if r.random() < 0.4 else interpolate_case(r)
            dtype = r.choice([torch.float32, torch.float64, torch.bfloat16] if
                             args["op"] == "interpolate" else
                             [torch.float32, torch.float64])
            x = torch.randn(shape, dtype=dtype)
            wide = dtype == torch.bfloat16
            x_ = (x.float() if wide else x).clone().requires_grad_()
            try:
                y = run(args, x_)
                if any(d < 0 for d in y.shape):
                    # torch 1.13's reflect/replicate pad of an empty batch skips its size
                    # check and returns a negative dimension (seed 57: [0, 3, 4, 4] padded
                    # by [2, -2, -4, -2] gives [0, 3, -2, 4]); with a batch it raises.
                    raise RuntimeError(f"torch returned the invalid shape {list(y.shape)}")
            except (RuntimeError, ValueError, NotImplementedError, AssertionError,
                    IndexError) as e:
                if refused_for_empty_output(shape, args, str(e)):
                    continue
                args["error"] = f"{type(e).__name__}: {e}"
                y = None
            break
        if y is not None and inconsistent_backward(shape, args, y):
            args["backward_error"] = "torch 1.13's backward disagrees with its forward here"
        meta[str(i)] = json.dumps(args)
        tensors[f"{i}.x"] = x
        if y is not None:
            gy = torch.randn(y.shape, dtype=dtype)
            tensors.update({f"{i}.gy": gy, f"{i}.y": y.detach().to(dtype)})
            try:
                y.backward(gy.float() if wide else gy)
                if "backward_error" not in args:
                    tensors[f"{i}.gx"] = x_.grad.to(dtype)
            except RuntimeError as e:
                # torch 1.13's constant_pad_nd backward refuses to pad an empty dimension's
                # gradient back ("resulted in a negative output size" for a size of 0):
                # the forward is compared, the gradient not.
                args["backward_error"] = str(e)
                meta[str(i)] = json.dumps(args)
    write_safetensors(out, {k: v.contiguous() for k, v in tensors.items()}, meta)


if __name__ == "__main__":
    main()
