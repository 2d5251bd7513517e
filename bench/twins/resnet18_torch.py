#!/usr/bin/env python3
"""PyTorch (Python) twin of examples/resnet18_fashion_mnist, for devices Debian's CPU-only
libtorch cannot reach (a GPU machine's PyTorch wheel): the same D2L ResNet-18 on 28x28
Fashion-MNIST, the same normalisation, batch, SGD (momentum 0.9, weight decay 5e-4) with
torch's OneCycleLR stepped per minibatch, and the same epoch line as the C++ programs, so
that bench/twins/run_twins.sh's parsing and the images/s column compare directly.

usage: resnet18_torch.py [--device cuda:0] [--epochs 2] [--limit N] [--test-limit N]
                         [--batch-size 128] [--lr 0.05] [--data DIR]
Same procedure, not the same numbers: weights and shuffles come from torch's generator.
"""
import argparse
import gzip
import os
import struct
import time

import torch
from torch import nn

MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(raw[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


class Residual(nn.Module):
    def __init__(self, cin, c, use_1x1conv, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, c, 3, stride=stride, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.conv3 = nn.Conv2d(cin, c, 1, stride=stride) if use_1x1conv else None
        self.bn1, self.bn2 = nn.BatchNorm2d(c), nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (self.conv3(x) if self.conv3 is not None else x))


def stage(cin, c, blocks, first):
    return nn.Sequential(*[Residual(cin, c, True, 2) if i == 0 and not first else
                           Residual(c, c, False, 1) for i in range(blocks)])


def resnet18():
    b1 = nn.Sequential(nn.Conv2d(1, 64, 7, stride=2, padding=3), nn.BatchNorm2d(64), nn.ReLU(),
                       nn.MaxPool2d(3, stride=2, padding=1))
    return nn.Sequential(b1, stage(64, 64, 2, True), stage(64, 128, 2, False),
                         stage(128, 256, 2, False), stage(256, 512, 2, False),
                         nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(512, 10))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    dev = torch.device(a.device)
    torch.manual_seed(a.seed)

    def load(prefix, limit):
        x = read_idx(os.path.join(a.data, prefix + "-images-idx3-ubyte.gz"))
        y = read_idx(os.path.join(a.data, prefix + "-labels-idx1-ubyte.gz"))
        if limit:
            x, y = x[:limit], y[:limit]
        x = ((x.float() / 255 - MEAN) / STD).unsqueeze(1)
        return x.to(dev), y.long().to(dev)

    train_x, train_y = load("train", a.limit)
    test_x, test_y = load("t10k", a.test_limit)
    n = train_x.shape[0]
    steps = (n + a.batch_size - 1) // a.batch_size
    net = resnet18().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=a.lr, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.epochs * steps)
    loss_fn = nn.CrossEntropyLoss()
    shuffle = torch.Generator()
    print(f"torch {torch.__version__}: {n} train / {test_x.shape[0]} test images on {dev}",
          flush=True)
    for epoch in range(1, a.epochs + 1):
        shuffle.manual_seed(a.seed + epoch)
        order = torch.randperm(n, generator=shuffle).to(dev)
        net.train()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        start = time.perf_counter()
        loss_sum = torch.zeros((), device=dev)
        hits = torch.zeros((), dtype=torch.long, device=dev)
        for step in range(steps):
            idx = order[step * a.batch_size:(step + 1) * a.batch_size]
            x, y = train_x.index_select(0, idx), train_y.index_select(0, idx)
            logits = net(x)
            loss = loss_fn(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.detach() * x.shape[0]
            hits += (logits.detach().argmax(1) == y).sum()
        loss_value, hit_count = loss_sum.item(), hits.item()  # waits for the device
        seconds = time.perf_counter() - start
        net.eval()
        with torch.no_grad():
            correct = sum((net(test_x[i:i + 1000]).argmax(1) == test_y[i:i + 1000]).sum().item()
                          for i in range(0, test_x.shape[0], 1000))
        print(f"epoch {epoch:2d}  loss {loss_value / n:.4f}  train acc {hit_count / n:.3f}  "
              f"test acc {correct / test_x.shape[0]:.4f}  {seconds:.1f} s ({n / seconds:.0f} "
              f"images/s, waiting for data 0.0%)  lr {sched.get_last_lr()[0]:.2e}", flush=True)


if __name__ == "__main__":
    main()
