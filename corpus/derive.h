/* derive.h — a kernel spec from the launches a program made (`gpurace spec derive DIR`, and
 * `gpurace fuzz --seeds DIR` without --spec): what the recorded launches have in common,
 * written the way a person writes a spec (docs/spec.md), with a comment on each entry that says
 * what the recordings showed, so it can be read, checked and edited.
 *
 * What it looks for, in every recorded launch at once (docs/spec.md, "Derived specs"):
 *   - launch shapes: the grids, blocks and shared bytes seen; a shape varies only where the
 *     recordings vary or the kernel derives its work from it (it reads %ntid / %nctaid);
 *   - scalars: constants that never change, the values and ranges seen; a scalar that sizes
 *     buffers may grow or shrink when the kernel is written for any size (it reads blockDim or
 *     gridDim), and the grid follows it where the program computed the grid from it;
 *   - buffer lengths as relations: len(x) == n, n + 1, n * m, gridDim.x, threads, or a constant;
 *   - contents: zeros and constants, permutations, indices into another buffer (unique or
 *     not), sorted arrays, CSR graphs (offsets from 0, non-decreasing, ending at the neighbor
 *     list's length), otherwise the range of values seen. */
#ifndef GR_CORPUS_DERIVE_H
#define GR_CORPUS_DERIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "corpus/launch.h"
#include "jit/ptx/ptx_ir.h"
#include "jit/signature/signature.h"

/* Which launch-shape special registers a kernel reads, itself or in the functions it calls: bit
 * a (0 x, 1 y, 2 z) of `ntid` for blockDim, of `nctaid` for gridDim. */
typedef struct gr_launch_reads {
    bool known;      /* false: no PTX to tell (every axis then counts as read) */
    uint8_t tid, ntid, ctaid, nctaid;
} gr_launch_reads;

/* Scans the kernel `ptx_name` of `m` and every function it calls. False when there is no such
 * kernel (`out->known` false). */
bool gr_launch_reads_of(const ptx_module *m, const char *ptx_name, gr_launch_reads *out);

typedef struct gr_derive_options {
    const char *origin;     /* where the launches came from, for the comment ("seeds/") */
    gr_launch_reads reads;
} gr_derive_options;

/* The spec as JSON text for `sig`'s kernel from `n` (at least one) launches, each fitting the
 * signature. Deterministic: the same launches give the same text. */
bool gr_spec_derive(const gr_kernel_sig *sig, const gr_input *const *launches, int n,
                    const gr_derive_options *o, gr_strbuf *out, gr_error *err);

#endif
