# Constant-time tests under valgrind memcheck (secrets marked undefined).
# valgrind's CPU model has no AVX-512, so these check the portable kernels
# (MNS_CPU=generic) and the default non-IFMA ones; IFMA kernels are checked
# for branch-freedom separately. Not run under the sanitizers.
find_program(VALGRIND valgrind)
add_executable(ctime ${CMAKE_CURRENT_SOURCE_DIR}/ct/ctime.c)
target_link_libraries(ctime PRIVATE mns_static)
set(MNS_CT_SPECS mont mont:kernel=generic mont:kernel=gmp-mpn mont:kernel=adx mont:kernel=fixed
  mont:kernel=fixed-adx
  mont-ifma:kernel=generic pmers pmers:kernel=generic)
if(VALGRIND AND NOT MNS_SANITIZE)
  add_test(NAME ctime-valgrind COMMAND ${VALGRIND} -q --error-exitcode=42 --track-origins=yes
    $<TARGET_FILE:ctime> ${MNS_CT_SPECS})
  add_test(NAME ctime-valgrind-selftest COMMAND ${VALGRIND} -q --error-exitcode=42
    $<TARGET_FILE:ctime> --selftest)
  set_tests_properties(ctime-valgrind ctime-valgrind-selftest PROPERTIES
    LABELS "fast;nosanitize" TIMEOUT 900)
  # valgrind runs adcx/adox but hides ADX in CPUID: let mont's adx kernel run
  set_tests_properties(ctime-valgrind PROPERTIES ENVIRONMENT "MNS_MONT_ASSUME_ADX=1")
  set_tests_properties(ctime-valgrind-selftest PROPERTIES WILL_FAIL TRUE)
  # The same under MNS_CPU=generic: the dispatch then takes the baseline
  # code outside the kernels too (the exponentiation's SSE2 Select, whose
  # masks are made by vector compares)
  add_test(NAME ctime-valgrind-generic COMMAND ${VALGRIND} -q --error-exitcode=42
    --track-origins=yes $<TARGET_FILE:ctime> mont mont-ifma pmers)
  set_tests_properties(ctime-valgrind-generic PROPERTIES LABELS "fast;nosanitize" TIMEOUT 900
    ENVIRONMENT "MNS_CPU=generic")
endif()
