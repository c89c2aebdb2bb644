#!/bin/sh
# `cudoctor fleet` over a generated fleet of N snapshots (default 10,000), varied from real
# ones: `cudoctor check --root` on the fixture machines gives one snapshot each; every
# generated node copies one of them with its own host name and time, and a few percent drift
# (another driver, a toolkit missing), go stale, or are broken (cut in half, a newer schema).
# Times `fleet` (wall seconds and peak memory from /usr/bin/time -v) against what a site's
# script does today: `cat` of every file (the floor: reading the bytes) and a Python loop
# that json.load()s every file (parsing only, no rules, no comparison).
# Usage: bench/fleet_scale.sh [build-dir] [N]
set -eu
BUILD=${1:-build}
N=${2:-10000}
CUDOCTOR=$BUILD/cudoctor
ROOTS=$BUILD/roots
[ -x "$CUDOCTOR" ] || { echo "fleet_scale: $CUDOCTOR not built"; exit 1; }
[ -x /usr/bin/time ] || { echo "fleet_scale: /usr/bin/time missing (apt-get install time)"; exit 1; }
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

measure() {  # measure LABEL CMD...: wall seconds and peak RSS (MiB)
  label=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$WORK/time.txt" || true
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$WORK/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$WORK/time.txt")
  printf '%-44s %8.2f s %7s MiB\n' "$label" "$wall" "$rss"
  echo "$wall" > "$WORK/last"
}

measure "cat every file > /dev/null" sh -c "cat '$WORK'/fleet/* > /dev/null"; t_cat=$(cat "$WORK/last")
measure "python3: json.load every file" python3 -c "
import json, os, sys
d = sys.argv[1]
for f in os.listdir(d):
    try: json.load(open(os.path.join(d, f)))
    except ValueError: pass" "$WORK/fleet"; t_py=$(cat "$WORK/last")
measure "cudoctor fleet --json (rules on every node)" "$CUDOCTOR" fleet --json "$WORK/fleet"; t_fleet=$(cat "$WORK/last")
measure "cudoctor fleet (text)" "$CUDOCTOR" fleet "$WORK/fleet"
measure "cudoctor fleet --jobs 1" "$CUDOCTOR" fleet --jobs 1 --json "$WORK/fleet"; t_one=$(cat "$WORK/last")

awk -v f="$t_fleet" -v c="$t_cat" -v p="$t_py" -v o="$t_one" 'BEGIN {
  printf "fleet / cat = %.2f   fleet / python json.load = %.2f   1 thread / all threads = %.2f\n", f / c, f / p, o / f }'
