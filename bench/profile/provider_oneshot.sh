#!/bin/sh
# One-shot `openssl dgst -sha256 -sign` (a process that loads a key, signs
# once and exits) with the default provider and through mns.so, RSA-2048,
# 3072 and 4096: wall time per process, the two alternating run by run so
# that both see the same load. Prints, per size, the median and range of
# each and the ratio of the medians (the issue's bound: at most 2x).
# Usage: provider_oneshot.sh OPENSSL MODULE_DIR [RUNS] [MODULE_DIR2]
# (MODULE_DIR2: a second build of the module, timed in the same rounds.)
set -u
OSSL=$1
MODDIR=$(cd "$2" && pwd)
RUNS=${3:-20}
MOD2=${4:+$(cd "$4" && pwd)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
head -c 1000 /dev/urandom >"$W/msg"

now_us() { date +%s%6N; }
run() { # run OUTFILE ARGS...: appends the wall time in microseconds
    out=$1
    shift
    t0=$(now_us)
    "$OSSL" dgst -sha256 "$@" -out "$W/sig" "$W/msg" || echo "FAIL: $OSSL dgst $*" >&2
    t1=$(now_us)
    echo $((t1 - t0)) >>"$out"
}
stats() { # median min max of a file of numbers, in ms
    sort -n "$1" | awk '{v[NR] = $1} END {printf "%.1f %.1f %.1f", v[int((NR + 1) / 2)] / 1000, v[1] / 1000, v[NR] / 1000}'
}

echo "one-shot openssl dgst -sha256 -sign, $RUNS runs each, $($OSSL version)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for bits in 2048 3072 4096; do
    key="$W/k$bits.pem"
    "$OSSL" genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:$bits -out "$key" 2>/dev/null
    : >"$W/t.def"
    : >"$W/t.mns"
    : >"$W/t.mns2"
    i=0
    while [ $i -lt "$RUNS" ]; do
        run "$W/t.def" -sign "$key"
        run "$W/t.mns" -provider-path "$MODDIR" -provider mns -provider default \
            -propquery '?provider=mns' -sign "$key"
        [ -n "$MOD2" ] && run "$W/t.mns2" -provider-path "$MOD2" -provider mns -provider default \
            -propquery '?provider=mns' -sign "$key"
        i=$((i + 1))
    done
    set -- $(stats "$W/t.def")
    d=$1
    line="RSA-$bits: default $1 ms ($2-$3)"
    set -- $(stats "$W/t.mns")
    line="$line, mns $1 ms ($2-$3), ratio $(echo "$1 $d" | awk '{printf "%.2f", $1 / $2}')"
    if [ -n "$MOD2" ]; then
        set -- $(stats "$W/t.mns2")
        line="$line; module 2 $1 ms ($2-$3), ratio $(echo "$1 $d" | awk '{printf "%.2f", $1 / $2}')"
    fi
    echo "$line"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
