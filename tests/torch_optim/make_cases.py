#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random optimiser runs computed by PyTorch (Debian's python3-torch) for test_torch_optim:
SGD, Adam, AdamW, Adagrad, RMSprop and Adadelta with random options on 1-3 parameters over 1-8 steps, a parameter's
gradient sometimes absent (torch then skips it); sometimes two parameter groups with their
own options, a learning-rate scheduler stepped after each step (StepLR, MultiStepLR,
ExponentialLR, LinearLR, CosineAnnealingLR, LambdaLR with lambda e: base**e, OneCycleLR,
CosineAnnealingWarmRestarts, ConstantLR, PolynomialLR, MultiplicativeLR with lambda e: base,
ChainedScheduler of a warm-up and a decay, SequentialLR of 2-3 of those epoch schedules;
ReduceLROnPlateau stepped with the case's "metrics"),
and clip_grad_norm_ or clip_grad_value_ before each step. Per case `<i>.p<k>` (initial
parameters), `<i>.g<s>.<k>` (the gradient of parameter k at step s, before clipping),
`<i>.out<k>` (torch's parameters after the last step) and `<i>.state.<k>.<name>` (torch's
state_dict()["state"]); as JSON in the metadata under `<i>`: the optimiser, its options,
the groups, the scheduler and clipping, each step's lrs ("lrs", the first after the
scheduler's construction) and total norms, and the groups' final hyper-parameters.
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
    if kind == "adagrad":
        return {"lr": r.choice([0.1, 0.01, 0.5]), "lr_decay": r.choice([0.0, 0.0, 0.1]),
                "weight_decay": r.choice([0.0, 0.0, 1e-2]),
                "initial_accumulator_value": r.choice([0.0, 0.0, 0.1]), "eps": r.choice([1e-10, 1e-6])}
    if kind == "rmsprop":
        return {"lr": r.choice([1e-2, 1e-3, 0.1]), "alpha": r.choice([0.99, 0.9]),
                "eps": r.choice([1e-8, 1e-6]), "weight_decay": r.choice([0.0, 0.0, 1e-2]),
                "momentum": r.choice([0.0, 0.0, 0.9]), "centered": r.random() < 0.4}
    if kind == "adadelta":
        return {"lr": r.choice([1.0, 0.5, 0.1]), "rho": r.choice([0.9, 0.95, 0.5]),
                "eps": r.choice([1e-6, 1e-4]), "weight_decay": r.choice([0.0, 0.0, 1e-2])}
    return {"lr": r.choice([1e-3, 1e-2, 0.1]), "betas": [r.choice([0.9, 0.8, 0.0]), r.choice([0.999, 0.99])],
            "eps": r.choice([1e-8, 1e-6]), "weight_decay": r.choice([0.0, 1e-2, 0.1]),
            "amsgrad": r.random() < 0.3}


def chainable(r, kind):
    """The arguments of a schedule of `kind` among the chainable ones."""
    if kind == "constant":
        return {"kind": kind, "factor": r.choice([1.0 / 3, 0.5, 0.1, 1.0]), "total_iters": r.randint(0, 5)}
    if kind == "polynomial":
        return {"kind": kind, "total_iters": r.randint(1, 6), "power": r.choice([1.0, 2.0, 0.5, 0.0])}
    if kind == "multiplicative":
        return {"kind": kind, "base": r.choice([0.95, 0.5, 1.05])}
    if kind == "step":
        return {"kind": kind, "step_size": r.randint(1, 3), "gamma": r.choice([0.1, 0.5, 0.9])}
    if kind == "multistep":
        return {"kind": kind, "milestones": sorted(r.randint(1, 7) for _ in range(r.randint(1, 3))),
                "gamma": r.choice([0.1, 0.5])}
    if kind == "exponential":
        return {"kind": kind, "gamma": r.choice([0.9, 0.5, 1.1])}
    return {"kind": kind, "start_factor": r.choice([1.0 / 3, 0.1, 0.5, 1.0]),
            "end_factor": r.choice([1.0, 0.5, 0.0]), "total_iters": r.randint(1, 6)}


# The schedules that SequentialLR takes in turn (every epoch schedule).
EPOCH_KINDS = ["step", "multistep", "exponential", "linear", "cosine", "lambda", "onecycle",
               "warm_restarts", "constant", "polynomial", "multiplicative"]


def scheduler(r, steps):
    kind = r.choice(["none", "none", "step", "multistep", "exponential", "linear", "cosine",
                     "lambda", "onecycle", "onecycle", "plateau", "warm_restarts", "constant",
                     "polynomial", "multiplicative", "chained", "chained", "sequential",
                     "sequential"])
    if kind == "none":
        return None
    if kind == "chained":  # a warm-up, then a decay, stepped together
        first = r.choice(["linear", "constant"])
        second = r.choice(["exponential", "step", "polynomial", "multistep"])
        return {"kind": kind, "schedulers": [chainable(r, first), chainable(r, second)]}
    if kind == "sequential":  # 2-3 epoch schedules in turn; milestones 0 .. steps + 1, repeats
        parts = [epoch_schedule(r, r.choice(EPOCH_KINDS), steps) for _ in range(r.randint(2, 3))]
        milestones = sorted(r.randint(0, steps + 1) for _ in range(len(parts) - 1))
        return {"kind": kind, "schedulers": parts, "milestones": milestones}
    return epoch_schedule(r, kind, steps)


def epoch_schedule(r, kind, steps):
    """The arguments of a schedule of `kind` (not chained, not sequential)."""
    if kind in ("constant", "polynomial", "multiplicative"):
        return chainable(r, kind)
    if kind == "plateau":
        # each step's metric: a random walk with plateaus (equal values, changes within the
        # threshold) and improvements
        mode = r.choice(["min", "max"])
        m, metrics = 1.0, []
        for _ in range(steps):
            m = m * r.choice([0.5, 0.9, 0.99995, 1.0, 1.0, 1.00005, 1.2])
            metrics.append(m)
        return {"kind": kind, "mode": mode, "factor": r.choice([0.1, 0.5, 0.9]),
                "patience": r.randint(0, 3), "threshold": r.choice([1e-4, 0.1, 0.0]),
                "threshold_mode": r.choice(["rel", "abs"]), "cooldown": r.randint(0, 2),
                "min_lr": r.choice([0.0, 1e-3, 0.05]), "eps": r.choice([1e-8, 1e-3]),
                "metrics": metrics}
    if kind in ("step", "multistep", "exponential", "linear"):
        return chainable(r, kind)
    if kind == "cosine":
        return {"kind": kind, "T_max": r.randint(1, 5), "eta_min": r.choice([0.0, 1e-4])}
    if kind == "lambda":
        return {"kind": kind, "base": r.choice([0.95, 0.5])}
    if kind == "warm_restarts":
        return {"kind": kind, "T_0": r.randint(1, 3), "T_mult": r.randint(1, 3),
                "eta_min": r.choice([0.0, 1e-4])}
    return {"kind": kind, "max_lr": r.choice([0.1, 1.0, 0.01]), "total_steps": steps + r.randint(0, 3),
            "pct_start": r.choice([0.25, 0.3, 0.5, 0.0]), "anneal_strategy": r.choice(["cos", "linear"]),
            "cycle_momentum": r.random() < 0.7, "div_factor": r.choice([25.0, 10.0]),
            "final_div_factor": r.choice([1e4, 100.0]), "three_phase": r.random() < 0.3}


def make_scheduler(opt, a):
    s = torch.optim.lr_scheduler
    k = a["kind"]
    if k == "chained":
        return s.ChainedScheduler([make_scheduler(opt, c) for c in a["schedulers"]])
    if k == "sequential":
        return s.SequentialLR(opt, [make_scheduler(opt, c) for c in a["schedulers"]], a["milestones"])
    if k == "constant":
        return s.ConstantLR(opt, a["factor"], a["total_iters"])
    if k == "polynomial":
        return s.PolynomialLR(opt, a["total_iters"], a["power"])
    if k == "multiplicative":
        base = a["base"]
        return s.MultiplicativeLR(opt, lambda e: base)
    if k == "step":
        return s.StepLR(opt, a["step_size"], a["gamma"])
    if k == "multistep":
        return s.MultiStepLR(opt, a["milestones"], a["gamma"])
    if k == "exponential":
        return s.ExponentialLR(opt, a["gamma"])
    if k == "linear":
        return s.LinearLR(opt, a["start_factor"], a["end_factor"], a["total_iters"])
    if k == "cosine":
        return s.CosineAnnealingLR(opt, a["T_max"], a["eta_min"])
    if k == "lambda":
        base = a["base"]
        return s.LambdaLR(opt, lambda e: base ** e)
    if k == "warm_restarts":
        return s.CosineAnnealingWarmRestarts(opt, a["T_0"], a["T_mult"], a["eta_min"])
    if k == "plateau":
        return s.ReduceLROnPlateau(opt, a["mode"], a["factor"], a["patience"], a["threshold"],
                                   a["threshold_mode"], a["cooldown"], a["min_lr"], a["eps"])
    return s.OneCycleLR(opt, a["max_lr"], total_steps=a["total_steps"], pct_start=a["pct_start"],
                        anneal_strategy=a["anneal_strategy"], cycle_momentum=a["cycle_momentum"],
                        div_factor=a["div_factor"], final_div_factor=a["final_div_factor"],
                        three_phase=a["three_phase"])


def clipping(r):
    c = r.random()
    if c < 0.2:
        return {"kind": "norm", "max_norm": r.choice([0.5, 1.0, 100.0]),
                "norm_type": r.choice([2.0, 2.0, 1.0, 3.0, "inf"])}
    if c < 0.3:
        return {"kind": "value", "clip_value": r.choice([0.1, 0.5])}
    return None


def group_values(opt):
    """The numeric keys of each param group, Adam's betas as beta1/beta2 (hetero's keys)."""
    out = []
    for g in opt.param_groups:
        d = {}
        for k, v in g.items():
            if k == "betas":
                d["beta1"], d["beta2"] = float(v[0]), float(v[1])
            elif isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
                d[k] = float(v)
        out.append(d)
    return out


def main():
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    r = random.Random(seed)
    torch.manual_seed(seed)
    tensors, meta = {}, {}
    for i in range(count):
        kind = r.choice(["sgd", "adam", "adamw", "adagrad", "rmsprop", "adadelta"])
        opts = options(r, kind)
        dtype = r.choice([torch.float32, torch.float64])
        shapes = [[r.randint(1, 5) for _ in range(r.randint(0, 2))] for _ in range(r.randint(1, 3))]
        params = [torch.randn(s, dtype=dtype, requires_grad=True) for s in shapes]
        for k, p in enumerate(params):
            tensors[f"{i}.p{k}"] = p.detach().clone()
        cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
               "adagrad": torch.optim.Adagrad, "rmsprop": torch.optim.RMSprop,
               "adadelta": torch.optim.Adadelta}[kind]
        # Two groups, the second with its own options, when there are two parameters or more.
        groups = None
        if len(params) > 1 and r.random() < 0.4:
            cut = r.randint(1, len(params) - 1)
            groups = [{"params": list(range(cut)), "options": None},
                      {"params": list(range(cut, len(params))), "options": options(r, kind)}]
            opt = cls([{"params": [params[j] for j in g["params"]], **(g["options"] or {})}
                       for g in groups], **opts)
        else:
            opt = cls(params, **opts)
        steps = r.randint(1, 8)
        sched_args = scheduler(r, steps)
        for one in [sched_args] + (sched_args or {}).get("schedulers", []):
            if one and one["kind"] == "onecycle":
                # A phase of zero steps divides by zero in torch (test_torch_optim's unit
                # tests check hetero's ValueError): drawn again.
                while one["pct_start"] * one["total_steps"] in (1.0, 2.0):
                    one["pct_start"] = r.choice([0.25, 0.3, 0.5, 0.0])
                if kind in ("adagrad", "adadelta"):  # no momentum to cycle (torch: ValueError)
                    one["cycle_momentum"] = False
        sched = make_scheduler(opt, sched_args) if sched_args else None
        clip = clipping(r)
        lrs = [[g["lr"] for g in opt.param_groups]]
        norms = []
        for s in range(steps):
            for k, p in enumerate(params):
                if r.random() < 0.15:
                    p.grad = None
                else:
                    p.grad = torch.randn(p.shape, dtype=dtype)
                    tensors[f"{i}.g{s}.{k}"] = p.grad.clone()
            if clip and clip["kind"] == "norm":
                norm_type = float(clip["norm_type"])
                norms.append(float(torch.nn.utils.clip_grad_norm_(params, clip["max_norm"], norm_type)))
            elif clip:
                torch.nn.utils.clip_grad_value_(params, clip["clip_value"])
            opt.step()
            if sched and sched_args["kind"] == "plateau":
                sched.step(sched_args["metrics"][s])
            elif sched:
                sched.step()
            lrs.append([g["lr"] for g in opt.param_groups])
        for k, p in enumerate(params):
            tensors[f"{i}.out{k}"] = p.detach().clone()
        for k, st in opt.state_dict()["state"].items():
            for name, t in st.items():
                if isinstance(t, int):  # RMSprop's and Adadelta's step: a Python int
                    t = torch.tensor(t)
                if t is not None:
                    tensors[f"{i}.state.{k}.{name}"] = t.detach().clone().reshape(t.shape)
        meta[str(i)] = json.dumps({"optimizer": kind, "options": opts, "steps": steps,
                                   "params": len(params), "groups": groups,
                                   "scheduler": sched_args, "clip": clip, "lrs": lrs,
                                   "norms": norms, "group_values": group_values(opt)})
    write_safetensors(out, tensors, meta)


if __name__ == "__main__":
    main()
