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

if(MNS_LIBCRYPTO_FOUND AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/rsa_bench.c)
  add_executable(mns-rsa-bench ${CMAKE_CURRENT_SOURCE_DIR}/rsa_bench.c)
  target_link_libraries(mns-rsa-bench PRIVATE mns_static PkgConfig::MNS_LIBCRYPTO)
  target_include_directories(mns-rsa-bench PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${CMAKE_CURRENT_SOURCE_DIR})
endif()
