/* export.h — a witness as a standalone CUDA program (`gpurace export WITNESS -o repro.cu`).
 *
 * The program embeds the kernel source verbatim and the witness's inputs, allocates the
 * buffers, launches with the witness's grid, block and shared memory through
 * cudaLaunchKernel (raw argument bytes, so structs passed by value work too), copies the
 * outputs back and prints an FNV-1a digest per output buffer. `./repro --repeat N` runs the
 * launch N times from the same inputs and reports whether the outputs differ between runs
 * (exit status 1 when they do). It compiles with `nvcc repro.cu` as it is. The simulator's
 * schedule gene has no meaning on a GPU; the file says so. */
#ifndef GR_CORPUS_EXPORT_H
#define GR_CORPUS_EXPORT_H

#include <stdbool.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "corpus/witness.h"

/* `source`: the kernel's source text (checked against the witness's hash unless `force`).
 * `source_name`: the file name for #line and messages. `symbol`: the expression that names
 * the kernel in C++ (`"scale<float>"` for a template instance); NULL uses the witness's kernel
 * name. */
bool gr_export_reproducer(const gr_witness *w, const char *source, const char *source_name,
                          const char *symbol, bool force, gr_strbuf *out, gr_error *err);

#endif
