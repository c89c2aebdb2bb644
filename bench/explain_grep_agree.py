#!/usr/bin/env python3
"""Line for line, `grep -E` with the converted catalog (bench/re2_to_ere.py) finds what explain finds.

For every log of tests/fixtures/errors: the lines explain reports (its causes' matched_lines) must
all be lines grep matches, and every line a high- or medium-confidence pattern matches in grep
must be one explain reports (unless that cause shows fewer lines than it counted: its cap of 10 lines, 8 hits a pattern). Low and context rows only
support a cause another row found, so grep may see lines of theirs that explain leaves out. A
pattern whose \\s spans a line break (explain reads a line with the next) is found by explain
alone: such lines are counted apart, checked with Python's re on the two-line window.
Prints the disagreements and exits 1 when there are any.

Usage: bench/explain_grep_agree.py [--written-only] [--kb DIR] [BUILD_DIR]
--written-only reads only the part the catalog is written from (the held-back third is never run or
shown: see bench/explain_generalisation.py); --kb DIR checks the catalog in DIR (explain reads it
too) instead of data/ and the built-in copy.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from re2_to_ere import convert  # noqa: E402
from explain_generalisation import held_back  # noqa: E402


def grep_lines(patterns: list, path: str) -> set:
    if not patterns:
        return set()
    with tempfile.NamedTemporaryFile("w", suffix=".ere", delete=False) as f:
        f.write("\n".join(patterns) + "\n")
    run = subprocess.run(["grep", "-n", "-E", "-a", "-f", f.name, path], capture_output=True, env={"LC_ALL": "C"})
    os.unlink(f.name)
    return {int(line.split(b":", 1)[0]) for line in run.stdout.splitlines()}


def main() -> int:
    args = sys.argv[1:]
    written_only = "--written-only" in args
    args = [a for a in args if a != "--written-only"]
    kb = []
    if "--kb" in args:
        i = args.index("--kb")
        kb = ["--kb", args[i + 1]]
        del args[i:i + 2]
    build = args[0] if args else os.path.join(ROOT, "build")
    catalog = os.path.join(kb[1] if kb else os.path.join(ROOT, "data"), "error_catalog.tsv")
    rows = [l.rstrip("\n").split("\t") for l in open(catalog, encoding="utf-8") if not l.startswith("#")][1:]
    read_before = set()
    if written_only:
        with open(os.path.join(ROOT, "tests/fixtures/errors/read-before-split.txt")) as f:
            read_before = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    every = [convert(r[4]) for r in rows]
    two_line = [re.compile(r[4].encode(), re.S) for r in rows]
    strong = [convert(r[4]) for r in rows if r[2] in ("high", "medium")]
    errors_dir = os.path.join(ROOT, "tests/fixtures/errors")
    files = disagreements = spanning = 0
    for cause in sorted(os.listdir(errors_dir)):
        folder = os.path.join(errors_dir, cause)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if written_only and held_back(cause + "/" + name, read_before):
                continue
            files += 1
            run = subprocess.run([os.path.join(build, "cudoctor"), "explain", "--no-machine", "--json", "--log", path] + kb,
                                 capture_output=True, text=True)
            causes = json.loads(run.stdout)["causes"] if run.stdout.strip().startswith("{") else []
            seen = {m["line"] for c in causes for m in c["matched_lines"]}
            # explain keeps 10 lines a cause and 8 hits a pattern (it counts the rest): grep's
            # surplus is no disagreement where it kept fewer lines than it counted.
            capped = any(len(c["matched_lines"]) >= 10 or c["match_count"] > len(c["matched_lines"]) for c in causes)
            g_all, g_strong = grep_lines(every, path), grep_lines(strong, path)
            extra = seen - g_all
            if extra:
                with open(path, "rb") as f:
                    lines = f.read().split(b"\n")
                for n in sorted(extra):
                    window = b"\n".join(lines[n - 1:n + 1])
                    if any(r.search(window) for r in two_line):
                        extra.discard(n)
                        spanning += 1
            missing = set() if capped else g_strong - seen
            if extra or missing:
                disagreements += 1
                print("%s/%s: explain only %s, grep only %s" % (cause, name, sorted(extra), sorted(missing)))
    print("%d logs, %d patterns: %d disagree (%d matches span two lines: explain's window, not grep's)"
          % (files, len(rows), disagreements, spanning))
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
