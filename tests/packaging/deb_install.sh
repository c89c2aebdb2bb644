#!/bin/bash
# Builds the .deb with CPack from the finished build tree (nothing is recompiled), installs it
# with the real dpkg into a fresh root, runs the installed binary, and removes it again.
# Also: lintian finds no error in it (warnings are printed), its systemd units pass
# `systemd-analyze verify` as installed and are not enabled, and the service's command line writes
# metrics that promtool accepts.
# Usage: deb_install.sh CPACK BUILD_DIR ROOTS_DIR      (exit 77 = skipped: no dpkg here)
set -euo pipefail
cpack=$1 build=$2 roots=$3
command -v dpkg >/dev/null && command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || {
    echo "SKIP: dpkg, dpkg-deb or dpkg-shlibdeps (dpkg-dev) missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# -B: a private output folder, so parallel test runs never share CPack's scratch space.
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
debs=("$work"/out/cudoctor_*.deb)
[[ -f ${debs[0]} ]] || { cat "$work/cpack.log"; fail "no cudoctor_*.deb written"; }
deb=${debs[0]}
echo "package: ${deb##*/} ($(stat -c %s "$deb") bytes)"

# Control fields: dependencies come from dpkg-shlibdeps on the libraries really linked.
fields=$(dpkg-deb -f "$deb" Package Section Depends Recommends Maintainer Description)
echo "$fields"
grep -qx 'Package: cudoctor' <<<"$fields" || fail "Package field"
grep -qx 'Section: utils' <<<"$fields" || fail "Section field"
grep -qx 'Recommends: pci.ids' <<<"$fields" || fail "Recommends field"
grep -q '^Maintainer: cudoctor maintainers <[^@ ]*@[^@ ]*\.[^@ ]*>$' <<<"$fields" || fail "Maintainer field"
# A long description of several lines (each continued with a space), none past 80 characters.
desc=$(dpkg-deb -f "$deb" Description)
(( $(wc -l <<<"$desc") >= 8 )) || fail "long description"
grep -qx ' \.' <<<"$desc" || fail "long description has no paragraph break"
! awk 'length > 80' <<<"$desc" | grep -q . || fail "a description line is longer than 80 characters"

# lintian: no error. Its warnings and notes are printed for the record.
if command -v lintian >/dev/null; then
    set +e
    lintian --no-tag-display-limit --display-info "$deb" >"$work/lintian.log" 2>&1
    set -e
    cat "$work/lintian.log"
    ! grep -q '^E: ' "$work/lintian.log" || fail "lintian reports errors"
else
    echo "lintian not installed: not run"
fi
for lib in libc6 libstdc++6 libre2; do
    grep -q "^Depends:.*$lib" <<<"$fields" || fail "Depends lacks $lib (dpkg-shlibdeps)"
done
# Opened on first use, not linked: package.cmake declares them (dpkg-shlibdeps cannot see them).
for lib in libssl zlib1g liblzma5 libzstd1 liblz4-1 libvectorscan5; do
    grep -q "^Depends:.*$lib" <<<"$fields" || fail "Depends lacks $lib (opened on first use: cmake/package.cmake)"
done

# A fresh dpkg database in a temporary root.
root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --log=/dev/null --force-depends --force-not-root -i "$deb" >"$work/dpkg.log" 2>&1 ||
    { cat "$work/dpkg.log"; fail "dpkg -i"; }
dpkg --root="$root" -s cudoctor | grep -qx 'Status: install ok installed' || fail "not installed per dpkg -s"

for f in usr/bin/cudoctor usr/share/man/man1/cudoctor.1.gz usr/share/bash-completion/completions/cudoctor \
         usr/share/zsh/vendor-completions/_cudoctor usr/share/fish/vendor_completions.d/cudoctor.fish \
         usr/share/doc/cudoctor/copyright usr/share/doc/cudoctor/README.md usr/share/doc/cudoctor/changelog.gz \
         usr/share/doc/cudoctor/fleet.md usr/share/doc/cudoctor/examples/slurm/cudoctor-healthcheck.sh \
         usr/share/doc/cudoctor/examples/fleet/slurm.sh \
         usr/lib/systemd/system/cudoctor-check.service usr/lib/systemd/system/cudoctor-check.timer; do
    [[ -s $root/$f ]] || fail "$f missing from the installed package"
    dpkg --root="$root" -L cudoctor | grep -qx "/$f" || fail "$f not listed by dpkg -L"
done

bin=$root/usr/bin/cudoctor
version=$("$bin" --version) || fail "--version exit $?"
echo "$version"
grep -q '^cudoctor [0-9][0-9.]* (git ' <<<"$version" || fail "--version first line"
grep -q 'cuda_driver\.tsv *[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]' <<<"$version" || fail "--version lacks dated tables"

set +e
out=$("$bin" check --root "$roots/ubuntu2204-rtx4060ti" --color=never 2>&1)
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || { echo "$out"; fail "check --root exit $rc"; }
grep -q 'RTX 4060 Ti' <<<"$out" || { echo "$out"; fail "check output lacks the fixture's GPU"; }

zcat "$root/usr/share/man/man1/cudoctor.1.gz" | grep -q '^\.SH EXIT STATUS' || fail "man page content"
zcat "$root/usr/share/doc/cudoctor/changelog.gz" | head -1 | grep -q "^cudoctor ($(dpkg-deb -f "$deb" Version)) " ||
    fail "changelog's first entry is not this version"
grep -q '^License: Apache-2.0$' "$root/usr/share/doc/cudoctor/copyright" || fail "copyright names no Apache-2.0 license"

# The systemd units as installed: systemd-analyze verify is silent on them (systemd's own units
# copied in for the targets they name), and the timer is not enabled.
unit_dir=$root/usr/lib/systemd/system
if command -v systemd-analyze >/dev/null && [[ -d /usr/lib/systemd/system ]]; then
    cp -an /usr/lib/systemd/system/. "$unit_dir/"
    out=$(systemd-analyze verify --man=no --root="$root" "$unit_dir/cudoctor-check.timer" "$unit_dir/cudoctor-check.service" 2>&1) ||
        { echo "$out"; fail "systemd-analyze verify"; }
    [[ -z $out ]] || { echo "$out"; fail "systemd-analyze verify warns"; }
    # The check can fail: a misspelt key is reported.
    sed 's/^OnUnitActiveSec=/OnUnitActivSec=/' "$unit_dir/cudoctor-check.timer" >"$unit_dir/cudoctor-typo.timer"
    out=$(systemd-analyze verify --man=no --root="$root" "$unit_dir/cudoctor-typo.timer" 2>&1) || true
    grep -q "Unknown key 'OnUnitActivSec'" <<<"$out" || { echo "$out"; fail "systemd-analyze verify missed a misspelt key"; }
    rm "$unit_dir/cudoctor-typo.timer"
    state=$(systemctl --root="$root" is-enabled cudoctor-check.timer 2>&1) || true
    [[ $state == disabled ]] || fail "cudoctor-check.timer is '$state', not disabled, after installation"
else
    echo "systemd-analyze not installed: units not verified"
fi
grep -qx 'OnUnitActiveSec=15min' "$unit_dir/cudoctor-check.timer" || fail "the timer does not run every 15 minutes"
# The service's own command line, run with the installed binary on a fixture machine and its
# output folder moved into the test's.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit_dir/cudoctor-check.service")
[[ $exec_start == "/usr/bin/cudoctor check --format prometheus --output /var/lib/prometheus/node-exporter/cudoctor.prom" ]] ||
    fail "ExecStart: $exec_start"
mkdir -p "$work/node-exporter"
read -r -a argv <<<"${exec_start//\/var\/lib\/prometheus\/node-exporter/$work/node-exporter}"
argv[0]=$bin
set +e
"${argv[@]}" --root "$roots/driver-mismatch"
rc=$?
set -e
[[ $rc == 1 ]] || fail "the service's command on a broken machine: exit $rc, not 1"
grep -q '^cudoctor_finding{rule="driver-library-mismatch",severity="error",layer="driver"} 1$' "$work/node-exporter/cudoctor.prom" ||
    fail "the service's command wrote no finding"
if command -v promtool >/dev/null; then
    promtool check metrics <"$work/node-exporter/cudoctor.prom" || fail "promtool check metrics"
fi

dpkg --root="$root" --log=/dev/null -r cudoctor >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -r"; }
[[ ! -e $bin ]] || fail "dpkg -r left /usr/bin/cudoctor"
echo "ok"
