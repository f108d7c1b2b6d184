# Install into a scratch prefix and build a user program with pkg-config.
add_test(NAME install-pkgconfig
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/install/run.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
set_tests_properties(install-pkgconfig PROPERTIES LABELS "fast;nosanitize" TIMEOUT 300)
