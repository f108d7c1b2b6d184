# The OpenSSL provider module (src/provider/, docs/provider.md): its C
# tests through EVP with the module from the build tree, and the openssl
# command-line and TLS tests (cli.sh, tls.sh). Skipped with a message
# where mns.so is not built (no OpenSSL 3 headers).
file(GLOB MNS_PROVIDER_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.c)
foreach(src ${MNS_PROVIDER_TESTS})
  get_filename_component(name ${src} NAME_WE)
  set_tests_properties(${name}-native ${name}-generic PROPERTIES SKIP_RETURN_CODE 77)
  if(TARGET mns_provider)
    add_dependencies(${name} mns_provider)
    target_compile_definitions(${name} PRIVATE MNS_PROVIDER_DIR="${PROJECT_BINARY_DIR}/provider")
    target_link_libraries(${name} PRIVATE PkgConfig::MNS_OSSL3)
  endif()
endforeach()

find_program(MNS_OPENSSL_BIN openssl)
if(TARGET mns_provider AND MNS_OPENSSL_BIN)
  foreach(script cli tls)
    add_test(NAME provider-${script}
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/${script}.sh ${MNS_OPENSSL_BIN} ${PROJECT_BINARY_DIR}/provider)
    # nosanitize: the openssl program is not instrumented, and a module
    # built with the sanitizers cannot be loaded into it
    set_tests_properties(provider-${script} PROPERTIES LABELS "fast;nosanitize" TIMEOUT 300
      SKIP_RETURN_CODE 77)
  endforeach()
else()
  add_test(NAME provider-cli COMMAND sh -c "echo 'provider-cli: skipped, mns.so or openssl not available'; exit 77")
  set_tests_properties(provider-cli PROPERTIES LABELS fast SKIP_RETURN_CODE 77)
endif()

# mns-provider-bench (make bench-provider): the module against the default
# provider through EVP, and mns_rsa directly
if(TARGET mns_provider)
  add_executable(mns-provider-bench ${PROJECT_SOURCE_DIR}/bench/profile/provider_bench.c)
  add_dependencies(mns-provider-bench mns_provider)
  target_link_libraries(mns-provider-bench PRIVATE ${MNS_PROVIDER_LIB} PkgConfig::MNS_OSSL3)
  target_include_directories(mns-provider-bench PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(mns-provider-bench PRIVATE MNS_PROVIDER_DIR="${PROJECT_BINARY_DIR}/provider")
endif()
