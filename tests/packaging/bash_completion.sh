#!/bin/bash
# The generated bash completion in a real bash: source it, fill COMP_WORDS / COMP_CWORD as
# readline would, call the function, look at COMPREPLY.
# Usage: bash_completion.sh CUDOCTOR_BINARY COMPLETION_SCRIPT ROOTS_DIR
set -uo pipefail
binary=$1 script=$2 roots=$3
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
ln -s "$binary" "$bindir/cudoctor"
PATH=$bindir:$PATH
# shellcheck source=/dev/null
source "$script" || { echo "FAIL: sourcing $script"; exit 1; }
failures=0

complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _cudoctor
    line="$*"
}
has() {
    local w
    for w in "${COMPREPLY[@]}"; do [[ $w == "$1" ]] && return 0; done
    echo "FAIL: '$line<TAB>' should offer '$1', got: ${COMPREPLY[*]}"
    failures=$((failures + 1))
}
lacks() {
    local w
    for w in "${COMPREPLY[@]}"; do
        [[ $w == "$1" ]] && { echo "FAIL: '$line<TAB>' offers '$1'"; failures=$((failures + 1)); }
    done
    return 0
}
only() {
    [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == "$1" ]] && return 0
    echo "FAIL: '$line<TAB>' should offer only '$1', got: ${COMPREPLY[*]}"
    failures=$((failures + 1))
}

[[ $(complete -p cudoctor) == "complete -F _cudoctor cudoctor" ]] || { echo "FAIL: complete -p cudoctor"; failures=$((failures + 1)); }

complete_line cudoctor ch;                 only check
complete_line cudoctor "";                 has check; has verify-installer; has fleet; lacks __generate; lacks __complete
complete_line cudoctor verify-;            only verify-installer
complete_line cudoctor check --js;         only --json
complete_line cudoctor check --;           has --root; has --fail-on; has --color; has --quiet; lacks --sha256
complete_line cudoctor check --fail-on ""; has error; has warning
complete_line cudoctor --color "";         has auto; has always; has never
complete_line cudoctor --color = al;       only always
complete_line cudoctor verify-installer --s; only --sha256
complete_line cudoctor --;                 has --version; has --color; lacks --json
complete_line cudoctor check --root "$roots/ubuntu2204-rtx";  only "$roots/ubuntu2204-rtx4060ti"
complete_line cudoctor check --root = "$roots/ubuntu2204-rtx";  only "$roots/ubuntu2204-rtx4060ti"

complete_line cudoctor opencv "";          has cmake; has log; has check
complete_line cudoctor opencv cmake --;    has --contrib; lacks --sha256
complete_line cudoctor init "";            has bash; has zsh; has fish

# Toolkit versions come from the binary: `cudoctor __complete toolkits --root ROOT`.
COMP_WORDS=(cudoctor)
versions=$(_cudoctor_run __complete toolkits --root "$roots/server-three-toolkits")
for v in 11.8 12.1 12.4; do
    grep -q "^$v" <<<"$versions" || { echo "FAIL: __complete toolkits lacks $v: $versions"; failures=$((failures + 1)); }
done
# Wired into `use`/`switch`/… once those take a VERSION argument.
for cmd in use switch uninstall modulefile; do
    if grep -q "^        $cmd) _cudoctor_reply \"\$(_cudoctor_run __complete toolkits" "$script"; then
        complete_line cudoctor "$cmd" --root "$roots/server-three-toolkits" 12.
        has "$(grep '^12.4' <<<"$versions" | head -1)"
        lacks "$(grep '^11.8' <<<"$versions" | head -1)"
    else
        echo "note: '$cmd' has no VERSION argument yet: toolkit completion not wired for it"
    fi
done

((failures == 0)) && echo ok
exit $((failures > 0))
