#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws a timeline from a hetero Chrome trace (HETERO_PROFILE / profiler::write_chrome_trace):
one row per event category on the host and one for the device streams' tracks (pid 1: the
kernels' and copies' device spans), each event a bar from its start to its end, over a window of
the trace, and a legend of the kernels with the most time. Needs python3-matplotlib.
Usage: plot_trace.py TRACE.json OUT.png [START_MS [LENGTH_MS]]"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

trace, out = sys.argv[1], sys.argv[2]
with open(trace) as f:
    events = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
t0 = min(e["ts"] for e in events)
start = float(sys.argv[3]) * 1000 if len(sys.argv) > 3 else 0.0
length = float(sys.argv[4]) * 1000 if len(sys.argv) > 4 else max(e["ts"] + e["dur"] for e in events) - t0
window = [e for e in events if start <= e["ts"] - t0 < start + length]
rows = ["range", "kernel", "copy", "alloc", "sync", "device"]
totals = {}
for e in window:
    if e["cat"] == "kernel" and e["pid"] == 0:
        totals[e["name"]] = totals.get(e["name"], 0) + e["dur"]
top = sorted(totals, key=totals.get, reverse=True)[:8]
colours = {name: plt.cm.tab10(i) for i, name in enumerate(top)}
fig, ax = plt.subplots(figsize=(11, 3.2))
for e in window:
    if e["cat"] not in rows:
        continue
    y = rows.index("device" if e["pid"] == 1 else e["cat"])
    colour = colours.get(e["name"], "0.6") if e["cat"] == "kernel" else "C7"
    ax.broken_barh([((e["ts"] - t0 - start) / 1000, max(e["dur"], 0.5) / 1000)], (y - 0.35, 0.7),
                   facecolors=colour, edgecolor="none")
ax.set_yticks(range(len(rows)), rows)
ax.invert_yaxis()
ax.set_xlabel("ms")
ax.set_title(f"hetero profile: {trace.split('/')[-1]}, {len(window)} events "
             f"({start / 1000:.1f}-{(start + length) / 1000:.1f} ms)")
ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colours[n]) for n in top], labels=top,
          loc="upper right", ncol=4, fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}: {len(window)} events")
