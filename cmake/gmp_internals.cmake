# Two undocumented functions that libgmp exports and that the mpart backends
# use when they are there (src/mpart/mpn_ext.c): mpn_mullo_n (the low half
# of a product, for the Montgomery quotient) and mpn_mulmod_bnm1 (a product
# modulo beta^K - 1, for Q P whose result is known to be short). They are
# internal to GMP ("mutable interfaces"), so each is declared by mns itself
# and checked here by running it against mpn_mul on a few sizes; when a check
# fails (another GMP, a cross build) mns uses its portable twins instead.
include(CheckCSourceRuns)
set(CMAKE_REQUIRED_INCLUDES ${GMP_INCLUDE_DIR})
set(CMAKE_REQUIRED_LIBRARIES ${GMP_LIBRARY})
check_c_source_runs([=[
#include <gmp.h>
void __gmpn_mullo_n(mp_ptr, mp_srcptr, mp_srcptr, mp_size_t);
int main(void)
{
    mp_limb_t a[300], b[300], r[300], f[600];
    for (int i = 0; i < 300; i++) {
        a[i] = 0x9e3779b97f4a7c15u * (mp_limb_t)(i + 1);
        b[i] = ~(mp_limb_t)0 - (mp_limb_t)i * 977;
    }
    static const int ns[] = {1, 2, 7, 40, 150, 300};
    for (int k = 0; k < 6; k++) {
        int n = ns[k];
        __gmpn_mullo_n(r, a, b, n);
        mpn_mul_n(f, a, b, n);
        if (mpn_cmp(r, f, n) != 0)
            return 1;
    }
    return 0;
}
]=] MNS_HAVE_GMPN_MULLO)
check_c_source_runs([=[
#include <gmp.h>
void __gmpn_mulmod_bnm1(mp_ptr, mp_size_t, mp_srcptr, mp_size_t, mp_srcptr, mp_size_t, mp_ptr);
mp_size_t __gmpn_mulmod_bnm1_next_size(mp_size_t);
int main(void)
{
    mp_limb_t a[700], b[700], r[700], f[1400], t[1500];
    for (int i = 0; i < 700; i++) {
        a[i] = 0x9e3779b97f4a7c15u * (mp_limb_t)(i + 1);
        b[i] = ~(mp_limb_t)0 - (mp_limb_t)i * 977;
    }
    static const int ns[] = {10, 64, 130, 300, 600};
    for (int k = 0; k < 5; k++) {
        mp_size_t an = ns[k], bn = an / 2 + 1, rn = __gmpn_mulmod_bnm1_next_size(an + 2);
        if (rn < an + 2 || rn > 700 || an + bn <= rn)
            return 1;
        __gmpn_mulmod_bnm1(r, rn, a, an, b, bn, t);
        /* the product folded modulo B^rn - 1 by hand; 0 may come out as B^rn - 1 */
        mpn_mul(f, a, an, b, bn);
        mp_limb_t cy = mpn_add(f, f, rn, f + rn, an + bn - rn);
        if (cy)
            mpn_add_1(f, f, rn, 1);
        if (mpn_cmp(r, f, rn) != 0)
            return 1;
    }
    return 0;
}
]=] MNS_HAVE_GMPN_MULMOD_BNM1)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_LIBRARIES)
if(MNS_HAVE_GMPN_MULLO)
  target_compile_definitions(mns_objects PRIVATE MNS_HAVE_GMPN_MULLO=1)
endif()
if(MNS_HAVE_GMPN_MULMOD_BNM1)
  target_compile_definitions(mns_objects PRIVATE MNS_HAVE_GMPN_MULMOD_BNM1=1)
endif()
