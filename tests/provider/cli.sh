#!/bin/sh
# mns.so through the openssl command with the module from the build tree:
# signatures made with mns verify with the default provider and the
# reverse (RSA-2048/3072/4096 and a 3-prime RSA-3072 key; PKCS#1 v1.5, byte
# for byte equal to the default provider's, and PSS, with each SHA-2
# digest); OAEP and PKCS#1 v1.5 ciphertexts of the default provider
# decrypt to the same bytes; `pkeyutl -derive` gives the default
# provider's secret on every named group; `openssl req -x509` certificates
# signed through mns (PKCS#1 v1.5 and PSS) verify with the default
# provider; RSA-PSS keys sign with PSS within their restrictions and
# refuse the rest; a configuration listing mns first selects it without a
# property query. The module's counters (MNS_PROVIDER_STATS) prove that
# mns did the private operations.
# Usage: cli.sh OPENSSL MODULE_DIR
set -u
OSSL=$1
MODDIR=$(cd "$2" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
MNS="-provider-path $MODDIR -provider mns -provider default -propquery ?provider=mns"
fails=0
checks=0
check() { # check NAME COMMAND...: counts, prints a failure
    name=$1
    shift
    checks=$((checks + 1))
    if ! "$@" >"$W/out" 2>&1; then
        fails=$((fails + 1))
        echo "FAIL $name: $*"
        sed 's/^/  /' "$W/out"
    fi
}
refuse() { # refuse NAME TEXT COMMAND...: the command must fail with TEXT in its output
    name=$1
    text=$2
    shift 2
    checks=$((checks + 1))
    if "$@" >"$W/out" 2>&1 || ! grep -q "$text" "$W/out"; then
        fails=$((fails + 1))
        echo "FAIL $name (not refused with \"$text\"): $*"
        sed 's/^/  /' "$W/out"
    fi
}
stats_sum() { # the sum of a counter over the lines of the stats file
    sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$W/stats" | awk '{s += $1} END {print s + 0}'
}
export MNS_PROVIDER_STATS="$W/stats"
: >"$W/stats"

echo "mns provider cli test: $($OSSL version)"
head -c 1000 /dev/urandom >"$W/msg"
head -c 32 /dev/urandom >"$W/pt"
for spec in 2048:2 3072:2 4096:2 3072:3; do
    bits=${spec%:*}
    primes=${spec#*:}
    key="$W/k$bits-$primes.pem"
    $OSSL genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:$bits -pkeyopt rsa_keygen_primes:$primes \
        -out "$key" 2>/dev/null || { echo "FAIL genpkey $spec"; exit 1; }
    $OSSL pkey -in "$key" -pubout -out "$key.pub"
    for md in sha224 sha256 sha384 sha512; do
        for pad in pkcs1 pss; do
            opts="-sigopt rsa_padding_mode:$pad"
            [ $pad = pss ] && opts="$opts -sigopt rsa_pss_saltlen:digest"
            check "$spec $md $pad mns sign" $OSSL dgst -$md $MNS $opts -sign "$key" -out "$W/s.mns" "$W/msg"
            check "$spec $md $pad default verifies" $OSSL dgst -$md $opts -verify "$key.pub" -signature "$W/s.mns" "$W/msg"
            check "$spec $md $pad default sign" $OSSL dgst -$md $opts -sign "$key" -out "$W/s.def" "$W/msg"
            check "$spec $md $pad mns verifies" $OSSL dgst -$md $MNS $opts -verify "$key.pub" -signature "$W/s.def" "$W/msg"
            [ $pad = pkcs1 ] && check "$spec $md pkcs1 same bytes" cmp "$W/s.mns" "$W/s.def"
        done
    done
    for pad in oaep:sha1 oaep:sha256 pkcs1:; do
        mode=${pad%:*}
        md=${pad#*:}
        opts="-pkeyopt rsa_padding_mode:$mode"
        [ -n "$md" ] && opts="$opts -pkeyopt rsa_oaep_md:$md -pkeyopt rsa_oaep_label:6d6e73"
        check "$spec $pad default encrypts" $OSSL pkeyutl -encrypt -pubin -inkey "$key.pub" $opts -in "$W/pt" -out "$W/ct"
        check "$spec $pad mns decrypts" $OSSL pkeyutl -decrypt $MNS -inkey "$key" $opts -in "$W/ct" -out "$W/dec"
        check "$spec $pad same bytes" cmp "$W/pt" "$W/dec"
    done
done
rsa=$(stats_sum rsa_private_ops)
# per key: 4 digests x 2 paddings x 1 signature, 3 decryptions
check "mns counted $rsa RSA private operations, expected 44" test "$rsa" -eq 44

for g in ffdhe2048 ffdhe3072 ffdhe4096 ffdhe6144 ffdhe8192 modp_1536 modp_2048 modp_3072 \
    modp_4096 modp_6144 modp_8192; do
    $OSSL genpkey -algorithm DH -pkeyopt group:$g -out "$W/a.pem" &&
        $OSSL genpkey -algorithm DH -pkeyopt group:$g -out "$W/b.pem" &&
        $OSSL pkey -in "$W/b.pem" -pubout -out "$W/b.pub" || { echo "FAIL genpkey $g"; exit 1; }
    check "$g default derive" $OSSL pkeyutl -derive -inkey "$W/a.pem" -peerkey "$W/b.pub" -out "$W/z.def"
    check "$g mns derive" $OSSL pkeyutl -derive $MNS -inkey "$W/a.pem" -peerkey "$W/b.pub" -out "$W/z.mns"
    check "$g same secret" cmp "$W/z.def" "$W/z.mns"
done
dh=$(stats_sum dh_derives)
check "mns counted $dh derives, expected 11" test "$dh" -eq 11

# docs/provider.cnf: mns preferred for every program; key generation (RSA,
# RSA-PSS) goes through mns's key managers to the default provider; a self-signed
# certificate (X.509 asks the signature for its AlgorithmIdentifier)
: >"$W/stats"
sed "s|^# module = .*|module = $MODDIR/mns.so|" "$(dirname "$0")/../../docs/provider.cnf" >"$W/mns.cnf"
check "provider.cnf genpkey" env OPENSSL_CONF="$W/mns.cnf" $OSSL genpkey -algorithm RSA \
    -pkeyopt rsa_keygen_bits:2048 -out "$W/g.pem"
check "provider.cnf sign" env OPENSSL_CONF="$W/mns.cnf" $OSSL dgst -sha256 -sign "$W/g.pem" -out "$W/g.sig" "$W/msg"
$OSSL pkey -in "$W/g.pem" -pubout -out "$W/g.pub" 2>/dev/null
check "provider.cnf signature verifies" $OSSL dgst -sha256 -verify "$W/g.pub" -signature "$W/g.sig" "$W/msg"
check "provider.cnf req -x509" env OPENSSL_CONF="$W/mns.cnf" $OSSL req -x509 -key "$W/g.pem" \
    -subj /CN=mns -days 1 -out "$W/g.crt"
check "provider.cnf certificate verifies" $OSSL verify -CAfile "$W/g.crt" "$W/g.crt"
check "provider.cnf: mns signed twice" test "$(stats_sum rsa_private_ops)" -eq 2
check "provider.cnf genpkey RSA-PSS" env OPENSSL_CONF="$W/mns.cnf" $OSSL genpkey -algorithm RSA-PSS \
    -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_pss_keygen_md:sha384 -pkeyopt rsa_pss_keygen_saltlen:40 \
    -out "$W/gp.pem"
$OSSL pkey -in "$W/gp.pem" -noout -text >"$W/gp.txt" 2>&1
check "provider.cnf RSA-PSS key keeps its restrictions" \
    sh -c "grep -q 'Hash Algorithm: SHA2-384' '$W/gp.txt' && grep -q 'Minimum Salt Length: 40' '$W/gp.txt'"

# X.509 with `openssl req -x509` through mns: the signature's
# AlgorithmIdentifier, PKCS#1 v1.5 and PSS (id-RSASSA-PSS with its
# parameters), each certificate verified by the default provider
: >"$W/stats"
key="$W/k2048-2.pem"
check "req -x509 pkcs1" $OSSL req -x509 -new $MNS -key "$key" -subj /CN=mns -days 1 -sha256 -out "$W/c.crt"
check "pkcs1 certificate verifies" $OSSL verify -CAfile "$W/c.crt" "$W/c.crt"
for md in sha256 sha384 sha512; do
    for salt in digest max; do
        check "req -x509 pss $md $salt" $OSSL req -x509 -new $MNS -key "$key" -subj /CN=mns -days 1 -$md \
            -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:$salt -out "$W/c.crt"
        check "pss $md $salt certificate verifies" $OSSL verify -CAfile "$W/c.crt" "$W/c.crt"
        $OSSL x509 -in "$W/c.crt" -noout -text >"$W/c.txt"
        check "pss $md $salt certificate says rsassaPss with $md" \
            sh -c "grep -q 'Signature Algorithm: rsassaPss' '$W/c.txt' && grep -q 'Hash Algorithm: $md' '$W/c.txt'"
    done
done
check "mns made the 7 certificate signatures" test "$(stats_sum rsa_private_ops)" -eq 7

# RSA-PSS keys (made by the default provider): one restricted to SHA-256,
# MGF1-SHA-256 and salts of 32 bytes or more, one without restrictions.
# mns signs within them (the default provider verifies), verifies the
# default provider's signatures, and refuses PKCS#1 v1.5, other digests,
# shorter salts and decryption.
: >"$W/stats"
$OSSL genpkey -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_pss_keygen_md:sha256 \
    -pkeyopt rsa_pss_keygen_mgf1_md:sha256 -pkeyopt rsa_pss_keygen_saltlen:32 -out "$W/pr.pem" 2>/dev/null &&
    $OSSL genpkey -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048 -out "$W/pu.pem" 2>/dev/null ||
    { echo "FAIL genpkey RSA-PSS"; exit 1; }
for k in pr pu; do
    $OSSL pkey -in "$W/$k.pem" -pubout -out "$W/$k.pub"
    check "RSA-PSS $k mns sign" $OSSL dgst -sha256 $MNS -sign "$W/$k.pem" -out "$W/s.mns" "$W/msg"
    check "RSA-PSS $k default verifies" $OSSL dgst -sha256 -verify "$W/$k.pub" -signature "$W/s.mns" "$W/msg"
    check "RSA-PSS $k default sign" $OSSL dgst -sha256 -sign "$W/$k.pem" -out "$W/s.def" "$W/msg"
    check "RSA-PSS $k mns verifies" $OSSL dgst -sha256 $MNS -verify "$W/$k.pub" -signature "$W/s.def" "$W/msg"
    refuse "RSA-PSS $k refuses PKCS#1 v1.5" "PSS padding only" $OSSL dgst -sha256 $MNS \
        -sigopt rsa_padding_mode:pkcs1 -sign "$W/$k.pem" -out "$W/s.bad" "$W/msg"
    check "RSA-PSS $k req -x509" $OSSL req -x509 -new $MNS -key "$W/$k.pem" -subj /CN=pss -days 1 -sha256 -out "$W/c.crt"
    check "RSA-PSS $k certificate verifies" $OSSL verify -CAfile "$W/c.crt" "$W/c.crt"
done
refuse "RSA-PSS restricted refuses SHA-512" "restricted to SHA2-256" $OSSL dgst -sha512 $MNS -sign "$W/pr.pem" -out "$W/s.bad" "$W/msg"
refuse "RSA-PSS restricted refuses a 16-byte salt" "salt of 32 bytes or more" $OSSL dgst -sha256 $MNS \
    -sigopt rsa_pss_saltlen:16 -sign "$W/pr.pem" -out "$W/s.bad" "$W/msg"
refuse "RSA-PSS key refuses decryption" "signatures only" $OSSL pkeyutl -decrypt $MNS -inkey "$W/pu.pem" -in "$W/s.def" -out "$W/dec"
check "mns made the 4 RSA-PSS signatures" test "$(stats_sum rsa_private_ops)" -eq 4

# Selection without a property query (docs/provider.md): a configuration
# that lists mns before default in its providers section makes mns serve
# RSA with no default_properties
: >"$W/stats"
cat >"$W/first.cnf" <<EOF
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
mns = mns_sect
default = default_sect
[mns_sect]
module = $MODDIR/mns.so
activate = 1
[default_sect]
activate = 1
EOF
check "cnf with mns first: sign" env OPENSSL_CONF="$W/first.cnf" $OSSL dgst -sha256 -sign "$key" -out "$W/s.mns" "$W/msg"
check "cnf with mns first: verifies" $OSSL dgst -sha256 -verify "$key.pub" -signature "$W/s.mns" "$W/msg"
check "cnf with mns first: mns signed" test "$(stats_sum rsa_private_ops)" -eq 1

echo "provider-cli: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
