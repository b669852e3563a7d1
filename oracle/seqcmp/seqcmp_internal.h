/* seqcmp_internal.h — what the oracle's files share: running one gr_input on a fresh simulator
 * (every run starts from the input's initial contents and fresh module variables) and recording,
 * per buffer element, the last write event that reached it. */
#ifndef GR_ORACLE_SEQCMP_INTERNAL_H
#define GR_ORACLE_SEQCMP_INTERNAL_H

#include "oracle/seqcmp/seqcmp.h"

/* The last writer of one element; insn_plus1 == 0: no write seen. */
typedef struct sq_writer {
    uint32_t insn_plus1;
    uint32_t block_linear;
    uint32_t thread_linear; /* threadIdx linearized */
} sq_writer;

/* A simulator with the input's buffers allocated and filled, ready to launch. */
typedef struct sq_machine {
    gr_backend *be;
    uint64_t *addr; /* device address of each buffer */
    int nbuffers;
    gr_launch_arg *args;
    uint8_t *argbytes; /* storage behind args */
    int nargs;
} sq_machine;

bool sq_machine_open(sq_machine *mc, const ptx_module *m, const gr_input *in, gr_error *err);
void sq_machine_close(sq_machine *mc);

/* Which device buffer holds [addr, addr+size)? -1 when none. */
int sq_machine_buffer_of(const sq_machine *mc, const gr_input *in, uint64_t addr);

typedef struct sq_run_result {
    gr_exec_status status;
    int races;
    uint8_t **data;      /* per buffer: contents after the run */
    bool *written;       /* per buffer: a write event reached it */
    sq_writer **writers; /* per buffer: per element */
} sq_run_result;

typedef struct sq_run_request {
    const ptx_module *module;
    const char *kernel;  /* PTX entry name or NULL */
    gr_dim3 grid, block; /* the launch shape (the reference function runs 1x1) */
    uint32_t shared;
    gr_schedule schedule;
    bool detect;
    gr_warp_model warp_model;
    uint64_t step_budget;
} sq_run_request;

/* One run of `in` under `rq`; the result's arrays are owned by `out` (sq_run_result_free). */
bool sq_run(const sq_run_request *rq, const gr_input *in, sq_run_result *out, gr_error *err);
void sq_run_result_free(sq_run_result *r, int nbuffers);

/* Thread coordinates from linear numbers. */
gr_exec_thread sq_thread_of(gr_dim3 grid, gr_dim3 block, uint32_t block_linear,
                            uint32_t thread_linear);

#endif
