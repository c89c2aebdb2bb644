#!/bin/sh
# `cudoctor compare` on two ~1 GB safetensors dumps (16 float32 tensors of 64 MB a side; SIZE_MB
# sets the size), side by side in one loop (bench/rounds.py: paired rounds, order rotated) with
#   cat REF TEST >/dev/null      reading alone: the floor
#   the NumPy script             what people run today (the same metrics, float64)
#   cudoctor compare --threads 1
#   OLD compare                  another cudoctor build, when OLD=path/to/cudoctor is given
# Page cache warm (a warm-up run first). Prints median, range and peak RSS per command; the
# ratio is to cat (above 1: faster than cat). Machines here are shared and noisy: read ratios.
#   bench/compare_vs_numpy.sh [build/cudoctor]     SIZE_MB=2048 ROUNDS=7 DIR=/tmp/x OLD=/tmp/old bench/compare_vs_numpy.sh
# The dumps stay in DIR for the next run (2 × SIZE_MB): rm -rf DIR when done (KEEP=0 does it).
set -eu
CUDOCTOR=${1:-build/cudoctor}
SIZE_MB=${SIZE_MB:-1024}
ROUNDS=${ROUNDS:-7}
DIR=${DIR:-/tmp/cudoctor-compare-bench}
PYTHON=${PYTHON:-/usr/bin/python3}  # Debian's, with numpy
HERE=$(dirname "$0")

if [ ! -f "$DIR/.made-$SIZE_MB" ]; then
  rm -rf "$DIR"
  "$PYTHON" "$HERE/compare_numpy_metrics.py" --make "$DIR" "$SIZE_MB"
  touch "$DIR/.made-$SIZE_MB"
fi
REF=$DIR/ref.safetensors
TEST=$DIR/test.safetensors
bytes=$(($(stat -c %s "$REF") + $(stat -c %s "$TEST")))
echo "2 dumps, $((bytes / 1000000)) MB read per run; $(nproc) CPUs; $ROUNDS rounds, warm cache"

# compare exits 1 when a tensor fails (these do: the noise is near float32's rtol): not an error.
ok='ret=$?; [ $ret -le 1 ]'
set -- "cat=cat '$REF' '$TEST' >/dev/null" \
  "cudoctor=$CUDOCTOR compare '$REF' '$TEST' >/dev/null; $ok" \
  "cudoctor-1-thread=$CUDOCTOR compare --threads 1 '$REF' '$TEST' >/dev/null; $ok"
if [ -n "${OLD:-}" ]; then set -- "$@" "old=$OLD compare '$REF' '$TEST' >/dev/null; $ok"; fi
if [ "${NUMPY:-1}" = 1 ]; then set -- "$@" "numpy=$PYTHON '$HERE/compare_numpy_metrics.py' '$REF' '$TEST'"; fi
"$PYTHON" "$HERE/rounds.py" --rounds "$ROUNDS" "$@"
if [ "${KEEP:-1}" = 0 ]; then rm -rf "$DIR"; fi
