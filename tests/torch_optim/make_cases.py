#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random optimiser runs computed by PyTorch (Debian's python3-torch) for test_torch_optim:
SGD, Adam and AdamW with random options on 1-3 parameters over 1-6 steps, a parameter's
gradient sometimes absent (torch then skips it). Per case `<i>.p<k>` (initial parameters),
`<i>.g<s>.<k>` (the gradient of parameter k at step s), `<i>.out<k>` (torch's parameters
after the last step) and `<i>.state.<k>.<name>` (torch's state_dict()["state"]); the
optimiser and its options as JSON in the metadata under `<i>`.
Usage: make_cases.py OUT.safetensors [SEED] [CASES]."""
import json
import random
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/torch_conv")
from make_cases import write_safetensors  # noqa: E402


def options(r, kind):
    if kind == "sgd":
        momentum = r.choice([0.0, 0.0, 0.9, 0.5])
        nesterov = momentum > 0 and r.random() < 0.3
        return {"lr": r.choice([0.1, 0.01, 0.5]), "momentum": momentum,
                "dampening": 0.0 if nesterov else r.choice([0.0, 0.0, 0.1]),
                "weight_decay": r.choice([0.0, 0.0, 1e-2]), "nesterov": nesterov}
    return {"lr": r.choice([1e-3, 1e-2, 0.1]), "betas": [r.choice([0.9, 0.8, 0.0]), r.choice([0.999, 0.99])],
            "eps": r.choice([1e-8, 1e-6]), "weight_decay": r.choice([0.0, 1e-2, 0.1]),
            "amsgrad": r.random() < 0.3}


def main():
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    r = random.Random(seed)
    torch.manual_seed(seed)
    tensors, meta = {}, {}
    for i in range(count):
        kind = r.choice(["sgd", "adam", "adamw"])
        opts = options(r, kind)
        dtype = r.choice([torch.float32, torch.float64])
        shapes = [[r.randint(1, 5) for _ in range(r.randint(0, 2))] for _ in range(r.randint(1, 3))]
        params = [torch.randn(s, dtype=dtype, requires_grad=True) for s in shapes]
        for k, p in enumerate(params):
            tensors[f"{i}.p{k}"] = p.detach().clone()
        cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[kind]
        opt = cls(params, **opts)
        steps = r.randint(1, 6)
        for s in range(steps):
            for k, p in enumerate(params):
                if r.random() < 0.15:
                    p.grad = None
                else:
                    p.grad = torch.randn(p.shape, dtype=dtype)
                    tensors[f"{i}.g{s}.{k}"] = p.grad.clone()
            opt.step()
        for k, p in enumerate(params):
            tensors[f"{i}.out{k}"] = p.detach().clone()
        for k, st in opt.state_dict()["state"].items():
            for name, t in st.items():
                if t is not None:
                    tensors[f"{i}.state.{k}.{name}"] = t.detach().clone().reshape(t.shape)
        meta[str(i)] = json.dumps({"optimizer": kind, "options": opts, "steps": steps,
                                   "params": len(params)})
    write_safetensors(out, tensors, meta)


if __name__ == "__main__":
    main()
