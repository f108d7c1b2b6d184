#!/bin/sh
# TLS handshake rate on loopback (make bench-provider): `openssl s_time`
# (new sessions, bounded time) against `openssl s_server -www` with an RSA
# key, once with the default provider alone and once with mns.so preferred
# (?provider=mns), for TLS 1.3 (RSA-PSS signature, X25519 key share),
# TLS 1.3 with the ffdhe2048 key share, and TLS 1.2 DHE-RSA with ffdhe2048.
# Each rate follows a 3 s warm-up against the same server.
# Usage: provider_tls.sh OPENSSL MODULE_DIR [SECONDS] [RSA_BITS]
set -u
OSSL=$1
MODDIR=$(cd "$2" && pwd)
SECS=${3:-5}
BITS=${4:-2048}
W=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$W"' EXIT
MNS="-provider-path $MODDIR -provider mns -provider default -propquery ?provider=mns"
$OSSL req -x509 -newkey rsa:$BITS -nodes -subj /CN=localhost -days 1 -keyout "$W/key.pem" \
    -out "$W/cert.pem" 2>/dev/null
$OSSL genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out "$W/dh.pem" 2>/dev/null
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# run LABEL "PROVIDER OPTIONS" "SERVER OPTIONS" "S_TIME OPTIONS"
run() {
    p=$(port)
    : >"$W/srv.out"
    $OSSL s_server $2 -www -accept 127.0.0.1:$p -cert "$W/cert.pem" \
        -key "$W/key.pem" $3 >"$W/srv.out" 2>&1 </dev/zero &
    srv=$!
    i=0
    while ! grep -q ACCEPT "$W/srv.out" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    # warm-up: mns moves the key to its full context after 8 signatures,
    # on a thread that takes about a second of CPU; not part of the rate
    timeout 30 $OSSL s_time -connect 127.0.0.1:$p -new -time 3 $4 >/dev/null 2>&1
    rate=$(timeout $((SECS + 30)) $OSSL s_time -connect 127.0.0.1:$p -new -time $SECS $4 2>&1 |
        sed -n 's/^\([0-9]*\) connections in \([0-9]*\) real seconds.*/\1 \2/p' | head -1 |
        awk '$2 > 0 {printf "%.1f", $1 / $2}')
    kill $srv 2>/dev/null
    wait $srv 2>/dev/null
    srv=
    sleep 0.2
    printf '%-30s %-8s %8s handshakes/s (wall)\n' "$1" "$5" "${rate:-?}"
}
echo "TLS handshakes, RSA-$BITS server key, $SECS s each, $($OSSL version | cut -d' ' -f1-2)"
for prov in default mns; do
    opts=""
    [ $prov = mns ] && opts=$MNS
    run "TLS 1.3 RSA-PSS, X25519" "$opts" "-tls1_3" "-tls1_3" $prov
    run "TLS 1.3 RSA-PSS, ffdhe2048" "$opts" "-tls1_3 -groups ffdhe2048" "-tls1_3" $prov
    run "TLS 1.2 DHE-RSA ffdhe2048" "$opts" "-tls1_2 -dhparam $W/dh.pem" "-tls1_2 -cipher DHE-RSA-AES128-GCM-SHA256" $prov
done
