# Constant-time check of the PMNS portable kernels under valgrind memcheck:
# the lead's `ctime` program (built by tests/ct/ct.cmake, included before this
# file) with the spec "pmns" (secrets marked undefined; see tests/ct/ctime.c).
# valgrind has no AVX-512, so pmns-ifma would answer ENOTSUP there and is not
# listed; its kernels contain no data-dependent branch or index by
# construction (loop bounds and masks depend on n only).
# Generating the three sets (256, 1024, 2048 bits) under valgrind takes about
# 25 s of CPU, so the sets are generated rather than shipped.
if(TARGET ctime AND VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind-pmns COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime> pmns)
  set_tests_properties(ctime-valgrind-pmns PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900)
endif()
