#!/bin/sh
# Installs what mns needs to build, test and benchmark, only what is missing.
# Debian packages: compiler, cmake, pkg-config, GMP, OpenSSL, FLINT (the PMNS
# generator), valgrind (constant-time tests). Python packages: matplotlib
# (benchmark plots), gmpy2 and, when it installs, python-flint (the
# comparators of `mns bench --python`). Safe to run again; quiet when nothing is missing.
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
# MNS_PY_MODULES: modules needed; MNS_PY_OPTIONAL: modules installed when pip
# can (comparators of the Python benchmark). An entry is the module name, or
# module=package where the two differ (flint=python-flint).
pip_missing() {
    pymissing=""
    for entry in $1; do
        mod=${entry%%=*}
        "$PY" -c "import $mod" 2>/dev/null || pymissing="$pymissing ${entry#*=}"
    done
    echo "$pymissing"
}
pip_install() {
    "$PY" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "$@" ||
        "$PY" -m pip install --quiet --disable-pip-version-check --break-system-packages "$@"
}
if [ "${MNS_DEPS_PYTHON:-1}" = 1 ]; then
    pymissing=$(pip_missing "$MNS_PY_MODULES")
    if [ -n "$pymissing" ]; then
        echo "install-deps: pip install$pymissing"
        pip_install $pymissing
    fi
    for pkg in $(pip_missing "$MNS_PY_OPTIONAL"); do
        echo "install-deps: pip install $pkg (optional)"
        pip_install "$pkg" 2>/dev/null || echo "install-deps: $pkg did not install; going on without it"
    done
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
