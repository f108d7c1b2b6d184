/* Elementwise work on vectors without the GIL, split over threads when
 * asked: each thread takes one contiguous range of indices. */
#include "ext.h"

#include <pthread.h>

#include "field/field_internal.h"
#include "vecops.h"

static int run_powm(const mnspy_job *j)
{
    const size_t L = j->F->limbs;
    uint64_t *scratch = NULL;
    size_t need = mns_field_powm_scratch_words(j->F->f, j->ebits);
    if (need && !(scratch = PyMem_RawMalloc(need * 8)))
        return -1;
    for (Py_ssize_t i = j->lo; i < j->hi; i++) {
        const uint64_t *e = j->e + (size_t)i * j->estep;
        size_t en = j->ewords;
        while (en && !e[en - 1])
            en--;
        mpz_t z;
        mpz_roinit_n(z, (const mp_limb_t *)e, (mp_size_t)en);
        mns_field_powm_scratch(j->F->f, j->r + i * L, j->a + i * L, z, scratch);
    }
    PyMem_RawFree(scratch);
    return 0;
}

static int run_range(const mnspy_job *j)
{
    const mns_field *f = j->F->f;
    const size_t L = j->F->limbs, bs = j->bstep ? L : 0;
    uint64_t *r = j->r + j->lo * L;
    const uint64_t *a = j->a + j->lo * L, *b = j->b ? j->b + j->lo * bs : NULL;
    const Py_ssize_t n = j->hi - j->lo;
    switch (j->op) {
    case MNSPY_MUL:
        for (Py_ssize_t i = 0; i < n; i++, r += L, a += L, b += bs)
            mns_field_mul(f, r, a, b);
        return 0;
    case MNSPY_SQR:
        for (Py_ssize_t i = 0; i < n; i++, r += L, a += L)
            mns_field_sqr(f, r, a);
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
        return run_powm(j);
    }
    return -1;
}

static void *thread_main(void *arg)
{
    mnspy_job *j = arg;
    j->status = run_range(j);
    return NULL;
}

/* Runs the job over [0, n) on `threads` threads (this one among them), the
 * GIL released. -1 with an exception set on failure. */
int mnspy_run(const mnspy_job *proto, Py_ssize_t n, int threads)
{
    if (threads < 1)
        threads = 1;
    if (threads > n)
        threads = n > 0 ? (int)n : 1;
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
        jobs[t].lo = n * t / threads;
        jobs[t].hi = n * (t + 1) / threads;
    }
    int failed = 0;
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
    for (int t = 0; t < threads; t++)
        failed |= jobs[t].status != 0;
    Py_END_ALLOW_THREADS
    PyMem_Free(jobs);
    PyMem_Free(tid);
    PyMem_Free(started);
    if (failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}
