#!/usr/bin/env python3
"""Each framework alone (issue #49 item 4): runs a Google Benchmark program of bench/ once per
round for hetero's rows and once for each peer's (libtorch, raw, cblas, ...), every run in
its own process, alternating which goes first, and prints per row the median over the
rounds with the spread and the ratio peer time / hetero time (> 1: hetero is faster).

In one process hetero's kernel threads and libtorch's OpenMP threads share the cores and
OpenBLAS, and each disturbs the other's rows; the programs' in-process pairing (bench/run)
stays as a development tool. Here no row of one framework runs in the address space of
the other's timed work.

usage: bench/alone.py PROGRAM [--rounds 3] [--filter REGEX] [--min-time 0.2] [--warmup 0.1]
                        [--out FILE]
  PROGRAM   a bench_* binary (e.g. build/bin/bench_conv)
  --filter  a regex on the row's base name (the part before /<implementation>/), e.g. conv2
  --warmup  seconds each row runs untimed first (Google Benchmark's min_warmup_time): the
            first call's one-time costs (oneDNN's primitive creation, first-touch page
            faults) stay out of the median; without it a row whose one iteration outlasts
            --min-time is that first call alone (a bfloat16 convolution timed 0.5 s
            against 20 ms warm on an AVX-512 Xeon)
  --out     also write the table as Markdown
"""
import argparse
import json
import re
import statistics
import subprocess
import sys


def run(program, pattern, min_time, warmup):
    out = subprocess.run([program, f"--benchmark_filter={pattern}", f"--benchmark_min_time={min_time}",
                          f"--benchmark_min_warmup_time={warmup}", "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    rows = {}
    if not out.strip():  # no row of this implementation matches (e.g. no raw floor for the op)
        return rows
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        parts = b["run_name"].split("/")
        impl = next((p for p in parts if p in IMPLS), None)
        if impl is None:
            continue
        key = "/".join(p for p in parts if p != impl and p != "real_time")
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        rows[(key, impl)] = b["real_time"] * scale
    return rows


IMPLS = ("hetero", "libtorch", "libtorch_out", "raw", "cblas", "torch")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("program")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--filter", default=".")
    p.add_argument("--min-time", default="0.2")
    p.add_argument("--warmup", default="0.1")
    p.add_argument("--out")
    a = p.parse_args()
    listed = subprocess.run([a.program, "--benchmark_list_tests=true"], check=True,
                            capture_output=True, text=True).stdout.split()
    impls = sorted({part for name in listed for part in name.split("/") if part in IMPLS})
    if "hetero" not in impls:
        sys.exit(f"alone.py: {a.program} has no hetero rows")
    times = {}  # (key, impl) -> [seconds per round]
    for r in range(a.rounds):
        order = impls if r % 2 == 0 else list(reversed(impls))
        for impl in order:  # one process per implementation and round
            pattern = f"({a.filter}).*/{impl}/"
            for k, t in run(a.program, pattern, a.min_time, a.warmup).items():
                if k[1] == impl:
                    times.setdefault(k, []).append(t)
    keys = sorted({k for k, _ in times})
    lines = [f"`{' '.join(sys.argv)}`: each implementation in its own process, {a.rounds} "
             f"rounds alternated, {a.warmup} s untimed warm-up per row; median (min-max) per row; ratio = peer / hetero (> 1: hetero "
             "faster)", "", "| row | implementation | median | spread | peer / hetero |",
             "|---|---|---:|---:|---:|"]

    def fmt(s):
        return f"{s * 1e3:.3f} ms" if s >= 1e-4 else f"{s * 1e6:.2f} us"

    for key in keys:
        h = times.get((key, "hetero"))
        for impl in impls:
            ts = times.get((key, impl))
            if not ts:
                continue
            med = statistics.median(ts)
            ratio = f"{med / statistics.median(h):.2f}" if h and impl != "hetero" else ""
            lines.append(f"| {key} | {impl} | {fmt(med)} | {fmt(min(ts))}-{fmt(max(ts))} | {ratio} |")
    print("\n".join(lines))
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
