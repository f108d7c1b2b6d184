/* Elementwise work on vectors without the GIL, split over threads when
 * asked: each thread takes one contiguous range of indices (a multiple of
 * eight long but for the last, so that the batch calls of mns.h fill the
 * eight lanes of their IFMA kernels where the CPU has them). Products,
 * squares and powers go through those batch calls (mns_field_mul_n,
 * mns_field_sqr_n, mns_field_powm_n_scratch). */
#include "ext.h"

#include <pthread.h>

#include "vecops.h"

/* The batch exponentiation over the range: one mpz view per exponent (the
 * same words for all when estep is 0), scratch of the _itch size. */
static int run_powm(mnspy_job *j, uint64_t *r, const uint64_t *a, Py_ssize_t n)
{
    const mns_field *f = j->F->f;
    __mpz_struct *es = PyMem_RawMalloc((n ? (size_t)n : 1) * sizeof *es);
    uint64_t *scratch = PyMem_RawMalloc((mns_field_powm_n_itch(f, j->ebits) + 1) * 8);
    if (!es || !scratch) {
        PyMem_RawFree(es);
        PyMem_RawFree(scratch);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint64_t *e = j->e + (size_t)(j->lo + i) * j->estep;
        size_t en = j->ewords;
        while (en && !e[en - 1])
            en--;
        mpz_roinit_n(&es[i], (const mp_limb_t *)e, (mp_size_t)en);
    }
    mns_field_powm_n_scratch(f, r, a, (const mpz_t *)es, (size_t)n, scratch);
    PyMem_RawFree(es);
    PyMem_RawFree(scratch);
    return 0;
}

/* The inverses; the first element without one is reported (its output is
 * 0, as the library leaves it), the others are computed all the same. */
static int run_inv(mnspy_job *j, uint64_t *r, const uint64_t *a, Py_ssize_t n)
{
    const size_t L = j->F->limbs;
    int status = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (mns_field_inv(j->F->f, r + i * L, a + i * L) != MNS_OK && !status) {
            status = 1;
            j->failed = j->lo + i;
        }
    return status;
}

static int run_range(mnspy_job *j)
{
    const mns_field *f = j->F->f;
    const size_t L = j->F->limbs, bs = j->bstep ? L : 0;
    uint64_t *r = j->r + j->lo * L;
    const uint64_t *a = j->a + j->lo * L, *b = j->b ? j->b + j->lo * bs : NULL;
    const Py_ssize_t n = j->hi - j->lo;
    switch (j->op) {
    case MNSPY_MUL:
        if (j->bstep) {
            mns_field_mul_n(f, r, a, b, (size_t)n);
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++, r += L, a += L)
            mns_field_mul(f, r, a, b);
        return 0;
    case MNSPY_SQR:
        mns_field_sqr_n(f, r, a, (size_t)n);
        return 0;
    case MNSPY_ADD:
    case MNSPY_SUB:
        for (Py_ssize_t i = 0; i < n; i++, r += L, a += L, b += bs) {
            (j->op == MNSPY_ADD ? mns_field_add : mns_field_sub)(f, r, a, b);
            if (!j->F->full_reduce)
                mns_field_reduce(f, r, r);
        }
        return 0;
    case MNSPY_POWM:
        return run_powm(j, r, a, n);
    case MNSPY_INV:
        return run_inv(j, r, a, n);
    }
    return -1;
}

static void *thread_main(void *arg)
{
    mnspy_job *j = arg;
    j->status = run_range(j);
    return NULL;
}

/* Raises the exception of the first failed range; -1. */
static int job_error(const mnspy_job *jobs, int threads)
{
    for (int t = 0; t < threads; t++) {
        if (jobs[t].status == 1) {
            mnspy_raise(MnsNotInvertible, MNS_ERANGE, "element %zd of the vector has no inverse "
                        "modulo p", jobs[t].failed);
            return -1;
        }
        if (jobs[t].status) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* Runs the job over [0, n) on `threads` threads (this one among them), the
 * GIL released. -1 with an exception set on failure. */
int mnspy_run(const mnspy_job *proto, Py_ssize_t n, int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > (n + 7) / 8)
        threads = n > 8 ? (int)((n + 7) / 8) : 1;
    mnspy_job *jobs = PyMem_Calloc((size_t)threads, sizeof *jobs);
    pthread_t *tid = PyMem_Calloc((size_t)threads, sizeof *tid);
    int *started = PyMem_Calloc((size_t)threads, sizeof *started);
    if (!jobs || !tid || !started) {
        PyMem_Free(jobs);
        PyMem_Free(tid);
        PyMem_Free(started);
        PyErr_NoMemory();
        return -1;
    }
    for (int t = 0; t < threads; t++) {
        jobs[t] = *proto;
        jobs[t].lo = t ? (n * t / threads) & ~(Py_ssize_t)7 : 0;
        jobs[t].hi = t + 1 < threads ? (n * (t + 1) / threads) & ~(Py_ssize_t)7 : n;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, thread_main, &jobs[t]) == 0;
    for (int t = 1; t < threads; t++)
        if (!started[t]) /* no thread: this one does the range */
            thread_main(&jobs[t]);
    thread_main(&jobs[0]);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
    Py_END_ALLOW_THREADS
    int rc = job_error(jobs, threads);
    PyMem_Free(jobs);
    PyMem_Free(tid);
    PyMem_Free(started);
    return rc;
}
