# RSA (issue 8): the known-answer vectors' location, libcrypto for the
# in-test cross-check against EVP_PKEY_sign, and the benchmark program
# mns-rsa-bench (OpenSSL and GMP side by side with mns_rsa).
pkg_check_modules(MNS_LIBCRYPTO IMPORTED_TARGET libcrypto)
foreach(t test_rsa test_slow_rsa)
  if(TARGET ${t})
    target_compile_definitions(${t} PRIVATE
      MNS_RSA_VECTORS_FILE="${CMAKE_CURRENT_SOURCE_DIR}/vectors/rsa_pkcs1v15.txt")
    if(MNS_LIBCRYPTO_FOUND)
      target_compile_definitions(${t} PRIVATE MNS_HAVE_LIBCRYPTO=1)
      target_link_libraries(${t} PRIVATE PkgConfig::MNS_LIBCRYPTO)
    endif()
  endif()
endforeach()

if(MNS_LIBCRYPTO_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/bench/profile/rsa_bench.c)
  add_executable(mns-rsa-bench ${PROJECT_SOURCE_DIR}/bench/profile/rsa_bench.c
    ${PROJECT_SOURCE_DIR}/bench/profile/rsa_ready_bench.c)
  target_link_libraries(mns-rsa-bench PRIVATE mns_static PkgConfig::MNS_LIBCRYPTO)
  target_include_directories(mns-rsa-bench PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${CMAKE_CURRENT_SOURCE_DIR})
  # OpenSSL 4.0 (the `cryptography` wheel) is timed right after, in the same run
  target_compile_definitions(mns-rsa-bench PRIVATE
    MNS_RSA_CRYPTOGRAPHY_BENCH="${PROJECT_SOURCE_DIR}/bench/profile/rsa_cryptography_bench.py")
endif()

# Constant-time check of the whole private operation under valgrind memcheck
# (tests/ct/rsa_ct.c: the key's secrets marked undefined). Portable kernels
# only: valgrind has no AVX-512 (valgrind's CPU reports none, so "mont"
# runs GMP's mpn kernel and "rns"/"pmns" their portable ones). The selftest
# must be reported (WILL_FAIL). Not under the sanitizers.
find_program(MNS_RSA_VALGRIND valgrind)
if(MNS_RSA_VALGRIND AND NOT MNS_SANITIZE AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/ct/rsa_ct.c)
  add_executable(mns-rsa-ct ${CMAKE_CURRENT_SOURCE_DIR}/ct/rsa_ct.c)
  target_link_libraries(mns-rsa-ct PRIVATE mns_static)
  target_include_directories(mns-rsa-ct PRIVATE ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  add_test(NAME rsa-ct-valgrind COMMAND ${MNS_RSA_VALGRIND} -q --error-exitcode=42
    --track-origins=yes $<TARGET_FILE:mns-rsa-ct> mont mont:kernel=generic rns
    rns-ifma:kernel=generic mont-ifma:kernel=generic pmns)
  add_test(NAME rsa-ct-valgrind-selftest COMMAND ${MNS_RSA_VALGRIND} -q --error-exitcode=42
    $<TARGET_FILE:mns-rsa-ct> --selftest mont)
  set_tests_properties(rsa-ct-valgrind rsa-ct-valgrind-selftest PROPERTIES
    LABELS "fast;nosanitize" TIMEOUT 900)
  set_tests_properties(rsa-ct-valgrind-selftest PROPERTIES WILL_FAIL TRUE)
endif()

# An "auto" key's background tuning under valgrind memcheck: the switch
# from the starting plan, keys freed while their tuning runs, no leak
# (test_rsa_ready --quick: the small sizes). Not under the sanitizers.
if(MNS_RSA_VALGRIND AND NOT MNS_SANITIZE AND TARGET test_rsa_ready)
  add_test(NAME rsa-ready-valgrind COMMAND ${MNS_RSA_VALGRIND} -q --error-exitcode=42
    --leak-check=full --errors-for-leak-kinds=definite,indirect
    $<TARGET_FILE:test_rsa_ready> --quick)
  set_tests_properties(rsa-ready-valgrind PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900
    ENVIRONMENT "MNS_CPU=generic")
endif()
