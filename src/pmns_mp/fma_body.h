/* The FMA kernel's body (the algorithm and the schedule: see pmns_mp/fma.c), for
 * vectors of VL coefficients. Included once by pmns_mp/fma.c (VL = 4, AVX2 + FMA)
 * and once by pmns_mp/fma512.c (VL = 8, AVX-512F), each after defining the
 * vocabulary below, so that one text serves both widths.
 *
 * The includer defines:
 *   VL, ACC        lanes a vector; accumulator pairs the register file holds
 *                  beside the windows, the broadcast and the constants
 *   FMA_TARGET, AI the target attribute; always_inline
 *   vd, vi         the double and the 64-bit integer vector
 *   vd_zero vd_set1 vd_load vd_loadu vd_store vd_storeu vd_bcast vd_add
 *   vd_sub vd_mul vd_fma(a, b, c) (a b + c)  vd_as_vi vi_as_vd
 *   vi_zero vi_set1 vi_load vi_store vi_storeu vi_add vi_sub vi_and
 *   vi_srlv vi_sllv (by a vector of counts) vi_sll1 (by one)
 *   vi_mul32(x, y)  the low 32 bits of each lane of x by those of y, 64-bit
 *   vi_srl32 vi_sll32  by 32
 *   vi_load_lanes(p, rem)   lanes < rem of p, the others 0 (rem >= 1)
 *   store_lanes(o, x, rem)  lanes < rem of x to o, 1 <= rem <= VL
 *   kshift, kshift_make(k), vi_srak(x, ks)  x >> k, arithmetic
 *   lane_sel, lane_sel_make(rho), lane_pick(x, y, sel)
 *                  lanes rho .. rho + VL - 1 of x:y (x first), 0 <= rho < VL
 *   lane_shift_1(x, y)  lanes 1 .. VL of x:y
 *   vi_opaque(x)   hides x's value from the compiler
 * and then the instances (FMA_INST) and their table. */
#ifndef MNS_PMNS_MP_FMA_BODY_H
#define MNS_PMNS_MP_FMA_BODY_H

#define SEQ MP_FAST_SEQ
#define OFF MP_FAST_OFF

/* the instances: s = 2..4, up to NV_MAX vectors (n <= 48) */
#define NV_MAX (48 / VL)

static const double C_HI = 0x1.8p103;             /* h = ab + 3 2^102, a multiple of 2^51 */
static const double C_MID = 0x1.8p103 + 0x1.8p52; /* lo = ab + (C_MID - h) */
static const double C_INT = 0x1p52;   /* x < 2^52 -> double: bits(2^52) | x, minus 2^52 */
#define BITS_HI 0x4668000000000000ULL /* bits(3 2^102) */
#define BITS_LO 0x4338000000000000ULL /* bits(3 2^51) */
#define BITS_INT 0x4330000000000000ULL

/* integers in [0, 2^52) -> doubles, exactly */
static inline AI FMA_TARGET vd to_double(vi x)
{
    return vd_sub(vi_as_vd(vi_or(x, vi_set1((long long)BITS_INT))), vd_set1(C_INT));
}

/* (lo, hi) += w x, biased (see pmns_mp/fma.c) */
static inline AI FMA_TARGET void mac(vi *lo, vi *hi, vd w, vd x)
{
    const vd h = vd_fma(w, x, vd_set1(C_HI));
    const vd l = vd_fma(w, x, vd_sub(vd_set1(C_MID), h));
    *hi = vi_add(*hi, vd_as_vi(h));
    *lo = vi_add(*lo, vd_as_vi(l));
}

/* p[0..cnt) = 0, cnt a multiple of VL, p aligned: vector stores, which the
 * products' loads of R forward from. (memset became rep stos, which loads
 * wait for until it commits, after the previous call's tail retired: 0.1x a
 * 1024-bit product on Zen 3.) */
static inline AI FMA_TARGET void zero_rows(int64_t *p, const size_t cnt)
{
    vi z = vi_opaque(vi_zero()); /* opaque: else GCC turns the loop back into memset */
#pragma GCC unroll 8
    for (size_t q = 0; q < cnt; q += VL)
        vi_store(p + q, z);
}

/* x lambda mod 2^64, 0 <= lambda < 2^32 (lam: lambda in every lane): AVX2
 * has no 64-bit product, so two 32 x 32-bit ones */
static inline AI FMA_TARGET vi vi_mul_small(vi x, vi lam)
{
    return vi_add(vi_mul32(x, lam), vi_sll32(vi_mul32(vi_srl32(x), lam)));
}

/* digit j of a's n coefficients (NVX vectors, lanes >= n: 0) as doubles,
 * carried (carry: zero before digit 0; TOP: j is the last digit); xi (not
 * NULL): the same digits as integers */
static inline AI FMA_TARGET void fm_digit(const mns_pmns_mp_ctx *c, const uint64_t *a, int j,
                                          vi *carry, vd *d, vi *xi, const int NVX, const int TOP)
{
    const int n = c->n;
    const vi km = vi_set1((long long)c->kmask), kc = vi_set1(c->k);
#pragma GCC unroll 16
    for (int v = 0; v < NVX; v++) {
        vi x = vi_add(vi_load_lanes(a + (size_t)j * n + VL * v, n - VL * v), carry[v]);
        if (!TOP) {
            carry[v] = vi_srlv(x, kc);
            x = vi_and(x, km);
        }
        d[v] = to_double(x);
        if (xi)
            xi[v] = x;
    }
}

/* the digits of a, carried as fu_seq does (digits 0..S-2 in [0, 2^k), the
 * top one the rest, below 2^52 by the set's bounds), as doubles in Toeplitz
 * sequences: t[n-1+d] = a_d, t[n-1-d] = lambda a_(n-d), at seq + j SEQ +
 * OFF; zeros after the end for the padding lanes' windows. The wrapped
 * entries t[n-1-d]: carried = 0, lambda times digit j (lambda a < 2^53 by
 * the set's bounds: the double product is exact); carried = 1 (a
 * lambda-carried set, MNS_PMNS_GEN_LAMBDA_CARRIED), digit j of the whole
 * coefficient lambda a_(n-d), carried into k-bit digits like a, the top one
 * the rest (fu_lam_digit's rule): the digits of lambda a sum to lambda a,
 * so the rows of the product are the same integers, and the entries stay
 * below 2^k (the top one below lambda 2^lg_top < 2^52, which prepare
 * checked) however large lambda 2^k is. The squaring needs carried = 0 (its
 * doubled cross products, see fu_seq). Whole-vector stores, in an order
 * where each overwrites what the one before spilled past its lanes (lambda
 * a, then a, then the zeros): AMD's masked stores (vmaskmovpd) are
 * microcoded. */
static inline AI FMA_TARGET void fm_seq(const mns_pmns_mp_ctx *c, double *seq, const uint64_t *a,
                                        const int S, const int NV, const int carried)
{
    const int n = c->n;
    const vd lam = vd_set1((double)c->lambda);
    const vi lami = vi_set1(c->lambda), km = vi_set1((long long)c->kmask), kc = vi_set1(c->k);
    vi carry[NV_MAX], lcarry[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = lcarry[v] = vi_zero();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        double *t = seq + (size_t)j * SEQ + OFF;
        vd d[NV_MAX];
        vi xi[NV_MAX];
        fm_digit(c, a, j, carry, d, xi, NV, j == S - 1);
        /* lane 0 of v = 0 lands in the front padding; lanes >= n past
         * t[n - 2], where a_0.. is stored next */
        if (carried) {
#pragma GCC unroll 16
            for (int v = 0; v < NV; v++) {
                vi y = vi_add(vi_mul_small(xi[v], lami), lcarry[v]);
                if (j < S - 1) {
                    lcarry[v] = vi_srlv(y, kc);
                    y = vi_and(y, km);
                }
                vd_storeu(t + VL * v - 1, to_double(y));
            }
        } else {
#pragma GCC unroll 16
            for (int v = 0; v < NV; v++)
                vd_storeu(t + VL * v - 1, vd_mul(d[v], lam));
        }
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            vd_storeu(t + (n - 1) + VL * v, d[v]);
        vd_storeu(t + 2 * n - 1, vd_zero());
        vd_storeu(t + 2 * n - 1 + VL, vd_zero());
    }
}

/* adds the biased sums of cnt products to R's rows 0..SJ-1, vectors v0..,
 * and (DUP > 0) again DUP lanes on (the split's shared product); DBL (the
 * squaring's cross products): rows j > 0 doubled (DBL = 2: every row),
 * after the biases came off, so that the sums keep their bounds */
static inline AI FMA_TARGET void fm_store(int64_t *rlo, int64_t *rhi, const vi *lo, const vi *hi,
                                          int cnt, const int SJ, const int VB, const int v0,
                                          const size_t L, const int DBL, const int DUP)
{
    const vi bl = vi_set1((long long)((uint64_t)cnt * BITS_LO));
    const vi bh = vi_set1((long long)((uint64_t)cnt * BITS_HI));
#pragma GCC unroll 8
    for (int j = 0; j < SJ; j++)
#pragma GCC unroll 8
        for (int v = 0; v < VB; v++) {
            int64_t *pl = rlo + j * L + VL * (v0 + v), *ph = rhi + j * L + VL * (v0 + v);
            vi l = vi_sub(lo[j * VB + v], bl);
            vi h = vi_sub(hi[j * VB + v], bh);
            if (DBL == 2 || (DBL && j > 0)) {
                l = vi_sll1(l);
                h = vi_sll1(h);
            }
            vi_store(pl, vi_add(vi_load(pl), l));
            vi_store(ph, vi_add(vi_load(ph), h));
            if (DUP) {
                vi_store(pl + DUP, vi_add(vi_load(pl + DUP), l));
                vi_store(ph + DUP, vi_add(vi_load(ph + DUP), h));
            }
        }
}

/* The column loops over v0 (fm_prod_win_all, fm_prod_col_all) stay rolled
 * from ROLL_MIN blocks on: unrolled, every call of theirs is a copy of its
 * loop, and at H = 6 (6144-8192 bits, 4 lanes) the kernel was 41 KB of code
 * (more than the 32 KB L1 instruction cache of Zen 3; 25 KB rolled), run
 * through once per product. Against them unrolled, in one process (abn,
 * three primes a size, products / squarings): 0.88x / 0.95x the time at
 * 3072 bits and 0.88x / 0.88x at 4096 (H = 3), 0.91-0.96x / 0.95-0.97x at
 * 6144, 0.96x / 0.96-0.97x at 8192; rolled from 2 blocks, 2048 bits (H = 2)
 * measured within noise, so it stays unrolled there. */
#define ROLL_MIN 3
/* vectors of a row block against which all S rows run: ACC / S (at least 1,
 * at most NV) accumulator pairs a row */
#define VB_OF(S, NV) ((S) >= ACC ? 1 : (ACC / (S) < (NV) ? ACC / (S) : (NV)))

/* operand products: R[j][v] += sum_c xd[j XS + c] seq[VL v - c ..], c < n,
 * j < SJ, v in [v0, v0 + VB) (seq points at t_B + (n - 1), xd at A's
 * digits); DUP: see fm_store */
static inline AI FMA_TARGET void fm_prod_win(int64_t *rlo, int64_t *rhi, const double *seq,
                                             const double *xd, const int XS, int n, const int SJ,
                                             const int VB, const int v0, const size_t L,
                                             const int DBL, const int DUP)
{
    vi lo[ACC > 4 ? ACC : 4], hi[ACC > 4 ? ACC : 4];
#pragma GCC unroll 8
    for (int g = 0; g < SJ * VB; g++)
        lo[g] = hi[g] = vi_zero();
    const double *s0 = seq + VL * v0;
    for (int cc = 0; cc < n; cc++) {
        vd w[ACC];
#pragma GCC unroll 8
        for (int v = 0; v < VB; v++)
            w[v] = vd_loadu(s0 + VL * v - cc);
#pragma GCC unroll 4
        for (int j = 0; j < SJ; j++) {
            const vd x = vd_bcast(xd + j * XS + cc);
#pragma GCC unroll 8
            for (int v = 0; v < VB; v++)
                mac(&lo[j * VB + v], &hi[j * VB + v], w[v], x);
        }
    }
    fm_store(rlo, rhi, lo, hi, n, SJ, VB, v0, L, DBL, DUP);
}

/* all S x NV outputs: every digit of A against VB vectors at a time */
static inline AI FMA_TARGET void fm_prod_win_all(int64_t *rlo, int64_t *rhi, const double *seq,
                                                 const double *xd, const int XS, int n,
                                                 const int S, const int NV, const size_t L,
                                                 const int DBL, const int DUP)
{
    const int VB = VB_OF(S, NV);
    int v0 = 0;
    if (NV / VB >= ROLL_MIN) {
#pragma GCC unroll 1
        for (; v0 + VB <= NV; v0 += VB)
            fm_prod_win(rlo, rhi, seq, xd, XS, n, S, VB, v0, L, DBL, DUP);
    } else
#pragma GCC unroll 16
    for (; v0 + VB <= NV; v0 += VB)
        fm_prod_win(rlo, rhi, seq, xd, XS, n, S, VB, v0, L, DBL, DUP);
    if (NV - v0 > 0)
        fm_prod_win(rlo, rhi, seq, xd, XS, n, S, NV - v0, v0, L, DBL, DUP);
}

/* the operand products of step i: R_(i+j) += A_j B_i, j < S; SQ (b = a):
 * R_(2i) += A_i A_i and R_(i+j) += 2 A_j A_i for j > i, s(s+1)/2 products
 * in all instead of s^2 (rows from 2i: the digits from A_i on against A_i's
 * windows, the cross rows doubled). The number of rows is a constant per
 * case, as the accumulators need. */
static inline AI FMA_TARGET void fm_ops(int64_t *rlo, int64_t *rhi, const double *seqa,
                                        const double *seqb, int n, const int i, const int S,
                                        const int NV, const size_t L, const int SQ)
{
    const double *adig = seqa + OFF + (n - 1);
    if (!SQ) {
        fm_prod_win_all(rlo + i * L, rhi + i * L, seqb + (size_t)i * SEQ + OFF + (n - 1), adig, SEQ,
                        n, S, NV, L, 0, 0);
        return;
    }
    const double *win = seqa + (size_t)i * SEQ + OFF + (n - 1), *xd = adig + (size_t)i * SEQ;
    int64_t *l2 = rlo + 2 * i * L, *h2 = rhi + 2 * i * L;
    switch (S - i) {
    case 4: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 4, NV, L, 1, 0); break;
    case 3: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 3, NV, L, 1, 0); break;
    case 2: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 2, NV, L, 1, 0); break;
    default: fm_prod_win_all(l2, h2, win, xd, SEQ, n, 1, NV, L, 1, 0); break;
    }
}

/* T M_j: R[j][v] += sum_c x[c] cols[c][j][v] (cols: the column matrices of
 * the M_j, CL lanes per (c, j)) */
static inline AI FMA_TARGET void fm_prod_col(int64_t *rlo, int64_t *rhi, const double *cols,
                                             const double *x, int n, const int S, const int SJ,
                                             const int VB, const int v0, const size_t L,
                                             const size_t CL, const int DUP)
{
    const size_t CS = (size_t)S * CL;
    vi lo[ACC > 4 ? ACC : 4], hi[ACC > 4 ? ACC : 4];
#pragma GCC unroll 8
    for (int g = 0; g < SJ * VB; g++)
        lo[g] = hi[g] = vi_zero();
    const double *col = cols + VL * v0;
    for (int cc = 0; cc < n; cc++, col += CS) {
        const vd xv = vd_bcast(x + cc);
#pragma GCC unroll 4
        for (int j = 0; j < SJ; j++)
#pragma GCC unroll 8
            for (int v = 0; v < VB; v++)
                mac(&lo[j * VB + v], &hi[j * VB + v], vd_load(col + j * CL + VL * v), xv);
    }
    fm_store(rlo, rhi, lo, hi, n, SJ, VB, v0, L, 0, DUP);
}

static inline AI FMA_TARGET void fm_prod_col_all(int64_t *rlo, int64_t *rhi, const double *cols,
                                                 const double *x, int n, const int S, const int NV,
                                                 const size_t L, const size_t CL, const int DUP)
{
    const int VB = VB_OF(S, NV);
    int v0 = 0;
    if (NV / VB >= ROLL_MIN) {
#pragma GCC unroll 1
        for (; v0 + VB <= NV; v0 += VB)
            fm_prod_col(rlo, rhi, cols, x, n, S, S, VB, v0, L, CL, DUP);
    } else
#pragma GCC unroll 16
    for (; v0 + VB <= NV; v0 += VB)
        fm_prod_col(rlo, rhi, cols, x, n, S, S, VB, v0, L, CL, DUP);
    if (NV - v0 > 0)
        fm_prod_col(rlo, rhi, cols, x, n, S, S, NV - v0, v0, L, CL, DUP);
}

/* T = ((R_i + carry) mod 2^k) M'_0 mod (E, 2^k), as doubles into tb: only lo
 * matters (mod 2^k); xb: the broadcasts. H > 0 (the split, NV = 2H): also
 * the sums of T's halves into ts, from registers (a load of tb back would
 * add a store-to-load round trip to T's latency chain) */
static inline AI FMA_TARGET void fm_t(const mns_pmns_mp_ctx *c, const int64_t *rlo,
                                      const vi *carry, double *xb, double *tb, double *ts, vi km,
                                      const int NV, const int H)
{
    const int n = c->n;
    const size_t CL = (size_t)c->mpfl;
    const vd ch = vd_set1(C_HI), cm = vd_set1(C_MID);
    vi acc[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        const vi x = vi_add(vi_load(rlo + VL * v), carry[v]);
        vd_store(xb + VL * v, to_double(vi_and(x, km)));
        acc[v] = vi_zero();
    }
    for (int cc = 0; cc < n; cc++) {
        const vd x = vd_bcast(xb + cc);
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++) {
            const vd w = vd_load(c->mpfd + (size_t)cc * CL + VL * v);
            const vd h = vd_fma(w, x, ch);
            const vd l = vd_fma(w, x, vd_sub(cm, h));
            acc[v] = vi_add(acc[v], vd_as_vi(l));
        }
    }
    const vi bl = vi_set1((long long)((uint64_t)n * BITS_LO));
    vd t[NV_MAX];
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        t[v] = to_double(vi_and(vi_sub(acc[v], bl), km));
        vd_store(tb + VL * v, t[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < H; v++)
        vd_store(ts + VL * v, vd_add(t[v], t[v + H]));
}

/* the exact division: carry = (R_i + carry) / 2^k = (lo + carry) >> k + hi
 * 2^(51-k), lo + carry divisible by 2^k */
static inline AI FMA_TARGET void fm_div(const int64_t *rlo, const int64_t *rhi, vi *carry,
                                        kshift ks, vi kh, const int NV)
{
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        const vi x = vi_add(vi_load(rlo + VL * v), carry[v]);
        carry[v] = vi_add(vi_srak(x, ks), vi_sllv(vi_load(rhi + VL * v), kh));
    }
}

/* lines 15-18 of Alg. 3: C_j = R_(s+j) mod 2^k, carried; the top digit is
 * the last carry. NVO = ceil(n/VL) vectors, rows L lanes apart. r may alias
 * a or b: both were read before. Whole vectors (a row's padding lanes spill
 * into the next rows, written after it), but the last row's last one lane by
 * lane, and any that would spill past r's end */
static inline AI FMA_TARGET void fm_out(const mns_pmns_mp_ctx *c, uint64_t *r, const int64_t *rlo,
                                        const int64_t *rhi, vi *carry, const int S, const int NVO,
                                        const size_t L)
{
    const int n = c->n;
    const vi km = vi_set1((long long)c->kmask), kh = vi_set1(51 - c->k);
    const kshift ks = kshift_make(c->k);
#pragma GCC unroll 8
    for (int j = 0; j < S; j++)
#pragma GCC unroll 16
        for (int v = 0; v < NVO; v++) {
            uint64_t *o = r + (size_t)j * n + VL * v;
            if (j < S - 1) {
                const size_t d = (size_t)(S + j) * L + VL * v;
                const vi x = vi_add(vi_load(rlo + d), carry[v]);
                /* the spill must end inside r: not so for small n with 8
                 * lanes (n = 3, s = 4: row 2's spill passes r's 12 words).
                 * With 4 lanes it never passes (at most 4 - n lanes past a
                 * row when n < 4, and n >= 2), and the test is compiled out:
                 * its branches made the split instances 35% larger */
                if (VL > 4 && v == NVO - 1 && VL * NVO - n > (S - 1 - j) * n)
                    store_lanes(o, vi_and(x, km), n - VL * v);
                else
                    vi_storeu((int64_t *)o, vi_and(x, km));
                carry[v] = vi_add(vi_srak(x, ks), vi_sllv(vi_load(rhi + d), kh));
            } else if (v < NVO - 1)
                vi_storeu((int64_t *)o, carry[v]);
            else
                store_lanes(o, carry[v], n - VL * v);
        }
}

/* r <- a b phi^-1 (Alg. 3); SQ: b == a, the squaring */
static inline AI FMA_TARGET void fm_body(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                                         const uint64_t *b, const int S, const int NV, const int SQ)
{
    enum { LM = VL * NV_MAX, SM = 4 };
    const size_t L = VL * (size_t)NV;
    const int n = c->n;
    _Alignas(64) double seqa[SM * SEQ], seqb[SQ ? 1 : SM * SEQ], xb[LM], tb[LM];
    _Alignas(64) int64_t rlo[2 * SM * LM], rhi[2 * SM * LM];
    const vi km = vi_set1((long long)c->kmask), kh = vi_set1(51 - c->k);
    const kshift ks = kshift_make(c->k);
    vi carry[NV_MAX];
    /* A's wrapped entries serve only the squaring's windows (carried = 0);
     * B's, the product's, carry lambda b in a lambda-carried set */
    fm_seq(c, seqa, a, S, NV, 0);
    if (!SQ)
        fm_seq(c, seqb, b, S, NV, c->lam_carried);
    zero_rows(rlo, 2 * S * L);
    zero_rows(rhi, 2 * S * L);
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = vi_zero();
    fm_ops(rlo, rhi, seqa, seqb, n, 0, S, NV, L, SQ);
#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        fm_t(c, rlo + i * L, carry, xb, tb, NULL, km, NV, 0);
        /* EARLY (as fu_body): the operand products of step i + 1 fill the
         * latency of T -> T M_j -> carry (the squaring's step i + 1 only
         * adds to rows from 2i + 2, after T_(i+1) reads row i + 1) */
        if (i + 1 < S)
            fm_ops(rlo, rhi, seqa, seqb, n, i + 1, S, NV, L, SQ);
        fm_prod_col_all(rlo + i * L, rhi + i * L, c->mfd, tb, n, S, NV, L, (size_t)c->mfl, 0);
        fm_div(rlo + i * L, rhi + i * L, carry, ks, kh, NV);
    }
    fm_out(c, r, rlo, rhi, carry, S, NV, L);
}

/* ---- the Toeplitz split: one 2-way level (Karatsuba on Toeplitz blocks) ----
 * With m = VL H lanes a half (2m >= n, coefficients past n are 0) the 2m x
 * 2m Toeplitz matrix of t is [[T1, T0], [T2, T1]], the m x m blocks of t[x],
 * t[x - m] and t[x + m], x in (-m, m), and
 *   out_lo = T1 (a_lo + a_hi) + (T0 - T1) a_hi
 *   out_hi = T1 (a_lo + a_hi) + (T2 - T1) a_lo
 * three m x m products instead of four (the shared one added to both halves:
 * fm_store's DUP, or fs_tri's shared sums), for A_j B_i (B_i's three half
 * sequences made per call)
 * and for T M_j (M_j's three column matrices made once, mfs). The integers
 * are the unsplit kernel's, lanes < n; rows past n are junk that never
 * reaches a result (T's lanes >= n are 0, as M'_0's columns there are; fm_out
 * stores lanes < n). The cost: the sums, the differences and the shared
 * product's second store, against a quarter of the products: measured in
 * docs/pmns-mp.md. */
#define HMAX (24 / VL)  /* halves of up to HMAX vectors: n <= 48 */
#define HSTR 48         /* stride of a digit's vectors and half sequences */

/* U[v] += lambda (lanes VL v + f .. VL v + f + VL - 1 of the digits d, zero
 * outside [0, 2m)), v < 2H, f in [-(2 VL - 2), 1] (public: from n): a
 * whole-vector offset through aligned stores and loads of the same size
 * (which forward), and the rest of the shift by lane_pick */
static inline AI FMA_TARGET void lam_shift_add(vd *U, const vd *d, vd lam, int f, const int H)
{
    _Alignas(64) double z[VL * (2 * HMAX + 4)];
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H + 4; v++)
        vd_store(z + VL * v, v >= 2 && v < 2 * H + 2 ? d[v - 2] : vd_zero());
    const int F = (f + 2 * VL) / VL - 2, rho = f - VL * F; /* f = VL F + rho, rho in [0, VL) */
    const lane_sel sel = lane_sel_make(rho);
    const double *zb = z + VL * (F + 2);
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H; v++) {
        const vd w = lane_pick(vd_load(zb + VL * v), vd_load(zb + VL * v + VL), sel);
        U[v] = vd_fma(w, lam, U[v]); /* lambda a exact, U[v] is 0 or a_0 in lane VL - 1 */
    }
}

/* a's digits for the split: dig[j HSTR ..], 2m doubles (lanes >= n: 0);
 * sum[j HSTR ..], the m sums of the two halves; hs (not NULL): the three half
 * sequences of each digit, hs[(3 j + w) HSTR + q], q = x + m - 1: w = 0
 * t[x], w = 1 t[x - m] - t[x], w = 2 t[x + m] - t[x], t the digit's Toeplitz
 * sequence (t[d] = a_d, t[-d] = lambda a_(n-d)) with zeros past (-n, 2m) */
static inline AI FMA_TARGET void fs_prep(const mns_pmns_mp_ctx *c, const uint64_t *a, double *dig,
                                         double *sum, double *hs, const int S, const int H)
{
    const int n = c->n, m = VL * H;
    const vd lam = vd_set1((double)c->lambda);
    vi carry[2 * HMAX];
#pragma GCC unroll 16
    for (int v = 0; v < 2 * H; v++)
        carry[v] = vi_zero();
#pragma GCC unroll 8
    for (int j = 0; j < S; j++) {
        vd d[2 * HMAX];
        fm_digit(c, a, j, carry, d, NULL, 2 * H, j == S - 1);
        if (dig) {
#pragma GCC unroll 16
            for (int v = 0; v < 2 * H; v++)
                vd_store(dig + j * HSTR + VL * v, d[v]);
#pragma GCC unroll 8
            for (int v = 0; v < H; v++)
                vd_store(sum + j * HSTR + VL * v, vd_add(d[v], d[v + H]));
        }
        if (!hs)
            continue;
        /* U_v = u0[VL v .. VL v + VL - 1], u0[d + 2m - 1] = t[d] for d in
         * [-(2m - 1), 2m - 1] (zeros outside (-n, n)), built in registers:
         * stored vectors read back at other offsets wait until the stores
         * commit (no store forwarding), after the previous call's tail
         * retired, which cost 0.1x a 1024-bit product. For VL v + l <= 2m -
         * 2 it is lambda a_(VL v + l + f), f = n + 1 - 2m (zero outside [0,
         * n): a shift by f lanes of the zero-padded digits, f public), and
         * from 2m - 1 on a_(VL v + l - (2m - 1)) (a shift by one lane less
         * than a whole vector) */
        vd U[4 * HMAX];
#pragma GCC unroll 32
        for (int v = 0; v < 4 * H; v++) {
            const vd z = vd_zero();
            U[v] = lane_shift_1(v >= 2 * H ? d[v - 2 * H] : z,
                                v + 1 >= 2 * H && v + 1 < 4 * H ? d[v + 1 - 2 * H] : z);
        }
        lam_shift_add(U, d, lam, n + 1 - 2 * m, H);
#pragma GCC unroll 16
        for (int u = 0; u < 2 * H; u++) {
            const vd s1 = U[u + H];
            vd_store(hs + (3 * j + 0) * HSTR + VL * u, s1);
            vd_store(hs + (3 * j + 1) * HSTR + VL * u, vd_sub(U[u], s1));
            vd_store(hs + (3 * j + 2) * HSTR + VL * u, vd_sub(U[u + 2 * H], s1));
        }
    }
}

/* The three split products of a block of SJ <= 2 rows (from j0) and one
 * vector v of each half, summed in registers: X = P1 + P2 (lanes [0, m)),
 * Y = P1 + P3 (lanes [m, 2m)), P1's sums the start of both. One
 * read-modify-write of R per half instead of four (P1 twice), and its bias
 * once, and one store-to-load round trip less between T and the next
 * division. At most 8 accumulators: with the windows, broadcasts and
 * constants in the 16 ymm registers. Measured on Zen 3 against the three
 * products one at a time (in one process, three primes a size): 0.92-0.95x
 * the time at H = 1 (1024 bits), 0.98-1.05x at H = 2-3, 1.04-1.11x at H = 6
 * (fewer rows share each window load): TRI_HMAX. */
#define TRI_HMAX 1
static inline AI FMA_TARGET void fs_tri_store(int64_t *rlo, int64_t *rhi, const vi *xl,
                                              const vi *xh, const vi *yl, const vi *yh,
                                              const int SJ, const int v, const int H,
                                              const size_t L, const int DBL)
{
    fm_store(rlo, rhi, xl, xh, 2 * VL * H, SJ, 1, v, L, DBL, 0);
    fm_store(rlo + VL * H, rhi + VL * H, yl, yh, 2 * VL * H, SJ, 1, v, L, DBL, 0);
}

/* operand products: P1 = sum x hs0, P2 = dig_hi x hs1, P3 = dig_lo x hs2
 * (windows of the half sequences, digits broadcast), rows from rlo */
static inline AI FMA_TARGET void fs_tri_win(int64_t *rlo, int64_t *rhi, const double *hs,
                                            const double *dig, const double *sum, const int SJ,
                                            const int v, const int H, const size_t L,
                                            const int DBL)
{
    const int m = VL * H;
    vi xl[2], xh[2], yl[2], yh[2];
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++)
        xl[j] = xh[j] = vi_zero();
    const double *w0 = hs + (m - 1) + VL * v, *w1 = w0 + HSTR, *w2 = w0 + 2 * HSTR;
    for (int cc = 0; cc < m; cc++) {
        const vd w = vd_loadu(w0 - cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++)
            mac(&xl[j], &xh[j], w, vd_bcast(sum + j * HSTR + cc));
    }
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++) {
        yl[j] = xl[j];
        yh[j] = xh[j];
    }
    for (int cc = 0; cc < m; cc++) {
        const vd wa = vd_loadu(w1 - cc), wb = vd_loadu(w2 - cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++) {
            mac(&xl[j], &xh[j], wa, vd_bcast(dig + j * HSTR + m + cc));
            mac(&yl[j], &yh[j], wb, vd_bcast(dig + j * HSTR + cc));
        }
    }
    fs_tri_store(rlo, rhi, xl, xh, yl, yh, SJ, v, H, L, DBL);
}

/* T M_j: P1 = ts x M0, P2 = T_hi x M1, P3 = T_lo x M2 (mfs' three column
 * matrices, CM apart, column cc of row j at (cc S + j) m), rows j0.. */
static inline AI FMA_TARGET void fs_tri_col(int64_t *rlo, int64_t *rhi, const double *mfs,
                                            const double *ts, const double *tb, const int S,
                                            const int j0, const int SJ, const int v, const int H,
                                            const size_t L)
{
    const int m = VL * H;
    const size_t CM = (size_t)m * S * m;
    vi xl[2], xh[2], yl[2], yh[2];
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++)
        xl[j] = xh[j] = vi_zero();
    const double *col = mfs + (size_t)j0 * m + VL * v;
    for (int cc = 0; cc < m; cc++) {
        const vd b = vd_bcast(ts + cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++)
            mac(&xl[j], &xh[j], vd_load(col + ((size_t)cc * S + j) * m), b);
    }
#pragma GCC unroll 2
    for (int j = 0; j < SJ; j++) {
        yl[j] = xl[j];
        yh[j] = xh[j];
    }
    for (int cc = 0; cc < m; cc++) {
        const vd ba = vd_bcast(tb + m + cc), bb = vd_bcast(tb + cc);
#pragma GCC unroll 2
        for (int j = 0; j < SJ; j++) {
            const size_t o = ((size_t)cc * S + j) * m;
            mac(&xl[j], &xh[j], vd_load(col + CM + o), ba);
            mac(&yl[j], &yh[j], vd_load(col + 2 * CM + o), bb);
        }
    }
    fs_tri_store(rlo + (size_t)j0 * L, rhi + (size_t)j0 * L, xl, xh, yl, yh, SJ, v, H, L, 0);
}

/* the three split products of the digits (dig, sum: SJ digits) by the half
 * sequences hs of one digit, into rows from rlo/rhi (DBL: see fm_store):
 * fused in blocks of two rows up to TRI_HMAX (the second block's first row
 * is a cross row), else one product at a time, SJ rows against each window
 * (fewer loads a product, which pays at larger halves) */
static inline AI FMA_TARGET void fs_prod3(int64_t *rlo, int64_t *rhi, const double *hs,
                                          const double *dig, const double *sum, const int SJ,
                                          const int H, const size_t L, const int DBL)
{
    const int m = VL * H;
    if (H > TRI_HMAX) {
        fm_prod_win_all(rlo, rhi, hs + (m - 1), sum, HSTR, m, SJ, H, L, DBL, m);
        fm_prod_win_all(rlo, rhi, hs + HSTR + (m - 1), dig + m, HSTR, m, SJ, H, L, DBL, 0);
        fm_prod_win_all(rlo + m, rhi + m, hs + 2 * HSTR + (m - 1), dig, HSTR, m, SJ, H, L, DBL, 0);
        return;
    }
#pragma GCC unroll 2
    for (int j0 = 0; j0 < SJ; j0 += 2)
#pragma GCC unroll 8
        for (int v = 0; v < H; v++)
            fs_tri_win(rlo + (size_t)j0 * L, rhi + (size_t)j0 * L, hs, dig + j0 * HSTR,
                       sum + j0 * HSTR, SJ - j0 >= 2 ? 2 : 1, v, H, L, DBL && j0 ? 2 : DBL);
}

/* the operand products of step i (as fm_ops), split */
static inline AI FMA_TARGET void fs_ops(int64_t *rlo, int64_t *rhi, const double *dig,
                                        const double *sum, const double *hsa, const double *hsb,
                                        const int i, const int S, const int H, const size_t L,
                                        const int SQ)
{
    if (!SQ) {
        fs_prod3(rlo + i * L, rhi + i * L, hsb + 3 * i * HSTR, dig, sum, S, H, L, 0);
        return;
    }
    const double *hs = hsa + 3 * i * HSTR, *dg = dig + i * HSTR, *sm = sum + i * HSTR;
    int64_t *l2 = rlo + 2 * i * L, *h2 = rhi + 2 * i * L;
    switch (S - i) {
    case 4: fs_prod3(l2, h2, hs, dg, sm, 4, H, L, 1); break;
    case 3: fs_prod3(l2, h2, hs, dg, sm, 3, H, L, 1); break;
    case 2: fs_prod3(l2, h2, hs, dg, sm, 2, H, L, 1); break;
    default: fs_prod3(l2, h2, hs, dg, sm, 1, H, L, 1); break;
    }
}

/* r <- a b phi^-1 (Alg. 3) with the split; SQ: b == a */
static inline AI FMA_TARGET void fs_body(const mns_pmns_mp_ctx *c, uint64_t *r, const uint64_t *a,
                                         const uint64_t *b, const int S, const int H, const int SQ)
{
    enum { LM = 2 * VL * HMAX, SM = 4 };
    const int m = VL * H, NV = 2 * H;
    const size_t L = 2 * (size_t)m;
    _Alignas(64) double dig[SM * HSTR], sum[SM * HSTR], hsa[SQ ? 3 * SM * HSTR : 1],
        hsb[SQ ? 1 : 3 * SM * HSTR], xb[LM], tb[LM], ts[LM / 2];
    _Alignas(64) int64_t rlo[2 * SM * LM], rhi[2 * SM * LM];
    const vi km = vi_set1((long long)c->kmask), kh = vi_set1(51 - c->k);
    const kshift ks = kshift_make(c->k);
    vi carry[2 * HMAX];
    fs_prep(c, a, dig, sum, SQ ? hsa : NULL, S, H);
    if (!SQ)
        fs_prep(c, b, NULL, NULL, hsb, S, H);
    zero_rows(rlo, 2 * S * L);
    zero_rows(rhi, 2 * S * L);
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++)
        carry[v] = vi_zero();
    fs_ops(rlo, rhi, dig, sum, hsa, hsb, 0, S, H, L, SQ);
#pragma GCC unroll 1
    for (int i = 0; i < S; i++) {
        fm_t(c, rlo + i * L, carry, xb, tb, ts, km, NV, H);
        if (i + 1 < S) /* EARLY, as fm_body */
            fs_ops(rlo, rhi, dig, sum, hsa, hsb, i + 1, S, H, L, SQ);
        int64_t *ril = rlo + i * L, *rih = rhi + i * L;
        if (H > TRI_HMAX) {
            const size_t CM = (size_t)m * S * m; /* one of mfs' three matrices */
            fm_prod_col_all(ril, rih, c->mfs, ts, m, S, H, L, (size_t)m, m);
            fm_prod_col_all(ril, rih, c->mfs + CM, tb + m, m, S, H, L, (size_t)m, 0);
            fm_prod_col_all(ril + m, rih + m, c->mfs + 2 * CM, tb, m, S, H, L, (size_t)m, 0);
        } else /* rows i and i + 1 first: the division and the next T wait for them */
#pragma GCC unroll 2
            for (int j0 = 0; j0 < S; j0 += 2)
#pragma GCC unroll 8
                for (int v = 0; v < H; v++)
                    fs_tri_col(ril, rih, c->mfs, ts, tb, S, j0, S - j0 >= 2 ? 2 : 1, v, H, L);
        fm_div(ril, rih, carry, ks, kh, NV);
    }
    fm_out(c, r, rlo, rhi, carry, S, (c->n + VL - 1) / VL, L);
}

/* the product and the squaring of an instance of BODY (fm_body, fs_body) */
#define FMA_INST(P, BODY, S, X)                                                                 \
    static FMA_TARGET void P##_mul_##S##_##X(const mns_pmns_mp_ctx *c, uint64_t *r,             \
                                             const uint64_t *a, const uint64_t *b)              \
    {                                                                                           \
        BODY(c, r, a, b, S, X, 0);                                                              \
    }                                                                                           \
    static FMA_TARGET void P##_sqr_##S##_##X(const mns_pmns_mp_ctx *c, uint64_t *r,             \
                                             const uint64_t *a, const uint64_t *b)              \
    {                                                                                           \
        BODY(c, r, a, b, S, X, 1);                                                              \
    }
#define FM_INST(S, NV) FMA_INST(fm, fm_body, S, NV)
#define FS_INST(S, H) FMA_INST(fs, fs_body, S, H)

#endif
