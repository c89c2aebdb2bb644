#!/bin/sh
# Side by side: `cudoctor check` against what users run today to learn the same things,
# `python3 -m torch.utils.collect_env` (Debian's python3-torch) and, where present, nvidia-smi.
# Prints the median wall time of each over N runs and the ratio. Machines here are shared and
# noisy: read the ratio, not the absolute times.
set -eu
CUDOCTOR=${1:-build/cudoctor}
N=${N:-15}
N_SLOW=${N_SLOW:-5}

median_ms() {  # runs "$@" N times, prints the median wall time in milliseconds
  runs=$1; shift
  i=0; : > /tmp/cudoctor-bench.$$
  while [ $i -lt "$runs" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) >> /tmp/cudoctor-bench.$$
    i=$((i + 1))
  done
  sort -n /tmp/cudoctor-bench.$$ | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.1f\n", m/1000}'
  rm -f /tmp/cudoctor-bench.$$
}

"$CUDOCTOR" check >/dev/null 2>&1 || true   # warm the page cache for both sides alike
t_check=$(median_ms "$N" "$CUDOCTOR" check)
t_json=$(median_ms "$N" "$CUDOCTOR" check --json)
printf '%-44s %10s ms (median of %d)\n' "cudoctor check" "$t_check" "$N"
printf '%-44s %10s ms (median of %d)\n' "cudoctor check --json" "$t_json" "$N"

# The python that can import torch: the one on PATH, else Debian's (python3-torch).
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import torch' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
  "$PY" -m torch.utils.collect_env >/dev/null 2>&1 || true
  t_py=$(median_ms "$N_SLOW" "$PY" -m torch.utils.collect_env)
  printf '%-44s %10s ms (median of %d)\n' "$PY -m torch.utils.collect_env" "$t_py" "$N_SLOW"
  awk -v a="$t_py" -v b="$t_check" 'BEGIN { if (b > 0) printf "ratio: cudoctor check is %.0fx faster than collect_env\n", a / b }'
else
  echo "python3 -m torch.utils.collect_env: torch not importable (apt-get install python3-torch)"
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  t_smi=$(median_ms "$N_SLOW" nvidia-smi)
  printf '%-44s %10s ms (median of %d)\n' "nvidia-smi" "$t_smi" "$N_SLOW"
fi
