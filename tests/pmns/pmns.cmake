# PMNS arithmetic (src/pmns/): the shipped parameter sets' directory for the
# tests, and pmns-timing, the rdtsc comparison of pmns / pmns-ifma modmul
# with GMP (mpn_mul_n + REDC) and OpenSSL (BN_mod_mul_montgomery), built only
# when OpenSSL's libcrypto is found. Not a test: run it by hand.
foreach(t test_pmns test_slow_pmns)
  if(TARGET ${t})
    target_compile_definitions(${t} PRIVATE MNS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  endif()
endforeach()
find_package(OpenSSL QUIET COMPONENTS Crypto)
if(OpenSSL_FOUND)
  add_executable(pmns-timing ${PROJECT_SOURCE_DIR}/bench/profile/pmns_timing.c)
  target_link_libraries(pmns-timing PRIVATE mns_static OpenSSL::Crypto)
  target_include_directories(pmns-timing PRIVATE ${PROJECT_SOURCE_DIR}/src)
endif()
# test_slow_pmns generates u52 sets up to 2048 bits and s64 up to 3072 (LLL:
# minutes on a loaded machine); more than the default 1500 s
foreach(t test_slow_pmns-native test_slow_pmns-generic)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES TIMEOUT 3600)
  endif()
endforeach()
