# pmns-mp-timing: TSC ticks per modmul of pmns-mp / pmns-mp-ifma beside GMP
# and OpenSSL in the same run (docs/pmns-mp.md). A measuring tool, not a test.
# Run: build/tests/pmns-mp-timing [--specs "a;b"] [bits ...]
find_package(OpenSSL COMPONENTS Crypto)
if(OpenSSL_FOUND)
  add_executable(pmns-mp-timing ${CMAKE_CURRENT_SOURCE_DIR}/pmns_mp_timing.c
    ${PROJECT_SOURCE_DIR}/bench/primes.c ${PROJECT_SOURCE_DIR}/bench/primes_table.c)
  target_include_directories(pmns-mp-timing PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(pmns-mp-timing PRIVATE mns_testutil OpenSSL::Crypto)
  target_compile_options(pmns-mp-timing PRIVATE -Wno-deprecated-declarations)
endif()

# the slow sweep takes mns-bench's shipped primes above 4096 bits
target_sources(test_slow_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench/primes.c
  ${PROJECT_SOURCE_DIR}/bench/primes_table.c)
target_include_directories(test_slow_pmns_mp PRIVATE ${PROJECT_SOURCE_DIR}/bench)
