#!/bin/sh
# Regenerates every shipped PMNS parameter set of this directory.
# Usage: params/regen.sh [path/to/mns-pmns-gen]   (default: build/tests/mns-pmns-gen)
# Each file's first line is the exact command that produced it; this script
# only lists which sets are shipped. The primes are p_B = the smallest prime
# >= floor(pi * 2^(B-2)) (mns-pmns-gen --pi-bits B).
set -e
GEN=${1:-build/tests/mns-pmns-gen}
DIR=$(dirname "$0")
one() { # bits word s delta [extra options]
    b=$1 w=$2 s=$3 d=$4; shift 4
    f="$DIR/pmns-$b-$w-s$s-d$d$(echo "$*" | sed -e 's/--e trinomial/-tri/' -e 's/--e auto/-auto/' -e 's/ //g').txt"
    "$GEN" --pi-bits "$b" --word "$w" --s "$s" --delta "$d" "$@" -o "$f"
}
# the standard sizes: single precision while LLL is cheap, multi-precision beyond
for b in 256 512 1024 2048; do
    for w in s64 u52; do one $b $w 1 0; done
done
for b in 1024 2048 3072 4096; do
    for w in s64 u52; do one $b $w 2 0; done
done
for b in 2048 3072 4096 6144 8192; do
    for w in s64 u52; do one $b $w 3 0; done
done
for b in 4096 6144 8192; do
    for w in s64 u52; do one $b $w 4 0; done
done
# the ARITH paper's sizes (Table VI: delta = 5, X^n - X - 1 or X^n - 2)
for b in 401 807 1214 1621 2029; do
    for w in s64 u52; do one $b $w 1 5; done
done
for b in 2436 2844 3251; do
    for w in s64 u52; do one $b $w 3 5; done
done
# single precision at 3072 and 4096 bits with the backends' default deltas
# (pmns: 1, pmns-ifma: 3, see src/pmns/backend.c): generating these takes
# minutes (u52 4096: LLL in dimension ~145), too long for a test run
for b in 3072 4096; do
    one $b s64 1 1
    one $b u52 1 3
done
# E auto (X^n - X - 1 where it saves coefficients over X^n - lambda, for
# the single-precision backends' E=x1): only the sets where it wins an n
one 2048 s64 1 0 --e auto
one 2048 u52 1 0 --e auto
one 1621 u52 1 5 --e auto
