"""Build of the mns Python package: the C library first (CMake), then the
extensions linked against its static libmns.a.

The package lives in python/ while the C tree is the repository's root. An
in-tree build (`pip install ./python`) compiles ../; an sdist carries the
files the C build needs in csrc/ (copied by the sdist step below, since
setuptools' MANIFEST cannot reach outside python/), and a build from the
sdist compiles those. MNS_BUILD_DIR names an existing CMake build tree to
link instead (`make python`), and then nothing is configured or compiled.

The system's C compiler, CMake, pkg-config and the GMP, FLINT and OpenSSL
development files are the prerequisites; a missing one stops the build with
one line naming it. CMAKE_ARGS adds options to the configure step (e.g.
-DCMAKE_C_COMPILER_LAUNCHER=ccache) and CMAKE_BUILD_PARALLEL_LEVEL sets the
compile jobs."""
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
# top-level files of the repository the C library and mns-bench build from
C_TREE = ["CMakeLists.txt", "cmake", "include", "src", "tune", "bench",
          # the RSA test keys and OpenSSL helpers mns-bench's RSA sections include
          "tests/rsa_keygen.h", "tests/rsa_ossl.h"]
# from tune/, only the tables the library embeds
C_TREE_SKIP = re.compile(r"(__pycache__|\.pyc$|^tune/.*\.(csv|png|summary|py)$|^bench/.*\.py$)")
CMAKE_MIN = (3, 25)


def c_source_dir():
    """The C tree: csrc/ in an sdist, else the repository around python/."""
    for d in (os.path.join(HERE, "csrc"), os.path.dirname(HERE)):
        if os.path.isfile(os.path.join(d, "CMakeLists.txt")) and os.path.isdir(os.path.join(d, "src")):
            return d
    sys.exit("mns: the C sources are missing: neither python/csrc/ (an sdist) nor the repository root")


# mns/_build.py (the cffi module, run by setup() below) reads both variables.
os.environ.setdefault("MNS_SOURCE_DIR", c_source_dir())
# A build tree given by the caller is linked as it is; without one, this
# build configures its own in build-python/ beside the C sources, so that the
# repository's and an sdist's builds see the same relative paths and share
# ccache's objects (the marker tells a second run of this file in the same
# process that the tree is its own).
GIVEN_BUILD = bool(os.environ.get("MNS_BUILD_DIR")) and os.environ.get("MNS_SETUP_OWNS_BUILD") != "1"
if not GIVEN_BUILD:
    os.environ["MNS_BUILD_DIR"] = os.path.join(os.environ["MNS_SOURCE_DIR"], "build-python")
    os.environ["MNS_SETUP_OWNS_BUILD"] = "1"
os.environ["MNS_BUILD_DIR"] = os.path.abspath(os.environ["MNS_BUILD_DIR"])

# (pattern in CMake's output, what is missing and how to get it)
MISSING = [
    (r"No CMAKE_C_COMPILER could be found|CMAKE_C_COMPILER not set",
     "a C compiler (Debian/Ubuntu: apt-get install gcc)"),
    (r"Could NOT find PkgConfig", "pkg-config (Debian/Ubuntu: apt-get install pkg-config)"),
    (r"GMP_INCLUDE_DIR|GMP_LIBRARY",
     "the GMP development files, gmp.h and libgmp (Debian/Ubuntu: apt-get install libgmp-dev)"),
    (r"libcrypto", "the OpenSSL development files, libcrypto (Debian/Ubuntu: apt-get install libssl-dev)"),
]
FLINT = "the FLINT development files, flint/flint.h and libflint (Debian/Ubuntu: apt-get install libflint-dev)"


def missing(what):
    sys.exit(f"mns: missing prerequisite: {what}")


def check_cmake():
    exe = shutil.which("cmake")
    if exe is None:
        missing("CMake %d.%d or later (apt-get install cmake, or pip install cmake)" % CMAKE_MIN)
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    if not m or (int(m[1]), int(m[2])) < CMAKE_MIN:
        missing("CMake %d.%d or later, found %s (pip install cmake)" % (CMAKE_MIN + (m[0] if m else "?",)))
    return exe


def private_libs(build):
    """The libraries libmns.a needs, as mns/_build.py reads them from mns.pc."""
    spec = importlib.util.spec_from_file_location("mns_build_script", os.path.join(HERE, "mns", "_build.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod._private_libs(build)


def cmake_cache(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            return dict(re.findall(r"^(\w+):\w+=(.*)$", f.read(), re.M))
    except OSError:
        return {}


def build_c_library(src, build):
    """Configure and build libmns.a and mns-bench in build/."""
    cmake = check_cmake()
    os.makedirs(build, exist_ok=True)
    args = [cmake, "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DMNS_BUILD_TESTS=OFF",
            "-DMNS_BUILD_BENCH=ON", "-DMNS_BUILD_PROVIDER=OFF"] + shlex.split(os.environ.get("CMAKE_ARGS", ""))
    conf = subprocess.run(args, capture_output=True, text=True)
    if conf.returncode != 0:
        log = conf.stdout + conf.stderr
        for pattern, what in MISSING:
            if re.search(pattern, log):
                missing(what)
        sys.stderr.write(log)
        sys.exit("mns: configuring the C library failed (CMake's output above)")
    cache = cmake_cache(build)
    if any(cache.get(v, "").endswith("NOTFOUND") or not cache.get(v) for v in ("FLINT_INCLUDE_DIR", "FLINT_LIBRARY")):
        missing(FLINT)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.run([cmake, "--build", build, "--target", "mns_static", "mns-bench", "-j", jobs], check=True)


class BuildExt(build_ext):
    """Builds the C library, then every extension against it: each gets the
    public headers (include/ only: the extensions use the public API),
    libmns.a and the libraries libmns.a needs, so an extension added to
    ext_modules needs nothing more."""

    def run(self):
        src, build = os.environ["MNS_SOURCE_DIR"], os.environ["MNS_BUILD_DIR"]
        lib = os.path.join(build, "libmns.a")
        if not GIVEN_BUILD:
            build_c_library(src, build)
        elif not os.path.isfile(lib):
            sys.exit(f"mns: MNS_BUILD_DIR={build} has no libmns.a (make build first)")
        for ext in self.extensions:
            d = os.path.join(src, "include")
            if d not in ext.include_dirs:
                ext.include_dirs.append(d)
            if lib not in ext.extra_objects:
                ext.extra_objects.append(lib)
                ext.depends.append(lib)
            ext.libraries += [x for x in private_libs(build) if x not in ext.libraries]
        super().run()
        self.copy_bench(build)

    def copy_bench(self, build):
        """mns-bench beside the package (mns/bin/), where `mns bench` finds it."""
        exe = os.path.join(build, "bench", "mns-bench")
        if self.inplace or not os.path.isfile(exe):
            return
        dest = os.path.join(self.build_lib, "mns", "bin")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(exe, dest)


class SDist(sdist):
    """Puts the C tree into the sdist as csrc/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        src = os.environ["MNS_SOURCE_DIR"]
        for top in C_TREE:
            path = os.path.join(src, top)
            if os.path.isfile(path):
                self.mkpath(os.path.dirname(os.path.join(base_dir, "csrc", top)))
                self.copy_file(path, os.path.join(base_dir, "csrc", top))
                continue
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = [d for d in dirnames if d != "__pycache__"]
                for name in filenames:
                    rel = os.path.relpath(os.path.join(dirpath, name), src).replace(os.sep, "/")
                    if C_TREE_SKIP.search(rel):
                        continue
                    out = os.path.join(base_dir, "csrc", rel)
                    self.mkpath(os.path.dirname(out))
                    self.copy_file(os.path.join(dirpath, name), out)


# mns._ext: the field, element and vector types in the CPython C API, where
# an operation costs one object and one library call (BuildExt adds the
# headers, libmns.a and its libraries)
EXT = "mns/_ext"
ELEMENTS = Extension(
    "mns._ext",
    sources=[f"{EXT}/{name}.c" for name in ("module", "convert", "field", "element", "elemapi", "vector",
                                                 "vecops")],
    depends=[f"{EXT}/ext.h", f"{EXT}/vecops.h"],
    extra_compile_args=["-std=gnu17", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                        "-Wno-cast-function-type"],
)

setup(cffi_modules=["mns/_build.py:ffibuilder"], ext_modules=[ELEMENTS],
      cmdclass={"build_ext": BuildExt, "sdist": SDist})
