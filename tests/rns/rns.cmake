# rns-timing: TSC ticks per mns_field_mul for rns and rns-ifma beside GMP
# (mpn_mul_n + REDC by mpn_addmul_1) in the same run. A measuring tool, not a
# test: no timing is asserted. Run: build/tests/rns-timing [sizes...]
add_executable(rns-timing ${PROJECT_SOURCE_DIR}/bench/profile/rns_timing.c)
target_link_libraries(rns-timing PRIVATE mns_testutil)

# Constant-time check of the RNS portable kernel (63-bit and 52-bit bases)
# under valgrind memcheck, with the lead's `ctime` program (tests/ct/ct.cmake):
# secrets marked undefined, any branch or index on them is an error.
# valgrind has no AVX-512: the IFMA kernel's loops and masks depend on n only.
if(TARGET ctime AND VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind-rns COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime> rns rns-ifma:kernel=generic)
  set_tests_properties(ctime-valgrind-rns PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900)
endif()
