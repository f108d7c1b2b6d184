#!/bin/sh
# Installs the build tree into a scratch prefix and builds tests/install/user.c
# against it the way a user would: with pkg-config, shared and --static.
set -e
build="$1"; src="$2"; cc="${3:-cc}"
prefix="$build/install-test"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
libdir="$(pkg-config --variable=libdir mns)"
test -f "$prefix/include/mns.h"
$cc -std=c17 -Wall -Werror -o "$prefix/user-shared" "$src/tests/install/user.c" \
    $(pkg-config --cflags --libs mns) -Wl,-rpath,"$libdir"
$cc -std=c17 -Wall -Werror -o "$prefix/user-static" "$src/tests/install/user.c" \
    $(pkg-config --cflags mns) "$libdir/libmns.a" $(pkg-config --libs --static mns | sed 's/-lmns//')
"$prefix/user-shared"
"$prefix/user-static" | tail -1
