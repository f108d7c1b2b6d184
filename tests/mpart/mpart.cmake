# The mpart timing program (not a test: no timing assertion in the suite).
# bench_mpart --threads T [--bits a,b,...] [--batches B]
add_executable(bench_mpart ${PROJECT_SOURCE_DIR}/bench/profile/bench_mpart.c)
target_link_libraries(bench_mpart PRIVATE mns_static)
target_include_directories(bench_mpart PRIVATE ${PROJECT_SOURCE_DIR}/src)
