# The Python package as a user installs it: pip from a copy of the tree with
# no prior build, then the wheel of `python -m build` (made from its sdist)
# in a second virtual environment. Needs PyPI for the build dependencies;
# compiles the C library twice (ccache, when present, shares the objects).
find_program(MNS_PYTHON3 python3)
if(MNS_PYTHON3)
  add_test(NAME python-pip-install
    COMMAND sh ${PROJECT_SOURCE_DIR}/tests/python/pip_install.sh ${PROJECT_SOURCE_DIR}
            ${PROJECT_BINARY_DIR}/pip-install ${MNS_PYTHON3})
  set_tests_properties(python-pip-install PROPERTIES LABELS "fast;nosanitize" TIMEOUT 2400)
endif()
