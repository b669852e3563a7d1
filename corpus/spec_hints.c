/* spec_hints.c — what the PTX analysis facts say about a kernel's expected launches and inputs
 * (gr_spec_hints, spec.h), read once per kernel before its spec is inferred. */
#include <stdio.h>
#include <string.h>

#include "corpus/spec.h"
#include "jit/analysis/facts.h"

/* The largest extent of each thread dimension that keeps one access in its array: the access
 * reads c0*tid.a + c1*tid.b + ... + constant bytes. With one dimension the whole array bounds
 * it; with more, a smaller stride is bounded by the next larger one (a row cannot run into the
 * next row: `tile[ty][tx]` bounds tx by the row length) and the largest stride by the array. */
static void access_bounds(const gr_fact_array *a, const gr_fact_access *acc, uint64_t row_bytes,
                          uint64_t bound[3]) {
    int dims[3], n = 0;
    for (int d = 0; d < 3; d++) {
        bound[d] = 0;
        if (acc->tid_coef[d] < 0) return; /* a reversed index: not a simple layout */
        if (acc->tid_coef[d] > 0) dims[n++] = d;
    }
    if (n == 0 || acc->constant < 0 || (uint64_t)acc->constant + acc->size > a->bytes) return;
    for (int i = 1; i < n; i++) /* ascending strides */
        for (int j = i; j > 0 && acc->tid_coef[dims[j]] < acc->tid_coef[dims[j - 1]]; j--) {
            int t = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = t;
        }
    for (int i = 0; i + 1 < n; i++)
        bound[dims[i]] = (uint64_t)(acc->tid_coef[dims[i + 1]] / acc->tid_coef[dims[i]]);
    int last = dims[n - 1];
    uint64_t room = a->bytes - (uint64_t)acc->constant - acc->size;
    /* `temp[pout][tid]`: a thread index that runs along a row of a multi-dimensional array
     * stays in its row (the declaration says where rows end; PTX has one flat array) */
    uint64_t in_row = row_bytes ? (uint64_t)acc->constant % row_bytes : 0;
    if (row_bytes && (uint64_t)acc->tid_coef[last] < row_bytes && in_row + acc->size <= row_bytes)
        room = row_bytes - in_row - acc->size;
    bound[last] = room / (uint64_t)acc->tid_coef[last] + 1;
}

/* One array's bounds: the accesses at offset 0 plus thread terms (`a[tid]`, `t[ty][tx]`) are the
 * ones every thread makes; their tightest bound holds. Accesses with a constant part (halo cells,
 * `a[tid + s]`) are often guarded, so only when there is no plain access does the loosest of
 * theirs count. */
static void array_bounds(const gr_fact_array *a, uint64_t row_bytes, uint64_t bound[3]) {
    uint64_t plain[3] = {0, 0, 0}, offset[3] = {0, 0, 0};
    for (uint32_t k = 0; k < a->naccesses; k++) {
        gr_fact_access one = a->accesses[k];
        const gr_fact_access *acc = &one;
        if (!acc->thread_only || !acc->size) continue;
        if (!acc->known) { /* some row plus thread terms: usable where rows are known */
            if (!row_bytes || acc->row_step <= 0 || (uint64_t)acc->row_step % row_bytes) continue;
            int64_t rb = (int64_t)row_bytes;
            one.constant = (one.constant % rb + rb) % rb;
        }
        uint64_t b[3] = {0, 0, 0};
        access_bounds(a, acc, row_bytes, b);
        for (int d = 0; d < 3; d++) {
            if (!b[d]) continue;
            if (acc->constant == 0) plain[d] = plain[d] && plain[d] < b[d] ? plain[d] : b[d];
            else offset[d] = offset[d] > b[d] ? offset[d] : b[d];
        }
    }
    for (int d = 0; d < 3; d++) bound[d] = plain[d] ? plain[d] : offset[d];
}

static void note_magic(gr_spec_hints *h, int param, int64_t v) {
    for (int i = 0; i < h->nmagic; i++)
        if (h->magic_param[i] == param && h->magic[i] == v) return;
    if (h->nmagic == GR_HINT_MAGIC_MAX) return;
    h->magic_param[h->nmagic] = param;
    h->magic[h->nmagic++] = v;
}

static uint8_t highest_dim(uint8_t bits) {
    return bits & 4 ? 3 : bits & 2 ? 2 : 1;
}

static void hints_of(const gr_kernel_facts *kf, const gr_kernel_sig *sig, gr_spec_hints *h) {
    h->known = true;
    (void)sig;
    for (uint32_t s = 0; kf->index_scalars && s < kf->nslots && s < GR_HINT_SLOTS; s++) {
        h->slot_param[s] = kf->slots[s].param;
        h->slot_offset[s] = kf->slots[s].offset;
        h->index_scalars[s] = kf->index_scalars[s];
        h->index_squared[s] = kf->index_squared[s];
        h->index_launch[s] = kf->index_launch[s];
        h->nslots = (int)s + 1;
    }
    uint8_t block_bits = (uint8_t)((kf->sreg_dims[PTX_SREG_TID] | kf->sreg_dims[PTX_SREG_NTID]) & 7);
    uint8_t grid_bits = (uint8_t)((kf->sreg_dims[PTX_SREG_CTAID] | kf->sreg_dims[PTX_SREG_NCTAID]) & 7);
    /* %ctaid read whole or a cluster's coordinates: treat as reading the block index */
    h->reads_block_index = grid_bits != 0 || kf->sreg_dims[PTX_SREG_CTAID] ||
                           kf->sreg_dims[PTX_SREG_NCTAID] || kf->sreg_dims[PTX_SREG_CLUSTER_CTAID] ||
                           kf->sreg_dims[PTX_SREG_CLUSTERID] || kf->sreg_dims[PTX_SREG_SMID];
    h->grid_dims = highest_dim(grid_bits);
    h->block_dims = highest_dim(block_bits);
    for (uint32_t i = 0; i < kf->narrays; i++) {
        uint64_t b[3], row_bytes = 0;
        const gr_shared_decl *decl = gr_shared_decl_of(sig, kf->arrays[i].name);
        if (decl && kf->arrays[i].bytes % decl->elements == 0) { /* PTX may say .b8: sizes agree */
            row_bytes = decl->row * (kf->arrays[i].bytes / decl->elements);
            if (row_bytes >= kf->arrays[i].bytes) row_bytes = 0;
        }
        array_bounds(&kf->arrays[i], row_bytes, b);
        for (int d = 0; d < 3; d++) {
            if (!b[d]) continue;
            if (b[d] > 1024) b[d] = 1024;
            if (h->block_max[d] && h->block_max[d] <= b[d]) continue;
            h->block_max[d] = (uint32_t)b[d];
            if (row_bytes)
                snprintf(h->block_max_why, sizeof h->block_max_why, "%s (%llu bytes, rows of %llu)",
                         decl->name, (unsigned long long)kf->arrays[i].bytes,
                         (unsigned long long)decl->row);
            else
                snprintf(h->block_max_why, sizeof h->block_max_why, "%s (%llu bytes)",
                         kf->arrays[i].name ? kf->arrays[i].name : "a shared array",
                         (unsigned long long)kf->arrays[i].bytes);
        }
    }
    /* A one-dimensional bound that is no warp multiple is usually a block size plus halo cells
     * (`temp[BLOCK + 2 * RADIUS]`): the block itself is the warp multiple below. */
    if (h->block_dims == 1 && h->block_max[0] > 32 && h->block_max[0] % 32)
        h->block_max[0] -= h->block_max[0] % 32;
    for (uint32_t g = 0; g < kf->nguards; g++) {
        const gr_fact_guard *gd = &kf->guards[g];
        if (gd->kind == GR_FACT_GUARD_EXTENT && gd->exits && gd->sreg == PTX_SREG_NTID &&
            gd->dim < 3 && gd->constant > 0 && gd->constant <= 1024) {
            uint32_t v = (uint32_t)gd->constant;
            if (gd->cmp == PTX_CMP_EQ) h->block_exact[gd->dim] = v;
            else if (gd->cmp == PTX_CMP_LT || gd->cmp == PTX_CMP_LO) h->block_upper[gd->dim] = v - 1;
            else if (gd->cmp == PTX_CMP_LE || gd->cmp == PTX_CMP_LS) h->block_upper[gd->dim] = v;
        } else if (gd->kind == GR_FACT_GUARD_LOADED_VALUE && !gd->is_float && gd->param >= 0 &&
                   gd->param < sig->nparams) {
            note_magic(h, gd->param, gd->constant);
        }
    }
}

bool gr_spec_hints_find(const ptx_module *m, const gr_kernel_sig *sig, gr_spec_hints *out,
                        gr_error *err) {
    memset(out, 0, sizeof *out);
    gr_facts facts;
    if (!gr_facts_find(m, &facts, err)) return false;
    for (uint32_t i = 0; i < facts.nkernels; i++)
        if (facts.kernels[i].name && sig->ptx_name && strcmp(facts.kernels[i].name, sig->ptx_name) == 0) {
            hints_of(&facts.kernels[i], sig, out);
            break;
        }
    gr_facts_free(&facts);
    return true;
}
