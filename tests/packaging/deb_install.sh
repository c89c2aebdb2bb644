#!/bin/bash
# Builds the .deb with CPack from the finished build tree (nothing is recompiled), installs it
# with the real dpkg into a fresh root, runs the installed binary, and removes it again.
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
fields=$(dpkg-deb -f "$deb" Package Section Depends Maintainer Description)
echo "$fields"
grep -qx 'Package: cudoctor' <<<"$fields" || fail "Package field"
grep -qx 'Section: utils' <<<"$fields" || fail "Section field"
for lib in libc6 libstdc++6 libre2 libssl zlib1g; do
    grep -q "^Depends:.*$lib" <<<"$fields" || fail "Depends lacks $lib (dpkg-shlibdeps)"
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
         usr/share/doc/cudoctor/copyright usr/share/doc/cudoctor/README.md; do
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

dpkg --root="$root" --log=/dev/null -r cudoctor >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -r"; }
[[ ! -e $bin ]] || fail "dpkg -r left /usr/bin/cudoctor"
echo "ok"
