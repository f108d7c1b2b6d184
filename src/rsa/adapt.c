/* Whether a pair of channels shares one instruction stream, decided again
 * while the key is used.
 *
 * A key decides at creation whether each pair of channels runs through the
 * x2 kernels on fewer threads than channels (choose.c, mns_rsa_probe_pairs in
 * plan.c), by timing. On a machine whose speed comes in phases that choice
 * follows the phase of the moment: on an IFMA Xeon VM a pair
 * took 0.85-0.91 of its two channels alone in the quick phases and
 * 1.00-1.13 in the slow ones, and a key made in a slow phase stayed ~12%
 * slower after the machine recovered. So one call in MNS_RSA_ADAPT_PERIOD
 * runs every pair the other way (an exploration), its time is compared
 * with the pair's time in the key's previous call (the same phase, a few
 * hundred microseconds earlier), and the median of the last
 * MNS_RSA_ADAPT_VOTES such ratios decides. The cost is the other plan's
 * excess on one call in the period (below 0.3% at a 15% difference).
 *
 * The times are public (every plan is constant time in the secrets), so
 * the choice leaks nothing; results do not depend on it. */
#include "rsa/rsa_internal.h"

int mns_rsa_adapt_explores(unsigned long call)
{
    return call % MNS_RSA_ADAPT_PERIOD == MNS_RSA_ADAPT_PERIOD - 1;
}

static float median(const float *v, int m)
{
    float s[MNS_RSA_ADAPT_VOTES];
    for (int i = 0; i < m; i++) {
        float x = v[i];
        int j = i;
        for (; j > 0 && s[j - 1] > x; j--)
            s[j] = s[j - 1];
        s[j] = x;
    }
    return m & 1 ? s[m / 2] : 0.5f * (s[m / 2 - 1] + s[m / 2]);
}

int mns_rsa_adapt_record(mns_rsa_adapt *a, int on, int ran_paired, double ns)
{
    if (!(ns > 0))
        return on;
    if (ran_paired == on) {
        a->last = ns;
        return on;
    }
    /* an exploration: against the installed plan's time in the previous
     * call; without one (the key's first calls) nothing to compare */
    if (!(a->last > 0))
        return on;
    a->ratio[a->next] = (float)(ran_paired ? ns / a->last : a->last / ns);
    a->next = (a->next + 1) % MNS_RSA_ADAPT_VOTES;
    if (a->votes < MNS_RSA_ADAPT_VOTES)
        a->votes++;
    a->explored++;
    if (a->votes < MNS_RSA_ADAPT_MIN_VOTES)
        return on;
    a->median = median(a->ratio, a->votes);
    int now = a->median < MNS_RSA_ADAPT_GAIN;
    a->flips += now != on;
    return now;
}
