#!/usr/bin/env bash
# cudoctor explain --log on a large generated log, side by side with what people run today, in
# one loop of bench/rounds.py (paired rounds, order rotated; median, range, peak RSS, ratio):
#   explain   cudoctor explain --log (the catalog, data/error_catalog.tsv), the default engine
#             (Vectorscan for a log past 8 MiB: see src/formats/log_scan.cpp)
#   explain-re2  the same with CUDOCTOR_LOG_ENGINE=re2 (the first engine, the reference)
#   grep      LC_ALL=C grep -E -f: the regex column turned into POSIX ERE (bench/re2_to_ere.py)
#   rg        rg --no-unicode -f: the regex column as it is (Rust regex reads RE2 syntax)
#   rg-F      rg -F -f: the literal column, fixed strings (a floor for any pre-filter)
#   cat       cat: reading the file, nothing more
# Every command writes its output to a file: GNU grep stops at the first match when its output
# is /dev/null, which rounds.py gives it. Exit status 1 (causes found) is explain's success.
#
#   bench/explain_vs_grep.sh [BUILD_DIR] [SIZE_MB] [ROUNDS]     (defaults: build, 200, 7)
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
size_mb="${2:-200}"
rounds="${3:-7}"
cudoctor="$build/cudoctor"
[ -x "$cudoctor" ] || { echo "no cudoctor binary in $build (build it first)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/big.log"

# The log: ordinary build/test output (words like error, cuda, warning, nvcc) cycling through a
# block, with real error messages from tests/fixtures/errors sprinkled in every ~50 000 lines.
python3 - "$log" "$size_mb" "$here/tests/fixtures/errors" <<'PY'
import os, sys, random
out, size_mb, errors = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(7)
ordinary = [
    "[%d/2048] Building CUDA object src/kernels/CMakeFiles/kernels.dir/gemm_%d.cu.o",
    "/usr/local/cuda-12.4/bin/nvcc -forward-unknown-to-host-compiler -O3 -arch=sm_89 -c gemm_%d.cu -o gemm_%d.o",
    "tests/test_ops.py::test_matmul[float16-%d] PASSED                                   [ 42%%]",
    "warning: variable 'error_%d' set but not used [-Wunused-but-set-variable]",
    "2024-06-12 06:41:%02d INFO  trainer: epoch 3 step %d loss=0.4312 lr=3e-4 cuda_mem=7.1GiB",
    "Setting up cuda-cudart-12-4 (12.4.127-1) ... done; 0 errors, %d warnings",
    "  File \"/home/alice/project/train.py\", line %d, in <module>",
    "ldd: libcudnn.so.9 => /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (0x00007f%06x)",
]
sys.path.insert(0, os.path.join(errors, "..", "..", "..", "bench"))
from explain_generalisation import held_back  # the held-back third is scored only, never run here
with open(os.path.join(errors, "read-before-split.txt")) as fh:
    read_before = {l.strip() for l in fh if l.strip() and not l.startswith("#")}
samples = []
for root, _, files in os.walk(errors):
    if os.path.basename(root) == "none" or root == errors:
        continue
    for f in files:
        if held_back(os.path.basename(root) + "/" + f, read_before):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            samples.append(fh.read().split("\n", 1)[1])
target = size_mb << 20
with open(out, "w") as fh:
    written, n = 0, 0
    while written < target:
        if n % 50000 == 49999:
            block = random.choice(samples)
        else:
            t = ordinary[n % len(ordinary)]
            block = t % ((n,) * (t.count("%") - 2 * t.count("%%"))) + "\n"
        fh.write(block)
        written += len(block)
        n += 1
PY

# The same patterns for grep -E: RE2 → POSIX ERE, shorthands inside brackets too (a sed did
# [^\s], [\w.+-] and [^\n] wrong, so grep matched fewer lines than explain). First, the two
# agree line for line on every log of the corpus.
patterns="$work/patterns.ere"
python3 "$here/bench/re2_to_ere.py" "$here/data/error_catalog.tsv" > "$patterns"
python3 "$here/bench/explain_grep_agree.py" --written-only "$build" | tail -n 1
regexes="$work/patterns.re2"
literals="$work/literals.txt"
python3 - "$here/data/error_catalog.tsv" "$regexes" "$literals" <<'PY'
import re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("#")][1:]
# RE2 lets any punctuation be escaped; ripgrep's Rust regex rejects \" (a plain quote to both).
unquote = lambda r: re.sub(r'(?<!\\)((?:\\\\)*)\\"', r'\1"', r)
open(sys.argv[2], "w").write("".join(unquote(r[4]) + "\n" for r in rows))
open(sys.argv[3], "w").write("".join(sorted({r[3] + "\n" for r in rows})))
PY

echo "log: $(du -h "$log" | cut -f1), $(wc -l < "$log") lines, $(wc -l < "$patterns") patterns, $(wc -l < "$literals") literals"
cat "$log" > /dev/null  # warm the page cache for all
python3 "$here/bench/rounds.py" --rounds "$rounds" \
    "explain=$cudoctor explain --no-machine --json --log $log > $work/out.explain || [ \$? -eq 1 ]" \
    "explain-re2=CUDOCTOR_LOG_ENGINE=re2 $cudoctor explain --no-machine --json --log $log > $work/out.explain-re2 || [ \$? -eq 1 ]" \
    "grep=LC_ALL=C grep -E -c -f $patterns $log > $work/out.grep" \
    "rg=rg --no-unicode -c -f $regexes $log > $work/out.rg" \
    "rg-F=rg -F -c -f $literals $log > $work/out.rgf" \
    "cat=cat $log > $work/out.cat"
# The engines must agree: the default's answer (Vectorscan, on a log this size) is the RE2 one's.
if cmp -s "$work/out.explain" "$work/out.explain-re2"; then
    echo "explain: the default engine's output equals CUDOCTOR_LOG_ENGINE=re2's, byte for byte"
else
    echo "explain: the default engine's output DIFFERS from CUDOCTOR_LOG_ENGINE=re2's" >&2
    diff "$work/out.explain" "$work/out.explain-re2" | head -20 >&2
    exit 1
fi
