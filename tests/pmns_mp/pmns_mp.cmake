# pmns-mp-timing: TSC ticks per modmul of pmns-mp / pmns-mp-ifma beside GMP
# and OpenSSL in the same run (docs/pmns-mp.md). A measuring tool, not a test.
# Run: build/tests/pmns-mp-timing [--specs "a;b"] [bits ...]
find_package(OpenSSL COMPONENTS Crypto)
if(OpenSSL_FOUND)
  add_executable(pmns-mp-timing ${PROJECT_SOURCE_DIR}/bench/profile/pmns_mp_timing.c
    ${PROJECT_SOURCE_DIR}/bench/primes.c ${PROJECT_SOURCE_DIR}/bench/primes_table.c)
  target_include_directories(pmns-mp-timing PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(pmns-mp-timing PRIVATE mns_testutil OpenSSL::Crypto)
  target_compile_options(pmns-mp-timing PRIVATE -Wno-deprecated-declarations)
endif()

# mul-rate: cycles per scalar 64-bit product (imul r64, mulx, imul r64,r64)
# in throughput, the floor of the portable kernel (docs/pmns-mp.md, session
# 10). A measuring tool, not a test. x86-64 only (inline assembly).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  add_executable(mul-rate ${PROJECT_SOURCE_DIR}/bench/profile/mul_rate.c)
endif()

# Constant-time check of the pmns-mp kernels under valgrind memcheck (the
# `ctime` program of tests/ct/ct.cmake, secrets marked undefined): the default
# (the FMA kernel where the CPU has AVX2 and FMA, src/pmns_mp/fma.c: its
# products are double-precision FMAs, whose time does not depend on the
# operands' values as long as none is subnormal, and none is), its
# Toeplitz split (kernel=fma,base=1: split wherever its bounds hold; 2048
# bits n = 15 s = 3), then the
# portable kernel, kernel=generic (256 bits: the flow, unsplit; 1024: the
# compiled n=6 s=3 3/b2 instance; 2048: a compiled one-level instance), n=9
# s=2 (256 bits:
# the compiled unsplit n=9 s=2 instance), n=12 s=6 (the compiled two-level
# 2x2/b3 instance of 4096 bits, at 256-2048; n=24 s=6 2x3/b4 is the same
# template, the one-level instances the same with one level)
# and base=2, which forces deeper splits of the flow (expansions,
# contractions, small leaves).
if(TARGET ctime AND VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind-pmns-mp COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime> pmns-mp pmns-mp:kernel=fma,base=1 pmns-mp:kernel=generic
    pmns-mp:n=9,s=2,kernel=generic pmns-mp:n=12,s=6 pmns-mp:base=2)
  set_tests_properties(ctime-valgrind-pmns-mp PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900)
endif()

# test_slow_pmns_mp takes its 6144- and 8192-bit primes from mns-bench's
# shipped table (tests/testutil.c no longer runs nextprime above 3072 bits:
# it stands in an odd random modulus, which the PMNS generator refuses).
target_sources(test_slow_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench/primes_table.c)
target_include_directories(test_slow_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench)

# test_pmns_mp checks the portable kernel's compiled instances on mns-bench's
# 1024- to 8192-bit primes (the sets the benchmarks time)
target_sources(test_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench/primes_table.c)
target_include_directories(test_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench)

# On a CPU with AVX-512F the FMA kernel runs its 8-lane instances
# (src/pmns_mp/fma512.c); MNS_CPU=avx2 hides AVX-512, so this run checks the
# 4-lane ones (and the choices of a CPU without AVX-512) on the same machine.
add_test(NAME test_pmns_mp-avx2 COMMAND test_pmns_mp)
set_tests_properties(test_pmns_mp-avx2 PROPERTIES ENVIRONMENT "MNS_CPU=avx2" LABELS fast TIMEOUT 1500)
