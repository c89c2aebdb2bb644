#!/usr/bin/env python3
"""Times shell commands side by side: paired rounds, the order rotated each round, median and range.

These machines are shared and noisy, so a figure is only worth its peer measured in the same
loop. Every round runs each command once; round r starts with command r mod n, so no command
always runs first (cold caches) or last. Wall time comes from a monotonic clock around the
child; peak resident memory from the child's own rusage (os.wait4), so one command's peak is
never mixed with another's.

Usage:
  bench/rounds.py [--rounds N] [--warmup K] [--json FILE] [--direct] [--ok-exit 0,1]
                  NAME=COMMAND [NAME=COMMAND ...]

The first command is the one the others are compared with ("ratio" = its median / theirs:
above 1 means faster than the first). A command that exits with a status not in --ok-exit
(default: 0) stops the run: a timing of a failure is not a timing. Prints one line per command:
  NAME  median 0.412 s  range 0.398–0.455 s  peak 11 MB  ratio 2.31×

Each COMMAND runs through /bin/sh -c, unless --direct: then it is split into words as the shell
would (shlex) and run as it is, no shell between, its output (stdout and stderr) to /dev/null.
For commands of milliseconds the shell's own start is a tenth of the time measured, the same
absolute cost added to every peer, which pulls every ratio towards 1.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(command, direct, ok_exit):
    if direct:
        argv, err = shlex.split(command), subprocess.DEVNULL
    else:
        argv, err = ["/bin/sh", "-c", command], None
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok_exit:
        sys.exit(f"rounds: command failed (exit {proc.returncode}): {command}")
    return elapsed, usage.ru_maxrss * 1024


def seconds(t, median):
    """Three decimals, or four when the median is under a tenth of a second (17.2 ms, not 0.017)."""
    return f"{t:.4f}" if median < 0.1 else f"{t:.3f}"


def main(argv):
    rounds, warmup, json_out, commands = 7, 1, None, []
    direct, ok_exit = False, {0}
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--warmup":
            warmup = int(args.pop(0))
        elif a == "--json":
            json_out = args.pop(0)
        elif a == "--direct":
            direct = True
        elif a == "--ok-exit":
            ok_exit = {int(x) for x in args.pop(0).split(",")}
        elif "=" in a and not a.startswith("-"):
            name, command = a.split("=", 1)
            commands.append((name, command))
        else:
            sys.exit(__doc__)
    if not commands or rounds < 1:
        sys.exit(__doc__)
    for name, command in commands:
        for _ in range(warmup):
            run_once(command, direct, ok_exit)
    times = {name: [] for name, _ in commands}
    peaks = {name: 0 for name, _ in commands}
    n = len(commands)
    for r in range(rounds):
        for k in range(n):
            name, command = commands[(r + k) % n]
            t, rss = run_once(command, direct, ok_exit)
            times[name].append(t)
            peaks[name] = max(peaks[name], rss)
    base = statistics.median(times[commands[0][0]])
    width = max(len(name) for name, _ in commands)
    result = []
    for name, command in commands:
        med = statistics.median(times[name])
        row = {"name": name, "command": command, "median_s": med, "min_s": min(times[name]),
               "max_s": max(times[name]), "peak_bytes": peaks[name], "ratio": base / med if med else None,
               "rounds": rounds}
        result.append(row)
        print(f"{name:<{width}}  median {seconds(med, med)} s  range {seconds(row['min_s'], med)}–{seconds(row['max_s'], med)} s  "
              f"peak {peaks[name] / 2**20:.0f} MB  ratio {row['ratio']:.2f}×")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
