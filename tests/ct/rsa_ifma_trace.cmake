# The IFMA kernels contain no data-dependent branch: control-flow traces
# (ptrace single-step) of mul, sqr, add, sub, reduce, set_words and powm on
# different inputs must be equal (tests/ct/rsa_ifma_trace.c). Skipped (77)
# without IFMA, under MNS_CPU=generic, or where ptrace is not permitted.
# 512-bit primes: the same kernel code paths as the 1024-bit RSA-2048
# channels (`mns-rsa-ifma-trace 1024 1536` checks those: several minutes,
# single-stepping costs microseconds per instruction).
# Not under the sanitizers (their runtime changes what is traced).
if(NOT MNS_SANITIZE)
  add_executable(mns-rsa-ifma-trace ${CMAKE_CURRENT_LIST_DIR}/rsa_ifma_trace.c)
  target_link_libraries(mns-rsa-ifma-trace PRIVATE mns_static)
  target_include_directories(mns-rsa-ifma-trace PRIVATE ${PROJECT_SOURCE_DIR}/src)
  add_test(NAME rsa-ifma-trace COMMAND mns-rsa-ifma-trace 512)
  set_tests_properties(rsa-ifma-trace PROPERTIES LABELS fast TIMEOUT 900 SKIP_RETURN_CODE 77)
endif()
