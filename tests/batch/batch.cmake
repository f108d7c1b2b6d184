# The batch path's constant-time check under valgrind memcheck: the portable
# lane kernels through the batch calls (tests/batch/ctime_batch.c). The
# IFMA lanes are traced for branches by mns-rsa-ifma-trace (tests/ct/).
# Not under the sanitizers.
find_program(VALGRIND valgrind)
add_executable(ctime_batch ${CMAKE_CURRENT_LIST_DIR}/ctime_batch.c)
target_link_libraries(ctime_batch PRIVATE mns_static)
target_include_directories(ctime_batch PRIVATE ${PROJECT_SOURCE_DIR}/src)
if(VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind-batch COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime_batch>)
  set_tests_properties(ctime-valgrind-batch PROPERTIES LABELS "fast;nosanitize" TIMEOUT 1500)
endif()
