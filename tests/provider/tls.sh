#!/bin/sh
# TLS handshakes on 127.0.0.1 through mns.so: `openssl s_server` with the
# module and an RSA-2048 key, `openssl s_client` connecting (the client with
# the module too), on a free port; both stop by themselves (-naccept 1, the
# client's stdin closed, and a timeout). Cases: TLS 1.3 with RSA-PSS
# (rsa_pss_rsae_sha256), TLS 1.2 DHE-RSA with the ffdhe2048 group, and TLS
# 1.3 with the ffdhe2048 key share. The module's counters, written by each
# process (MNS_PROVIDER_STATS), prove that mns signed and derived.
# Usage: tls.sh OPENSSL MODULE_DIR
set -u
OSSL=$1
MODDIR=$(cd "$2" && pwd)
W=$(mktemp -d)
srv_pid=
trap '[ -n "$srv_pid" ] && kill $srv_pid 2>/dev/null; rm -rf "$W"' EXIT
MNS="-provider-path $MODDIR -provider mns -provider default -propquery ?provider=mns"
fails=0

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
}
counter() { # counter FILE NAME
    sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | awk '{s += $1} END {print s + 0}'
}
fail() {
    fails=$((fails + 1))
    echo "FAIL $*"
}

$OSSL req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 -keyout "$W/key.pem" \
    -out "$W/cert.pem" 2>/dev/null || { echo "FAIL: certificate"; exit 1; }
$OSSL genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out "$W/ffdhe2048.pem" 2>/dev/null

# handshake NAME "SERVER OPTIONS" "CLIENT OPTIONS" CLIENT-PATTERN MIN-SERVER-RSA MIN-SERVER-DH MIN-CLIENT-DH
handshake() {
    name=$1
    # a port found free may be taken before s_server binds it (a shared
    # machine): up to three ports
    for attempt in 1 2 3; do
        port=$(free_port)
        : >"$W/srv.stats"
        : >"$W/cli.stats"
        : >"$W/srv.out" # here, not by the background job's redirection: the wait reads it
        MNS_PROVIDER_STATS="$W/srv.stats" timeout 60 $OSSL s_server $MNS -accept 127.0.0.1:$port \
            -www -cert "$W/cert.pem" -key "$W/key.pem" -naccept 1 $2 >"$W/srv.out" 2>&1 &
        srv_pid=$!
        i=0
        while ! grep -q ACCEPT "$W/srv.out" && kill -0 $srv_pid 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        grep -q ACCEPT "$W/srv.out" && break
        kill $srv_pid 2>/dev/null
        wait $srv_pid
        srv_pid=
    done
    printf 'GET / HTTP/1.0\r\n\r\n' | MNS_PROVIDER_STATS="$W/cli.stats" timeout 30 $OSSL s_client \
        $MNS -connect 127.0.0.1:$port -servername localhost -ign_eof $3 >"$W/cli.out" 2>&1
    wait $srv_pid
    srv_pid=
    rsa=$(counter "$W/srv.stats" rsa_private_ops)
    sdh=$(counter "$W/srv.stats" dh_derives)
    cdh=$(counter "$W/cli.stats" dh_derives)
    if ! grep -q "$4" "$W/cli.out" || ! grep -q "HTTP/1.0 200" "$W/cli.out"; then
        fail "$name: no '$4' in the client's output"
        sed 's/^/  client: /' "$W/cli.out" | head -40
        sed 's/^/  server: /' "$W/srv.out" | head -20
    elif [ "$rsa" -lt $5 ] || [ "$sdh" -lt $6 ] || [ "$cdh" -lt $7 ]; then
        fail "$name: mns counters server rsa=$rsa dh=$sdh, client dh=$cdh (want >= $5 $6 $7)"
    else
        echo "ok $name: server rsa=$rsa dh=$sdh, client dh=$cdh; $(grep -m1 -E 'Peer signature type|Server Temp Key' "$W/cli.out")"
    fi
}

handshake "TLS 1.3 RSA-PSS" "-tls1_3" "-tls1_3 -sigalgs rsa_pss_rsae_sha256" \
    "Peer signature type: RSA-PSS" 1 0 0
handshake "TLS 1.2 DHE-RSA ffdhe2048" "-tls1_2 -dhparam $W/ffdhe2048.pem -cipher DHE-RSA-AES128-GCM-SHA256" \
    "-tls1_2 -cipher DHE-RSA-AES128-GCM-SHA256" "Server Temp Key: DH, 2048 bits" 1 1 1
handshake "TLS 1.3 ffdhe2048 key share" "-tls1_3 -groups ffdhe2048" "-tls1_3 -groups ffdhe2048" \
    "Server Temp Key: DH, 2048 bits" 1 1 1
echo "provider-tls: $((3 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
