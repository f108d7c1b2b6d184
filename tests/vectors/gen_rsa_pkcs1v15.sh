#!/bin/sh
# Regenerates tests/vectors/rsa_pkcs1v15.txt: RSASSA-PKCS1-v1_5 known-answer
# vectors made with the installed `openssl` command-line tool (there is no
# network here to fetch published ones). For each key (genpkey, 2 to 4
# primes, 1024 to 4096 bits) and each hash, two messages ("abc" and 100
# random bytes) are hashed with `openssl dgst -<hash> -binary` and signed
# with `openssl dgst -<hash> -sign` (PKCS#1 v1.5 is its default padding).
# The key's numbers come from `openssl pkey -text`.
#
# Usage: sh tests/vectors/gen_rsa_pkcs1v15.sh > tests/vectors/rsa_pkcs1v15.txt
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hex() { od -An -v -tx1 | tr -d ' \n'; }

echo "# RSASSA-PKCS1-v1_5 vectors; made by tests/vectors/gen_rsa_pkcs1v15.sh"
echo "# with $(openssl version) on $(date -u +%Y-%m-%d)."
echo "# key NAME / n e d p1..pk (hex) / sig HASH MSG DIGEST SIGNATURE (hex)"
printf 'abc' > "$tmp/m1"
openssl rand -out "$tmp/m2" 100
for spec in 1024:2 2048:2 3072:2 4096:2 2048:3 4096:4; do
    bits=${spec%:*}; primes=${spec#*:}
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:"$bits" \
        -pkeyopt rsa_keygen_primes:"$primes" -out "$tmp/key.pem" 2>/dev/null
    echo "key rsa$bits-$primes"
    openssl pkey -in "$tmp/key.pem" -noout -text | awk '
        function flush() { if (name != "") print name, val; name = "" }
        /^publicExponent:/ { flush(); v = $3; gsub(/[()]|0x/, "", v); print "e", v; next }
        /^[a-zA-Z0-9]+:$/ { flush(); name = substr($1, 1, length($1) - 1); val = ""; next }
        /^ / { if (name != "") { s = $0; gsub(/[ :]/, "", s); val = val s }; next }
        { flush() }
        END { flush() }' |
    awk '$1 == "modulus" { print "n", $2 } $1 == "e" { print }
         $1 == "privateExponent" { print "d", $2 }
         $1 ~ /^prime[0-9]+$/ { print "p", $2 }'
    for h in sha1 sha224 sha256 sha384 sha512; do
        for m in m1 m2; do
            dg=$(openssl dgst -"$h" -binary "$tmp/$m" | hex)
            sg=$(openssl dgst -"$h" -sign "$tmp/key.pem" "$tmp/$m" | hex)
            echo "sig $h $(hex < "$tmp/$m") $dg $sg"
        done
    done
done
