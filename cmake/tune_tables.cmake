# The shipped tuning tables (tune/<class>.txt) compiled into the library as C
# strings; regenerated whenever a table changes.
set(MNS_TUNE_TABLES
  ifma=${PROJECT_SOURCE_DIR}/tune/ifma.txt
  ifma_zen5=${PROJECT_SOURCE_DIR}/tune/ifma-zen5.txt
  generic=${PROJECT_SOURCE_DIR}/tune/generic.txt
  adx=${PROJECT_SOURCE_DIR}/tune/adx.txt)
set(MNS_TUNE_C ${PROJECT_BINARY_DIR}/generated/tune_tables.c)
add_custom_command(OUTPUT ${MNS_TUNE_C}
  COMMAND ${CMAKE_COMMAND} -DOUT=${MNS_TUNE_C} "-DTABLES=${MNS_TUNE_TABLES}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_tune.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/tune/ifma.txt ${PROJECT_SOURCE_DIR}/tune/ifma-zen5.txt
          ${PROJECT_SOURCE_DIR}/tune/generic.txt
          ${PROJECT_SOURCE_DIR}/tune/adx.txt ${PROJECT_SOURCE_DIR}/cmake/embed_tune.cmake
  COMMENT "Embedding the shipped tuning tables"
  VERBATIM)
target_sources(mns_objects PRIVATE ${MNS_TUNE_C})
