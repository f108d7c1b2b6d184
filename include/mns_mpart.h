/* mns_mpart.h — multipartite modular multiplication across cores.
 *
 * Giorgi, Imbert, Izard, "Multipartite Modular Multiplication" (2011): one
 * product A B mod P of a large modulus runs on several cores. Both operands
 * are cut into k chunks; the k^2 partial products are summed by weight; the
 * low weights are reduced from the bottom by a partial Montgomery reduction
 * (PMR, Algorithm 1), the high weights from the top by a partial Barrett
 * reduction (PBR, Algorithm 2), the middle weights are not reduced at all;
 * the Q-values of each side are summed (section 3.4) and multiplied by P
 * once, in pieces of P on several threads. The tasks are spread over a thread
 * pool by the schedules of section 4. Only the parts of products that matter
 * are computed where GMP offers it (its internal mpn_mullo_n and
 * mpn_mulmod_bnm1, checked at configure time; portable full products
 * otherwise and under MNS_CPU=generic), the threads add into accumulators
 * modulo beta^K - 1, and for k = 2 the middle products are one Karatsuba
 * product (docs/mpart.md).
 *
 * Backends (mns_field_new specs), any odd modulus p >= 3 of any size:
 *
 *   "mpart[:k=K,threads=T,plan=P]"
 *       K = 1..64 chunks per operand (lowered until no chunk is empty, i.e.
 *       to at most the word count of p); default from T: 2 for T <= 3, and
 *       Table 5 of the paper beyond (4 -> 4, 6 -> 4, 8 -> 8, 12 -> 6).
 *       T = 1..64 threads (the caller is one of them); default: the online
 *       CPU count (at most 12) from MNS_MPART_CROSSOVER_BITS bits up, 1 below.
 *       P = auto (default: Table 3 for T = 4, k = 4; Table 4 for T = 6,
 *       k = 4; otherwise the cheaper of "chain" and "lpt" by a cost model of
 *       GMP's multiplication), chain, lpt.
 *   "bipartite[:threads=T,plan=P]"
 *       Kaihara-Takagi: A whole, B in two halves; A B_0 by PMR, A B_1 by PBR.
 *   "mpart-mont[:threads=T]", "mpart-barrett[:threads=T]"
 *       the paper's parallel baselines: Montgomery and Barrett whose three
 *       integer products are each cut over the same pool (three fork-joins).
 * mns_field_describe() reports the k, thread count and schedule in use, and
 * whether the short products are GMP's (lo=mullo qp=bnm1) or full ones.
 *
 * Representation (mpart, bipartite): radix beta = 2^64, n = words of p,
 * h = ceil(n / 2). An element x is stored as the n-word integer
 * x beta^h mod p; mul and sqr compute a b beta^-h mod p (the paper's A B
 * beta^(-n/2)), so that products stay in this domain; set_mpz and get_mpz
 * convert. (mpart-mont stores x beta^n mod p, mpart-barrett stores x.)
 * Invariant (tight): 0 <= stored value < p, after every operation, add and
 * sub included; so loose = tight and mns_field_delta() is INT_MAX.
 * Inside a multiplication (for those who read the code): every partial
 * remainder keeps the bounds of the paper — PMR leaves < beta^(m-t) + P
 * before its one conditional subtraction, PBR < beta^(m-t) + 2 beta^(m-n-t) P
 * before its two (Theorem 2) — and the sum of all parts R = A B beta^-h + (a
 * multiple of p) is bounded exactly at context creation (it fits n + 1 words
 * for every k, and R < beta^(K-1) identifies it among its residues modulo
 * beta^K - 1), then reduced to [0, p) by a last Barrett step on bits.
 *
 * Threads and sharing. Each context owns a pool of T - 1 threads, created
 * with it and joined by mns_field_free; between calls they spin for about
 * a millisecond and then sleep on a condition variable, so an idle context
 * costs no CPU; a worker that has not started its share when the caller has
 * finished its own (asleep, or descheduled on a loaded machine) has that
 * share done by the caller, so a call is never slower than one thread plus
 * the hand-off; a call allocates nothing and creates no thread (GMP's own
 * temporaries aside), and has at most one barrier (the "lpt" and table
 * schedules; "chain" has none, its one hand-over is claimed, never waited
 * for) plus the final join. A context may be used by several threads at once: the pool serves
 * one call at a time (a mutex, taken with trylock); a call that finds it
 * busy computes the whole product on its own thread with buffers it
 * allocates for that call (if that allocation fails it waits for the pool).
 * Results never depend on which path ran.
 *
 * Timing. NOT constant time, unlike the mns_field contract's default. The
 * sub-products use GMP's mpn_mul / mpn_sqr, whose Toom-Cook code branches on
 * the signs of intermediate differences, i.e. on the data; the mpart code
 * itself has no data-dependent branch or memory index (carries are collected
 * in side vectors, the conditional subtractions are masked), and thread
 * scheduling adds noise but no data dependence. powm goes through the shared
 * fixed-window exponentiation (every window multiplies, the table is read
 * whole), so its sequence of operations does not depend on the exponent, but
 * each operation inherits GMP's timing. Use "mont" or a PMNS backend where
 * timing matters.
 */
#ifndef MNS_MPART_H
#define MNS_MPART_H

#include "mns.h"

/* Below this many bits of p, one thread beat two on the benchmark machine
 * (docs/mpart.md); the default thread count follows it. */
#define MNS_MPART_CROSSOVER_BITS 2048

#endif /* MNS_MPART_H */
