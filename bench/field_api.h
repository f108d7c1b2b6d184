/* mns-bench --field-api (field_api.c): the constant-time element API. */
#ifndef MNS_BENCH_FIELD_API_H
#define MNS_BENCH_FIELD_API_H

/* argv[0] is "--field-api"; the rest are backend specs (default: auto, mont). */
int mb_field_api_main(int argc, char **argv);

#endif
