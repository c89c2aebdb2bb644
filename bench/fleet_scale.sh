#!/bin/sh
# `cudoctor fleet` over a generated fleet of N snapshots (default 10,000), varied from real
# ones: `cudoctor check --root` on the fixture machines gives one snapshot each; every
# generated node copies one of them with its own host name and time, and a few percent drift
# (another driver, a toolkit missing), go stale, or are broken (cut in half, a newer schema).
# Times `fleet` (text and --json) in the same loop as what a site's script does today: `cat` of
# every file (the floor: reading the bytes) and a Python loop that json.load()s every file
# (parsing only, no rules, no comparison). bench/rounds.py runs them in paired rounds with the
# order rotated and prints median, range, peak memory and each one's ratio to the Python loop
# (above 1: faster than it). The goal of issue #25: fleet's ratio >= 2.
# ROUNDS (default 7) sets the number of rounds.
# Usage: bench/fleet_scale.sh [build-dir] [N]
set -eu
BUILD=${1:-build}
N=${2:-10000}
CUDOCTOR=$BUILD/cudoctor
ROOTS=$BUILD/roots
[ -x "$CUDOCTOR" ] || { echo "fleet_scale: $CUDOCTOR not built"; exit 1; }
WORK=$(mktemp -d /tmp/cudoctor-fleet-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/seeds" "$WORK/fleet"

for s in ubuntu2204-rtx4060ti driver-mismatch server-three-toolkits ubuntu2404-cuda118 cpu-only-conda wsl2; do
  [ -d "$ROOTS/$s" ] || continue
  "$CUDOCTOR" check --root "$ROOTS/$s" --json --output "$WORK/seeds/$s.json" || true
done

python3 - "$WORK/seeds" "$WORK/fleet" "$N" <<'PY'
import json, os, random, sys
seeds_dir, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(os.listdir(seeds_dir))
seeds = [json.load(open(os.path.join(seeds_dir, f))) for f in names]
# The majority: the desktop with a GPU, toolkits, cuDNN and torch (the first seed otherwise).
main = seeds[names.index("ubuntu2204-rtx4060ti.json")] if "ubuntu2204-rtx4060ti.json" in names else seeds[0]
rnd = random.Random(12)
for i in range(n):
    # 90% of the fleet is one configuration; the rest are the other real machines.
    snap = json.loads(json.dumps(main if rnd.random() < 0.9 else rnd.choice(seeds)))
    snap["hostname"] = "gpu%05d" % i
    snap["taken_at"] = "2024-06-%02dT06:%02d:00Z" % (12 if rnd.random() > 0.01 else 1, rnd.randrange(60))
    if rnd.random() < 0.03 and snap["driver"]["kernel_module_version"]:
        snap["driver"]["kernel_module_version"] = "555.42.02"
    if rnd.random() < 0.02 and snap["toolkits"]:
        snap["toolkits"].pop()
    text = json.dumps(snap)
    r = rnd.random()
    if r < 0.001: text = text[: len(text) // 2]
    elif r < 0.002: text = text.replace('"schema": 1', '"schema": 2', 1)
    with open(os.path.join(out, "gpu%05d.json" % i), "w") as f:
        f.write(text)
PY

bytes=$(du -sb "$WORK/fleet" | cut -f1)
echo "fleet: $N snapshots, $((bytes / 1000000)) MB, $(nproc) cores"
cat "$WORK"/fleet/* > /dev/null  # warm the page cache for every contender alike

cat > "$WORK/load.py" <<'PY'
import json, os, sys
d = sys.argv[1]
for f in os.listdir(d):
    try: json.load(open(os.path.join(d, f)))
    except ValueError: pass
PY
# fleet exits 1 when it finds problems (the broken and stale nodes above): that is a success here.
python3 "$(dirname "$0")/rounds.py" --rounds "${ROUNDS:-7}" --warmup 1 \
  "python json.load loop=python3 '$WORK/load.py' '$WORK/fleet'" \
  "cat every file=cat '$WORK'/fleet/* > /dev/null" \
  "cudoctor fleet (text)='$CUDOCTOR' fleet '$WORK/fleet' > /dev/null || [ \$? -eq 1 ]" \
  "cudoctor fleet --json='$CUDOCTOR' fleet --json '$WORK/fleet' > /dev/null || [ \$? -eq 1 ]" \
  "cudoctor fleet --jobs 1='$CUDOCTOR' fleet --jobs 1 '$WORK/fleet' > /dev/null || [ \$? -eq 1 ]"
