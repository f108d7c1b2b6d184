/* What every driver of bench/ (mns-bench, mns-tune) shares about mb_impl. */
#include "impl.h"

#include <string.h>

const char *const mb_op_names[MB_NOPS] = {"modmul", "modsqr", "modexp"};

void mb_impl_destroy(mb_impl *im)
{
    if (im->destroy)
        im->destroy(im->state);
    memset(im, 0, sizeof *im);
}
