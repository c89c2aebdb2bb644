#!/usr/bin/env python3
"""How well `cudoctor explain` names the root cause of real logs it was not written from.

The corpus is tests/fixtures/errors/<cause>/*.log (one folder per cause id; `none` holds near
misses that must stay silent). It is split once, by a fixed hash of each file's name, into a part
the catalog is written from and a HELD-BACK third that is only scored:

    held back  <=>  sha256(file name)[0] % 3 == 0   and the file is not in read-before-split.txt

(read-before-split.txt lists the logs the catalog's first version was written from, and the held-back
third of 2026-12-02, retired on 2026-12-03 after four scorings: they were read or scored, so they can
never be held back again. The held-back third is the hash third of the logs added after that.) A log is right when explain's first cause is its folder's
id; a `none` log is right when explain names no cause. Explain runs with --no-machine: only the
log decides.

Usage: bench/explain_generalisation.py [--binary build/cudoctor] [--show-train-misses]
The held-back misses are never printed: once read, a file is no longer held back (re-split with
new files instead). Prints the two scores and the written part's per-cause table (the held-back third per cause
only with --held-back-per-cause: where it misses is a look at it); --json for a machine-readable
summary. Exit 0 always (a measurement, not a test).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ERRORS = os.path.join(HERE, "..", "tests", "fixtures", "errors")


def held_back(name: str, read_before: set) -> bool:
    return name not in read_before and hashlib.sha256(os.path.basename(name).encode()).digest()[0] % 3 == 0


KB = []  # ["--kb", DIR] to score a catalog being edited without rebuilding


def top_cause(binary: str, path: str) -> str:
    run = subprocess.run([binary, "explain", "--no-machine", "--json", "--log", path] + KB, capture_output=True, text=True, timeout=60)
    if run.returncode == 1:
        return "none"
    try:
        causes = json.loads(run.stdout)["causes"]
    except (ValueError, KeyError):
        return "error: exit %d %s" % (run.returncode, run.stderr.strip()[:100])
    return causes[0]["id"] if causes else "none"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "cudoctor"))
    ap.add_argument("--show-train-misses", action="store_true", help="list the misses of the part patterns are written from")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--list-train", action="store_true", help="print the paths of the part patterns are written from, and stop")
    ap.add_argument("--kb", help="read the catalog (and any other table) from this folder instead of the built-in copy")
    ap.add_argument("--written-only", action="store_true", help="score only the part patterns are written from")
    ap.add_argument("--held-back-per-cause", action="store_true",
                    help="also print the held-back third per cause (a look at where it misses: afterwards it is no longer held back)")
    args = ap.parse_args()
    if args.kb:
        KB.extend(["--kb", args.kb])

    with open(os.path.join(ERRORS, "read-before-split.txt")) as f:
        read_before = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    files = []
    for cause in sorted(os.listdir(ERRORS)):
        folder = os.path.join(ERRORS, cause)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".log"):
                files.append((cause, cause + "/" + name))
    if args.list_train:
        for _, name in files:
            if not held_back(name, read_before):
                print(os.path.join(ERRORS, name))
        return 0
    if args.written_only:
        files = [cf for cf in files if not held_back(cf[1], read_before)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        answers = list(pool.map(lambda cf: top_cause(args.binary, os.path.join(ERRORS, cf[1])), files))

    table = {}  # cause -> [train_right, train_all, held_right, held_all]
    train_misses = []
    for (cause, name), got in zip(files, answers):
        row = table.setdefault(cause, [0, 0, 0, 0])
        right = got == cause
        if held_back(name, read_before):
            row[2] += right
            row[3] += 1
        else:
            row[0] += right
            row[1] += 1
            if not right:
                train_misses.append((name, got))
    tr = sum(r[0] for r in table.values()), sum(r[1] for r in table.values())
    hb = sum(r[2] for r in table.values()), sum(r[3] for r in table.values())
    pct = lambda a, b: 100.0 * a / b if b else 0.0
    if args.json:
        print(json.dumps({"files": len(files), "train": {"right": tr[0], "of": tr[1]}, "held_back": {"right": hb[0], "of": hb[1]},
                          "per_cause": {c: {"train": r[:2], **({"held_back": r[2:]} if args.held_back_per_cause else {})} for c, r in table.items()}}, indent=2))
        return 0
    print("%d real logs, %d causes (incl. none)" % (len(files), len(table)))
    print("written-from part: %d / %d right (%.1f %%)" % (tr[0], tr[1], pct(*tr)))
    if not args.written_only:
        print("held-back third:   %d / %d right (%.1f %%)" % (hb[0], hb[1], pct(*hb)))
    print()
    # The held-back third per cause says where it misses: only when asked (--held-back-per-cause).
    per_cause_held = args.held_back_per_cause and not args.written_only
    print("%-32s %9s %9s" % ("cause", "written", "held back" if per_cause_held else ""))
    for cause, r in sorted(table.items()):
        print("%-32s %4d/%-4d %4d/%-4d" % (cause, r[0], r[1], r[2], r[3]) if per_cause_held else "%-32s %4d/%-4d" % (cause, r[0], r[1]))
    if args.show_train_misses:
        print()
        for name, got in train_misses:
            print("miss  %-60s got %s" % (name, got))
    return 0


if __name__ == "__main__":
    sys.exit(main())
