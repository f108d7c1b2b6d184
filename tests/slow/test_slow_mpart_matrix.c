/* test_mpart with the full cross product of sizes, k = 1..8 and 1..4
 * threads (the default test samples one size per (k, threads) pair). */
#define MPART_FULL_MATRIX 1
#define MPART_TEST_NAME "test_slow_mpart_matrix"
#include "mpart/test_mpart.c"
