#!/usr/bin/env python3
"""Tables, CSV files, PNG plots and the targets summary from bench/run's JSON results.

Usage: report.py DIR          (DIR holds the Google Benchmark JSON files bench/run wrote)
       report.py --gpu-only DIR (only the GPU part)
Writes DIR/{gemm,small_ops,large_ops,exercises,scaling,startup}.csv, DIR/*.png and DIR/summary.md
(the README's benchmark table), and prints every table. Where DIR has bench_gpu's output
(gpu.txt) it also writes DIR/gpu_{gemm,ops,copies}.csv, DIR/gpu_ops.png and
DIR/gpu_summary.md, with PyTorch (torch_gpu.txt) and libtorch C++ (libtorch_gpu.txt) on the
same GPU as peers where those files exist.
"""
import csv
import datetime
import json
import os
import platform
import re
import sys


CV = {}  # benchmark name -> coefficient of variation of its repetitions, percent
MEDIAN = {}  # benchmark name -> median seconds per iteration


def cv(name):
    return fmt(CV.get(name), 0)


def med(name, scale=1e9, digits=0):
    return fmt(MEDIAN[name] * scale, digits) if name in MEDIAN else ""


def load(path):
    """{name: (seconds per iteration, counters)} from one JSON file: the fastest of the
    repetitions ("min", bench::timed) when they ran, else the single run; the median goes
    to MEDIAN and the coefficient of variation to CV. Also returns the file's context."""
    if not os.path.exists(path):
        return {}, {}
    with open(path) as f:
        data = json.load(f)
    rows, medians = {}, {}
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"]).replace("/real_time", "")
        seconds = b["real_time"] * scale[b.get("time_unit", "ns")]
        counters = {k: v for k, v in b.items() if k in ("flops", "host_syncs")}
        kind = b.get("aggregate_name") if b.get("run_type") == "aggregate" else "single"
        if kind == "cv":
            CV[name] = 100.0 * b["real_time"]
        elif kind == "median":
            medians[name] = (seconds, counters)
        elif kind == "min" or (kind == "single" and name not in rows):
            rows[name] = (seconds, counters)
    for name, median in medians.items():
        MEDIAN[name] = median[0]
        if name not in rows:
            rows[name] = median
        elif "host_syncs" in median[1]:  # counters: from the median entry (min keeps none)
            rows[name] = (rows[name][0], median[1])
    return rows, data.get("context", {})


def load_paired(path):
    """{op: (hetero / libtorch_out, hetero / raw)} from bench_large_ops --paired's Markdown
    table (medians of per-round ratios; "" where a side is missing); {} without the file."""
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 7 and cells[0] not in ("op",) and not cells[0].startswith("-"):
                out[cells[0]] = tuple("" if c == "-" else c for c in cells[5:7])
    return out


def load_markdown_rows(path):
    """{first cell: [cells]} of the body rows of every Markdown table in the file at path
    (a header row's first cell is "op"); {} without the file."""
    out = {}
    for line in read_lines(path):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] != "op" and not cells[0].startswith("-"):
            out[cells[0]] = cells
    return out


def join_large_ops(hetero_path, torch_path):
    """bench_large_ops --device DEV beside bench/torch_large_ops.py --device DEV (run apart:
    the peer is not in hetero's process off the cpu). Rows [op, hetero ms, torch ms,
    torch_out ms, hetero's speed over torch's, over torch_out's] (> 1: hetero faster),
    in hetero's order; a row hetero could not run keeps its message in the hetero cell."""
    hetero, torch = load_markdown_rows(hetero_path), load_markdown_rows(torch_path)
    rows = []
    for op, cells in hetero.items():
        h = cells[1]
        t = torch.get(op, ["", "-", "-"])
        speed = [fmt(float(ref) / float(h)) if re.match(r"^[\d.]+$", h) and re.match(r"^[\d.]+$", ref)
                 and float(h) > 0 else "-" for ref in t[1:3]]
        rows.append([op, h, t[1], t[2], *speed])
    return rows


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def table(title, header, rows):
    print(f"\n{title}")
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h)) for i, h in enumerate(header)]
    print("  ".join(str(h).rjust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def fmt(x, digits=2):
    return "" if x is None else f"{x:.{digits}f}"


def main(out):
    results = {}
    # --- GEMM ---------------------------------------------------------------------
    gemm_rows, plot = [], {}
    for threads in (1, 2):
        rows, ctx = load(os.path.join(out, f"gemm_threads{threads}.json"))
        for dtype in ("float32", "float64"):
            peak = float(ctx.get(f"fma_peak_{dtype}_gflops", "nan"))
            sizes = sorted({int(n.split("/")[2]) for n in rows if n.startswith(f"gemm/{dtype}/")})
            for n in sizes:
                g = {}
                for impl in ("hetero", "cblas", "libtorch"):
                    r = rows.get(f"gemm/{dtype}/{n}/{impl}")
                    if r:
                        g[impl] = 2.0 * n**3 / r[0] / 1e9
                        plot.setdefault((dtype, impl, threads), []).append((n, g[impl]))
                h = g.get("hetero")
                gemm_rows.append([dtype, n, threads, fmt(h, 1), fmt(g.get("cblas"), 1), fmt(g.get("libtorch"), 1),
                                  fmt(h / peak if h else None), fmt(h / g["cblas"] if h and "cblas" in g else None),
                                  fmt(h / g["libtorch"] if h and "libtorch" in g else None), fmt(peak, 1)])
    header = ["dtype", "n", "threads", "hetero_gflops", "cblas_gflops", "libtorch_gflops", "hetero_fraction_of_peak",
              "hetero_over_cblas", "hetero_over_libtorch", "fma_peak_gflops"]
    # bench/run's extra GEMM run with OPENBLAS_CORETYPE unset (where the machine sets it).
    auto = os.path.join(out, "gemm_auto_kernel.json")
    if os.path.exists(auto):
        rows, ctx = load(auto)
        core = ctx.get("openblas_core", "?")
        for dtype in ("float32", "float64"):
            peak = float(ctx.get(f"fma_peak_{dtype}_gflops", "nan"))
            for n in sorted({int(k.split("/")[2]) for k in rows if k.startswith(f"gemm/{dtype}/")}):
                g = {impl: 2.0 * n**3 / rows[f"gemm/{dtype}/{n}/{impl}"][0] / 1e9
                     for impl in ("hetero", "cblas", "libtorch") if f"gemm/{dtype}/{n}/{impl}" in rows}
                h = g.get("hetero")
                gemm_rows.append([dtype, n, f"2 ({core})", fmt(h, 1), fmt(g.get("cblas"), 1), fmt(g.get("libtorch"), 1),
                                  fmt(h / peak if h else None), fmt(h / g["cblas"] if h and "cblas" in g else None),
                                  fmt(h / g["libtorch"] if h and "libtorch" in g else None), fmt(peak, 1)])
    table("GEMM (GFLOP/s; ratios > 1: hetero faster)", header, gemm_rows)
    write_csv(os.path.join(out, "gemm.csv"), header, gemm_rows)
    results["gemm"] = gemm_rows

    # --- small ops --------------------------------------------------------------------
    rows, _ = load(os.path.join(out, "small_ops.json"))
    small_rows = []
    for op in ("add_2x3", "ones_2x3", "matmul_2x2", "matmul_100"):
        t = {impl: rows[f"small/{op}/{impl}"][0] * 1e9 for impl in ("hetero", "libtorch", "raw") if f"small/{op}/{impl}" in rows}
        small_rows.append([op, fmt(t.get("hetero"), 0), fmt(t.get("libtorch"), 0), fmt(t.get("raw"), 0),
                           fmt(t["libtorch"] / t["hetero"] if "libtorch" in t and "hetero" in t else None),
                           med(f"small/{op}/hetero"), med(f"small/{op}/libtorch"),
                           cv(f"small/{op}/hetero"), cv(f"small/{op}/libtorch")])
    header = ["op", "hetero_ns", "libtorch_ns", "raw_ns", "libtorch_over_hetero", "hetero_median_ns",
              "libtorch_median_ns", "hetero_cv_%", "libtorch_cv_%"]
    table("Small-op overhead (ns/op, best of the repetitions; > 1: hetero faster)", header, small_rows)
    write_csv(os.path.join(out, "small_ops.csv"), header, small_rows)
    results["small"] = {r[0]: r for r in small_rows}

    # --- large tensors (issue #26) -------------------------------------------------------
    rows, _ = load(os.path.join(out, "large_ops.json"))
    large_rows = []
    for op in sorted({n.split("/")[1] for n in rows if n.startswith("large/")}):
        t = {impl: rows[f"large/{op}/{impl}"][0] * 1e3
             for impl in ("hetero", "libtorch_out", "libtorch", "raw") if f"large/{op}/{impl}" in rows}
        h = t.get("hetero")
        large_rows.append([op, fmt(h, 3), fmt(t.get("libtorch_out"), 3), fmt(t.get("libtorch"), 3), fmt(t.get("raw"), 3),
                           fmt(h / t["libtorch_out"] if h and "libtorch_out" in t else None),
                           fmt(h / t["raw"] if h and "raw" in t else None), cv(f"large/{op}/hetero")])
    header = ["op", "hetero_ms", "libtorch_out_ms", "libtorch_ms", "raw_ms", "hetero_over_libtorch_out",
              "hetero_over_raw", "hetero_cv_%"]
    table("Large tensors, 4096 x 4096 float32 or float16 (_f16) (ms; ratios < 1: hetero faster; raw: a plain\n"
          "vectorised 2-thread loop, memcpy for the transposes)", header, large_rows)
    write_csv(os.path.join(out, "large_ops.csv"), header, large_rows)
    results["large"] = large_rows

    # --- exercises 1 and 3 --------------------------------------------------------------
    rows, _ = load(os.path.join(out, "exercises.json"))
    ex_rows = []
    for name, (sec, counters) in sorted(rows.items()):
        parts = name.split("/")  # exercise/variant/device/impl
        ex_rows.append([parts[0], parts[1], parts[2], parts[3], fmt(sec * 1e3, 3),
                        fmt(counters.get("host_syncs"), 0) if "host_syncs" in counters else "", cv(name)])
    header = ["exercise", "variant", "device", "impl", "ms", "host_syncs", "cv_%"]
    table("Exercises 1 and 3 (ms per run)", header, ex_rows)
    write_csv(os.path.join(out, "exercises.csv"), header, ex_rows)
    results["ex"] = {(r[0], r[1], r[2], r[3]): r for r in ex_rows}

    # --- exercise 4 ----------------------------------------------------------------------
    rows, _ = load(os.path.join(out, "scaling.json"))
    sc_rows = []
    for key in sorted({n.rsplit("/", 1)[0] for n in rows}):
        seq, conc = rows.get(key + "/sequential_one_device"), rows.get(key + "/concurrent_two_devices")
        if seq and conc:
            _, pair, n = key.split("/")
            sc_rows.append([pair, n, fmt(seq[0] * 1e3, 1), fmt(conc[0] * 1e3, 1), fmt(seq[0] / conc[0]),
                            cv(key + "/sequential_one_device"), cv(key + "/concurrent_two_devices")])
    header = ["devices", "n", "sequential_ms", "concurrent_ms", "scaling", "sequential_cv_%", "concurrent_cv_%"]
    table("Exercise 4: two products on two devices (scaling = sequential / concurrent)", header, sc_rows)
    write_csv(os.path.join(out, "scaling.csv"), header, sc_rows)
    results["scaling"] = sc_rows

    # --- start-up -------------------------------------------------------------------------
    rows, _ = load(os.path.join(out, "startup.json"))
    st_rows = [[n.split("/")[1], fmt(t * 1e3, 1)] for n, (t, _) in sorted(rows.items())]
    header = ["program", "ms"]
    table("Start-up (whole process, ms)", header, st_rows)
    write_csv(os.path.join(out, "startup.csv"), header, st_rows)
    results["startup"] = {r[0]: r for r in st_rows}

    plots(out, plot, small_rows, sc_rows, large_rows)
    summary(out, results)
    gpu_report(out)


# --- GPU (bench_gpu, bench/torch_gpu.py, bench/libtorch_gpu.cpp: text tables) -------------

def read_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return []


def gpu_report(out):
    lines = read_lines(os.path.join(out, "gpu.txt"))
    if not lines or "nothing to measure" in lines[0]:
        return
    device = lines[0].split(":", 1)[1].strip() if lines[0].startswith("device:") else "GPU"
    gemm, ops, copies, timings = [], {}, [], {}
    section = None
    for line in lines:
        if line.startswith("dtype"):
            section = "gemm"
        elif line.startswith("op "):
            section = "ops"
        elif line.startswith("copy"):
            section = "copies"
        elif not line.strip():
            continue
        elif section == "gemm" and re.match(r"^f(32|64)\s", line):
            d, n, h, r, ratio = line.split()
            gemm.append([d, n, h, r, ratio])
        elif section == "ops" and line.startswith("2x3 add"):
            m = re.search(r"([\d.]+) us/op.*raw launch ([\d.]+) us.*cudaMallocAsync ([\d.]+) us", line)
            if m:
                timings["2x3 add"] = tuple(float(g) for g in m.groups())
        elif section == "ops" and re.search(r"\s[\d.]+ ms$", line):
            name, value = line.rsplit(None, 2)[0].strip(), line.split()[-2]
            timings[name] = float(value)
        elif section == "ops" and len(line) > 34 and re.match(r"^[\d.]", line[34:].strip() or "x"):
            rest = line[33:].split()
            ops[line[:22].strip()] = [line[23:33].strip(), rest[0], rest[1]]
        elif section == "copies" and re.match(r"^[A-Z]", line):
            parts = line.split()
            copies.append([" ".join(parts[:-4]), *parts[-4:]])
    torch = {}
    for line in read_lines(os.path.join(out, "torch_gpu.txt")):
        if len(line) > 34 and re.match(r"^[\d.]+$", line[33:].strip()):
            torch[line[:22].strip()] = float(line[33:].strip())
        elif line.startswith("2x3 add"):
            torch["2x3 add"] = float(line.split()[2])
    libtorch = {}
    for line in read_lines(os.path.join(out, "libtorch_gpu.txt")):
        m = re.match(r"^(.+?)\s{2,}([\d.]+) (ms|us/op)$", line)
        if m:
            libtorch[m.group(1).strip()] = float(m.group(2))

    large = join_large_ops(os.path.join(out, "large_ops_gpu.txt"), os.path.join(out, "torch_large_ops_gpu.txt"))
    if large:
        header = ["op", "hetero_ms", "torch_ms", "torch_out_ms", "hetero_speed_over_torch",
                  "hetero_speed_over_torch_out"]
        table(f"bench_large_ops rows on {device} (ms per op; > 1: hetero faster)", header, large)
        write_csv(os.path.join(out, "gpu_large_ops.csv"), header, large)

    header = ["dtype", "n", "hetero_gflops", "cublas_gflops", "hetero_over_cublas"]
    table(f"GPU GEMM on {device} (ratio > 1: hetero faster)", header, gemm)
    write_csv(os.path.join(out, "gpu_gemm.csv"), header, gemm)
    op_rows = []
    for name, (size, h, r) in ops.items():
        t = torch.get(name)
        op_rows.append([name, size, h, r, fmt(t, 1), fmt(float(h) / float(r) if r != "-" else None),
                        fmt(float(h) / t if t else None)])
    header = ["op", "size", "hetero_gbps", "raw_gbps", "torch_gbps", "hetero_over_raw", "hetero_over_torch"]
    table(f"GPU element-wise ops and reductions on {device} (GB/s of traffic; > 1: hetero faster)", header, op_rows)
    write_csv(os.path.join(out, "gpu_ops.csv"), header, op_rows)
    header = ["copy", "mib", "hetero_gbps", "raw_gbps", "hetero_over_raw"]
    table(f"GPU copies on {device} (GB/s)", header, copies)
    write_csv(os.path.join(out, "gpu_copies.csv"), header, copies)
    gpu_plot(out, device, op_rows)

    lines_md = []
    def add(target, measured, ok):
        lines_md.append(f"| {target} | {measured} | {'met' if ok else ('**missed**' if ok is not None else 'not measured')} |")
    for name, target in (("x.sum().item()", 0.9), ("m.sum(1)", 0.9), ("x + y", 0.95)):
        row = next((r for r in op_rows if r[0] == name), None)
        v = float(row[6]) if row and row[6] else None
        add(f"`{name}` >= {target}x PyTorch", f"{row[2]} vs {row[4] or '-'} GB/s ({fmt(v)}x)" if row else "-",
            v >= target if v else None)
    for kind in ("D2H pinned", "H2D pinned"):
        vals = [(c[1], float(c[4])) for c in copies if c[0] == kind]
        add(f"{kind} >= 0.9x raw cudaMemcpy (1, 64, 256 MiB)", ", ".join(f"{m} MiB {fmt(v)}x" for m, v in vals) or "-",
            min(v for _, v in vals) >= 0.9 if vals else None)
    g = [float(r[4]) for r in gemm if int(r[1]) >= 256]
    add("GEMM >= 0.97x raw cuBLAS, n >= 256 (f32, f64)", f"worst {fmt(min(g))}x, " +
        ", ".join(f"{r[0]} n={r[1]} {r[4]}x" for r in gemm if float(r[4]) < 0.97) if g else "-",
        min(g) >= 0.97 if g else None)
    measured = [(r[0], float(r[4])) for r in large if r[4] != "-"]
    add("bench_large_ops rows >= 0.95x PyTorch (allocating, as hetero)",
        (f"worst {min(measured, key=lambda v: v[1])[0]} {fmt(min(v for _, v in measured))}x; " +
         ", ".join(f"{op} {fmt(v)}x" for op, v in measured if v < 0.95) +
         f" ({len(measured)} of {len(large)} rows measured)") if measured else "-",
        min(v for _, v in measured) >= 0.95 and len(measured) == len(large) if measured else None)
    a = timings.get("2x3 add")
    add("2x3 add <= 1.1x raw launch + cudaMallocAsync",
        f"{a[0]} us vs {a[2]} us (time ratio {fmt(a[0] / a[2])}; raw launch alone {a[1]} us)" if a else "-",
        a[0] / a[2] <= 1.1 if a else None)
    for name, key in (("MLP train step", "MLP train step (256x64->512->512->10)"),
                      ("Exercise 3, item() per step", "exercise 3, item() per step (1000 steps)")):
        h, lt = timings.get(key), libtorch.get(key)
        add(f"{name} no slower than libtorch C++", f"{h} vs {lt} ms (time ratio {fmt(h / lt)})" if h and lt else "-",
            h <= lt if h and lt else None)
    text = (f"GPU: {device}, measured {datetime.date.today().isoformat()} (`bench_gpu`, `bench/torch_gpu.py` and "
            f"`bench/libtorch_gpu.sh` in one session on the same GPU; medians of 10 repetitions after a\n"
            f"warm-up). Ratios: hetero over the peer, > 1 means hetero is faster.\n\n"
            f"| Target | Measured | |\n|---|---|---|\n" + "\n".join(lines_md) + "\n")
    with open(os.path.join(out, "gpu_summary.md"), "w") as f:
        f.write(text)
    print("\n" + text)


def gpu_plot(out, device, op_rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(9, 4.5))
    names = [r[0] for r in op_rows]
    for i, (impl, col) in enumerate((("hetero", 2), ("raw CUDA", 3), ("PyTorch", 4))):
        vals = [float(r[col]) if r[col] not in ("", "-") else 0 for r in op_rows]
        ax.bar([x + i * 0.27 for x in range(len(names))], vals, width=0.27, label=impl)
    ax.set_xticks([x + 0.27 for x in range(len(names))], names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("GB/s")
    ax.set_title(f"Element-wise ops and reductions, {device}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gpu_ops.png"), dpi=100)
    plt.close(fig)


def plots(out, gemm, small_rows, sc_rows, large_rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\nmatplotlib not found (apt install python3-matplotlib): no plots")
        return
    for dtype in ("float32", "float64"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for (dt, impl, threads), pts in sorted(gemm.items()):
            if dt != dtype:
                continue
            xs, ys = zip(*sorted(pts))
            ax.plot(xs, ys, marker="o", linestyle="-" if threads == 1 else "--", label=f"{impl}, {threads} thread(s)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (n x n x n GEMM)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"GEMM {dtype}: hetero vs raw cblas vs libtorch")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"gemm_{dtype}.png"), dpi=100)
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    ops = [r[0] for r in small_rows]
    for i, (impl, col) in enumerate((("hetero", 1), ("libtorch", 2), ("raw", 3))):
        vals = [float(r[col]) if r[col] else 0 for r in small_rows]
        ax.bar([x + i * 0.27 for x in range(len(ops))], vals, width=0.27, label=impl)
    ax.set_xticks([x + 0.27 for x in range(len(ops))], ops)
    ax.set_yscale("log")
    ax.set_ylabel("ns per op (log)")
    ax.set_title("Small-op overhead")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "small_ops.png"), dpi=100)
    plt.close(fig)
    measured = [r for r in large_rows if r[5] or r[6]]
    if measured:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        xs = range(len(measured))
        for k, (col, label) in enumerate(((5, "hetero / libtorch *_out"), (6, "hetero / raw floor"))):
            ax.bar([x + k * 0.4 for x in xs], [float(r[col]) if r[col] else 0 for r in measured], width=0.4,
                   label=label)
        ax.set_xticks([x + 0.2 for x in xs], [r[0] for r in measured])
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.axhline(1 / 0.9, color="k", linewidth=0.8, linestyle=":")
        ax.set_yscale("log")
        ax.set_ylabel("time ratio (log; below 1: hetero faster)")
        ax.set_title("Large tensors (4096 x 4096 float32, _f16 float16; 2 threads)")
        ax.tick_params(axis="x", rotation=60)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "large_ops.png"), dpi=100)
        plt.close(fig)


def summary(out, r):
    """The performance targets of issue #7 against this run, as a Markdown table."""
    def gemm_ratio(col, pred):
        vals = [float(row[col]) for row in r["gemm"] if row[col] and pred(row)]
        return min(vals) if vals else None

    lines = []
    def add(target, measured, ok):
        lines.append(f"| {target} | {measured} | {'met' if ok else ('**missed**' if ok is not None else 'not measured')} |")

    v = gemm_ratio(7, lambda row: int(row[1]) >= 256)
    add("GEMM >= 0.97x raw OpenBLAS, n >= 256, equal threads", f"worst {fmt(v)}x" if v else "-", v >= 0.97 if v else None)
    v = gemm_ratio(8, lambda row: True)
    add("GEMM no slower than libtorch, any size", f"worst {fmt(v)}x" if v else "-", v >= 1.0 if v else None)
    s = r["small"].get("add_2x3")
    v = float(s[1]) if s and s[1] else None
    add("2x3 add with result allocation <= 0.3 us",
        f"{fmt(v, 0)} ns{f', median {s[5]} ns' if s[5] else ''} (libtorch {s[2] or '-'} ns"
        f"{f', median {s[6]}' if s[6] else ''}; raw loop {s[3]} ns)" if v else "-", v <= 300 if v else None)
    e1 = r["ex"].get(("exercise1", "matmul_500", "cpu", "hetero")), r["ex"].get(("exercise1", "matmul_500", "cpu", "libtorch"))
    if e1[0] and e1[1]:
        add("Exercise 1 <= libtorch's time", f"{e1[0][4]} ms vs libtorch {e1[1][4]} ms", float(e1[0][4]) <= float(e1[1][4]))
    else:
        add("Exercise 1 <= libtorch's time", f"{e1[0][4] if e1[0] else '-'} ms (no libtorch)", None)
    d, p = r["ex"].get(("exercise3", "device_log", "cpu", "hetero")), r["ex"].get(("exercise3", "item_per_step", "cpu", "hetero"))
    if d and p:
        add("Exercise 3: device log 1 host sync, no slower than per-step",
            f"{d[5]} vs {p[5]} syncs; {d[4]} vs {p[4]} ms", d[5] == "1" and float(d[4]) <= float(p[4]))
    sc = [float(row[4]) for row in r["scaling"] if row[0].startswith("cpu")]
    add("Exercise 4 >= 1.8x on two CPU devices (two cores)", f"{fmt(min(sc))}x .. {fmt(max(sc))}x" if sc else "-",
        min(sc) >= 1.8 if sc else None)
    large = {row[0]: row for row in r["large"] if row[5]}
    paired = load_paired(os.path.join(out, "large_ops_paired.md"))
    if paired:  # ratios of paired samples (bench_large_ops --paired): [op, ..., vs_out, vs_raw]
        large = {op: [op, "", "", "", "", v[0], v[1]] for op, v in paired.items() if v[0]}
    if large:
        worst = max(large.values(), key=lambda row: float(row[5]))
        add("Large tensors: every row's time <= libtorch's *_out kernel (issue #26)" + (", paired" if paired else ""),
            f"worst {worst[0]} {worst[5]}x; " + ", ".join(f"{k} {v[5]}x" for k, v in sorted(large.items())),
            float(worst[5]) <= 1.0)
        vec = [large[k] for k in ("exp", "tanh", "sigmoid") if k in large]
        add("Large tensors: exp, tanh, sigmoid <= libtorch's time", ", ".join(f"{v[0]} {v[5]}x" for v in vec) or "-",
            all(float(v[5]) <= 1.0 for v in vec) if vec else None)
    else:
        add("Large tensors: every row's time <= libtorch's *_out kernel (issue #26)" + (", paired" if paired else ""), "- (no libtorch)", None)
    floor = {row[0]: row for row in r["large"] if row[6]}
    if paired:
        floor = {op: [op, "", "", "", "", v[0], v[1]] for op, v in paired.items() if v[1]}
    if floor:
        # 0.9x the floor's speed: hetero's time at most 1 / 0.9 of the plain loop's.
        slowest = max(floor.values(), key=lambda row: float(row[6]))
        add("Large tensors: bandwidth-bound rows >= 0.9x the raw 2-thread floor (time <= 1.11x)",
            f"worst {slowest[0]} {slowest[6]}x; " + ", ".join(f"{k} {v[6]}x" for k, v in sorted(floor.items())),
            float(slowest[6]) <= 1 / 0.9)
    st = r["startup"].get("hetero_list_devices")
    tn = r["startup"].get("libtorch_noop")
    add("Load plugins and list devices <= 20 ms",
        f"{st[1]} ms (libtorch no-op {tn[1] if tn else '-'} ms, /bin/true {r['startup'].get('true', ['', '-'])[1]} ms)" if st else "-",
        float(st[1]) <= 20 if st else None)
    text = (f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} cores "
            f"(`bench/run`: best of 9 repetitions interleaved at random with the peers; the\n"
            f"CSV files beside this one also give medians and coefficients of variation).\n\n| Target | Measured | |\n|---|---|---|\n" + "\n".join(lines) + "\n")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print("\nTargets\n" + text)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--gpu-only":
        gpu_report(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "--join-large-ops":
        table("bench_large_ops beside PyTorch (ms per op; > 1: hetero faster)",
              ["op", "hetero_ms", "torch_ms", "torch_out_ms", "hetero_speed_over_torch",
               "hetero_speed_over_torch_out"], join_large_ops(sys.argv[2], sys.argv[3]))
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "build/bench-results")
