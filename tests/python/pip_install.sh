#!/bin/sh
# pip_install.sh SOURCE WORK PYTHON: installs the Python package the ways a
# user does (see pip.cmake) and runs smoke.py in each environment.
set -eu
src=$1 work=$2 py=$3
seed=${MNS_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "MNS_TEST_SEED=$seed"
rm -rf "$work"
mkdir -p "$work/tree" "$work/tmp"
# the tree as a clone would have it (tracked and new files, no build output)
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard) | (cd "$src" && xargs -0 tar cf -) |
    (cd "$work/tree" && tar xf -)
else
  (cd "$src" && tar cf - --exclude='./build*' --exclude=./bench-out --exclude='*.egg-info' .) |
    (cd "$work/tree" && tar xf -)
fi
# a build the caller pointed at must not leak in; ccache shares the objects
# of the two builds below with each other and with `make build` (the same
# relative paths, see python/setup.py, and the same flags: -Werror)
unset MNS_BUILD_DIR MNS_SOURCE_DIR MNS_SETUP_OWNS_BUILD
export TMPDIR="$work/tmp" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_C_COMPILER_LAUNCHER=ccache" CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1
fi
export CMAKE_ARGS="${CMAKE_ARGS:-} -DMNS_WERROR=ON"
: "${CMAKE_BUILD_PARALLEL_LEVEL:=2}"
export CMAKE_BUILD_PARALLEL_LEVEL

"$py" -m venv "$work/v1"
# a missing prerequisite stops the build with one line naming it (here GMP,
# hidden from CMake's search)
gmp_dir=$(dirname "$(echo '#include <gmp.h>' | cc -E -M - 2>/dev/null | tr ' ' '\n' | grep '/gmp\.h$' | head -1)")
if CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_IGNORE_PATH=$gmp_dir" "$work/v1/bin/pip" install --quiet "$work/tree/python" \
    > "$work/missing.log" 2>&1; then
  echo "FAIL: pip install succeeded with gmp.h hidden ($gmp_dir)"; exit 1
fi
grep -q "mns: missing prerequisite: the GMP development files" "$work/missing.log" ||
  { cat "$work/missing.log"; echo "FAIL: no one-line message naming GMP"; exit 1; }
echo "hidden gmp.h: $(grep 'mns: missing prerequisite' "$work/missing.log" | head -1 | sed 's/^ *//')"
rm -rf "$work/tree/build-python"

echo "== pip install ./python (fresh venv, no prior build)"
"$work/v1/bin/pip" install --quiet "$work/tree/python"
(cd "$work" && v1/bin/python tree/tests/python/smoke.py "$seed" && v1/bin/mns --version)

echo "== python -m build (sdist, then the wheel from the sdist)"
"$work/v1/bin/pip" install --quiet build
"$work/v1/bin/python" -m build --outdir "$work/dist" "$work/tree/python" > "$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
ls "$work/dist"
tar tzf "$work/dist"/mns-*.tar.gz | grep -q '/csrc/src/field/field.c$' || { echo "FAIL: the sdist has no C sources"; exit 1; }

echo "== pip install the wheel (second fresh venv)"
"$py" -m venv "$work/v2"
"$work/v2/bin/pip" install --quiet "$work/dist"/mns-*.whl
(cd "$work" && v2/bin/python tree/tests/python/smoke.py "$seed" && v2/bin/mns --version)
# the stubs type a user's code: mypy --strict finds them and no error
"$work/v2/bin/pip" install --quiet mypy
(cd "$work" && v2/bin/mypy --strict --no-incremental tree/tests/python/typed.py)
# the wheel carries mns-bench for `mns bench`, and the type stubs
(cd "$work" && v2/bin/python -c "
import os, mns
from mns.cli import find_bench
d = os.path.dirname(mns.__file__)
assert find_bench() == os.path.join(d, 'bin', 'mns-bench'), find_bench()
assert os.path.isfile(os.path.join(d, 'py.typed')) and os.path.isfile(os.path.join(d, '__init__.pyi'))
print('mns-bench and the type stubs are in the wheel')")
echo "OK"
