/* The on-disk compile cache (jit/compile/cache.h): a hit gives what the compiler gave, and
 * anything that changes the compile (a header, an option, the source) misses. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "jit/compile/cache.h"
#include "jit/compile/compile.h"

static char scratch[256];

static void make_scratch(void) {
    snprintf(scratch, sizeof scratch, "%s/compile-cache-%d", GR_BINARY_DIR, (int)getpid());
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_make_dirs(scratch, &err), "%s", err.message);
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    setenv("GPURACE_CACHE_DIR", cache, 1);
}

static void write_text(const char *name, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static int entries(void) {
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    DIR *d = opendir(cache);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".ptxc")) n++;
    closedir(d);
    return n;
}

static char *compile(const char *name, bool source_faithful) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    gr_compile_options o = {.source_faithful = source_faithful};
    gr_compile_result r;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_compile_file(path, &o, &r, &err), "%s", err.message ? err.message : "?");
    char *ptx = strdup(r.ptx);
    gr_compile_result_free(&r);
    return ptx;
}

static const char *kernel_text = "#include \"scale.h\"\n"
                                 "extern \"C\" __global__ void scale(int *a) {\n"
                                 "    a[threadIdx.x] *= SCALE;\n"
                                 "}\n";

Test(compile_cache, a_hit_gives_the_compilers_ptx) {
    make_scratch();
    write_text("scale.h", "#define SCALE 3\n");
    write_text("k.cu", kernel_text);
    char *first = compile("k.cu", false);
    cr_assert_eq(entries(), 1, "the compile is kept");
    char *second = compile("k.cu", false);
    cr_assert_eq(entries(), 1);
    cr_assert_str_eq(first, second);
    setenv("GPURACE_CACHE_DIR", "off", 1);
    char *fresh = compile("k.cu", false);
    cr_assert_str_eq(first, fresh, "the cached PTX is the compiler's");
    free(first);
    free(second);
    free(fresh);
}

Test(compile_cache, a_changed_header_or_option_misses) {
    make_scratch();
    write_text("scale.h", "#define SCALE 3\n");
    write_text("k.cu", kernel_text);
    char *three = compile("k.cu", false);
    write_text("scale.h", "#define SCALE 5\n");
    char *five = compile("k.cu", false);
    cr_assert_eq(entries(), 2, "the header's text is in the key");
    cr_assert(strstr(three, "3;") || strstr(three, ", 3"), "%s", three);
    cr_assert(strstr(five, "5;") || strstr(five, ", 5"), "the new header is compiled:\n%s", five);
    char *debug = compile("k.cu", true);
    cr_assert_eq(entries(), 3, "-G is another key");
    cr_assert_str_neq(debug, five);
    free(three);
    free(five);
    free(debug);
}

/* A file compiled alone, and then as one of several files (relocatable device code): the second
 * compile keeps the function the other files call, so it must not be the first one's entry. */
Test(compile_cache, relocatable_device_code_is_another_key) {
    make_scratch();
    write_text("helpers.cu", "__device__ int twice(int x) { return 2 * x; }\n");
    char path[400];
    snprintf(path, sizeof path, "%s/helpers.cu", scratch);
    char *ptx[2];
    for (int rdc = 0; rdc < 2; rdc++) {
        gr_compile_options o = {.relocatable = rdc == 1};
        gr_compile_result r;
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_compile_file(path, &o, &r, &err), "%s", err.message ? err.message : "?");
        ptx[rdc] = strdup(r.ptx);
        gr_compile_result_free(&r);
    }
    cr_assert_eq(entries(), 2, "relocatable is in the key");
    cr_assert_null(strstr(ptx[0], "_Z5twicei"), "unused, dropped:\n%s", ptx[0]);
    cr_assert_not_null(strstr(ptx[1], ".visible .func"), "kept for the other files:\n%s", ptx[1]);
    free(ptx[0]);
    free(ptx[1]);
}

Test(compile_cache, a_damaged_entry_is_a_miss) {
    make_scratch();
    write_text("scale.h", "#define SCALE 3\n");
    write_text("k.cu", kernel_text);
    char *first = compile("k.cu", false);
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", scratch);
    DIR *d = opendir(cache);
    cr_assert_not_null(d);
    struct dirent *e;
    char entry[700] = "";
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".ptxc")) snprintf(entry, sizeof entry, "%s/%s", cache, e->d_name);
    closedir(d);
    cr_assert(entry[0]);
    cr_assert_eq(truncate(entry, 40), 0);
    char *again = compile("k.cu", false);
    cr_assert_str_eq(first, again, "compiled again, not read from half an entry");
    struct stat st;
    cr_assert_eq(stat(entry, &st), 0);
    cr_assert_gt(st.st_size, 40, "the entry is written again");
    free(first);
    free(again);
}

Test(compile_cache, an_include_it_cannot_follow_is_not_cached) {
    make_scratch();
    write_text("scale.h", "#define SCALE 3\n");
    write_text("m.cu", "#define HEADER \"scale.h\"\n#include HEADER\n"
                       "extern \"C\" __global__ void scale(int *a) { a[threadIdx.x] *= SCALE; }\n");
    free(compile("m.cu", false));
    cr_assert_eq(entries(), 0);
}

Test(compile_cache, off_keeps_nothing) {
    make_scratch();
    setenv("GPURACE_CACHE_DIR", "off", 1);
    cr_assert_null(gr_compile_cache_dir());
    write_text("scale.h", "#define SCALE 3\n");
    write_text("k.cu", kernel_text);
    free(compile("k.cu", false));
    setenv("GPURACE_CACHE_DIR", "", 1);
    cr_assert_null(gr_compile_cache_dir());
}

Test(compile_cache, one_text_in_two_folders_is_two_entries) {
    /* NVRTC writes the file's absolute path into .file: the PTX of one folder names it */
    make_scratch();
    write_text("scale.h", "#define SCALE 3\n");
    write_text("k.cu", kernel_text);
    char *first = compile("k.cu", false);
    char other[300];
    snprintf(other, sizeof other, "%s/other", scratch);
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_make_dirs(other, &err));
    write_text("other/scale.h", "#define SCALE 3\n");
    write_text("other/k.cu", kernel_text);
    char *second = compile("other/k.cu", false);
    cr_assert_eq(entries(), 2);
    cr_assert(strstr(second, "/other/k.cu"), "the PTX names its own folder's file:\n%s", second);
    free(first);
    free(second);
}
