# Constant-time check of the sum-of-residues portable kernel (63-bit moduli,
# and 52-bit moduli as the IFMA bases use) under valgrind memcheck, with the
# lead's `ctime` program (tests/ct/ct.cmake): secrets marked undefined, any
# branch or memory index on them is an error. The moduli of ctime (2^256-189,
# 2^1024-105, 2^2048-1942289) are all pseudo-Mersenne primes that sor serves.
# valgrind has no AVX-512: the IFMA kernel's loops depend on N only.
if(TARGET ctime AND VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind-sor COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime> sor sor-ifma:kernel=generic)
  set_tests_properties(ctime-valgrind-sor PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900)
endif()
