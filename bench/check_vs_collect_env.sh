#!/bin/sh
# Side by side: `cudoctor check` against what users run today to learn the same things,
# `python3 -m torch.utils.collect_env` (Debian's python3-torch) and, where present, nvidia-smi.
# All are timed in the same loop by bench/rounds.py (paired rounds, order rotated each round;
# median, range, peak RSS, ratio to the first). Machines here are shared and noisy: read the
# ratio measured in the same run, not the absolute times.
#
#   bench/check_vs_collect_env.sh [CUDOCTOR]     (CUDOCTOR: build/cudoctor)
#   ROUNDS=N (default 21) WARMUP=K (default 2) JSON=FILE (rounds.py's --json)
#
# Every command runs as it is, no shell between (rounds.py --direct: a `sh -c` start is a tenth of
# check's time), its output to /dev/null. Exit status 1 is a success here: check exits 1 on a
# machine with problems (here: no GPU); rounds.py stops at any other failure.
set -eu
here=$(dirname "$0")
CUDOCTOR=${1:-build/cudoctor}
ROUNDS=${ROUNDS:-21}
WARMUP=${WARMUP:-2}

# The python that can import torch: the one on PATH, else Debian's (python3-torch).
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import torch' >/dev/null 2>&1; then PY=$p; break; fi
done
# collect_env first: rounds.py's ratio is the first command's median over each one's, so the
# ratio printed for check is how many times faster than collect_env it is.
set --
if [ -n "$PY" ]; then
  set -- "collect_env=$PY -m torch.utils.collect_env"
else
  echo "python3 -m torch.utils.collect_env: torch not importable (apt-get install python3-torch); timing cudoctor only" >&2
fi
set -- "$@" "check=$CUDOCTOR check" "check --json=$CUDOCTOR check --json"
if command -v nvidia-smi >/dev/null 2>&1; then
  set -- "$@" "nvidia-smi=nvidia-smi"
fi

json=""
[ -n "${JSON:-}" ] && json="--json $JSON"
# shellcheck disable=SC2086  # "--json FILE" is two words
exec python3 "$here/rounds.py" --direct --ok-exit 0,1 --rounds "$ROUNDS" --warmup "$WARMUP" $json "$@"
