/* test_filter_sweep — the simulator's access filter (jit/analysis/filter.h) against the precise
 * happens-before detector on the labeled suite (tests/kernels).
 *
 * For every kernel in each compile mode of its header, each warp model, and each concrete
 * launch (the fixed `launch:` + `args:`, or a search kernel's `witness:` and `baseline:`), the
 * simulator runs the launch under happens-before with the filter off. No reported race may
 * involve an instruction the filter would skip in that launch: a site whose launch conditions
 * hold (gr_filter_site_enabled with the launch's read-only bits and extents; the address
 * condition is not needed, so this is stricter than the filter itself). Such a race is an
 * unsound skip; a launch without an enabled site cannot have one and is not run. The suite is split into shards (GR_SWEEP_SHARD=i/n) that CTest runs in
 * parallel; each prints its counts. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "corpus/launch.h"
#include "exec/backend.h"
#include "exec/sim/sim.h"
#include "jit/analysis/filter.h"
#include "jit/analysis/readonly.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"

enum { MAX_FILES = 512, MAX_ITEMS = 32, MAX_ARGS = 32 };

typedef struct header {
    char launch[512], args[1024], witness[1024], baseline[1024];
    char modes[32], warp_model[32], kernel[256];
    bool expect_lockstep;
} header;

static void trim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) s[--n] = '\0';
}

static bool read_header(const char *text, header *h) {
    memset(h, 0, sizeof *h);
    const char *p = strstr(text, "/* gpurace-suite");
    if (!p) return false;
    for (p = strchr(p, '\n'); p && strncmp(p + 1, " */", 3) != 0; p = strchr(p + 1, '\n')) {
        const char *line = p + 1, *end = strchr(line, '\n');
        if (!end) break;
        char buf[1100];
        snprintf(buf, sizeof buf, "%.*s", (int)(end - line), line);
        trim(buf);
        const char *kv = strncmp(buf, " * ", 3) == 0 ? buf + 3 : NULL;
        const char *colon = kv ? strstr(kv, ": ") : NULL;
        if (!colon) continue;
        size_t klen = (size_t)(colon - kv);
        const char *value = colon + 2;
#define TAKE(key, field)                                                                           \
    if (klen == strlen(key) && strncmp(kv, key, klen) == 0) snprintf(h->field, sizeof h->field, "%s", value)
        TAKE("launch", launch);
        TAKE("args", args);
        TAKE("witness", witness);
        TAKE("baseline", baseline);
        TAKE("modes", modes);
        TAKE("warp-model", warp_model);
        TAKE("kernel", kernel);
#undef TAKE
        if (klen == 15 && strncmp(kv, "expect-lockstep", 15) == 0) h->expect_lockstep = true;
    }
    return true;
}

/* `name=value` items separated by blanks (a buffer's parentheses hold no blanks). */
typedef struct item {
    char name[64], value[256];
} item;

static int split_items(const char *text, item *out, int max) {
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        while (*p == ' ') p++;
        const char *end = p;
        while (*end && *end != ' ') end++;
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)(eq - p), p);
            snprintf(out[n].value, sizeof out[n].value, "%.*s", (int)(end - eq - 1), eq + 1);
            n++;
        }
        p = end;
    }
    return n;
}

static gr_dim3 dims_of(const char *v) {
    uint32_t d[3] = {1, 1, 1};
    for (int i = 0; i < 3 && v && *v; i++) {
        d[i] = (uint32_t)strtoul(v, NULL, 0);
        v = strchr(v, ',');
        if (v) v++;
    }
    return (gr_dim3){d[0], d[1], d[2]};
}

/* buffer(TYPE,COUNT[,INIT]) filled as `gpurace check --arg` fills it. */
static bool fill_buffer(const char *text, uint8_t **data, size_t *bytes) {
    char body[256];
    size_t n = strlen(text);
    if (strncmp(text, "buffer(", 7) != 0 || text[n - 1] != ')') return false;
    snprintf(body, sizeof body, "%.*s", (int)(n - 8), text + 7);
    char *c1 = strchr(body, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c1) return false;
    *c1 = '\0';
    if (c2) *c2 = '\0';
    const char *init = c2 ? c2 + 1 : "zeros";
    gr_elem_type t;
    if (!gr_elem_parse(body, &t)) return false;
    int elem = gr_elem_size(t);
    bool is_float = gr_elem_is_float(t);
    uint64_t count = strtoull(c1 + 1, NULL, 0);
    *bytes = (size_t)(count * (uint64_t)elem);
    *data = calloc(*bytes + 1, 1);
    if (!*data) return false;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint64_t i = 0; i < count; i++) {
        double fv = 0;
        long long iv = 0;
        if (strcmp(init, "ones") == 0) fv = 1, iv = 1;
        else if (strcmp(init, "iota") == 0) fv = (double)i, iv = (long long)i;
        else if (strcmp(init, "random") == 0) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = seed >> 33;
            fv = (double)(r % 2001) / 100.0 - 10.0, iv = (long long)(r % 1000);
        } else if (strncmp(init, "const:", 6) == 0) {
            fv = strtod(init + 6, NULL), iv = strtoll(init + 6, NULL, 0);
        } else if (strncmp(init, "values:", 7) == 0) {
            const char *v = init + 7;
            for (uint64_t k = 0; k < i && v; k++) {
                v = strchr(v, ';');
                if (v) v++;
            }
            if (v && *v) fv = strtod(v, NULL), iv = strtoll(v, NULL, 0);
        }
        uint8_t *p = *data + i * (uint64_t)elem;
        if (!is_float) memcpy(p, &iv, (size_t)elem);
        else if (elem == 8) memcpy(p, &fv, 8);
        else if (elem == 4) {
            float f = (float)fv;
            memcpy(p, &f, 4);
        } else {
            uint16_t hbits = gr_float_to_half((float)fv);
            memcpy(p, &hbits, 2);
        }
    }
    return true;
}

typedef struct sweep {
    uint32_t runs, runs_with_sites, sites, races, unsound, errors;
} sweep;

/* One launch on `be` (the module loaded): HB with the filter off; races against the sites
 * enabled for it. A launch with no enabled site cannot show an unsound skip: not run. */
static void run_one(const char *path, const char *mode, gr_backend *be, ptx_module *m,
                    const gr_kernel_sig *k, const gr_access_filter *filter, const char *launch_text,
                    bool lockstep, sweep *s) {
    item items[MAX_ITEMS];
    int nitems = split_items(launch_text, items, MAX_ITEMS);
    gr_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = k->ptx_name;
    L.grid = L.block = (gr_dim3){1, 1, 1};
    gr_error err = GR_ERROR_INIT;
    bool ok = be != NULL;
    uint8_t argbytes[MAX_ARGS][8];
    gr_launch_arg args[MAX_ARGS];
    int64_t arg_buffer[MAX_ARGS];
    for (int i = 0; i < nitems; i++) {
        if (strcmp(items[i].name, "grid") == 0) L.grid = dims_of(items[i].value);
        if (strcmp(items[i].name, "block") == 0) L.block = dims_of(items[i].value);
        if (strcmp(items[i].name, "shared") == 0) L.dynamic_shared = (uint32_t)strtoul(items[i].value, NULL, 0);
    }
    for (int p = 0; ok && p < k->nparams && p < MAX_ARGS; p++) {
        const gr_kernel_param *kp = &k->params[p];
        const item *it = NULL;
        for (int i = 0; i < nitems && !it; i++)
            if (strcmp(items[i].name, kp->name) == 0) it = &items[i];
        memset(argbytes[p], 0, sizeof argbytes[p]);
        args[p] = (gr_launch_arg){argbytes[p], (size_t)kp->size};
        arg_buffer[p] = GR_READONLY_ARG_NOT_POINTER;
        if (it && strncmp(it->value, "buffer(", 7) == 0) {
            uint8_t *data = NULL;
            size_t bytes = 0;
            uint64_t addr = 0;
            ok = fill_buffer(it->value, &data, &bytes) && gr_backend_alloc(be, bytes, &addr, &err) &&
                 gr_backend_write(be, addr, data, bytes, &err);
            free(data);
            memcpy(argbytes[p], &addr, 8);
            arg_buffer[p] = p; /* every buffer its own allocation */
        } else if (it) {
            bool is_float = kp->c_type ? (strstr(kp->c_type, "float") || strstr(kp->c_type, "double"))
                                       : (kp->ptx_type == PTX_TYPE_F32 || kp->ptx_type == PTX_TYPE_F64);
            if (is_float && kp->size == 4) {
                float f = strtof(it->value, NULL);
                memcpy(argbytes[p], &f, 4);
            } else if (is_float) {
                double d = strtod(it->value, NULL);
                memcpy(argbytes[p], &d, 8);
            } else {
                long long v = strtoll(it->value, NULL, 0);
                memcpy(argbytes[p], &v, kp->size < 8 ? (size_t)kp->size : 8);
            }
        }
        ok = ok && kp->size <= 8;
    }
    /* the sites the filter would let go in this launch */
    const gr_filter_kernel *fk = gr_access_filter_kernel(filter, (int32_t)(k->fn - m->functions));
    uint32_t bits = fk ? gr_readonly_launch_bits(fk->readonly, fk->exclusive, arg_buffer, k->nparams) : 0;
    const uint32_t ntid[3] = {L.block.x, L.block.y, L.block.z}, nctaid[3] = {L.grid.x, L.grid.y, L.grid.z};
    uint32_t enabled = 0;
    for (uint32_t i = 0; fk && i < filter->nsites; i++)
        enabled += filter->sites[i].function == fk->function &&
                   gr_filter_site_enabled(&filter->sites[i], bits, ntid, nctaid);
    s->runs++;
    if (ok && !enabled) return;
    s->sites += enabled;
    s->runs_with_sites++;
    L.args = args;
    L.nargs = k->nparams;
    L.detect = true;
    L.detector = GR_DETECTOR_HB;
    L.warp_model = lockstep ? GR_WARP_LOCKSTEP : GR_WARP_ITS;
    L.access_filter = GR_ACCESS_FILTER_OFF;
    /* the suite's launches finish far below this; its spinning kernels stop here */
    L.step_budget = 400000;
    L.max_findings = 256;
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    ok = ok && gr_backend_launch(be, &L, &res, &err);
    if (!ok) {
        s->errors++;
        cr_log_error("%s [%s]: %s", path, mode, err.message ? err.message : "cannot run");
        gr_error_clear(&err);
        return;
    }
    for (int f = 0; f < res.nfindings; f++) {
        const gr_finding *fd = &res.findings[f];
        if (fd->cls != GR_FINDING_RACE) continue;
        s->races++;
        uint32_t ids[2] = {fd->insn_id, fd->insn_id2};
        for (int j = 0; j < 2; j++) {
            const gr_filter_site *site = gr_access_filter_site(filter, ids[j]);
            if (site && fk && site->function == fk->function &&
                gr_filter_site_enabled(site, bits, ntid, nctaid)) {
                s->unsound++;
                cr_log_error("UNSOUND: %s [%s, %s]: instruction %u is skipped by the filter but "
                             "races (%s)", path, mode, lockstep ? "lockstep" : "its", ids[j], fd->message);
            }
        }
    }
    gr_launch_result_free(&res);
}

static void sweep_file(const char *path, sweep *s) {
    size_t len = 0;
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, &len, &err);
    header h;
    if (!text || !read_header(text, &h)) {
        free(text);
        gr_error_clear(&err);
        return;
    }
    const char *modes[2];
    int nmodes = 0;
    if (strcmp(h.modes, "source-faithful") != 0) modes[nmodes++] = "optimized";
    if (strcmp(h.modes, "optimized") != 0) modes[nmodes++] = "source-faithful";
    bool its = strcmp(h.warp_model, "lockstep") != 0;
    bool lockstep = strcmp(h.warp_model, "its") != 0 || h.expect_lockstep;
    char launches[2][2100];
    int nlaunches = 0;
    if (strncmp(h.launch, "search", 6) != 0) {
        snprintf(launches[nlaunches++], sizeof launches[0], "%s %s", h.launch, h.args);
    } else {
        if (h.witness[0]) snprintf(launches[nlaunches++], sizeof launches[0], "%s", h.witness);
        if (h.baseline[0]) snprintf(launches[nlaunches++], sizeof launches[0], "%s", h.baseline);
    }
    for (int mi = 0; mi < nmodes; mi++) {
        gr_compile_options opt = {.source_faithful = strcmp(modes[mi], "source-faithful") == 0};
        gr_compile_result cr = {0};
        ptx_module *m = NULL;
        gr_kernel_list kl = {0};
        gr_access_filter filter = {0};
        const gr_kernel_sig *k = NULL;
        bool ok = gr_compile_file(path, &opt, &cr, &err) && ptx_parse(cr.ptx, cr.ptx_len, path, &m, &err) &&
                  gr_kernel_list_build(m, text, &kl, &err) &&
                  (k = gr_kernel_select(&kl, h.kernel[0] ? h.kernel : NULL, &err)) != NULL &&
                  gr_access_filter_find(m, &filter, &err);
        if (!ok) {
            s->errors++;
            cr_log_error("%s [%s]: %s", path, modes[mi], err.message ? err.message : "cannot compile");
            gr_error_clear(&err);
        }
        /* one backend per build: the module is decoded once, each launch gets new buffers */
        gr_backend *be = ok ? gr_sim_backend_new(&err) : NULL;
        if (ok && (!be || !gr_backend_load(be, m, &err))) {
            s->errors++;
            cr_log_error("%s [%s]: %s", path, modes[mi], err.message ? err.message : "cannot load");
            gr_error_clear(&err);
            ok = false;
        }
        for (int li = 0; ok && li < nlaunches; li++) {
            if (its) run_one(path, modes[mi], be, m, k, &filter, launches[li], false, s);
            if (lockstep) run_one(path, modes[mi], be, m, k, &filter, launches[li], true, s);
        }
        if (be) gr_backend_free(be);
        gr_access_filter_free(&filter);
        gr_kernel_list_free(&kl);
        if (m) ptx_module_free(m);
        gr_compile_result_free(&cr);
    }
    free(text);
}

static int path_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void collect(const char *dir, char **files, int *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".cu") == 0) {
            if (*n < MAX_FILES) files[(*n)++] = strdup(path);
        } else {
            collect(path, files, n);
        }
    }
    closedir(d);
}

Test(filter_sweep, no_race_involves_an_access_the_filter_skips, .timeout = 900) {
    unsigned shard = 0, shards = 1;
    const char *env = getenv("GR_SWEEP_SHARD");
    if (env) sscanf(env, "%u/%u", &shard, &shards);
    if (!shards) shards = 1;
    char *files[MAX_FILES];
    int n = 0;
    collect(GR_SOURCE_DIR "/tests/kernels", files, &n);
    qsort(files, (size_t)n, sizeof *files, path_cmp);
    cr_assert_gt(n, 100, "the labeled suite is there");
    sweep s = {0};
    for (int i = 0; i < n; i++) {
        if ((unsigned)i % shards == shard) sweep_file(files[i], &s);
        free(files[i]);
    }
    printf("filter sweep (shard %u/%u): %u runs, %u with filtered sites (%u sites enabled) run "
           "under happens-before, %u races; %u unsound skips, %u errors\n",
           shard, shards, s.runs, s.runs_with_sites, s.sites, s.races, s.unsound, s.errors);
    cr_expect_gt(s.runs_with_sites, 0u, "the filter finds sites in the suite");
    cr_expect_gt(s.races, 0u, "the racy kernels race");
    cr_expect_eq(s.errors, 0u);
    cr_expect_eq(s.unsound, 0u, "%u races involve an access the filter skips", s.unsound);
}
