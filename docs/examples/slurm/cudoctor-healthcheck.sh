#!/bin/sh
# A Slurm HealthCheckProgram: `cudoctor check` on this node; a finding of error severity drains
# the node with the findings' ids as the reason ("cudoctor: driver-library-mismatch,..."), and a
# later clean check resumes a node this script drained. A node drained for another reason (by an
# administrator, by another health check) is never touched.
#
# slurm.conf (every node; copy this file to the same path on each):
#   HealthCheckProgram=/usr/local/sbin/cudoctor-healthcheck.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=ANY
#
# The exit status of `cudoctor check --quiet --fail-on error` is the health check by itself:
# 0 healthy, 1 a finding of error severity (or a node that can run nothing on its GPU), 2 or 3
# cudoctor could not check (bad input, internal error). On 2 or 3 this script drains nothing:
# a broken doctor says nothing about the node; it writes why to stderr and to syslog.
#
# slurmd runs this with an almost empty environment. Optional settings, from the environment or
# from /etc/default/cudoctor-healthcheck (sourced when present; CUDOCTOR_HEALTHCHECK_CONFIG
# names another file):
#   CUDOCTOR                      the cudoctor program (default: cudoctor on PATH)
#   CUDOCTOR_HEALTHCHECK_FAIL_ON  error (default) or warning
#   CUDOCTOR_HEALTHCHECK_ROOT     check this machine image instead of the node (cudoctor --root)
#   SCONTROL                      the scontrol program (default: scontrol on PATH)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
export PATH
config=${CUDOCTOR_HEALTHCHECK_CONFIG:-/etc/default/cudoctor-healthcheck}
# shellcheck disable=SC1090
[ -r "$config" ] && . "$config"
cudoctor=${CUDOCTOR:-cudoctor}
scontrol=${SCONTROL:-scontrol}
fail_on=${CUDOCTOR_HEALTHCHECK_FAIL_ON:-error}
node=${SLURMD_NODENAME:-$(hostname -s)}

say() {
    echo "cudoctor-healthcheck: $*" >&2
    command -v logger >/dev/null 2>&1 && logger -t cudoctor-healthcheck -- "$*"
    return 0
}

set -- check --format prometheus --fail-on "$fail_on" --color=never
[ -n "${CUDOCTOR_HEALTHCHECK_ROOT:-}" ] && set -- "$@" --root "$CUDOCTOR_HEALTHCHECK_ROOT"
errors=$(mktemp) || exit 0
metrics=$("$cudoctor" "$@" 2>"$errors")
rc=$?
why=$(head -c 400 "$errors" | tr '\n' ' ')
rm -f "$errors"

# The node's current drain reason, if any ("Reason=… [user@time]" in scontrol's one-line view).
reason=$("$scontrol" show node -o "$node" 2>/dev/null | sed -n 's/.* Reason=\(.*\)/\1/p')
ours=no
case $reason in cudoctor:*) ours=yes ;; esac

case $rc in
0)
    if [ "$ours" = yes ]; then
        "$scontrol" update nodename="$node" state=resume && say "$node is healthy again: resumed"
    fi
    exit 0
    ;;
1) ;;
*)
    say "cudoctor could not check $node (exit $rc): $why"
    exit 0
    ;;
esac

# The ids of the findings at or above --fail-on, in cudoctor's order (root causes first).
case $fail_on in
warning) severities='error\|warning' ;;
*) severities='error' ;;
esac
ids=$(printf '%s\n' "$metrics" | sed -n "s/^cudoctor_finding{rule=\"\([^\"]*\)\",severity=\"\($severities\)\".*/\1/p" |
    paste -sd, -)
if [ -z "$ids" ]; then
    # No finding of that severity: the node can run nothing on its GPU (no driver loaded, no GPU);
    # the verdict line says which.
    set -- check --quiet --color=never
    [ -n "${CUDOCTOR_HEALTHCHECK_ROOT:-}" ] && set -- "$@" --root "$CUDOCTOR_HEALTHCHECK_ROOT"
    ids=$("$cudoctor" "$@" 2>/dev/null | head -n 1 | sed 's/^[^ ]* //')
fi
new="cudoctor: $(printf '%s' "$ids" | cut -c1-200)"

if [ -n "$reason" ] && [ "$ours" = no ]; then
    say "$node is unhealthy ($new) but already drained for another reason: $reason"
    exit 0
fi
"$scontrol" update nodename="$node" state=drain reason="$new" && say "drained $node: $new"
exit 0
