#!/usr/bin/env python3
"""Writes the recorded series the fake NVML (replay_nvml.c) replays: 4 hours of one H100 at one
sample every 2 minutes (121 rows), seeded so the files never change. Run it again only to change
the scenarios; the tests read the files it wrote (series/*.tsv).

  leak.tsv      a model loads (0 -> 2 GiB in the first minutes), stays flat until 00:40, then
                leaks +38 MiB/hour with +-2 MiB of noise until the end
  flat.tsv      5 GiB held for 4 hours (+-4 MiB of noise, one 60 MiB spike), and one Xid 13 from
                the driver at 02:00 (the message form of the 5xx drivers)
  sawtooth.tsv  a caching allocator: the reserve climbs in steps from 3 GiB to ~7 GiB, then
                empty_cache() gives it back; six teeth, level troughs, the window ends near a peak
"""
import random

HEADER = "used_mib\tutil_gpu\tutil_mem\ttemp_c\tpower_w\tsm_mhz\tmem_mhz\tprocesses\tkernel"
STEP_MIN = 2
ROWS = 121
BASE_OTHER = 520  # MiB the GPU uses besides the watched process (context, other clients)


def row(rng, process_mib, pid, kernel=""):
    util = rng.randint(85, 99)
    return "\t".join(str(v) for v in [
        process_mib + BASE_OTHER, util, rng.randint(30, 45), rng.randint(64, 72), rng.randint(540, 690),
        rng.choice([1980, 1965, 1950]), 2619, f"{pid}:{process_mib}", kernel])


def leak():
    rng = random.Random(11)
    out = []
    for i in range(ROWS):
        t = i * STEP_MIN
        if t < 6:
            mib = int(2048 * (t + STEP_MIN) / 8)
        elif t < 40:
            mib = 2048 + round(rng.gauss(0, 2))
        else:
            mib = 2048 + round(38 * (t - 40) / 60 + rng.gauss(0, 2))
        out.append(row(rng, mib, 3999901))
    return out


def flat():
    rng = random.Random(12)
    out = []
    for i in range(ROWS):
        mib = 5120 + round(rng.gauss(0, 4))
        if i == 77:
            mib += 60
        kernel = ""
        if i == 60:
            kernel = ("[ 7200.118734] NVRM: Xid (PCI:0000:18:00): 13, pid=3999902, name=python3, "
                      "Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address")
        out.append(row(rng, mib, 3999902, kernel))
    return out


def sawtooth():
    rng = random.Random(13)
    out = []
    mib = 3072
    for i in range(ROWS):
        if i > 20 and i % 20 == 2:
            mib = 3072 + round(rng.gauss(0, 30))  # empty_cache(): back to the working set
        elif i % 2 == 0:
            mib += rng.choice([256, 384, 512])   # the allocator reserves another segment
        out.append(row(rng, mib, 3999903))
    return out


for name, rows in [("leak", leak()), ("flat", flat()), ("sawtooth", sawtooth())]:
    with open(f"series/{name}.tsv", "w") as f:
        f.write(f"# {name}: written by tests/watch_stubs/make_series.py (see there); one row per sample, 2 minutes apart\n")
        f.write(HEADER + "\n")
        for r in rows:
            f.write(r + "\n")
