/* The parts of gpurace's CUDA runtime that can be tested without running a program: nvcc's fat
 * binaries (built by this folder's CMakeLists, next to the PTX nvcc writes for the same file),
 * the simulator's borrowed memory and symbols, the run folder's records, and the library's
 * exported symbols compared with the toolkit's libcudart.so.13. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/file.h"
#include "exec/cudart/channel.h"
#include "exec/cudart/fatbin.h"
#include "exec/sim/sim.h"
#include "jit/ptx/ptx_parse.h"

#define PROGRAMS GR_RUN_PROGRAMS "/"

static char *slurp(const char *path, size_t *len) {
    gr_error err = GR_ERROR_INIT;
    char *text = gr_read_file(path, len, &err);
    cr_assert_not_null(text, "%s: %s", path, err.message ? err.message : "");
    return text;
}

/* ---- fat binaries ------------------------------------------------------------------------- */

/* nvcc embeds PTX with comments removed and white space squeezed, line for line: the text of
 * one line without its comment, runs of blanks as one space, trimmed. */
static void normalized_line(const char *s, size_t len, char *out, size_t cap) {
    size_t n = 0;
    bool space = false;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') break;
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < cap) out[n++] = ' ';
        space = false;
        out[n++] = s[i];
    }
    out[n] = '\0';
}

/* Line-by-line equality of two PTX texts as nvcc embeds them. */
static void assert_same_ptx(const char *a, const char *b) {
    int line = 1;
    for (;; line++) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        char na[1024], nb[1024];
        normalized_line(a, la, na, sizeof na);
        normalized_line(b, lb, nb, sizeof nb);
        cr_assert_str_eq(na, nb, "PTX line %d differs", line);
        if (!ea || !eb) {
            cr_assert(!ea && !eb, "the texts have different line counts (at line %d)", line);
            break;
        }
        a = ea + 1;
        b = eb + 1;
    }
    cr_assert_gt(line, 50, "a whole module was compared");
}

static void check_fatbin_matches_ptx(const char *fatbin_file) {
    size_t n = 0, ptx_len = 0;
    char *bytes = slurp(fatbin_file, &n);
    char *ptx = slurp(PROGRAMS "stencil.ptx", &ptx_len);
    gr_fatbin fb = {0};
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_fatbin_parse(bytes, n, &fb, &err), "%s: %s", fatbin_file, err.message);
    cr_assert_eq(fb.nptx, 1, "one PTX entry expected, got %d", fb.nptx);
    cr_assert_geq(fb.ncubins, 1, "nvcc embeds SASS next to the PTX");
    const gr_fatbin_ptx *x = gr_fatbin_pick_ptx(&fb, 90);
    cr_assert_not_null(x);
    cr_assert_eq(x->len, strlen(x->text));
    assert_same_ptx(x->text, ptx);
    cr_assert_eq(x->arch, 75, "nvcc 13's default is compute_75, got %u", x->arch);
    cr_assert_not_null(x->unit);
    const char *slash = strrchr(x->unit, '/');
    cr_assert_str_eq(slash ? slash + 1 : x->unit, "racy_stencil.cu", "the unit nvcc compiled: %s", x->unit);
    cr_assert_not_null(x->options);
    cr_assert(strstr(x->options, "--generate-line-info"), "options: %s", x->options);
    gr_fatbin_free(&fb);
    free(bytes);
    free(ptx);
}

Test(fatbin, zstd_entries_decompress_to_the_ptx_nvcc_writes) {
    check_fatbin_matches_ptx(PROGRAMS "stencil_zstd.fatbin");
}

Test(fatbin, lz4_entries_decompress_to_the_ptx_nvcc_writes) {
    check_fatbin_matches_ptx(PROGRAMS "stencil_lz4.fatbin");
}

/* The first PTX entry's header, for corrupting it. */
static uint8_t *first_ptx_entry(uint8_t *fb) {
    uint16_t hsize;
    memcpy(&hsize, fb + 6, 2);
    uint8_t *e = fb + hsize;
    for (;;) {
        uint16_t kind;
        uint32_t ehs;
        uint64_t psize;
        memcpy(&kind, e, 2);
        memcpy(&ehs, e + 4, 4);
        memcpy(&psize, e + 8, 8);
        if (kind == 1) return e;
        e += ehs + psize;
    }
}

Test(fatbin, malformed_images_are_errors_not_crashes) {
    size_t n = 0;
    uint8_t *bytes = (uint8_t *)slurp(PROGRAMS "stencil_zstd.fatbin", &n);
    gr_fatbin fb = {0};
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_fatbin_parse(bytes, 8, &fb, &err));
    cr_assert(strstr(err.message, "empty"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_not(gr_fatbin_parse(bytes, n - 64, &fb, &err), "a cut image must be refused");
    cr_assert(strstr(err.message, "impossible size"), "%s", err.message);
    gr_error_clear(&err);
    uint8_t *copy = malloc(n);
    memcpy(copy, bytes, n);
    copy[0] ^= 0xff;
    cr_assert_not(gr_fatbin_parse(copy, n, &fb, &err));
    cr_assert(strstr(err.message, "not an nvcc fat binary"), "%s", err.message);
    gr_error_clear(&err);
    /* compressed bytes damaged: the decompressor says so */
    memcpy(copy, bytes, n);
    uint8_t *e = first_ptx_entry(copy);
    uint32_t ehs;
    memcpy(&ehs, e + 4, 4);
    memset(e + ehs + 8, 0x5a, 32);
    cr_assert_not(gr_fatbin_parse(copy, n, &fb, &err));
    cr_assert(strstr(err.message, "cannot decompress"), "%s", err.message);
    gr_error_clear(&err);
    gr_fatbin_free(&fb);
    /* a compressed size larger than the entry */
    memcpy(copy, bytes, n);
    e = first_ptx_entry(copy);
    uint32_t huge = 0x7fffffff;
    memcpy(e + 16, &huge, 4);
    cr_assert_not(gr_fatbin_parse(copy, n, &fb, &err));
    cr_assert(strstr(err.message, "implausible"), "%s", err.message);
    gr_error_clear(&err);
    gr_fatbin_free(&fb);
    free(copy);
    free(bytes);
}

typedef struct wrapper {
    int magic, version;
    const void *data;
    void *units;
} wrapper;

Test(fatbin, registration_wrappers_name_their_images) {
    int a = 1, b = 2;
    const void *images[4];
    int n = 0;
    gr_error err = GR_ERROR_INIT;
    wrapper one = {GR_FATBIN_WRAPPER_MAGIC, 1, &a, NULL};
    cr_assert(gr_fatbin_wrapper_images(&one, images, 4, &n, &err));
    cr_assert_eq(n, 1);
    cr_assert_eq(images[0], &a);
    const void *units[] = {&a, &b, NULL};
    wrapper linked = {GR_FATBIN_WRAPPER_MAGIC, 2, &b, (void *)units};
    cr_assert(gr_fatbin_wrapper_images(&linked, images, 4, &n, &err));
    cr_assert_eq(n, 2, "-rdc=true: the units' own images, which hold the PTX");
    cr_assert_eq(images[0], &a);
    cr_assert_eq(images[1], &b);
    wrapper bad = {1234, 1, &a, NULL};
    cr_assert_not(gr_fatbin_wrapper_images(&bad, images, 4, &n, &err));
    gr_error_clear(&err);
}

Test(fatbin, the_simulator_runs_the_best_ptx_for_its_device) {
    gr_fatbin_ptx entries[3] = {{.arch = 100}, {.arch = 52}, {.arch = 75}};
    gr_fatbin fb = {entries, 3, 0, 0};
    cr_assert_eq(gr_fatbin_pick_ptx(&fb, 90)->arch, 75);
    cr_assert_eq(gr_fatbin_pick_ptx(&fb, 120)->arch, 100);
    cr_assert_eq(gr_fatbin_pick_ptx(&fb, 50)->arch, 52, "nothing fits: the lowest is tried");
    gr_fatbin none = {0};
    cr_assert_null(gr_fatbin_pick_ptx(&none, 90));
}

/* ---- the simulator's borrowed memory and symbols -------------------------------------------- */

static const char kernel_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".global .align 4 .u32 counter = 3;\n"
    ".const .align 4 .u32 bias;\n"
    ".visible .entry bump(.param .u64 p)\n"
    "{\n"
    "  .reg .b64 %rd<3>;\n"
    "  .reg .b32 %r<5>;\n"
    "  .shared .align 4 .b8 tile[128];\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  ld.global.u32 %r1, [%rd2];\n"
    "  ld.const.u32 %r2, [bias];\n"
    "  ld.global.u32 %r4, [counter];\n"
    "  add.s32 %r3, %r1, %r2;\n"
    "  add.s32 %r3, %r3, %r4;\n"
    "  st.global.u32 [%rd2], %r3;\n"
    "  st.global.u32 [counter], %r3;\n"
    "  ret;\n"
    "}\n";

typedef struct pages {
    void *mem[8];
    int n;
} pages;

/* Variables in pages of their own, addressed by their host address (as exec/cudart does). */
static bool page_alloc(void *ctx, uint64_t size, uint64_t *addr, uint8_t **host, gr_error *err) {
    pages *p = ctx;
    (void)err;
    cr_assert_leq(size, 4096);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(m, MAP_FAILED);
    p->mem[p->n++] = m;
    *host = m;
    *addr = (uint64_t)(uintptr_t)m;
    return true;
}

static gr_exec_status launch_bump(gr_backend *b, uint64_t addr) {
    gr_launch_arg arg = {&addr, 8};
    gr_launch L = {.kernel = "bump", .grid = {1, 1, 1}, .block = {1, 1, 1}, .args = &arg, .nargs = 1};
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_backend_launch(b, &L, &res, &err), "%s", err.message);
    gr_exec_status st = res.status;
    gr_launch_result_free(&res);
    return st;
}

Test(sim_memory, mappings_variables_and_symbols) {
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(ptx_parse(kernel_ptx, strlen(kernel_ptx), "bump.ptx", &m, &err), "%s", err.message);
    gr_backend *b = gr_sim_backend_new(&err);
    pages vars = {0};
    gr_sim_set_var_allocator(b, page_alloc, &vars);
    cr_assert(gr_backend_load(b, m, &err), "%s", err.message);
    cr_assert_eq(vars.n, 1, "one .global variable, laid out by the allocator");
    gr_sim_set_var_allocator(b, NULL, NULL);

    gr_sim_symbol counter, bias, tile;
    cr_assert(gr_sim_symbol_find(b, "counter", &counter, &err), "%s", err.message);
    cr_assert_eq(counter.space, PTX_SPACE_GLOBAL);
    cr_assert_eq(counter.addr, (uint64_t)(uintptr_t)vars.mem[0]);
    cr_assert_eq(*(uint32_t *)counter.host, 3, "the initializer is written into the caller's memory");
    cr_assert(gr_sim_symbol_find(b, "bias", &bias, &err), "%s", err.message);
    cr_assert_eq(bias.space, PTX_SPACE_CONST);
    *(uint32_t *)bias.host = 7;
    cr_assert(gr_sim_symbol_find(b, "tile", &tile, &err), "%s", err.message);
    cr_assert_eq(tile.space, PTX_SPACE_SHARED);
    cr_assert_eq(tile.size, 128);
    cr_assert_null(tile.host);
    cr_assert_not(gr_sim_symbol_find(b, "nothing", &tile, &err));
    gr_error_clear(&err);

    /* identity-mapped memory: the kernel writes the caller's bytes in place */
    uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t at = (uint64_t)(uintptr_t)page;
    page[0] = 5;
    cr_assert(gr_sim_map(b, at, page, 64, &err), "%s", err.message);
    cr_assert_eq(launch_bump(b, at), GR_EXEC_OK);
    cr_assert_eq(page[0], 5 + 7 + 3);
    cr_assert_eq(*(uint32_t *)counter.host, 15);
    /* an address of the device window with other host bytes behind it */
    uint32_t other[16] = {100};
    uint64_t device = 0x100000000000ull + 0x100000;
    cr_assert(gr_sim_map(b, device, other, sizeof other, &err), "%s", err.message);
    cr_assert_eq(launch_bump(b, device), GR_EXEC_OK);
    cr_assert_eq(other[0], 100 + 7 + 15);

    cr_assert_not(gr_sim_map(b, device + 8, other, 8, &err), "overlapping mappings are refused");
    cr_assert(strstr(err.message, "overlaps"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert_not(gr_sim_map(b, 0x1000, other, 8, &err), "below the global window");
    gr_error_clear(&err);

    cr_assert(gr_sim_unmap(b, device, &err), "%s", err.message);
    cr_assert_eq(launch_bump(b, device), GR_EXEC_OUT_OF_BOUNDS, "unmapped memory is out of bounds");
    cr_assert_not(gr_sim_unmap(b, device, &err));
    gr_error_clear(&err);

    uint64_t owned;
    cr_assert(gr_backend_alloc(b, 16, &owned, &err), "%s", err.message);
    cr_assert_eq(launch_bump(b, owned), GR_EXEC_OK);
    cr_assert_not(gr_sim_unmap(b, owned, &err), "an allocation is released, not unmapped");
    gr_error_clear(&err);
    cr_assert(gr_sim_release(b, owned, &err), "%s", err.message);
    cr_assert_eq(launch_bump(b, owned), GR_EXEC_OUT_OF_BOUNDS, "released memory is out of bounds");
    cr_assert_not(gr_sim_release(b, owned, &err));
    gr_error_clear(&err);

    gr_backend_free(b);
    cr_assert_eq(page[0], 15, "the backend leaves borrowed memory alone");
    munmap(page, 4096);
    for (int i = 0; i < vars.n; i++) munmap(vars.mem[i], 4096);
    ptx_module_free(m);
}

/* ---- the run folder's records --------------------------------------------------------------- */

Test(channel, records_round_trip) {
    char dir[] = "/tmp/gr_channel_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    gr_finding f = {GR_FINDING_RACE, 12, 40, {{1, 0, 0}, {3, 0, 0}}, {{0, 0, 0}, {35, 1, 0}},
                    0x100000001230ull, 4, PTX_SPACE_GLOBAL, "write-after-read race on global memory", 0};
    gr_run_buffer buf = {"data", PTX_SPACE_GLOBAL, 0x100000001200ull, 4096, 4};
    gr_run_launch_record w = {0};
    w.pid = 4242;
    w.launch = 7;
    w.kernel_call = 3;
    w.kernel = "_Z4stepPfi";
    w.module = "app.cu-0011223344556677.ptx";
    w.grid = (gr_dim3){4, 2, 1};
    w.block = (gr_dim3){64, 1, 1};
    w.shared = 512;
    w.schedule = "rr:8";
    w.detector = "fsm";
    w.warp_model = "its";
    w.checked = true;
    w.confirmed_by_hb = true;
    w.status = GR_EXEC_OK;
    w.findings = &f;
    w.nfindings = 1;
    w.buffers = &buf;
    w.nbuffers = 1;
    w.witness = "race-0123456789abcdef.json";
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_run_launch_write(dir, &w, &err), "%s", err.message);
    char path[256];
    snprintf(path, sizeof path, "%s/launch-4242-00000007.json", dir);
    cr_assert_eq(gr_run_record_kind_of("launch-4242-00000007.json"), GR_RUN_RECORD_LAUNCH);
    gr_run_launch_record r;
    cr_assert(gr_run_launch_read(path, &r, &err), "%s", err.message);
    cr_assert_eq(r.pid, 4242);
    cr_assert_eq(r.launch, 7);
    cr_assert_eq(r.kernel_call, 3);
    cr_assert_str_eq(r.kernel, w.kernel);
    cr_assert_str_eq(r.module, w.module);
    cr_assert_eq(r.grid.y, 2);
    cr_assert_eq(r.block.x, 64);
    cr_assert_eq(r.shared, 512);
    cr_assert(r.checked && r.confirmed_by_hb);
    cr_assert_eq(r.nfindings, 1);
    const gr_finding *g = &r.findings[0];
    cr_assert(g->cls == f.cls && g->insn_id == f.insn_id && g->insn_id2 == f.insn_id2 &&
              g->address == f.address && g->size == f.size && g->space == f.space);
    cr_assert(memcmp(&g->thread, &f.thread, sizeof f.thread) == 0 &&
              memcmp(&g->thread2, &f.thread2, sizeof f.thread2) == 0);
    cr_assert_str_eq(g->message, f.message);
    cr_assert_eq(r.nbuffers, 1);
    cr_assert_str_eq(r.buffers[0].name, "data");
    cr_assert_eq(r.buffers[0].bytes, 4096);
    cr_assert_str_eq(r.witness, w.witness);
    gr_run_launch_free(&r);
    remove(path);

    gr_run_fatal_record fw = {4242, "unimplemented", "cudaGraphCreate", "the program called cudaGraphCreate"};
    cr_assert(gr_run_fatal_write(dir, &fw, 1, &err), "%s", err.message);
    snprintf(path, sizeof path, "%s/fatal-4242-0001.json", dir);
    gr_run_fatal_record fr;
    cr_assert(gr_run_fatal_read(path, &fr, &err), "%s", err.message);
    cr_assert_str_eq(fr.function, "cudaGraphCreate");
    cr_assert_str_eq(fr.kind, "unimplemented");
    gr_run_fatal_free(&fr);
    remove(path);

    gr_run_counters *c = gr_run_counters_create(dir, 4242, &err);
    cr_assert_not_null(c, "%s", err.message);
    c->launches = 9;
    c->thread_instructions = 123456;
    gr_run_counters back;
    snprintf(path, sizeof path, "%s/counters-4242.bin", dir);
    cr_assert_eq(gr_run_record_kind_of("counters-4242.bin"), GR_RUN_RECORD_COUNTERS);
    cr_assert(gr_run_counters_read(path, &back, &err), "%s", err.message);
    cr_assert_eq(back.launches, 9, "stores reach the file without a write");
    cr_assert_eq(back.thread_instructions, 123456);
    cr_assert_eq(back.pid, 4242);
    gr_run_counters_release(c);
    remove(path);
    cr_assert_eq(gr_run_record_kind_of("launch-1-1.json.tmp.99"), GR_RUN_RECORD_NONE);
    rmdir(dir);
}

/* ---- the library's face --------------------------------------------------------------------- */

/* Names of the functions `objdump -T` lists for `lib` with version libcudart.so.13. */
static char **exported(const char *lib, int *n) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "objdump -T '%s'", lib);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char line[1024];
    char **names = NULL;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, " DF ") || strstr(line, "*UND*")) continue;
        char *ver = strstr(line, "libcudart.so.13");
        if (!ver) continue;
        char name[512];
        if (sscanf(ver + strlen("libcudart.so.13"), " %511s", name) != 1) continue;
        names = realloc(names, (size_t)(*n + 1) * sizeof *names);
        names[(*n)++] = strdup(name);
    }
    pclose(f);
    return names;
}

Test(library, exports_every_function_of_the_real_libcudart_with_its_version) {
    int nours = 0;
    char **ours = exported(GR_CUDART_LIB, &nours);
    cr_assert_gt(nours, 100, "gpurace's libcudart.so.13 exports %d versioned functions", nours);
    FILE *f = popen("objdump -p '" GR_CUDART_LIB "'", "r");
    char line[512];
    bool soname = false;
    while (f && fgets(line, sizeof line, f)) soname |= strstr(line, "SONAME") && strstr(line, "libcudart.so.13");
    if (f) pclose(f);
    cr_assert(soname, "the SONAME must be libcudart.so.13");
    if (!GR_REAL_CUDART[0]) {
        cr_log_warn("the toolkit's libcudart.so.13 was not found: only gpurace's was checked");
    } else {
        int nreal = 0;
        char **real = exported(GR_REAL_CUDART, &nreal);
        cr_assert_gt(nreal, 100);
        for (int i = 0; i < nreal; i++) {
            bool found = false;
            for (int k = 0; k < nours && !found; k++) found = strcmp(real[i], ours[k]) == 0;
            cr_expect(found, "%s is exported by the toolkit's libcudart.so.13 but not by gpurace's", real[i]);
            free(real[i]);
        }
        free(real);
    }
    for (int i = 0; i < nours; i++) free(ours[i]);
    free(ours);
}
