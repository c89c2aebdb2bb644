#!/bin/bash
# The generated man page renders with man-db and groff without a single warning, and has the
# sections the issue asks for. Usage: man_page.sh cudoctor.1
set -uo pipefail
page=$1
fail() { echo "FAIL: $*"; exit 1; }
command -v groff >/dev/null || { echo "SKIP: groff missing"; exit 77; }
warnings=$(groff -man -ww -z -Tutf8 "$page" 2>&1)
[[ -z $warnings ]] || fail "groff -ww: $warnings"
if command -v man >/dev/null; then
    warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    [[ -z $warnings ]] || fail "man --warnings: $warnings"
    text=$(MANWIDTH=80 MAN_KEEP_FORMATTING=0 man -l "$page" 2>/dev/null | col -b)
else
    text=$(groff -man -Tutf8 "$page" | col -b)
fi
for section in NAME SYNOPSIS DESCRIPTION "GLOBAL OPTIONS" COMMANDS EXAMPLES "EXIT STATUS" ENVIRONMENT FILES; do
    grep -q "^$section\$" <<<"$text" || fail "section $section missing"
done
for word in "cudoctor check --json" "--fail-on" "NO_COLOR" "CUDOCTOR_OVERRIDE_DRIVER_VERSION" "130" "verify-installer"; do
    grep -qF -- "$word" <<<"$text" || fail "rendered page lacks '$word'"
done
echo ok
