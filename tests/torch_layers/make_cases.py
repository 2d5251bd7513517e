#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random layer cases computed by PyTorch (Debian's python3-torch) for test_torch_layers:
BatchNorm1d/2d (a few training steps, then eval: outputs, running statistics, gradients),
GroupNorm, InstanceNorm1d/2d/3d (running statistics too), PReLU, PixelShuffle and
PixelUnshuffle, Unflatten, cosine_similarity, Unfold and Fold (kernel, dilation, padding and
stride per dimension), RNN / LSTM (with proj_size) / GRU, their cells and packed batches of sequences of
different lengths (torch.nn.utils.rnn), scaled dot-product attention (its math definition: torch 1.13 has no public
F.scaled_dot_product_attention), MultiheadAttention (batch_first, unbatched, bool and
float masks, key padding, weights averaged or per head), TransformerEncoderLayer and
TransformerDecoderLayer (post- and pre-norm, relu and gelu, masks of both attentions), with
dropout 0; the losses (MSE, L1, SmoothL1,
Huber, BCE, BCEWithLogits, NLL, CrossEntropy: reductions, weights, ignore_index, label
smoothing, class probabilities). Per case `<i>.param.<name>`
(the module's parameters, which the C++ side loads), `<i>.in<k>` (inputs), `<i>.out<k>`
(outputs), `<i>.grad.<name>` (gradients of sum(out0 * cot) for the inputs that require
grad and the parameters), `<i>.cot` (the cotangent); the case's arguments as JSON under `<i>`.
Usage: make_cases.py OUT.safetensors [SEED] [CASES]."""
import json
import math
import random
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/torch_conv")
from make_cases import write_safetensors  # noqa: E402

F = torch.nn.functional


def sdpa(q, k, v, mask, is_causal, scale):
    """torch 2's documented math path of scaled_dot_product_attention."""
    L, S = q.size(-2), k.size(-2)
    s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(mask.logical_not(), float("-inf")) if mask.dtype == torch.bool else bias + mask
    return torch.softmax(q @ k.transpose(-2, -1) * s + bias, dim=-1) @ v


def recurrent(r, a, dtype):
    """The nn.RNN / LSTM / GRU of a case of kind "rnn" or "packed" (a["mode"], its sizes and
    flags); an LSTM projects h to proj_size < hidden now and then (torch's LSTMP)."""
    mode = a["mode"]
    a["proj"] = r.randint(1, a["hidden"] - 1) if mode == "lstm" and a["hidden"] > 1 and r.random() < 0.4 else 0
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(mode, torch.nn.RNN)
    extra = {"nonlinearity": mode[4:]} if mode.startswith("rnn") else {}
    if a["proj"]:
        extra["proj_size"] = a["proj"]
    return cls(a["input_size"], a["hidden"], num_layers=a["layers"], bias=a["bias"],
               batch_first=a["batch_first"], bidirectional=a["bidirectional"], **extra).to(dtype)


def attention_mask(r, rows, cols, causal_ok):
    """A mask kind for attention over `cols` keys from `rows` queries and torch's mask
    (None, bool: True masks, every row keeps key 0; float: added; "causal": the bool triu
    mask hetero builds from is_causal; "square": generate_square_subsequent_mask's)."""
    kinds = ["none", "bool", "float"] + (["causal", "square"] if causal_ok and rows == cols else [])
    kind = r.choice(kinds)
    if kind == "bool":
        m = torch.rand(rows, cols) < 0.3
        m[:, 0] = False
    elif kind == "float":
        m = torch.randn(rows, cols)
    elif kind == "causal":
        m = torch.ones(rows, cols, dtype=torch.bool).triu(1)
    elif kind == "square":
        m = torch.nn.Transformer.generate_square_subsequent_mask(rows)
    else:
        m = None
    return kind, m


def transformer_case(r, a, dtype, tensors, i):
    """Kind "transformer": a TransformerEncoder stack of 1-2 layers or a TransformerDecoder
    stack of 0-2 (norm or not), or an nn.Transformer of 1-2 encoder and 1-2 decoder layers,
    with masks and key padding masks; dropout 0 (torch 1.13's encoder fails on 0 layers:
    "index 0 is out of range"). Returns (inputs, grads_of, module, output)."""
    variant = r.choice(["encoder_stack", "decoder_stack", "model"])
    H = r.choice([1, 2])
    E = H * r.randint(1, 3)
    batched = r.random() < 0.8
    N, S, T = r.randint(1, 3), r.randint(1, 4), r.randint(1, 4)
    a.update(variant=variant, heads=H, embed=E, batch_first=r.random() < 0.5,
             batched=batched, norm_first=r.random() < 0.5, activation=r.choice(["relu", "gelu"]),
             ff=r.randint(1, 6), encoder_layers=r.randint(1, 2),
             decoder_layers=r.randint(0 if variant == "decoder_stack" else 1, 2),
             norm=r.random() < 0.5)
    layer_args = dict(dim_feedforward=a["ff"], dropout=0.0, activation=a["activation"],
                      batch_first=a["batch_first"], norm_first=a["norm_first"])
    norm = torch.nn.LayerNorm(E) if a["norm"] else None
    if variant == "encoder_stack":
        module = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, H, **layer_args),
                                             a["encoder_layers"], norm)
    elif variant == "decoder_stack":
        module = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(E, H, **layer_args),
                                             a["decoder_layers"], norm)
    else:
        module = torch.nn.Transformer(E, H, a["encoder_layers"], a["decoder_layers"], **layer_args)
    module = module.to(dtype)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, dtype=dtype) * 0.1)
    a["params"] = len(list(module.parameters()))

    def seq(length):
        shape = ([N, length, E] if a["batch_first"] else [length, N, E]) if batched else [length, E]
        return torch.randn(shape, dtype=dtype).requires_grad_()

    def padding(name, length):
        if not batched or r.random() >= 0.4:
            return None
        m = torch.rand(N, length) < 0.3
        m[:, 0] = False
        tensors[f"{i}.{name}"] = m
        return m

    masks = {}
    for name, rows, cols in [("src_mask", S, S), ("tgt_mask", T, T), ("memory_mask", T, S)]:
        kind, m = attention_mask(r, rows, cols, name != "memory_mask")
        a[name] = kind
        if m is not None:
            tensors[f"{i}.{name}"] = m.to(dtype) if m.is_floating_point() else m
            masks[name] = tensors[f"{i}.{name}"]
        else:
            masks[name] = None
    pads = {name: padding(name, length) for name, length in
            [("src_padding", S), ("tgt_padding", T), ("memory_padding", S)]}
    if variant == "encoder_stack":
        src = seq(S)
        y = module(src, mask=masks["src_mask"], src_key_padding_mask=pads["src_padding"])
        ins = [src]
    elif variant == "decoder_stack":
        tgt, memory = seq(T), seq(S)
        y = module(tgt, memory, tgt_mask=masks["tgt_mask"], memory_mask=masks["memory_mask"],
                   tgt_key_padding_mask=pads["tgt_padding"],
                   memory_key_padding_mask=pads["memory_padding"])
        ins = [tgt, memory]
    else:
        src, tgt = seq(S), seq(T)
        y = module(src, tgt, src_mask=masks["src_mask"], tgt_mask=masks["tgt_mask"],
                   memory_mask=masks["memory_mask"], src_key_padding_mask=pads["src_padding"],
                   tgt_key_padding_mask=pads["tgt_padding"],
                   memory_key_padding_mask=pads["memory_padding"])
        ins = [src, tgt]
    return ins, [(f"in{k}", t) for k, t in enumerate(ins)], module, y


def steps_then_eval(module, shape, steps, rand, ins, tensors, i):
    """A normalisation layer (kinds batchnorm, instancenorm) through `steps` training steps and
    one eval step on new inputs (appended to `ins`), its buffers saved after; returns the last
    training step's output (it takes the gradient), that step's input as the gradient to
    compare, and every output."""
    outs = []
    for _ in range(steps):
        x = rand(*shape).requires_grad_()
        ins.append(x)
        outs.append(module(x))
    module.eval()
    ins.append(rand(*shape))
    outs.append(module(ins[-1]))
    for name, b in module.named_buffers():
        tensors[f"{i}.buffer.{name}"] = b.detach().clone()
    return outs[-2], [("in" + str(len(ins) - 2), ins[-2])], outs


def distance_loss_case(r, a, dtype, rand):
    """vector_norm, normalize, pairwise_distance and the margin, ranking and likelihood losses
    (HingeEmbedding, SoftMargin, MultiLabelSoftMargin, MultiMargin, MarginRanking,
    CosineEmbedding, TripletMargin, PoissonNLL, GaussianNLL). Returns (inputs, grads_of, output);
    a["grad"] lists the inputs whose gradients are compared."""
    F = torch.nn.functional
    red = r.choice(["mean", "mean", "sum", "none"])
    op = r.choice(["vector_norm", "vector_norm", "normalize", "pairwise", "hinge", "soft_margin",
                   "multilabel_soft_margin", "multi_margin", "multilabel_margin", "margin_ranking",
                   "cosine_embedding",
                   "triplet", "triplet", "poisson", "gaussian"])
    a.update(reduction=red, loss=op)
    N, D = r.randint(1, 4), r.randint(1, 5)
    sign = lambda *shape: torch.where(torch.rand(shape) < 0.5, -1.0, 1.0).to(dtype)
    if op == "vector_norm":
        shape = [r.randint(1, 3) for _ in range(r.randint(0, 3))]
        x = rand(*shape)
        if r.random() < 0.3 and x.numel() > 1:
            x.view(-1)[0] = 0.0  # a zero element (negative and fractional orders)
        if r.random() < 0.2:
            x = torch.where(torch.rand(shape) < 0.5, 2.0, -2.0).to(dtype)  # ties for +-inf
        dims = sorted(r.sample(range(len(shape)), r.randint(0, len(shape)))) if shape else []
        dims = [d - len(shape) if r.random() < 0.3 else d for d in dims]
        ord_ = r.choice([2.0, 2.0, 1.0, float("inf"), float("-inf"), 0.0, 0.5, 3.0, 1.5, -1.0])
        # (as text: JSON has no infinity; C++ reads it with std::stod)
        a.update(ord=str(ord_), dims=dims, keepdim=r.random() < 0.4, grad=[0])
        ins = [x.requires_grad_()]
        y = torch.linalg.vector_norm(x, ord_, dims if dims else None, a["keepdim"])
        if ord_ == 0.0:
            a["grad"] = []
    elif op == "normalize":
        shape = [N, D] if r.random() < 0.7 else [N, D, r.randint(1, 3)]
        x = rand(*shape)
        if r.random() < 0.3:
            x[0] = 0.0  # a zero vector (the clamp)
        a.update(p=r.choice([2.0, 1.0, 3.0]), dim=r.choice([1, -1, 0]),
                 eps=r.choice([1e-12, 0.5]), grad=[0])
        ins = [x.requires_grad_()]
        y = F.normalize(x, a["p"], a["dim"], a["eps"])
    elif op == "pairwise":
        x1 = rand(N, D)
        x2 = rand(D) if r.random() < 0.3 else rand(N, D)
        p = r.choice([2.0, 1.0, 3.0, 0.5, float("inf")])
        a.update(p=str(p), eps=r.choice([1e-6, 0.0, 0.1]), keepdim=r.random() < 0.3, grad=[0, 1])
        ins = [x1.requires_grad_(), x2.requires_grad_()]
        y = F.pairwise_distance(x1, x2, p, a["eps"], a["keepdim"])
    elif op in ("hinge", "soft_margin"):
        shape = [r.randint(1, 3) for _ in range(r.randint(0, 3))]
        x = rand(*shape) * 2
        tshape = shape[r.randint(0, len(shape)):] if shape and r.random() < 0.3 else shape
        t = sign(*tshape)
        if op == "hinge":
            if r.random() < 0.2:
                t = torch.randint(-1, 2, tshape).to(dtype)  # 0: neither, both terms
            a.update(margin=r.choice([1.0, 0.5, 2.0, -0.5]), grad=[0])
            y = F.hinge_embedding_loss(x.requires_grad_(), t, a["margin"], reduction=red)
        else:
            a["grad"] = [0]  # (torch 1.13: "not differentiable with respect to argument 'target'")
            y = F.soft_margin_loss(x.requires_grad_(), t, reduction=red)
        ins = [x, t]
    elif op == "multilabel_soft_margin":
        shape = r.choice([[N, D], [D], [N, 2, D]])
        x = rand(*shape) * 2
        t = (torch.rand(shape) < 0.5).to(dtype)
        w = rand(D).abs() + 0.1 if r.random() < 0.4 else None
        a.update(weighted=w is not None, grad=[0])
        y = F.multilabel_soft_margin_loss(x.requires_grad_(), t, weight=w, reduction=red)
        ins = [x, t] + ([w] if w is not None else [])
    elif op == "multilabel_margin":
        batched = r.random() < 0.8
        x = rand(N, D) if batched else rand(D)
        # each row: targets (repeats allowed), then -1 and anything in [-1, D)
        rows = []
        for _ in range(N if batched else 1):
            k = r.randint(0, D)
            row = [r.randrange(D) for _ in range(k)] + ([-1] if k < D else [])
            rows.append(row + [r.randint(-1, D - 1) for _ in range(D - len(row))])
        t = torch.tensor(rows if batched else rows[0], dtype=torch.int64)
        a.update(grad=[0])
        y = F.multilabel_margin_loss(x.requires_grad_(), t, reduction=red)
        ins = [x, t]
    elif op == "multi_margin":
        batched = r.random() < 0.8
        x = rand(N, D) if batched else rand(D)
        t = torch.randint(0, D, [N] if batched else [])
        w = rand(D).abs() + 0.1 if r.random() < 0.4 else None
        a.update(p=r.choice([1, 2]), margin=r.choice([1.0, 0.5, 2.0]), weighted=w is not None,
                 grad=[0])
        y = F.multi_margin_loss(x.requires_grad_(), t, a["p"], a["margin"], w, reduction=red)
        ins = [x, t] + ([w] if w is not None else [])
    elif op == "margin_ranking":
        shape = r.choice([[N], [N, D], []])
        x1, x2 = rand(*shape), rand(*shape)
        tshape = [1] * len(shape) if shape and r.random() < 0.3 else shape
        t = sign(*tshape)
        a.update(margin=r.choice([0.0, 0.5, -0.3]), grad=[0, 1, 2])
        ins = [x1.requires_grad_(), x2.requires_grad_(), t.requires_grad_()]
        y = F.margin_ranking_loss(x1, x2, t, a["margin"], reduction=red)
    elif op == "cosine_embedding":
        batched = r.random() < 0.8
        x1 = rand(N, D) if batched else rand(D)
        x2 = (rand(1, D) if r.random() < 0.2 else rand(N, D)) if batched else rand(D)
        t = sign(N) if batched else sign()
        if r.random() < 0.2 and batched:
            t[0] = 0.0  # neither: a loss of 0
        a.update(margin=r.choice([0.0, 0.5, -0.2]), grad=[0, 1])
        ins = [x1.requires_grad_(), x2.requires_grad_(), t]
        y = F.cosine_embedding_loss(x1, x2, t, a["margin"], reduction=red)
    elif op == "triplet":
        shape = [N, D] if r.random() < 0.8 else [D]
        an, po, ne = rand(*shape), rand(*shape), rand(*shape)
        a.update(margin=r.choice([1.0, 0.5, 2.0]), p=r.choice([2.0, 2.0, 1.0, 3.0]),
                 eps=r.choice([1e-6, 0.1]), swap=r.random() < 0.3, grad=[0, 1, 2])
        ins = [an.requires_grad_(), po.requires_grad_(), ne.requires_grad_()]
        y = F.triplet_margin_loss(an, po, ne, a["margin"], a["p"], a["eps"], a["swap"],
                                  reduction=red)
    elif op == "poisson":
        shape = [r.randint(1, 3) for _ in range(r.randint(0, 3))]
        log_input = r.random() < 0.6
        x = rand(*shape) if log_input else torch.rand(shape, dtype=dtype) * 3 + 0.05
        t = torch.randint(0, 6, shape).to(dtype)
        a.update(log_input=log_input, full=r.random() < 0.4, eps=r.choice([1e-8, 0.1]), grad=[0])
        y = F.poisson_nll_loss(x.requires_grad_(), t, log_input, a["full"], eps=a["eps"],
                               reduction=red)
        ins = [x, t]
    else:  # gaussian
        shape = r.choice([[N, D], [N], [N, 2, D]])
        x, t = rand(*shape), rand(*shape)
        vkind = r.choice(["same", "same", "short", "one"]) if len(shape) > 1 else "same"
        vshape = shape if vkind == "same" else shape[:-1] if vkind == "short" else shape[:-1] + [1]
        v = torch.rand(vshape, dtype=dtype) + 0.05
        if r.random() < 0.3:
            v.view(-1)[0] = 1e-9  # below eps: clamped, the gradient passing as torch's
        a.update(full=r.random() < 0.4, eps=r.choice([1e-6, 0.1]), grad=[0, 1, 2])
        ins = [x.requires_grad_(), t.requires_grad_(), v.requires_grad_()]
        y = F.gaussian_nll_loss(x, t, v, a["full"], a["eps"], reduction=red)
    grads_of = [(f"in{k}", ins[k]) for k in a["grad"]]
    return ins, grads_of, y


def embedding_bag_case(r, a, dtype, rand):
    """F.embedding_bag: the bags of a [B, N] input, or of an [L] input cut at offsets (empty
    bags, include_last_offset), modes sum, mean and max
    (rounded weights now and then: ties), per_sample_weights, padding_idx. Returns (inputs,
    grads_of, output): the weight, the indices, the offsets if any, the per-sample weights if
    any."""
    F = torch.nn.functional
    rows, D = r.randint(1, 6), r.randint(1, 4)
    w = rand(rows, D)
    if r.random() < 0.2:
        w = torch.round(w)
    mode = r.choice(["sum", "mean", "max"])
    offsets, include_last = None, False
    if r.random() < 0.3:
        idx = torch.randint(0, rows, (r.randint(1, 3), r.randint(1, 4)))
    else:
        L = r.randint(0, 8)
        idx = torch.randint(0, rows, (L,))
        cuts = sorted(r.randint(0, L) for _ in range(r.randint(0, 3)))
        include_last = r.random() < 0.3
        # (torch 1.13 corrupts memory for entries after the last offset: its documented
        # contract is a last offset of L, the CSR layout)
        ends = [L] if include_last else []
        offsets = torch.tensor([0] + cuts + ends, dtype=torch.int64)
    pad = r.randint(-rows, rows - 1) if r.random() < 0.3 else None
    psw = rand(*idx.shape) if mode == "sum" and r.random() < 0.4 else None
    a.update(mode=mode, include_last=include_last, padding_idx=pad, offsets=offsets is not None,
             psw=psw is not None)
    w.requires_grad_()
    if psw is not None:
        psw.requires_grad_()
    y = F.embedding_bag(idx, w, offsets, mode=mode, per_sample_weights=psw,
                        include_last_offset=include_last, padding_idx=pad)
    ins = [w, idx] + ([offsets] if offsets is not None else []) + ([psw] if psw is not None else [])
    grads_of = [("in0", w)] + ([(f"in{len(ins) - 1}", psw)] if psw is not None else [])
    return ins, grads_of, y


def ctc_case(r, a, dtype, rand):
    """F.ctc_loss of log_softmax(logits): padded or concatenated targets (repeats, empty
    targets, any blank), unbatched inputs, input lengths shorter than T, each reduction;
    alignments too short get zero_infinity (torch's gradient of an infinite loss is NaN,
    which CTCLoss.InfiniteLossesAsTorch checks). Returns (inputs, grads_of, output): the
    logits, the targets, the input lengths, the target lengths."""
    F = torch.nn.functional
    T, C = r.randint(1, 8), r.randint(2, 5)
    batched = r.random() < 0.8
    N = r.randint(1, 3) if batched else 1
    blank = r.randint(0, C - 1)
    labels = [c for c in range(C) if c != blank]
    # (an input length of 0: torch 1.13 reads out of bounds; CTCLoss.ZeroLengthInput)
    in_len = [r.randint(max(1, T - 3), T) for _ in range(N)]
    tg_len = [r.randint(0, min(4, T)) for _ in range(N)]
    seqs = [[r.choice(labels) for _ in range(k)] for k in tg_len]
    need = [len(q) + sum(q[j] == q[j - 1] for j in range(1, len(q))) for q in seqs]
    zero_inf = r.random() < 0.3 or any(need[b] > in_len[b] for b in range(N))
    padded = r.random() < 0.5
    S = max(tg_len + [1]) + r.randint(0, 1)
    if padded or not batched:
        tg = torch.tensor([q + [r.choice(labels)] * (S - len(q)) for q in seqs], dtype=torch.int64)
    else:
        tg = torch.tensor([c for q in seqs for c in q], dtype=torch.int64)
    il, tl = torch.tensor(in_len), torch.tensor(tg_len)
    if not batched:
        tg, il, tl = tg[0, :tg_len[0]], il[0], tl[0]
    x = rand(T, N, C) if batched else rand(T, C)
    red = r.choice(["mean", "sum", "none"])
    a.update(blank=blank, reduction=red, zero_infinity=zero_inf)
    x.requires_grad_()
    y = F.ctc_loss(F.log_softmax(x, -1), tg, il, tl, blank=blank, reduction=red,
                   zero_infinity=zero_inf)
    return [x, tg, il, tl], [("in0", x)], y


def case(r, i, tensors):
    kind = r.choice(["batchnorm", "batchnorm", "groupnorm", "sdpa", "mha", "mha", "encoder",
                     "decoder", "transformer", "loss", "loss", "rnn", "rnn", "rnn_cell", "packed",
                     "instancenorm", "module", "distance_loss", "distance_loss",
                     "embedding_bag", "ctc"])
    dtype = r.choice([torch.float64, torch.float64, torch.float32])
    a = {"kind": kind, "dtype": "float64" if dtype == torch.float64 else "float32"}
    ins, grads_of, module = [], [], None

    def rand(*shape):
        return torch.randn(shape, dtype=dtype)

    if kind == "batchnorm":
        two_d = r.random() < 0.5
        c = r.randint(1, 4)
        momentum = r.choice([0.1, None, 0.5])
        a.update(two_d=two_d, features=c, momentum=momentum, affine=r.random() < 0.8,
                 track=r.random() < 0.8, steps=r.randint(1, 3))
        cls = torch.nn.BatchNorm2d if two_d else torch.nn.BatchNorm1d
        module = cls(c, momentum=momentum, affine=a["affine"], track_running_stats=a["track"]).to(dtype)
        shape = [r.randint(2, 3), c, r.randint(1, 4), r.randint(1, 4)] if two_d else (
            [r.randint(2, 5), c] if r.random() < 0.5 else [r.randint(1, 3), c, r.randint(2, 4)])
        a["shape"] = shape
        y, grads_of, all_out = steps_then_eval(module, shape, a["steps"], rand, ins, tensors, i)
    elif kind == "instancenorm":
        dims = r.randint(1, 3)
        c = r.randint(1, 3)
        a.update(dims=dims, features=c, momentum=r.choice([0.1, 0.5, 1.0]), affine=r.random() < 0.5,
                 track=r.random() < 0.5, steps=r.randint(1, 2), batched=r.random() < 0.8)
        cls = [torch.nn.InstanceNorm1d, torch.nn.InstanceNorm2d, torch.nn.InstanceNorm3d][dims - 1]
        module = cls(c, momentum=a["momentum"], affine=a["affine"],
                     track_running_stats=a["track"]).to(dtype)
        if a["affine"]:
            with torch.no_grad():
                module.weight.normal_()
                module.bias.normal_()
        spatial = [r.randint(1, 4) for _ in range(dims)]
        if math.prod(spatial) == 1:  # one spatial element: both raise in training
            spatial[0] = 2
        shape = ([r.randint(1, 3)] if a["batched"] else []) + [c] + spatial
        a["shape"] = shape
        y, grads_of, all_out = steps_then_eval(module, shape, a["steps"], rand, ins, tensors, i)
    elif kind == "module":
        variant = r.choice(["prelu", "pixel_shuffle", "pixel_unshuffle", "unflatten", "cosine",
                            "unfold", "fold"])
        a["variant"] = variant
        if variant == "prelu":
            c = r.randint(1, 4)
            shape = [r.randint(1, 3), c, *[r.randint(1, 3) for _ in range(r.randint(0, 2))]]
            a["num_parameters"] = r.choice([1, c])
            module = torch.nn.PReLU(a["num_parameters"]).to(dtype)
            with torch.no_grad():
                module.weight.normal_()
            x = rand(*shape)
            x[x.abs() < 1e-3] = 0.5  # away from the kink at 0
            x = x.requires_grad_()
            y = module(x)
        elif variant in ("pixel_shuffle", "pixel_unshuffle"):
            f = r.randint(1, 3)
            lead = [r.randint(1, 2) for _ in range(r.randint(0, 2))]
            if variant == "pixel_shuffle":
                shape = lead + [r.randint(1, 2) * f * f, r.randint(1, 3), r.randint(1, 3)]
                y_fn = torch.nn.PixelShuffle(f)
            else:
                shape = lead + [r.randint(1, 2), r.randint(1, 2) * f, r.randint(1, 3) * f]
                y_fn = torch.nn.PixelUnshuffle(f)
            a["factor"] = f
            x = rand(*shape).requires_grad_()
            y = y_fn(x)
        elif variant in ("unfold", "fold"):
            # A window (kernel, dilation, padding, stride) and an image it fits at least once.
            k, d, p, st = ([r.randint(lo, hi) for _ in range(2)] for lo, hi in
                           ((1, 3), (1, 2), (0, 2), (1, 3)))
            size = [max(1, (k[q] - 1) * d[q] + 1 - 2 * p[q]) + r.randint(0, 4) for q in range(2)]
            lead = [r.randint(1, 2)] if r.random() < 0.8 else []
            c = r.randint(1, 3)
            a.update(kernel=k, dilation=d, padding=p, stride=st, output_size=size)
            if variant == "unfold":
                shape = lead + [c] + size
                x = rand(*shape).requires_grad_()
                y = F.unfold(x, k, d, p, st)
            else:
                blocks = [(size[q] + 2 * p[q] - (k[q] - 1) * d[q] - 1) // st[q] + 1 for q in range(2)]
                shape = lead + [c * k[0] * k[1], blocks[0] * blocks[1]]
                x = rand(*shape).requires_grad_()
                y = F.fold(x, size, k, d, p, st)
        elif variant == "unflatten":
            n = r.choice([4, 6, 12])
            sizes = r.choice({4: [[2, 2], [4, 1], [-1, 2]], 6: [[2, 3], [3, -1], [1, 6, 1]],
                              12: [[2, 2, 3], [-1, 4], [3, 4]]}[n])
            shape = [r.randint(1, 3), n, r.randint(1, 2)]
            a.update(dim=r.choice([1, -2]), sizes=sizes)
            x = rand(*shape).requires_grad_()
            y = torch.nn.Unflatten(a["dim"], sizes)(x)
        else:
            shape = [r.randint(1, 3), r.randint(1, 4), r.randint(1, 3)]
            other = list(shape)
            if r.random() < 0.3:
                other[0] = 1  # broadcast
            a.update(dim=r.choice([1, -1, 0]), eps=r.choice([1e-8, 1e-1]))
            x, x2 = rand(*shape), rand(*other)
            if r.random() < 0.2:
                x[0] = 0.0  # a zero vector: the clamped norm
            x, x2 = x.requires_grad_(), x2.requires_grad_()
            y = F.cosine_similarity(x, x2, a["dim"], a["eps"])
            ins.append(x2)
        a["shape"] = shape
        ins.insert(0, x)
        grads_of = [(f"in{k}", t) for k, t in enumerate(ins)]
        all_out = [y]
    elif kind == "groupnorm":
        g = r.choice([1, 2])
        c = g * r.randint(1, 3)
        a.update(groups=g, channels=c, affine=r.random() < 0.8)
        module = torch.nn.GroupNorm(g, c, affine=a["affine"]).to(dtype)
        if a["affine"]:
            with torch.no_grad():
                module.weight.normal_()
                module.bias.normal_()
        shape = [r.randint(1, 3), c, *[r.randint(1, 3) for _ in range(r.randint(0, 2))]]
        if shape[0] * (c // g) * math.prod(shape[2:]) == 1:  # one value per group: both raise
            shape[0] = 2
        x = rand(*shape).requires_grad_()
        ins, grads_of = [x], [("in0", x)]
        y = module(x)
        all_out = [y]
        if dtype == torch.float32:
            # The float64 value beside torch's float32 one: with few values per group the
            # variance is near 0 and 1 / sqrt(var + eps) (up to 316) magnifies torch's own
            # rounding (seed 19 case 189: one value per group, torch 2e-4 from the bias).
            with torch.no_grad():
                tensors[f"{i}.exact0"] = F.group_norm(
                    x.double(), g, *(None if p is None else p.double()
                                     for p in (module.weight, module.bias)), module.eps)
    elif kind == "rnn":
        mode = r.choice(["rnn_tanh", "rnn_relu", "lstm", "gru"])
        a.update(mode=mode, input_size=r.randint(1, 4), hidden=r.randint(1, 4), layers=r.randint(1, 3),
                 bidirectional=r.random() < 0.4, batch_first=r.random() < 0.3, bias=r.random() < 0.8,
                 batched=r.random() < 0.8, h0=r.random() < 0.5)
        module = recurrent(r, a, dtype)
        L, N = r.randint(1, 5), r.randint(1, 3)
        a["seq_len"] = L
        shape = (([N, L] if a["batch_first"] else [L, N]) if a["batched"] else [L]) + [a["input_size"]]
        x = rand(*shape).requires_grad_()
        ins, grads_of = [x], [("in0", x)]
        D = 2 if a["bidirectional"] else 1
        state = [a["layers"] * D] + ([N] if a["batched"] else []) + [a["hidden"]]
        hx = None
        if a["h0"]:
            hx = rand(*state[:-1], a["proj"] or a["hidden"]).requires_grad_()
            ins.append(hx)
            grads_of.append(("in1", hx))
            if mode == "lstm":
                c0 = rand(*state).requires_grad_()
                ins.append(c0)
                grads_of.append(("in2", c0))
                hx = (hx, c0)
        y, hn = module(x, hx)
        all_out = [y, *hn] if mode == "lstm" else [y, hn]
    elif kind == "packed":
        # A batch of sequences of different lengths through torch.nn.utils.rnn: packed from a
        # padded tensor (or pack_sequence of per-sequence slices), run, padded again.
        mode = r.choice(["rnn_tanh", "rnn_relu", "lstm", "gru"])
        a.update(mode=mode, input_size=r.randint(1, 3), hidden=r.randint(1, 4), layers=r.randint(1, 2),
                 bidirectional=r.random() < 0.5, batch_first=r.random() < 0.4, bias=r.random() < 0.8,
                 h0=r.random() < 0.5, enforce_sorted=r.random() < 0.3, pack_sequence=r.random() < 0.3,
                 padding_value=r.choice([0.0, -1.5]))
        module = recurrent(r, a, dtype)
        B = r.randint(1, 4)
        lengths = [r.randint(1, 5) for _ in range(B)]
        if a["enforce_sorted"]:
            lengths.sort(reverse=True)
        T = max(lengths) + r.randint(0, 1)  # the padded input may be longer than every sequence
        a.update(lengths=lengths, seq_len=T, total_length=T if r.random() < 0.5 else None)
        x = rand(*([B, T] if a["batch_first"] else [T, B]), a["input_size"]).requires_grad_()
        ins, grads_of = [x], [("in0", x)]
        if a["pack_sequence"]:
            seqs = [(x[b] if a["batch_first"] else x[:, b])[:lengths[b]] for b in range(B)]
            packed = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=a["enforce_sorted"])
        else:
            packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=a["batch_first"],
                                                             enforce_sorted=a["enforce_sorted"])
        D = 2 if a["bidirectional"] else 1
        hx = None
        if a["h0"]:
            hx = rand(a["layers"] * D, B, a["proj"] or a["hidden"]).requires_grad_()
            ins.append(hx)
            grads_of.append(("in1", hx))
            if mode == "lstm":
                c0 = rand(a["layers"] * D, B, a["hidden"]).requires_grad_()
                ins.append(c0)
                grads_of.append(("in2", c0))
                hx = (hx, c0)
        out, hn = module(packed, hx)
        y, lens = torch.nn.utils.rnn.pad_packed_sequence(
            out, batch_first=a["batch_first"], padding_value=a["padding_value"], total_length=a["total_length"])
        assert lens.tolist() == lengths
        all_out = [y, *hn] if mode == "lstm" else [y, hn]
    elif kind == "rnn_cell":
        # A few steps of RNNCell / LSTMCell / GRUCell, each step's state fed to the next.
        mode = r.choice(["rnn_tanh", "rnn_relu", "lstm", "gru"])
        a.update(mode=mode, input_size=r.randint(1, 4), hidden=r.randint(1, 4), bias=r.random() < 0.8,
                 batched=r.random() < 0.8, hx=r.random() < 0.5, steps=r.randint(1, 3))
        cls = {"lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}.get(mode, torch.nn.RNNCell)
        extra = {"nonlinearity": mode[4:]} if mode.startswith("rnn") else {}
        module = cls(a["input_size"], a["hidden"], bias=a["bias"], **extra).to(dtype)
        lead = [r.randint(1, 3)] if a["batched"] else []
        x = rand(a["steps"], *lead, a["input_size"]).requires_grad_()
        ins, grads_of = [x], [("in0", x)]
        state = None
        if a["hx"]:
            state = rand(*lead, a["hidden"]).requires_grad_()
            ins.append(state)
            grads_of.append(("in1", state))
            if mode == "lstm":
                c0 = rand(*lead, a["hidden"]).requires_grad_()
                ins.append(c0)
                grads_of.append(("in2", c0))
                state = (state, c0)
        hs, cs = [], []
        for t in range(a["steps"]):
            state = module(x[t], state)
            hs.append(state[0] if mode == "lstm" else state)
            if mode == "lstm":
                cs.append(state[1])
        y = torch.stack(hs)
        all_out = [y] + ([torch.stack(cs)] if mode == "lstm" else [])
    elif kind == "loss":
        red = r.choice(["mean", "mean", "sum", "none"])
        loss = r.choice(["mse", "l1", "smooth_l1", "huber", "bce", "bce_logits", "nll", "ce", "ce", "ce",
                         "kl_div"])
        if loss == "kl_div" and r.random() < 0.4:
            red = "batchmean"
        a.update(reduction=red, loss=loss)
        if loss == "kl_div":
            shape = [r.randint(1, 3) for _ in range(r.randint(0, 3))]
            a["log_target"] = r.random() < 0.3
            x = (torch.log_softmax(rand(*shape), -1) if shape else rand()).requires_grad_()
            # the target broadcast from fewer dimensions now and then
            tshape = shape[r.randint(0, len(shape)):] if shape and r.random() < 0.3 else shape
            p = torch.rand(tshape, dtype=dtype)
            if a["log_target"]:
                tg = p.log()
            else:  # some probabilities exactly 0 (0 log 0 is 0)
                tg = torch.where(torch.rand(tshape) < 0.2, torch.zeros((), dtype=dtype), p)
            y = F.kl_div(x, tg, reduction=red, log_target=a["log_target"])
            ins = [x, tg]
        elif loss in ("mse", "l1", "smooth_l1", "huber", "bce", "bce_logits"):
            shape = [r.randint(1, 3) for _ in range(r.randint(0, 3))]
            x, tg = rand(*shape), rand(*shape)
            if loss == "mse":
                y = F.mse_loss(x.requires_grad_(), tg, reduction=red)
            elif loss == "l1":
                y = F.l1_loss(x.requires_grad_(), tg, reduction=red)
            elif loss == "smooth_l1":
                a["beta"] = r.choice([1.0, 0.5, 0.0, 2.0])
                y = F.smooth_l1_loss(x.requires_grad_(), tg, reduction=red, beta=a["beta"])
            elif loss == "huber":
                a["delta"] = r.choice([1.0, 0.5, 2.0])
                y = F.huber_loss(x.requires_grad_(), tg, reduction=red, delta=a["delta"])
            else:
                last = shape[-1:]  # [] for a 0-d input
                w = rand(*last).abs() + 0.1 if r.random() < 0.4 else None
                a["weighted"] = w is not None
                tg = torch.rand(shape, dtype=dtype) if r.random() < 0.5 else (torch.rand(shape) < 0.5).to(dtype)
                if loss == "bce":
                    x = (torch.rand(shape, dtype=dtype) * 0.9 + 0.05).requires_grad_()
                    y = F.binary_cross_entropy(x, tg, weight=w, reduction=red)
                    ins_w = [w] if w is not None else []
                else:
                    pw = rand(*last).abs() + 0.2 if r.random() < 0.4 else None
                    a["pos_weighted"] = pw is not None
                    x = (rand(*shape) * 3).requires_grad_()
                    y = F.binary_cross_entropy_with_logits(x, tg, weight=w, reduction=red, pos_weight=pw)
                    ins_w = ([w] if w is not None else []) + ([pw] if pw is not None else [])
            ins = [x, tg] + (ins_w if loss in ("bce", "bce_logits") else [])
        else:
            C = r.randint(1, 5)
            layout = r.choice(["nc", "nc", "c", "ncd"])
            N = r.randint(1, 4)
            extra = [r.randint(1, 3) for _ in range(r.randint(1, 2))] if layout == "ncd" else []
            shape = [C] if layout == "c" else [N, C, *extra]
            per = [] if layout == "c" else [N, *extra]
            probs = r.random() < 0.25
            ignore = -100 if C == 1 or probs else r.choice([-100, -100, 0, 2])
            a.update(probs=probs, label_smoothing=r.choice([0.0, 0.0, 0.1, 0.5]),
                     weighted=r.random() < 0.4, ignore_index=ignore)
            x = rand(*shape).requires_grad_()
            if probs:
                tg = torch.softmax(rand(*shape), dim=0 if layout == "c" else 1)
            else:
                tg = torch.randint(0, C, per)
                if r.random() < 0.5:  # one target ignored, another kept
                    tg.view(-1)[0] = ignore
                    if tg.numel() > 1:
                        tg.view(-1)[-1] = (ignore + 1) % C if 0 <= ignore < C else 0
                if bool((tg == ignore).all()):  # a mean over nothing is NaN on both sides
                    tg.view(-1)[-1] = (ignore + 1) % C if 0 <= ignore < C else 0
            w = rand(C).abs() + 0.1 if a["weighted"] else None
            if loss == "nll":
                a["probs"], a["label_smoothing"] = False, 0.0
                if probs:
                    tg = torch.randint(0, C, per)
                x_in = torch.log_softmax(x.detach(), 0 if layout == "c" else 1).requires_grad_()
                y = F.nll_loss(x_in, tg, weight=w, ignore_index=ignore, reduction=red)
                x = x_in
            else:
                y = F.cross_entropy(x, tg, weight=w, ignore_index=ignore, reduction=red,
                                    label_smoothing=a["label_smoothing"])
            ins = [x, tg] + ([w] if w is not None else [])
        grads_of, all_out = [("in0", x)], [y]
    elif kind == "distance_loss":
        ins, grads_of, y = distance_loss_case(r, a, dtype, rand)
        all_out = [y]
    elif kind == "embedding_bag":
        ins, grads_of, y = embedding_bag_case(r, a, dtype, rand)
        all_out = [y]
    elif kind == "ctc":
        ins, grads_of, y = ctc_case(r, a, dtype, rand)
        all_out = [y]
    elif kind == "transformer":
        ins, grads_of, module, y = transformer_case(r, a, dtype, tensors, i)
        all_out = [y]
    elif kind == "sdpa":
        batch = [r.randint(1, 2) for _ in range(r.randint(0, 2))]
        L, S, E, Ev = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4), r.randint(1, 3)
        causal = r.random() < 0.3
        q, k, v = rand(*batch, L, E), rand(*batch, S, E), rand(*batch, S, Ev)
        mask = None
        if not causal and r.random() < 0.5:
            if r.random() < 0.5:
                mask = torch.rand(L, S) < 0.7
                mask[:, 0] = True  # every row attends somewhere (a masked row is NaN on both sides)
            else:
                mask = rand(L, S)
        if causal:
            S = L
            k, v = rand(*batch, S, E), rand(*batch, S, Ev)
        a.update(causal=causal, scale=r.choice([None, None, 0.5]), mask=mask is not None)
        for t in (q, k, v):
            t.requires_grad_()
        ins = [q, k, v] + ([mask] if mask is not None else [])
        grads_of = [("in0", q), ("in1", k), ("in2", v)]
        y = sdpa(q, k, v, mask, causal, a["scale"])
        all_out = [y]
    else:
        H = r.choice([1, 2])
        E = H * r.randint(1, 3)
        batch_first = r.random() < 0.5
        batched = r.random() < 0.8
        N, L = r.randint(1, 3), r.randint(1, 4)
        S = L if kind == "encoder" else r.randint(1, 4)
        # The decoder's self-attention mask is [L, L]; its memory mask [L, S] is drawn below.
        square = L == S or kind == "decoder"
        mask_kind = r.choice(["none", "bool", "float", "causal"]) if square else r.choice(["none", "float"])
        padding = batched and r.random() < 0.4
        a.update(heads=H, embed=E, batch_first=batch_first, batched=batched, mask=mask_kind,
                 padding=padding)
        keys = L if kind == "decoder" else S  # the decoder's mask is its self-attention's
        if mask_kind == "bool":
            m = torch.rand(L, keys) < 0.3
            m[:, 0] = False  # hetero's and torch's: True masks; every row keeps key 0
        elif mask_kind == "float":
            m = rand(L, keys)
        elif mask_kind == "causal":
            m = torch.ones(L, keys, dtype=torch.bool).triu(1)
        else:
            m = None
        kpm = None
        if padding:  # the decoder's is over its own L positions
            kpm = torch.rand(N, L if kind == "decoder" else S) < 0.3
            kpm[:, 0] = False
        def seq(T):
            shape = ([N, T, E] if batch_first else [T, N, E]) if batched else [T, E]
            return rand(*shape).requires_grad_()
        if kind == "mha":
            module = torch.nn.MultiheadAttention(E, H, batch_first=batch_first).to(dtype)
            with torch.no_grad():
                module.in_proj_bias.normal_()
                module.out_proj.bias.normal_()
            q, k, v = seq(L), seq(S), seq(S)
            a.update(average=r.random() < 0.7)
            y, w = module(q, k, v, key_padding_mask=kpm, attn_mask=m, average_attn_weights=a["average"])
            ins = [q, k, v]
            grads_of = [("in0", q), ("in1", k), ("in2", v)]
            all_out = [y, w]
        elif kind == "decoder":
            a.update(norm_first=r.random() < 0.5, activation=r.choice(["relu", "gelu"]),
                     ff=r.randint(1, 6), memory_mask=r.choice(["none", "bool", "float"]),
                     memory_padding=batched and r.random() < 0.4)
            module = torch.nn.TransformerDecoderLayer(E, H, a["ff"], dropout=0.0, activation=a["activation"],
                                                      batch_first=batch_first, norm_first=a["norm_first"]).to(dtype)
            with torch.no_grad():
                for p in module.parameters():
                    p.add_(torch.randn(p.shape, dtype=dtype) * 0.1)
            mm = None
            if a["memory_mask"] == "bool":
                mm = torch.rand(L, S) < 0.3
                mm[:, 0] = False
            elif a["memory_mask"] == "float":
                mm = rand(L, S)
            mpad = None
            if a["memory_padding"]:
                mpad = torch.rand(N, S) < 0.3
                mpad[:, 0] = False
            x, mem = seq(L), seq(S)
            y = module(x, mem, tgt_mask=m, memory_mask=mm, tgt_key_padding_mask=kpm,
                       memory_key_padding_mask=mpad)
            ins, grads_of, all_out = [x, mem], [("in0", x), ("in1", mem)], [y]
            if mm is not None:
                tensors[f"{i}.memory_mask"] = mm
            if mpad is not None:
                tensors[f"{i}.memory_padding"] = mpad
        else:
            a.update(norm_first=r.random() < 0.5, activation=r.choice(["relu", "gelu"]),
                     ff=r.randint(1, 6))
            module = torch.nn.TransformerEncoderLayer(E, H, a["ff"], dropout=0.0, activation=a["activation"],
                                                      batch_first=batch_first, norm_first=a["norm_first"]).to(dtype)
            with torch.no_grad():
                for p in module.parameters():
                    p.add_(torch.randn(p.shape, dtype=dtype) * 0.1)
            x = seq(L)
            y = module(x, src_mask=m, src_key_padding_mask=kpm)
            ins, grads_of, all_out = [x], [("in0", x)], [y]
        if m is not None:
            tensors[f"{i}.mask"] = m
        if kpm is not None:
            tensors[f"{i}.padding"] = kpm
    if module is not None:
        for name, p in module.named_parameters():
            tensors[f"{i}.param.{name}"] = p.detach().clone()
            grads_of.append(("param." + name, p))
    for k_, t in enumerate(ins):
        tensors[f"{i}.in{k_}"] = t.detach().clone()
    for k_, t in enumerate(all_out):
        tensors[f"{i}.out{k_}"] = t.detach().clone()
    cot = torch.randn(y.shape, dtype=dtype)
    tensors[f"{i}.cot"] = cot
    grads = torch.autograd.grad((y * cot).sum(), [t for _, t in grads_of],
                                allow_unused=True) if grads_of else []
    for (name, _), g in zip(grads_of, grads):
        if g is not None:
            tensors[f"{i}.grad.{name}"] = g
    a["outputs"] = len(all_out)
    a["inputs"] = len(ins)
    return a


def main():
    out, seed = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    r = random.Random(seed)
    torch.manual_seed(seed)
    tensors, meta = {}, {}
    for i in range(count):
        meta[str(i)] = json.dumps(case(r, i, tensors))
    # (the parameters are a module's: their layout is loaded by name)
    write_safetensors(out, {k: v.contiguous() for k, v in tensors.items()}, meta)


if __name__ == "__main__":
    main()
