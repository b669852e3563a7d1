/* sim.h — the PTX simulator backend (exec/sim): runs a kernel on the CPU, one launch at a time,
 * under a chosen schedule, with bounds-checked memory and barrier checking. It implements
 * exec/backend.h; this header adds only the constructor and address-window queries. */
#ifndef GR_EXEC_SIM_H
#define GR_EXEC_SIM_H

#include <stdint.h>

#include "common/error.h"
#include "exec/backend.h"

/* A simulator backend (no module loaded yet). NULL with err set when out of memory. */
gr_backend *gr_sim_backend_new(gr_error *err);

/* Whether `kernel` (its PTX name; NULL: the module's only one) of the loaded module can run on
 * the simulator: a function it calls may use PTX the simulator does not execute, which fails
 * its launches (GR_ERR_UNSUPPORTED, naming the kernel, function and instruction) while the
 * module's other kernels still run. */
bool gr_sim_kernel_runnable(gr_backend *b, const char *kernel, gr_error *err);

/* The state space a generic simulator address lies in (ptx_space: GLOBAL, SHARED, LOCAL,
 * CONST, PARAM), or PTX_SPACE_NONE for an address outside every window. */
ptx_space gr_sim_space_of(uint64_t generic_addr);

/* ---- memory the caller owns (exec/cudart: a program's device memory) ------------------------ */

/* Makes `size` bytes at `host` the device memory at global address `addr` (which may equal
 * `host`): launches read and write them in place, bounds-checked like an allocation. The caller
 * keeps ownership. Fails when the range lies outside the global window or overlaps another
 * allocation or mapping. */
bool gr_sim_map(gr_backend *b, uint64_t addr, void *host, uint64_t size, gr_error *err);
/* Removes the mapping that starts at `addr` (gr_sim_map or the variable allocator). */
bool gr_sim_unmap(gr_backend *b, uint64_t addr, gr_error *err);
/* Frees the allocation gr_backend_alloc returned at `addr`; accesses to it are out of bounds
 * afterwards. */
bool gr_sim_release(gr_backend *b, uint64_t addr, gr_error *err);

/* Memory for the module's .global variables: called once per variable while gr_backend_load
 * lays them out, it returns a device address and the host bytes behind it (the caller owns
 * them; the backend maps them as gr_sim_map does and writes the initializers). */
typedef bool (*gr_sim_var_alloc_fn)(void *ctx, uint64_t size, uint64_t *addr, uint8_t **host,
                                    gr_error *err);
/* Set before gr_backend_load; without it the backend allocates the variables itself. */
void gr_sim_set_var_allocator(gr_backend *b, gr_sim_var_alloc_fn fn, void *ctx);

/* A variable of the loaded module, as the host sees it. */
typedef struct gr_sim_symbol {
    ptx_space space; /* PTX_SPACE_GLOBAL, PTX_SPACE_CONST or PTX_SPACE_SHARED */
    uint64_t addr;   /* the generic address a kernel of this module uses (shared: in every block;
                      * the dynamic .extern array starts after the static ones) */
    uint64_t size;   /* bytes (0 for the dynamic shared array) */
    uint8_t *host;   /* global, const: the bytes themselves (reads and writes go straight to
                      * the variable); shared: NULL */
} gr_sim_symbol;

/* Looks up the .global, .const or .shared (module or kernel scope) variable `name` (its PTX
 * name). */
bool gr_sim_symbol_find(gr_backend *b, const char *name, gr_sim_symbol *out, gr_error *err);

/* Resident-thread limit: blocks beyond it start when earlier blocks finish (as on a GPU). */
enum { GR_SIM_MAX_RESIDENT_THREADS = 16384, GR_SIM_MAX_SHARED_BYTES = 227 * 1024 };

/* A grid-synchronizing (cooperative) launch keeps all its blocks resident, up to this many
 * threads; and it must fit a plausible GPU, an H100-class device: 132 SMs, each with room for
 * 2048 threads, 32 blocks and 228 KiB of shared memory (1 KiB of it reserved per block), or
 * cudaLaunchCooperativeKernel would refuse it (registers are not counted). */
enum {
    GR_SIM_MAX_COOPERATIVE_THREADS = 262144,
    GR_SIM_DEVICE_SMS = 132,
    GR_SIM_DEVICE_THREADS_PER_SM = 2048,
    GR_SIM_DEVICE_BLOCKS_PER_SM = 32,
    GR_SIM_DEVICE_SHARED_PER_SM = 233472,
    GR_SIM_RESERVED_SMEM = 1024,
};

/* The step budget when a launch gives none: 200 million thread-instructions, or this many per
 * launched thread when that is more, so a big launch that terminates is not taken for a hang. */
#define GR_SIM_DEFAULT_BUDGET 200000000ull
#define GR_SIM_STEPS_PER_THREAD 20000ull

#endif
