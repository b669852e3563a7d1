/* fatbin.h — the PTX inside an nvcc fat binary.
 *
 * nvcc embeds device code in the host program as a fat binary: a header and a list of entries,
 * each a cubin (SASS for one sm_XX) or PTX text (for one compute_XX). CUDA 13's nvcc compresses
 * PTX entries by default (zstd; LZ4 with --compress-mode=speed); both are decompressed here.
 * The layout read here is the one nvcc 12.x/13.x writes (exec/cudart/README.md describes the
 * fields); anything that does not fit it is an error naming what is wrong, never a guess.
 *
 * The program hands its fat binaries to __cudaRegisterFatBinary as a small wrapper:
 * version 1 points at one fat binary (a translation unit); version 2 (-rdc=true) points at the
 * device-linked one and lists the translation units' own fat binaries, which hold the PTX. */
#ifndef GR_EXEC_CUDART_FATBIN_H
#define GR_EXEC_CUDART_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum { GR_FATBIN_MAGIC = 0xBA55ED50u, GR_FATBIN_WRAPPER_MAGIC = 0x466243b1 };

typedef struct gr_fatbin_ptx {
    char *text;          /* NUL-terminated PTX, decompressed */
    size_t len;
    uint32_t arch;       /* the XX of compute_XX */
    uint16_t isa_major, isa_minor; /* PTX ISA version of the entry */
    char *unit;          /* the translation unit it came from ("app.cu"), or NULL */
    char *options;       /* options recorded by nvcc ("--generate-line-info"), or NULL */
} gr_fatbin_ptx;

typedef struct gr_fatbin {
    gr_fatbin_ptx *ptx;
    int nptx;
    int ncubins;         /* SASS entries: the simulator cannot run them */
    uint32_t cubin_arch; /* the sm_XX of one of them (for messages), 0 when none */
} gr_fatbin;

/* Appends the PTX entries of the fat binary at `data` (at most `max` readable bytes) to `out`
 * (zero-initialize it first). Compressed entries are decompressed. */
bool gr_fatbin_parse(const void *data, size_t max, gr_fatbin *out, gr_error *err);

/* The fat binaries a registration wrapper names: `*images` gets up to `cap` pointers to fat
 * binary headers (1 for version 1, the units' for version 2) and the count is returned through
 * `*n`. The images live in the program's memory; their own headers give their sizes. */
bool gr_fatbin_wrapper_images(const void *wrapper, const void **images, int cap, int *n,
                              gr_error *err);

/* The entry the simulator runs: the highest compute_XX not above `device_arch`, else the lowest
 * one there is (a GPU would refuse it; the simulator can still try). NULL when there is no PTX. */
const gr_fatbin_ptx *gr_fatbin_pick_ptx(const gr_fatbin *fb, uint32_t device_arch);

void gr_fatbin_free(gr_fatbin *fb);

#endif
