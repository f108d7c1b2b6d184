# The two commands of the README, and the longer targets beside them.
#   make bench   installs what is missing, builds, prints the comparison with
#                GMP and OpenSSL and writes bench-out/bench.png
#   make check   installs what is missing, builds with -Werror and runs the tests
BUILD ?= build
PYTHON ?= python3
JOBS ?= 2
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps deps-py deps-pytest build python check check-c check-python check-sanitize \
	check-slow check-ifma-emu check-tune tune bench bench-full bench-provider install clean

all: build

deps:
	@MNS_PY_MODULES="" sh scripts/install-deps.sh

deps-py:
	@MNS_PY_MODULES="matplotlib" PYTHON=$(PYTHON) sh scripts/install-deps.sh

deps-pytest:
	@MNS_PY_MODULES="cffi pytest hypothesis cryptography matplotlib" PYTHON=$(PYTHON) sh scripts/install-deps.sh

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

# The timing check of "auto" (issue 11, docs/auto.md): auto within 10% of the
# fastest backend of the same run at every standard and paper size, modmul and
# modexp, native and MNS_CPU=generic. Needs a quiet machine.
check-tune: build
	cd $(BUILD) && ctest -L tune --output-on-failure

# Regenerates the shipped tuning tables on this machine (tune/*.txt; the
# library embeds them at the next build). Needs a quiet machine.
# One table per kernel class (src/field/tune.c, `mns-tune --class`): natively
# tune/ifma-zen5.txt on AMD Zen 5 with AVX-512 IFMA, tune/ifma.txt on other
# CPUs with IFMA, tune/adx.txt where the CPU has mulx/adx but no IFMA; and
# tune/generic.txt under MNS_CPU=generic.
tune: build
	@cls=$$($(BUILD)/bench/mns-tune --class); \
	if [ "$$cls" != generic ]; then \
	  png=docs/auto-$$cls.png; [ "$$cls" = ifma ] && png=docs/auto.png; \
	  $(BUILD)/bench/mns-tune --pm --out tune/$$cls.txt --csv tune/$$cls.csv > tune/$$cls.summary && \
	  $(PYTHON) tune/plot.py tune/$$cls.csv $$png; \
	fi
	MNS_CPU=generic $(BUILD)/bench/mns-tune --pm --out tune/generic.txt --csv tune/generic.csv > tune/generic.summary
	$(PYTHON) tune/plot.py tune/generic.csv docs/auto-generic.png

bench: build deps-py
	@mkdir -p bench-out
	$(BUILD)/bench/mns-bench --json bench-out/bench.json
	$(PYTHON) bench/plot.py bench-out/bench.json bench-out/bench.png

bench-full: build deps-py
	@mkdir -p bench-out
	$(BUILD)/bench/mns-bench --full --json bench-out/bench-full.json
	$(PYTHON) bench/plot.py bench-out/bench-full.json bench-out/bench-full.png

# The OpenSSL provider mns.so against the default provider (docs/provider.md):
# RSA signatures and DH derives per second through EVP, one and two threads,
# mns_rsa directly beside them, then TLS handshakes per second with s_time.
bench-provider: build
	@if [ ! -x $(BUILD)/tests/mns-provider-bench ]; then \
	  echo "bench-provider: skipped, mns.so not built (no OpenSSL 3 headers)"; exit 0; fi; \
	$(BUILD)/tests/mns-provider-bench && sh bench/profile/provider_tls.sh openssl $(BUILD)/provider 5

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize bench-out
