# Tuning tables ("auto", docs/auto.md).
#
# test_tune is globbed by tests/CMakeLists.txt; here it also runs with a user
# table from MNS_TUNE_FILE, with MNS_TUNE_FILE naming a missing file, and on
# a fake CPU without IFMA (MNS_CPU=avx2), where a ranking that puts the IFMA
# backends first must hand over to the next measured choice.
add_test(NAME test_tune-envfile COMMAND test_tune env)
set_tests_properties(test_tune-envfile PROPERTIES LABELS fast TIMEOUT 300
  ENVIRONMENT "MNS_TUNE_FILE=${CMAKE_CURRENT_LIST_DIR}/tune_env.txt")
add_test(NAME test_tune-envbad COMMAND test_tune envbad)
set_tests_properties(test_tune-envbad PROPERTIES LABELS fast TIMEOUT 300
  ENVIRONMENT "MNS_TUNE_FILE=${CMAKE_CURRENT_BINARY_DIR}/no-such-tune-table.txt")
add_test(NAME test_tune-noifma COMMAND test_tune noifma)
set_tests_properties(test_tune-noifma PROPERTIES LABELS fast TIMEOUT 300
  ENVIRONMENT "MNS_CPU=avx2")

# The timing check (not in `make check`, which stays deterministic): "auto"
# within 5% of the fastest constant-time backend of the same run, modmul and
# modexp, at the standard and the RNS/PMNS paper's sizes, for primes and for
# random odd composites, on each kernel path. `make check-tune` first
# calibrates each path whose CPU has no table of its own (mns-tune --quick
# --cache), so any machine can pass it.
if(MNS_BUILD_BENCH)
  set(MNS_TUNE_CHECK_SIZES 256,401,512,807,1024,1214,1621,2029,2048,2436,2844,3072,3251,4096,6144,8192)
  add_test(NAME tune-check-native
    COMMAND $<TARGET_FILE:mns-tune> --check --tolerance 0.05 --sizes ${MNS_TUNE_CHECK_SIZES})
  add_test(NAME tune-check-generic
    COMMAND $<TARGET_FILE:mns-tune> --check --tolerance 0.05 --sizes ${MNS_TUNE_CHECK_SIZES})
  set_tests_properties(tune-check-generic PROPERTIES ENVIRONMENT "MNS_CPU=generic")
  set_tests_properties(tune-check-native tune-check-generic PROPERTIES
    LABELS tune TIMEOUT 7200 RUN_SERIAL TRUE)
endif()
