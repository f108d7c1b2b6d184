# Tuning tables ("auto", docs/auto.md).
#
# test_tune is globbed by tests/CMakeLists.txt; here it also runs with a user
# table from MNS_TUNE_FILE, and with MNS_TUNE_FILE naming a missing file.
add_test(NAME test_tune-envfile COMMAND test_tune env)
set_tests_properties(test_tune-envfile PROPERTIES LABELS fast TIMEOUT 300
  ENVIRONMENT "MNS_TUNE_FILE=${CMAKE_CURRENT_LIST_DIR}/tune_env.txt")
add_test(NAME test_tune-envbad COMMAND test_tune envbad)
set_tests_properties(test_tune-envbad PROPERTIES LABELS fast TIMEOUT 300
  ENVIRONMENT "MNS_TUNE_FILE=${CMAKE_CURRENT_BINARY_DIR}/no-such-tune-table.txt")

# The timing check of issue 11 (not in `make check`, which stays
# deterministic): "auto" within 10% of the fastest backend of the same run,
# for modmul and modexp, at the standard and the RNS/PMNS paper's sizes, on
# each kernel path. Run: make check-tune (on a quiet machine).
if(MNS_BUILD_BENCH)
  set(MNS_TUNE_CHECK_SIZES 256,401,512,807,1024,1214,1621,2029,2048,2436,2844,3072,3251,4096,6144,8192)
  add_test(NAME tune-check-native
    COMMAND $<TARGET_FILE:mns-tune> --check --sizes ${MNS_TUNE_CHECK_SIZES})
  add_test(NAME tune-check-generic
    COMMAND $<TARGET_FILE:mns-tune> --check --sizes ${MNS_TUNE_CHECK_SIZES})
  set_tests_properties(tune-check-generic PROPERTIES ENVIRONMENT "MNS_CPU=generic")
  set_tests_properties(tune-check-native tune-check-generic PROPERTIES
    LABELS tune TIMEOUT 7200 RUN_SERIAL TRUE)
endif()
