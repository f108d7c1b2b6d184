# The two commands of the README, and the longer targets beside them.
#   make bench   installs what is missing, builds, prints the comparison with
#                GMP and OpenSSL and writes bench-out/bench.png
#   make check   installs what is missing, builds with -Werror and runs the tests
BUILD ?= build
PYTHON ?= python3
JOBS ?= 2
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps deps-py deps-mb deps-pytest build python check check-c check-python check-sanitize \
	check-slow check-ifma-emu check-tune calibrate calibrate-generic tune bench bench-python bench-full \
	bench-provider results install clean

all: build

deps:
	@MNS_PY_MODULES="" sh scripts/install-deps.sh

deps-py:
	@MNS_PY_MODULES="matplotlib gmpy2" MNS_PY_OPTIONAL="flint=python-flint" PYTHON=$(PYTHON) sh scripts/install-deps.sh

deps-mb:
	@MNS_DEPS_PYTHON=0 MNS_DEPS_CRYPTO_MB=1 PYTHON=$(PYTHON) sh scripts/install-deps.sh

deps-pytest:
	@MNS_PY_MODULES="cffi pytest hypothesis cryptography matplotlib gmpy2" MNS_PY_OPTIONAL="flint=python-flint numpy" \
	  PYTHON=$(PYTHON) sh scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DMNS_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

check: check-c check-python

check-c: build
	cd $(BUILD) && ctest -L fast --output-on-failure -j $(JOBS)

# The Python package, built against this tree's static library.
python: build deps-pytest
	MNS_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
	  --force-reinstall --no-deps ./python

# Run from python/tests so that the installed package, not the source tree, is imported.
check-python: python
	cd python/tests && $(PYTHON) -m pytest -q -p no:cacheprovider .

check-sanitize: deps
	@cmake -S . -B $(BUILD)-sanitize -DMNS_WERROR=ON -DMNS_SANITIZE=ON -DMNS_BUILD_BENCH=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-sanitize -j $(JOBS)
	cd $(BUILD)-sanitize && MNS_TEST_SCALE=0.25 ctest -L fast -LE nosanitize --output-on-failure -j $(JOBS)

# The AVX-512 IFMA kernels built over the scalar model of their intrinsics
# (src/core/simd512.h, -DMNS_IFMA_EMULATE=ON): the native tests then run the
# IFMA paths against GMP on a CPU without AVX-512 (and under any sanitizer
# added to CMAKE_FLAGS). Slow to build: about 25 minutes on 2 cores (the fully
# unrolled kernels), so not part of check.
check-ifma-emu: deps
	@cmake -S . -B $(BUILD)-ifma-emu -DMNS_WERROR=ON -DMNS_IFMA_EMULATE=ON -DMNS_BUILD_BENCH=OFF \
	  $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-ifma-emu -j $(JOBS)
	cd $(BUILD)-ifma-emu && MNS_TEST_SCALE=0.25 ctest -L fast -R native --output-on-failure -j $(JOBS)

check-slow: build
	cd $(BUILD) && ctest -L slow --output-on-failure -j $(JOBS)

# The timing check of "auto" (docs/auto.md): auto within 5% of the fastest
# constant-time backend of the same run at every standard and paper size,
# modmul and modexp, primes and random odd composites, native and
# MNS_CPU=generic; each path is calibrated first if this CPU has no table of
# its own. Wants a machine not busy with other work.
check-tune: calibrate calibrate-generic
	cd $(BUILD) && ctest -L tune --output-on-failure

# A CPU model no shipped table was measured on gets its own: a quick
# calibration (mns-tune --quick --cache; its time is mostly the PMNS parameter
# generations, each bounded by a 20 s deadline: docs/auto.md) writes a
# table for this CPU key into $$XDG_CACHE_HOME/mns/ (else ~/.cache/mns/),
# which the library finds by itself. Nothing is done where the table in use
# was measured on this CPU (or MNS_TUNE_FILE names the user's own).
calibrate: build
	@$(BUILD)/bench/mns-tune --has-table || $(BUILD)/bench/mns-tune --quick --cache > /dev/null

calibrate-generic: build
	@MNS_CPU=generic $(BUILD)/bench/mns-tune --has-table || \
	  MNS_CPU=generic $(BUILD)/bench/mns-tune --quick --cache > /dev/null

# Regenerates the shipped tuning tables on this machine (tune/*.txt; the
# library embeds them at the next build). Needs a quiet machine.
# One table per kernel class (src/field/tune.c, `mns-tune --class`): natively
# tune/ifma-zen5.txt on AMD Zen 5 with AVX-512 IFMA, tune/ifma.txt on other
# CPUs with IFMA, tune/adx.txt where the CPU has mulx/adx but no IFMA; and
# tune/generic.txt under MNS_CPU=generic.
tune: build deps-py
	@cls=$$($(BUILD)/bench/mns-tune --class); \
	if [ "$$cls" != generic ]; then \
	  png=docs/auto-$$cls.png; [ "$$cls" = ifma ] && png=docs/auto.png; \
	  $(BUILD)/bench/mns-tune --pm --out tune/$$cls.txt --csv tune/$$cls.csv > tune/$$cls.summary && \
	  $(PYTHON) tune/plot.py tune/$$cls.csv $$png; \
	fi
	MNS_CPU=generic $(BUILD)/bench/mns-tune --pm --out tune/generic.txt --csv tune/generic.csv > tune/generic.summary
	$(PYTHON) tune/plot.py tune/generic.csv docs/auto-generic.png

bench: deps-mb build deps-py calibrate
	@mkdir -p bench-out
	$(BUILD)/bench/mns-bench --json bench-out/bench.json
	$(PYTHON) bench/plot.py bench-out/bench.json bench-out/bench.png

# The Python layer against gmpy2 (and python-flint when installed), per
# operation at 256-4096 bits, and 10^5 products in one Vector call (docs/python.md).
bench-python: python deps-py
	$(PYTHON) -m mns.cli bench --python

# The README's results tables (scripts/results.py): files bench-out/bench.json
# and its plot under this CPU's class in docs/results/ (replacing the class's
# previous run), then rewrites the tables between the README's markers from
# the latest run of each class.
results:
	$(PYTHON) scripts/results.py --save bench-out/bench.json --readme README.md

bench-full: build deps-py
	@mkdir -p bench-out
	$(BUILD)/bench/mns-bench --full --json bench-out/bench-full.json
	$(PYTHON) bench/plot.py bench-out/bench-full.json bench-out/bench-full.png

# The OpenSSL provider mns.so against the default provider (docs/provider.md):
# RSA signatures and DH derives per second through EVP, one and two threads,
# mns_rsa directly beside them, then TLS handshakes per second with s_time,
# then the wall time of one-shot `openssl dgst -sign` processes.
bench-provider: build
	@if [ ! -x $(BUILD)/tests/mns-provider-bench ]; then \
	  echo "bench-provider: skipped, mns.so not built (no OpenSSL 3 headers)"; exit 0; fi; \
	$(BUILD)/tests/mns-provider-bench && sh bench/profile/provider_tls.sh openssl $(BUILD)/provider 5 && \
	  sh bench/profile/provider_oneshot.sh openssl $(BUILD)/provider 20

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)
	@$(MAKE) --no-print-directory calibrate

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize bench-out
