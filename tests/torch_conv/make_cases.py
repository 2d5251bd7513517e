#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random conv1d / conv_transpose1d / max_pool1d / avg_pool1d / adaptive_avg_pool1d /
adaptive_max_pool1d / conv2d / conv_transpose2d / max_pool2d / avg_pool2d / adaptive_avg_pool2d /
adaptive_max_pool2d cases, and their 3-d forms, computed by PyTorch
(Debian's python3-torch; float32 and float64, and conv2d in bfloat16 too), written as one safetensors file for test_torch_conv: per case
`<i>.x`, `<i>.w`, `<i>.b` (inputs), `<i>.gy` (the output's gradient), `<i>.y`, `<i>.gx`,
`<i>.gw`, `<i>.gb` (torch's results), and the case's arguments as JSON in the metadata
under `<i>`. Usage: make_cases.py OUT.safetensors [SEED] [CASES].

bfloat16 cases: torch's bfloat16 convolution sums in float32 and rounds once where it runs
oneDNN's kernel (CPUs with AVX-512; cuDNN does the same), but on a CPU without AVX-512 it
runs slow_conv2d, whose GEMMs and col2im round to bfloat16 along the way (errors of up to
2.4% against the exact result were seen on a Zen 3). The reference for a bfloat16 case is
therefore torch's float32 convolution of the same bfloat16 values, rounded once to
bfloat16: the same on every machine, and the rule hetero follows (Note [Convolution on
oneDNN])."""
import json
import random
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.bfloat16: "BF16", torch.int64: "I64",
          torch.bool: "BOOL"}


def conv_case(r):
    groups = r.choice([1, 1, 1, 2, 3])
    c, o = groups * r.randint(1, 3), groups * r.randint(1, 2)
    kh, kw = r.randint(1, 4), r.randint(1, 4)
    stride = [r.randint(1, 3), r.randint(1, 3)]
    pad = [r.randint(0, 2), r.randint(0, 2)]
    dil = [r.randint(1, 2), r.randint(1, 2)]
    bad = r.random() < 0.05  # sizes torch may refuse: hetero must refuse them too
    h = r.randint(1 if bad else max(1, dil[0] * (kh - 1) + 1 - 2 * pad[0]), 9)
    w = r.randint(1 if bad else max(1, dil[1] * (kw - 1) + 1 - 2 * pad[1]), 9)
    n = r.choice([0, 1, 2, 3]) if r.random() < 0.9 else None  # None: unbatched
    shape = [c, h, w] if n is None else [n, c, h, w]
    args = {"op": "conv2d", "stride": stride, "padding": pad, "dilation": dil, "groups": groups,
            "bias": r.random() < 0.7}
    return shape, [o, c // groups, kh, kw], args


def transpose_case(r):
    """conv_transpose2d: weight [C_in, C_out / groups, KH, KW]; output_padding below stride or
    dilation (now and then not: torch refuses it, and so must hetero)."""
    groups = r.choice([1, 1, 1, 2, 3])
    c, o = groups * r.randint(1, 3), groups * r.randint(1, 2)
    kh, kw = r.randint(1, 4), r.randint(1, 4)
    stride = [r.randint(1, 3), r.randint(1, 3)]
    dil = [r.randint(1, 2), r.randint(1, 2)]
    bad = r.random() < 0.05
    pad = [r.randint(0, 3 if bad else 1), r.randint(0, 3 if bad else 1)]
    out_pad = [r.randint(0, max(stride[j], dil[j]) - (0 if bad else 1)) for j in range(2)]
    h, w = r.randint(1, 6), r.randint(1, 6)
    n = r.choice([0, 1, 2, 3]) if r.random() < 0.9 else None
    shape = [c, h, w] if n is None else [n, c, h, w]
    args = {"op": "conv_transpose2d", "stride": stride, "padding": pad, "output_padding": out_pad,
            "dilation": dil, "groups": groups, "bias": r.random() < 0.7}
    return shape, [c, o // groups, kh, kw], args


def one_d_case(r, op):
    """A 1-d op's case (conv1d, conv_transpose1d, max_pool1d, avg_pool1d, adaptive_avg_pool1d):
    input [N, C, L] or [C, L]; the weight's shape for the convolutions, else None."""
    n = r.choice([0, 1, 2, 3]) if r.random() < 0.9 else None
    length = r.randint(1, 12)
    bad = r.random() < 0.05  # sizes or padding torch may refuse
    groups = r.choice([1, 1, 2])
    c = groups * r.randint(1, 3) if op.startswith("conv") else r.randint(1, 3)
    shape = [c, length] if n is None else [n, c, length]
    k, stride = r.randint(1, 4), r.randint(1, 3)
    dil = r.randint(1, 2)
    args = {"op": op}
    if op == "conv1d":
        pad = r.randint(0, 2)
        if not bad:
            shape[-1] = max(length, dil * (k - 1) + 1 - 2 * pad)
        o = groups * r.randint(1, 2)
        args.update(stride=stride, padding=pad, dilation=dil, groups=groups, bias=r.random() < 0.7)
        return shape, [o, c // groups, k], args
    if op == "conv_transpose1d":
        o = groups * r.randint(1, 2)
        pad = r.randint(0, 3 if bad else 1)
        out_pad = r.randint(0, max(stride, dil) - (0 if bad else 1))
        args.update(stride=stride, padding=pad, output_padding=out_pad, dilation=dil, groups=groups,
                    bias=r.random() < 0.7)
        return shape, [c, o // groups, k], args
    if op in ("adaptive_avg_pool1d", "adaptive_max_pool1d"):
        args["output_size"] = r.randint(1, length + 2)
        args["return_indices"] = op == "adaptive_max_pool1d" and r.random() < 0.4
        return shape, None, args
    pad = r.randint(0, k if bad else k // 2)
    args.update(kernel=k, stride=stride if r.random() < 0.7 else None, padding=pad,
                ceil_mode=r.random() < 0.4)
    if op == "max_pool1d":
        args["dilation"] = dil
        args["return_indices"] = r.random() < 0.4
        if not bad:
            shape[-1] = max(length, dil * (k - 1) + 1 - 2 * pad)
        # torch 1.13 writes out of bounds for a window of padding only (see empty_window)
        if empty_window(shape[-1], k, args["stride"] or k, pad, dil, args["ceil_mode"]):
            args["ceil_mode"] = False
            args["padding"] = 0
    else:
        args["count_include_pad"] = r.random() < 0.6
        if not bad:
            shape[-1] = max(length, k - 2 * pad)
    return shape, None, args


def pool_case(r, op):
    kh, kw = r.randint(1, 4), r.randint(1, 4)
    stride = [r.randint(1, 3), r.randint(1, 3)] if r.random() < 0.7 else None
    bad = r.random() < 0.05  # padding or sizes torch may refuse
    pad = [r.randint(0, kh if bad else kh // 2), r.randint(0, kw if bad else kw // 2)]
    args = {"op": op, "kernel": [kh, kw], "stride": stride, "padding": pad,
            "ceil_mode": r.random() < 0.4}
    dil = [1, 1]
    if op == "max_pool2d":
        dil = [r.randint(1, 2), r.randint(1, 2)]
        args["dilation"] = dil
        args["return_indices"] = r.random() < 0.4
    else:
        args["count_include_pad"] = r.random() < 0.6
        args["divisor_override"] = r.randint(1, 5) if r.random() < 0.2 else None
    h = r.randint(1 if bad else max(1, dil[0] * (kh - 1) + 1 - 2 * pad[0]), 9)
    w = r.randint(1 if bad else max(1, dil[1] * (kw - 1) + 1 - 2 * pad[1]), 9)
    n = r.choice([1, 2, 3]) if r.random() < 0.9 else None
    return ([r.randint(1, 3), h, w] if n is None else [n, r.randint(1, 3), h, w]), args


def empty_window(size, k, stride, pad, dil, ceil_mode):
    """Whether a max_pool2d window along one dimension holds padding only: torch 1.13's cpu
    kernel then writes the gradient at index -1, corrupting memory (it checks pad <= k / 2,
    not against the dilated kernel), so such cases are not generated."""
    span = size + 2 * pad - dil * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return any(all(not 0 <= o * stride - pad + i * dil < size for i in range(k)) for o in range(out))


UNPOOL_DIMS = {"max_unpool1d": 1, "max_unpool2d": 2, "max_unpool3d": 3}


def unpool_case(r, op):
    """max_unpool1d/2d/3d of random values at the indices of a max_pool of as many dimensions
    (overlapping windows now and then: repeated indices, where the last value is written),
    default or requested output size. Returns (the source's shape, args); the indices come
    from torch. Every geometry argument is a list, one entry per spatial dimension."""
    nd = UNPOOL_DIMS[op]
    k = [r.randint(1, 3) for _ in range(nd)]
    s_ = [r.randint(1, 3) for _ in range(nd)]
    # (k - 2 pad >= 1: an empty default output breaks torch 1.13's backward)
    pad = [r.randint(0, (k[j] - 1) // 2) for j in range(nd)]
    sizes = [r.randint(max(1, k[j] - 2 * pad[j]), 8 if nd < 3 else 5) for j in range(nd)]
    n = r.choice([1, 2]) if r.random() < 0.9 else None
    c = r.randint(1, 3)
    args = {"op": op, "kernel": k, "stride": s_ if r.random() < 0.7 else None,
            "padding": pad, "resize": r.random() < 0.3}
    return ([c] + sizes if n is None else [n, c] + sizes), args


def adaptive_case(r, op):
    h, w = r.randint(1, 9), r.randint(1, 9)
    args = {"op": op, "output_size": [r.randint(1, h + 2), r.randint(1, w + 2)]}
    if op == "adaptive_max_pool2d":
        args["return_indices"] = r.random() < 0.4
    n = r.choice([1, 2]) if r.random() < 0.9 else None
    return ([r.randint(1, 3), h, w] if n is None else [n, r.randint(1, 3), h, w]), args


def three_d_case(r, op):
    """A 3-d op's case: input [N, C, D, H, W] or [C, D, H, W]; the weight's shape for the
    convolutions, else None. Sizes stay small (every tap of conv3d is a channel of one conv2d)."""
    n = r.choice([0, 1, 2]) if r.random() < 0.9 else None
    bad = r.random() < 0.05  # sizes or padding torch may refuse
    groups = r.choice([1, 1, 2]) if op.startswith("conv") else 1
    c = groups * r.randint(1, 2) if op.startswith("conv") else r.randint(1, 3)
    k = [r.randint(1, 3) for _ in range(3)]
    stride = [r.randint(1, 3) for _ in range(3)]
    dil = [r.randint(1, 2) for _ in range(3)]
    size = [r.randint(1, 6) for _ in range(3)]
    args = {"op": op}
    w = None
    if op == "conv3d":
        pad = [r.randint(0, 2) for _ in range(3)]
        if not bad:
            size = [max(size[j], dil[j] * (k[j] - 1) + 1 - 2 * pad[j]) for j in range(3)]
        o = groups * r.randint(1, 2)
        args.update(stride=stride, padding=pad, dilation=dil, groups=groups, bias=r.random() < 0.7)
        w = [o, c // groups] + k
    elif op == "conv_transpose3d":
        o = groups * r.randint(1, 2)
        pad = [r.randint(0, 3 if bad else 1) for _ in range(3)]
        out_pad = [r.randint(0, max(stride[j], dil[j]) - (0 if bad else 1)) for j in range(3)]
        size = [min(s_, 4) for s_ in size]
        args.update(stride=stride, padding=pad, output_padding=out_pad, dilation=dil, groups=groups,
                    bias=r.random() < 0.7)
        w = [c, o // groups] + k
    elif op in ("adaptive_avg_pool3d", "adaptive_max_pool3d"):
        args["output_size"] = [r.randint(1, size[j] + 2) for j in range(3)]
        args["return_indices"] = op == "adaptive_max_pool3d" and r.random() < 0.4
    else:
        pad = [r.randint(0, k[j] if bad else k[j] // 2) for j in range(3)]
        args.update(kernel=k, stride=stride if r.random() < 0.7 else None, padding=pad,
                    ceil_mode=r.random() < 0.4)
        if op == "max_pool3d":
            args["dilation"] = dil
            args["return_indices"] = r.random() < 0.4
        else:
            dil = [1, 1, 1]
            args["count_include_pad"] = r.random() < 0.6
            args["divisor_override"] = r.randint(1, 5) if r.random() < 0.2 else None
        if not bad:
            size = [max(size[j], dil[j] * (k[j] - 1) + 1 - 2 * pad[j]) for j in range(3)]
        st = args["stride"] or k
        # torch 1.13 writes out of bounds for a window of padding only (see empty_window)
        if any(empty_window(size[j], k[j], st[j], pad[j], dil[j], args["ceil_mode"])
               for j in range(3)):
            args["ceil_mode"] = False
            args["padding"] = [0, 0, 0]
        if n == 0:
            n = 1
    return ([c] + size if n is None else [n, c] + size), w, args


def run(args, x, w, b):
    F = torch.nn.functional
    op = args["op"]
    if op == "conv2d":
        return F.conv2d(x, w, b, args["stride"], args["padding"], args["dilation"], args["groups"])
    if op == "conv3d":
        return F.conv3d(x, w, b, args["stride"], args["padding"], args["dilation"], args["groups"])
    if op == "conv_transpose3d":
        return F.conv_transpose3d(x, w, b, args["stride"], args["padding"], args["output_padding"],
                                  args["groups"], args["dilation"])
    if op == "max_pool3d":
        return F.max_pool3d(x, args["kernel"], args["stride"], args["padding"], args["dilation"],
                            args["ceil_mode"])
    if op == "avg_pool3d":
        return F.avg_pool3d(x, args["kernel"], args["stride"], args["padding"], args["ceil_mode"],
                            args["count_include_pad"], args["divisor_override"])
    if op == "adaptive_avg_pool3d":
        return F.adaptive_avg_pool3d(x, args["output_size"])
    if op == "adaptive_max_pool3d":
        return F.adaptive_max_pool3d(x, args["output_size"])
    if op == "conv1d":
        return F.conv1d(x, w, b, args["stride"], args["padding"], args["dilation"], args["groups"])
    if op == "conv_transpose1d":
        return F.conv_transpose1d(x, w, b, args["stride"], args["padding"], args["output_padding"],
                                  args["groups"], args["dilation"])
    if op == "max_pool1d":
        return F.max_pool1d(x, args["kernel"], args["stride"], args["padding"], args["dilation"],
                            args["ceil_mode"])
    if op == "avg_pool1d":
        return F.avg_pool1d(x, args["kernel"], args["stride"], args["padding"], args["ceil_mode"],
                            args["count_include_pad"])
    if op == "adaptive_avg_pool1d":
        return F.adaptive_avg_pool1d(x, args["output_size"])
    if op == "adaptive_max_pool1d":
        return F.adaptive_max_pool1d(x, args["output_size"])
    if op == "adaptive_max_pool2d":
        return F.adaptive_max_pool2d(x, args["output_size"])
    if op == "conv_transpose2d":
        return F.conv_transpose2d(x, w, b, args["stride"], args["padding"], args["output_padding"],
                                  args["groups"], args["dilation"])
    if op == "max_pool2d":
        return F.max_pool2d(x, args["kernel"], args["stride"], args["padding"], args["dilation"],
                            args["ceil_mode"])
    if op in UNPOOL_DIMS:
        return getattr(F, op)(x, w, args["kernel"], args["stride"], args["padding"],
                              args["output_size"])
    if op == "avg_pool2d":
        return F.avg_pool2d(x, args["kernel"], args["stride"], args["padding"], args["ceil_mode"],
                            args["count_include_pad"], args["divisor_override"])
    return F.adaptive_avg_pool2d(x, args["output_size"])


def main():
    F = torch.nn.functional
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    r = random.Random(seed)
    torch.manual_seed(seed)
    tensors, meta = {}, {}
    for i in range(count):
        dtype = r.choice([torch.float32, torch.float64])
        kind = r.choice(["conv2d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                         "adaptive_avg_pool2d", "adaptive_max_pool2d", "1d", "3d",
                         "max_unpool"])
        w = b = None
        if kind == "3d":
            op = r.choice(["conv3d", "conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d",
                           "adaptive_avg_pool3d", "adaptive_max_pool3d"])
            xs, ws, args = three_d_case(r, op)
            if ws is not None:
                w = torch.randn(ws, dtype=dtype, requires_grad=True)
                if args["bias"]:
                    b = torch.randn(ws[0] if op == "conv3d" else ws[1] * args["groups"], dtype=dtype,
                                    requires_grad=True)
        elif kind == "1d":
            op = r.choice(["conv1d", "conv1d", "conv_transpose1d", "max_pool1d", "avg_pool1d",
                           "adaptive_avg_pool1d", "adaptive_max_pool1d"])
            xs, ws, args = one_d_case(r, op)
            if ws is not None:
                w = torch.randn(ws, dtype=dtype, requires_grad=True)
                if args["bias"]:
                    b = torch.randn(ws[0] if op == "conv1d" else ws[1] * args["groups"], dtype=dtype,
                                    requires_grad=True)
        elif kind in ("conv2d", "conv_transpose2d"):
            if r.random() < 0.3:  # torch's bfloat16 convolution (oneDNN's, or slow_conv2d's)
                dtype = torch.bfloat16
            xs, ws, args = conv_case(r) if kind == "conv2d" else transpose_case(r)
            w = torch.randn(ws, dtype=dtype, requires_grad=True)
            if args["bias"]:  # C_out: weight dimension 0, or 1 times groups when transposed
                b = torch.randn(ws[0] if kind == "conv2d" else ws[1] * args["groups"], dtype=dtype,
                                requires_grad=True)
        elif kind in ("adaptive_avg_pool2d", "adaptive_max_pool2d"):
            xs, args = adaptive_case(r, kind)
        elif kind == "max_unpool":
            op = r.choice(list(UNPOOL_DIMS))
            src_shape, args = unpool_case(r, op)
            nd = UNPOOL_DIMS[op]
            pool = getattr(F, f"max_pool{nd}d")
            pooled, w = pool(torch.randn(src_shape, dtype=dtype), args["kernel"], args["stride"],
                             args["padding"], return_indices=True)
            xs = list(pooled.shape)
            st = args["stride"] or args["kernel"]
            default = [(xs[-nd + j] - 1) * st[j] + args["kernel"][j] - 2 * args["padding"][j]
                       for j in range(nd)]
            # a size within stride of the default (the source's own size is one of them)
            args["output_size"] = ([max(1, d + r.randint(-(st[j] - 1), st[j] - 1))
                                    for j, d in enumerate(default)] if args["resize"] else None)
        else:
            while True:
                xs, args = pool_case(r, kind)
                d, st = args.get("dilation", [1, 1]), args["stride"] or args["kernel"]
                if any(args["padding"][j] > args["kernel"][j] // 2 for j in range(2)):
                    break  # torch refuses it before running
                if not any(empty_window(xs[-2 + j], args["kernel"][j], st[j], args["padding"][j],
                                        d[j], args["ceil_mode"]) for j in range(2)):
                    break
        x = torch.randn(xs, dtype=dtype, requires_grad=True)
        # bfloat16: computed in float32 from the same values (exact), rounded once below.
        wide = dtype == torch.bfloat16
        x_, w_, b_ = ((t.detach().float().requires_grad_() if t is not None else None)
                      for t in (x, w, b)) if wide else (x, w, b)
        try:
            y = run(args, x_, w_, b_)
        except RuntimeError as e:  # a geometry torch refuses: hetero must refuse it too
            args["error"] = str(e)
            y = None
        meta[str(i)] = json.dumps(args)
        named = {"x": x, "w": w, "b": b}
        if y is not None:
            gy = torch.randn(y.shape, dtype=dtype)
            y.backward(gy.float() if wide else gy)

            def result(t):
                return None if t is None else t.to(dtype)

            if args.get("return_indices") and args["op"].startswith("adaptive"):
                named["idx"] = getattr(F, args["op"])(x.detach(), args["output_size"],
                                                      return_indices=True)[1]
            elif args.get("return_indices"):
                named["idx"] = getattr(F, args["op"])(x.detach(), args["kernel"], args["stride"],
                                                      args["padding"], args["dilation"],
                                                      args["ceil_mode"], return_indices=True)[1]
            named.update({"gy": gy, "y": result(y), "gx": result(x_.grad),
                          "gw": None if w is None else result(w_.grad),
                          "gb": None if b is None else result(b_.grad)})
        for k, t in named.items():
            if t is not None:
                tensors[f"{i}.{k}"] = t.detach().contiguous()
    write_safetensors(out, tensors, meta)


def write_safetensors(path, tensors, meta):
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name, t in tensors.items():
        # (numpy has no bfloat16: its bits as int16)
        data = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


if __name__ == "__main__":
    main()
