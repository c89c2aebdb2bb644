#!/bin/sh
# Proves "no behaviour change" for `cudoctor check`: runs an OLD and a NEW binary on every
# fixture machine (build/roots/*) and on this machine, in every output form, and compares
# stdout, stderr and the exit status byte for byte. The clock is pinned
# (CUDOCTOR_OVERRIDE_TIME), so taken_at is the same on both sides.
#
#   bench/check_same_output.sh OLD NEW [ROOTS_DIR]     (ROOTS_DIR: build/roots)
#
# Prints one line per difference and exits 1 if there is any; 0 and a count when all agree.
set -eu
OLD=$1
NEW=$2
ROOTS=${3:-build/roots}
export CUDOCTOR_OVERRIDE_TIME=2026-12-02T12:00:00Z
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compared=0
differ=0

run_both() {  # label, then the arguments after the binary
  label=$1; shift
  rc_old=0; "$OLD" "$@" >"$work/old.out" 2>"$work/old.err" || rc_old=$?
  rc_new=0; "$NEW" "$@" >"$work/new.out" 2>"$work/new.err" || rc_new=$?
  compared=$((compared + 1))
  if [ "$rc_old" != "$rc_new" ] || ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err"; then
    differ=$((differ + 1))
    echo "DIFFERS: $label (exit $rc_old vs $rc_new)"
    diff "$work/old.out" "$work/new.out" | head -20 || true
    diff "$work/old.err" "$work/new.err" | head -5 || true
  fi
}

for form in "" "--json" "-v" "--markdown" "--format prometheus" "--quiet"; do
  # shellcheck disable=SC2086  # the form is one or two words
  run_both "this machine: check $form" check $form
  for root in "$ROOTS"/*/; do
    root=${root%/}
    # shellcheck disable=SC2086
    run_both "$(basename "$root"): check $form" check --root "$root" $form
  done
done
echo "compared $compared runs of check: $differ differ"
[ "$differ" -eq 0 ]
