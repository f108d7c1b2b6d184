# The PMNS parameter generator's tool (src/gen/tools/): mns-pmns-gen generates,
# checks and times parameter sets (params/ is regenerated with it; its
# --bench mode is the generation-time benchmark of docs/gen.md).
add_executable(mns-pmns-gen ${PROJECT_SOURCE_DIR}/src/gen/tools/mns_pmns_gen.c)
target_link_libraries(mns-pmns-gen PRIVATE mns_static)
target_include_directories(mns-pmns-gen PRIVATE ${PROJECT_SOURCE_DIR}/src)

# test_gen regenerates a sample of params/ and compares.
foreach(t test_gen test_slow_gen test_gen_fuzz)
  if(TARGET ${t})
    target_compile_definitions(${t} PRIVATE MNS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  endif()
endforeach()
