/* seqcmp_exec.c — one run of an input on a fresh simulator, with last-writer tracking. */
#include <stdlib.h>
#include <string.h>

#include "exec/sim/sim.h"
#include "oracle/seqcmp/seqcmp_internal.h"

enum { SQ_ARG_BYTES = 256 }; /* the largest by-value parameter we pass */

bool sq_machine_open(sq_machine *mc, const ptx_module *m, const gr_input *in, gr_error *err) {
    memset(mc, 0, sizeof *mc);
    mc->be = gr_sim_backend_new(err);
    if (!mc->be) return false;
    if (!gr_backend_load(mc->be, m, err)) goto fail;
    mc->nbuffers = in->nbuffers;
    mc->nargs = in->nargs;
    mc->addr = calloc((size_t)in->nbuffers + 1, sizeof *mc->addr);
    mc->args = calloc((size_t)in->nargs + 1, sizeof *mc->args);
    mc->argbytes = calloc(((size_t)in->nargs + 1) * SQ_ARG_BYTES, 1);
    if (!mc->addr || !mc->args || !mc->argbytes) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int i = 0; i < in->nbuffers; i++) {
        const gr_input_buffer *b = &in->buffers[i];
        if (!gr_backend_alloc(mc->be, (size_t)b->bytes, &mc->addr[i], err)) goto fail;
        if (b->bytes && !gr_backend_write(mc->be, mc->addr[i], b->data, (size_t)b->bytes, err))
            goto fail;
    }
    for (int i = 0; i < in->nargs; i++) {
        uint8_t *slot = mc->argbytes + (size_t)i * SQ_ARG_BYTES;
        size_t n = gr_input_arg_bytes(in, i, mc->addr, slot, SQ_ARG_BYTES);
        if (n == 0) {
            gr_fail(err, GR_ERR_UNSUPPORTED, "argument %d of the launch cannot be passed (%s)", i,
                    in->args[i].name ? in->args[i].name : "unnamed");
            goto fail;
        }
        mc->args[i] = (gr_launch_arg){slot, n};
    }
    return true;
fail:
    sq_machine_close(mc);
    return false;
}

void sq_machine_close(sq_machine *mc) {
    if (mc->be) gr_backend_free(mc->be);
    free(mc->addr);
    free(mc->args);
    free(mc->argbytes);
    memset(mc, 0, sizeof *mc);
}

int sq_machine_buffer_of(const sq_machine *mc, const gr_input *in, uint64_t addr) {
    for (int i = 0; i < mc->nbuffers; i++)
        if (addr >= mc->addr[i] && addr < mc->addr[i] + in->buffers[i].bytes) return i;
    return -1;
}

gr_exec_thread sq_thread_of(gr_dim3 grid, gr_dim3 block, uint32_t block_linear,
                            uint32_t thread_linear) {
    gr_exec_thread t;
    uint32_t gx = grid.x ? grid.x : 1, gy = grid.y ? grid.y : 1;
    uint32_t bx = block.x ? block.x : 1, by = block.y ? block.y : 1;
    t.block = (gr_dim3){block_linear % gx, block_linear / gx % gy, block_linear / (gx * gy)};
    t.thread = (gr_dim3){thread_linear % bx, thread_linear / bx % by, thread_linear / (bx * by)};
    return t;
}

/* ---- last-writer tracking (an access hook) -------------------------------------------------- */

typedef struct writer_tracker {
    const sq_machine *mc;
    const gr_input *in;
    sq_run_result *out;
} writer_tracker;

static void track_access(void *ctx, const gr_access_event *ev) {
    writer_tracker *t = ctx;
    if (ev->kind == GR_EXEC_READ || ev->space != PTX_SPACE_GLOBAL) return;
    for (uint32_t m = ev->lane_mask; m; m &= m - 1) {
        int lane = __builtin_ctz(m);
        uint64_t a = ev->addr[lane];
        int b = sq_machine_buffer_of(t->mc, t->in, a);
        if (b < 0) continue;
        const gr_input_buffer *buf = &t->in->buffers[b];
        uint64_t es = (uint64_t)gr_elem_size(buf->type), off = a - t->mc->addr[b];
        uint64_t last = off + ev->size - 1;
        if (last >= buf->bytes) last = buf->bytes - 1;
        t->out->written[b] = true;
        /* lanes run in lane order, so a later lane of one instruction is the later writer */
        for (uint64_t e = off / es; e <= last / es; e++)
            t->out->writers[b][e] =
                (sq_writer){ev->insn_id + 1, ev->block_linear, ev->first_thread + (uint32_t)lane};
    }
}

void sq_run_result_free(sq_run_result *r, int nbuffers) {
    for (int i = 0; i < nbuffers; i++) {
        if (r->data) free(r->data[i]);
        if (r->writers) free(r->writers[i]);
    }
    free(r->data);
    free(r->writers);
    free(r->written);
    memset(r, 0, sizeof *r);
}

bool sq_run(const sq_run_request *rq, const gr_input *in, sq_run_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int nb = in->nbuffers;
    out->data = calloc((size_t)nb + 1, sizeof *out->data);
    out->writers = calloc((size_t)nb + 1, sizeof *out->writers);
    out->written = calloc((size_t)nb + 1, sizeof *out->written);
    if (!out->data || !out->writers || !out->written) goto nomem;
    for (int i = 0; i < nb; i++) {
        const gr_input_buffer *b = &in->buffers[i];
        uint64_t es = (uint64_t)gr_elem_size(b->type);
        out->data[i] = malloc((size_t)b->bytes + 1);
        out->writers[i] = calloc((size_t)(b->bytes / es) + 1, sizeof(sq_writer));
        if (!out->data[i] || !out->writers[i]) goto nomem;
    }
    sq_machine mc;
    if (!sq_machine_open(&mc, rq->module, in, err)) goto fail;
    writer_tracker tracker = {&mc, in, out};
    gr_exec_hooks hooks = {.ctx = &tracker, .access = track_access};
    gr_launch L = {
        .kernel = rq->kernel,
        .grid = rq->grid,
        .block = rq->block,
        .dynamic_shared = rq->shared,
        .args = mc.args,
        .nargs = mc.nargs,
        .schedule = rq->schedule,
        .step_budget = rq->step_budget,
        .detect = rq->detect,
        .detector = GR_DETECTOR_FSM,
        .warp_model = rq->warp_model,
        .hooks = &hooks,
    };
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    bool ok = gr_backend_launch(mc.be, &L, &res, err);
    if (ok) {
        out->status = res.status;
        for (int i = 0; i < res.nfindings; i++)
            if (res.findings[i].cls == GR_FINDING_RACE) out->races++;
        for (int i = 0; i < nb && ok; i++)
            if (in->buffers[i].bytes)
                ok = gr_backend_read(mc.be, mc.addr[i], out->data[i], (size_t)in->buffers[i].bytes,
                                     err);
        gr_launch_result_free(&res);
    }
    sq_machine_close(&mc);
    if (!ok) goto fail;
    return true;
nomem:
    gr_fail(err, GR_ERR_NOMEM, "out of memory");
fail:
    sq_run_result_free(out, nb);
    return false;
}
