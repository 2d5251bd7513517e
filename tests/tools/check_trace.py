#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a hetero Chrome trace (HETERO_PROFILE) the way chrome://tracing and Perfetto read
it: a {"traceEvents": [...]} object; complete events ("ph": "X") with name, cat, ts, dur,
pid, tid and args; the categories hetero records; per host thread (pid 0), events in time
order; per track (host thread, or device stream under pid 1), events that either nest or
follow each other; kernels with a device, shape and dtype.
Usage: check_trace.py TRACE.json [REQUIRED_KERNEL ...]"""
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
events = [e for e in doc["traceEvents"] if e["ph"] != "M"]
errors = []
if not events:
    errors.append("no events")
for e in events:
    missing = [k for k in ("name", "cat", "ts", "dur", "pid", "tid", "args") if k not in e]
    if e["ph"] != "X" or missing:
        errors.append(f"malformed event {e}")
    if e["dur"] < 0:
        errors.append(f"negative duration {e}")
    if e["cat"] == "kernel" and not all(k in e["args"] for k in ("device", "shape", "dtype")):
        errors.append(f"kernel without device/shape/dtype {e}")
by_thread = {}
for e in events:
    by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
for tid, evs in by_thread.items():
    starts = [e["ts"] for e in evs]
    if tid[0] == 0 and starts != sorted(starts):
        errors.append(f"thread {tid}: events out of time order")
    evs = sorted(evs, key=lambda e: (e["ts"], -e["dur"]))
    open_spans = []  # ends of the spans containing the current time
    for e in evs:
        while open_spans and open_spans[-1] <= e["ts"] + 1e-3:
            open_spans.pop()
        end = e["ts"] + e["dur"]
        if open_spans and end > open_spans[-1] + 1e-3:
            errors.append(f"thread {tid}: {e['name']} at {e['ts']} overlaps its container partly")
        open_spans.append(end)
categories = {e["cat"] for e in events}
for needed in ("kernel", "alloc", "copy"):
    if needed not in categories:
        errors.append(f"no {needed} events")
kernels = {e["name"] for e in events if e["cat"] == "kernel"}
for k in sys.argv[2:]:
    if k not in kernels:
        errors.append(f"no {k} kernel (kernels: {sorted(kernels)})")
for e in errors[:10]:
    print("FAIL", e)
print(f"{len(events)} events, {len(by_thread)} track(s), categories {sorted(categories)}: "
      f"{'ok' if not errors else 'FAILED'}")
sys.exit(1 if errors else 0)
