# Sources written by scripts: the committed text must be what its script
# writes today (src/generated/mont_mulx_asm.inc from scripts/gen_mont_mulx.py).
find_program(MNS_PYTHON3 python3)
if(MNS_PYTHON3)
  add_test(NAME generated-mont-mulx
    COMMAND ${MNS_PYTHON3} ${PROJECT_SOURCE_DIR}/scripts/gen_mont_mulx.py --check)
  set_tests_properties(generated-mont-mulx PROPERTIES LABELS "fast")
endif()
