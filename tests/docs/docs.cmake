# The manual against the code: every public call of include/*.h has an entry
# in docs/reference/<header>.md (and every entry a call), links between the
# pages resolve, and no page narrates rounds of work.
find_program(MNS_PYTHON3 python3)
if(MNS_PYTHON3)
  add_test(NAME docs-reference
    COMMAND ${MNS_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/docs/check_docs.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs-reference PROPERTIES LABELS fast TIMEOUT 60)
endif()
