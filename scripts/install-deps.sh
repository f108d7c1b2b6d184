#!/bin/sh
# Installs what mns needs to build, test and benchmark, only what is missing.
# Debian packages: compiler, cmake, pkg-config, GMP, OpenSSL, FLINT (the PMNS
# generator), valgrind (constant-time tests). Python packages: matplotlib
# (benchmark plots). Safe to run again; quiet when nothing is missing.
set -e

DEBS="build-essential cmake pkg-config libgmp-dev libssl-dev libflint-dev valgrind python3"
missing=""
for pkg in $DEBS; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    echo "install-deps: apt-get install$missing"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

PY="${PYTHON:-python3}"
if [ "${MNS_DEPS_PYTHON:-1}" = 1 ]; then
    pymissing=""
    for mod in $MNS_PY_MODULES; do
        "$PY" -c "import $mod" 2>/dev/null || pymissing="$pymissing $mod"
    done
    if [ -n "$pymissing" ]; then
        echo "install-deps: pip install$pymissing"
        "$PY" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore $pymissing ||
            "$PY" -m pip install --quiet --disable-pip-version-check --break-system-packages $pymissing
    fi
fi

# Intel crypto_mb and IPP (the batch section of mns-bench compares with
# them): the static archives and headers of the ipp-crypto-static and
# ipp-crypto-include wheels, under Python's prefix. Optional: without them
# (no such packages in the registry, no network) the benchmark says so.
if [ "${MNS_DEPS_CRYPTO_MB:-0}" = 1 ]; then
    prefix=$("$PY" -c "import sys; print(sys.prefix)")
    if [ ! -f "$prefix/lib/libcrypto_mb.a" ] || [ ! -f "$prefix/include/ippcp.h" ]; then
        echo "install-deps: pip install ipp-crypto-static ipp-crypto-include (crypto_mb, IPP)"
        "$PY" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
            ipp-crypto-static ipp-crypto-include 2>/dev/null ||
            "$PY" -m pip install --quiet --disable-pip-version-check --break-system-packages \
                ipp-crypto-static ipp-crypto-include 2>/dev/null ||
            echo "install-deps: crypto_mb / IPP not available here: mns-bench's batch section will skip them"
    fi
fi
