/* mns-bench --curve [--repeat N] [--spec SPEC]: X25519 scalar
 * multiplication and brainpoolP256r1 / P384r1 ECDH on the mns field API
 * (the examples' code, curve_x25519.c and curve_ecdh.c) against OpenSSL's
 * X25519 and ECDH derive in the same process, each N times (default 5) so
 * the output gives the range of the ratios; the load average is printed
 * before and after, since the figures only mean something beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"

static void load_average(const char *when)
{
    char buf[128] = "unknown";
    FILE *fp = fopen("/proc/loadavg", "r");
    if (fp) {
        if (!fgets(buf, sizeof buf, fp))
            snprintf(buf, sizeof buf, "unknown\n");
        fclose(fp);
    }
    printf("load average %s: %s%s", when, buf, strchr(buf, '\n') ? "" : "\n");
}

static void range(const char *what, const double *r, int n)
{
    double lo = r[0], hi = r[0];
    for (int i = 1; i < n; i++) {
        lo = r[i] < lo ? r[i] : lo;
        hi = r[i] > hi ? r[i] : hi;
    }
    printf("%s: mns / OpenSSL %.2f-%.2f over %d runs\n", what, lo, hi, n);
}

int mb_curve_main(int argc, char **argv)
{
#ifndef MB_HAVE_CURVE
    (void)argc, (void)argv;
    (void)load_average, (void)range;
    fprintf(stderr, "mns-bench --curve: not in this build (its source tree has no examples/)\n");
    return 2;
#else
    int repeat = 5;
    const char *spec = "auto";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--spec") == 0 && i + 1 < argc)
            spec = argv[++i];
        else {
            fprintf(stderr, "mns-bench --curve [--repeat N] [--spec SPEC]\n");
            return 2;
        }
    }
    if (repeat < 1 || repeat > 100) {
        fprintf(stderr, "mns-bench --curve: --repeat takes 1 to 100\n");
        return 2;
    }
    double r[3][100];
    load_average("before");
    for (int i = 0; i < repeat; i++) {
        r[0][i] = mb_curve_x25519(spec);
        r[1][i] = mb_curve_brainpool(spec, 256);
        r[2][i] = mb_curve_brainpool(spec, 384);
        if (r[0][i] < 0 || r[1][i] < 0 || r[2][i] < 0)
            return 1;
    }
    load_average("after");
    range("x25519", r[0], repeat);
    range("ecdh brainpoolP256r1", r[1], repeat);
    range("ecdh brainpoolP384r1", r[2], repeat);
    return 0;
#endif
}
