#!/usr/bin/env python3
"""The API reference's ratchet (issue #47 item 4): fails when Doxygen reports a public
declaration as undocumented that docs/undocumented_baseline.txt does not list, so every new
declaration comes with its doc comment while the old gaps are paid down.

usage: tools/check_undocumented.py WARNINGS_LOG BASELINE [--update]
  WARNINGS_LOG  Doxygen's WARN_LOGFILE (build/docs/warnings.txt, the `docs` target's)
  BASELINE      one entry per line: "path: message", without line numbers (they move)
  --update      rewrite BASELINE from the log (after documenting some of it)
Exit 0: nothing new (the entries documented since are listed, to drop from the baseline);
1: new undocumented declarations, listed; 2: usage or an unreadable log.
"""
import re
import sys

# "/abs/path/core/include/hetero/x.hpp:12: warning: Member foo (function) of class ... is not documented."
WARNING = re.compile(r"^(?P<path>[^:]+):\d+: warning: (?P<message>.* is not documented\.)$")


def entries(log):
    found = set()
    for line in log:
        m = WARNING.match(line.rstrip("\n"))
        if m:
            path = m["path"]
            cut = path.find("/include/hetero/")
            path = path[path.rfind("/", 0, cut) + 1:] if cut >= 0 else path
            found.add(f"{path}: {m['message']}")
    return found


def main():
    args = [a for a in sys.argv[1:] if a != "--update"]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8", errors="replace") as f:
            now = entries(f)
    except OSError as e:
        print(f"check_undocumented: {e}", file=sys.stderr)
        return 2
    if "--update" in sys.argv:
        with open(args[1], "w", encoding="utf-8") as f:
            f.write("".join(f"{e}\n" for e in sorted(now)))
        print(f"check_undocumented: {len(now)} entries written to {args[1]}")
        return 0
    with open(args[1], encoding="utf-8") as f:
        baseline = {line.rstrip("\n") for line in f if line.strip()}
    new = sorted(now - baseline)
    gone = sorted(baseline - now)
    print(f"check_undocumented: {len(now)} undocumented public declarations "
          f"({len(baseline)} in the baseline, {len(gone)} documented since, {len(new)} new)")
    for e in gone[:20]:
        print(f"  documented since (drop from the baseline): {e}")
    for e in new:
        print(f"  NEW, document it: {e}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
