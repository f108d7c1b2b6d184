# The programs of examples/ (X25519, brainpool ECDH, Paillier on the field
# API): built with the library, and run by ctest as self-checks against the
# RFC vectors and OpenSSL. Each also has a `bench` mode (docs/field-api.md).
pkg_check_modules(EX_LIBCRYPTO IMPORTED_TARGET libcrypto)
if(EX_LIBCRYPTO_FOUND)
  foreach(ex x25519 ecdh_generic)
    add_executable(${ex} ${PROJECT_SOURCE_DIR}/examples/${ex}.c)
    target_link_libraries(${ex} PRIVATE mns_static PkgConfig::EX_LIBCRYPTO)
    add_test(NAME example-${ex} COMMAND ${ex})
    set_tests_properties(example-${ex} PROPERTIES LABELS fast TIMEOUT 600)
  endforeach()
endif()
add_executable(paillier ${PROJECT_SOURCE_DIR}/examples/paillier.c)
target_link_libraries(paillier PRIVATE mns_static)
add_test(NAME example-paillier COMMAND paillier)
set_tests_properties(example-paillier PROPERTIES LABELS fast TIMEOUT 600)
