/* gpurace build-fuzzer FILE [--kernel K] [--spec F] [--seeds DIR] -o OUT
 *
 * Builds a standalone libFuzzer target per kernel, for fuzzing engines that run C fuzz targets
 * (ClusterFuzzLite, OSS-Fuzz, a plain libFuzzer command line): OUT itself, and next to it
 * OUT_seed_corpus.zip (starting genomes), OUT.dict (the constants the kernel's PTX compares
 * against, as little-endian words) and OUT.options (libFuzzer flags the genome format needs).
 *
 * The kernel is compiled here, once; the target embeds its PTX, its source and its spec in a
 * generated C file, compiled with $CC (default clang) and linked with $CXX (default clang++)
 * against gpurace's fuzz target libraries (cli/fuzz_target: the simulator, the detector and
 * the search's decoder and mutators, no NVRTC) and $LIB_FUZZING_ENGINE (default
 * -fsanitize=fuzzer); $CFLAGS and $CXXFLAGS are passed on, as engines' build scripts expect.
 * The libraries are found next to the gpurace executable (lib/gpurace/fuzzer in the build
 * folder, or ../lib/gpurace/fuzzer of an installed bin/), or in $GPURACE_FUZZER_LIB.
 *
 * With several kernels in FILE and no --kernel, one target per kernel: OUT_<kernel>. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "common/file.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "common/zip.h"
#include "corpus/codec.h"
#include "corpus/corpus_dir.h"
#include "corpus/generate.h"
#include "corpus/spec.h"
#include "corpus/witness.h"
#include "search/mutate.h"
#include "search/target.h"

enum { BF_MAX_ARGS = 512, BF_RANDOM_SEEDS = 8 };

/* Where the fuzz target libraries are: a folder holding fuzzer-link.txt (archive names, one a
 * line, and the linker flags they need, lines starting with '-'). */
static bool find_fuzzer_libs(char *dir, size_t n, gr_error *err) {
    const char *env = getenv("GPURACE_FUZZER_LIB");
    char probe[PATH_MAX + 64];
    struct stat st;
    if (env && *env) {
        snprintf(probe, sizeof probe, "%s/fuzzer-link.txt", env);
        if (stat(probe, &st) != 0)
            return gr_fail(err, GR_ERR_IO, "GPURACE_FUZZER_LIB=%s holds no fuzzer-link.txt", env);
        snprintf(dir, n, "%s", env);
        return true;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return gr_fail(err, GR_ERR_IO, "cannot find the gpurace executable: %s", strerror(errno));
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    const char *rel[] = {"lib/gpurace/fuzzer", "../lib/gpurace/fuzzer"};
    for (int i = 0; i < 2; i++) {
        int w = snprintf(probe, sizeof probe, "%s/%s/fuzzer-link.txt", exe, rel[i]);
        if (w < 0 || (size_t)w >= sizeof probe || stat(probe, &st) != 0) continue;
        w = snprintf(dir, n, "%s/%s", exe, rel[i]);
        if (w >= 0 && (size_t)w < n) return true;
    }
    return gr_fail(err, GR_ERR_UNSUPPORTED,
                   "gpurace's fuzz target libraries are not installed (looked in %s/%s and %s/%s; "
                   "they are built when clang with libFuzzer is found at configure time, or "
                   "set GPURACE_FUZZER_LIB to their folder)",
                   exe, rel[0], exe, rel[1]);
}

/* The program's full path in $PATH (or itself when it has a '/'), NULL when absent. */
static char *find_program(const char *name) {
    if (strchr(name, '/')) return access(name, X_OK) == 0 ? strdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    char *copy = strdup(path);
    char *result = NULL;
    if (!copy) return NULL;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !result;
         d = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", *d ? d : ".", name);
        if (access(full, X_OK) == 0) result = strdup(full);
    }
    free(copy);
    return result;
}

typedef struct arg_list {
    char *v[BF_MAX_ARGS];
    int n;
    bool overflow;
} arg_list;

static void arg_add(arg_list *a, const char *s) {
    if (a->n + 1 >= BF_MAX_ARGS) {
        a->overflow = true;
        return;
    }
    a->v[a->n++] = strdup(s);
    a->v[a->n] = NULL;
}

/* Adds the words of an environment variable such as CFLAGS (split on white space, as the
 * engines' build scripts use them). */
static void arg_add_words(arg_list *a, const char *text) {
    if (!text) return;
    char *copy = strdup(text);
    for (char *save = NULL, *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
        arg_add(a, w);
    free(copy);
}

static void arg_free(arg_list *a) {
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    a->n = 0;
}

/* Runs argv; its output goes to our standard error. */
static bool run_tool(arg_list *a, const char *what, gr_error *err) {
    if (a->overflow) return gr_fail(err, GR_ERR_USAGE, "%s: too many compiler arguments", what);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return gr_fail(err, GR_ERR_IO, "cannot start %s: %s", a->v[0], strerror(errno));
    if (pid == 0) {
        dup2(2, 1);
        execv(a->v[0], a->v);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return true;
    gr_strbuf cmd = GR_STRBUF_INIT;
    for (int i = 0; i < a->n; i++) gr_strbuf_appendf(&cmd, "%s%s", i ? " " : "", a->v[i]);
    gr_fail(err, GR_ERR_COMPILE, "%s failed (%s %d): %s", what,
            WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
            gr_strbuf_cstr(&cmd));
    gr_strbuf_free(&cmd);
    return false;
}

/* `text` as a C string literal, one source line per line of text. */
static void c_string(gr_strbuf *out, const char *text) {
    gr_strbuf_append(out, "\n    \"");
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            gr_strbuf_append(out, p[1] ? "\\n\"\n    \"" : "\\n");
        } else if (*p == '"' || *p == '\\') {
            gr_strbuf_putc(out, '\\');
            gr_strbuf_putc(out, (char)*p);
        } else if (*p < 0x20 || *p >= 0x7f || *p == '?') {
            /* octal escapes (three digits) never run into the next character; '?' avoids
             * trigraphs */
            gr_strbuf_appendf(out, "\\%03o", *p);
        } else {
            gr_strbuf_putc(out, (char)*p);
        }
    }
    gr_strbuf_putc(out, '"');
}

static char *generated_source(const cli_loaded *l, const char *file, const gr_kernel_sig *k,
                              const char *spec_json, const char *spec_name) {
    gr_strbuf c = GR_STRBUF_INIT;
    gr_strbuf_appendf(&c, "/* Generated by gpurace %s build-fuzzer from %s, kernel %s. */\n",
                      GPURACE_VERSION, file, k->name);
    gr_strbuf_append(&c, "#include <stddef.h>\nextern const char gr_ft_ptx[], gr_ft_file[], "
                         "gr_ft_kernel[], gr_ft_spec[], gr_ft_spec_name[], gr_ft_version[];\n"
                         "extern const char *const gr_ft_source;\n");
    gr_strbuf_append(&c, "const char gr_ft_ptx[] =");
    c_string(&c, l->compiled.ptx);
    gr_strbuf_append(&c, ";\nconst char gr_ft_file[] =");
    c_string(&c, file);
    gr_strbuf_append(&c, ";\nconst char gr_ft_kernel[] =");
    c_string(&c, k->ptx_name);
    gr_strbuf_append(&c, ";\nconst char gr_ft_spec[] =");
    c_string(&c, spec_json);
    gr_strbuf_append(&c, ";\nconst char gr_ft_spec_name[] =");
    c_string(&c, spec_name);
    gr_strbuf_append(&c, ";\nconst char gr_ft_version[] =");
    c_string(&c, GPURACE_VERSION);
    if (l->source) {
        gr_strbuf_append(&c, ";\nstatic const char source_text[] =");
        c_string(&c, l->source);
        gr_strbuf_append(&c, ";\nconst char *const gr_ft_source = source_text;\n");
    } else {
        gr_strbuf_append(&c, ";\nconst char *const gr_ft_source = NULL;\n");
    }
    if (c.oom) {
        gr_strbuf_free(&c);
        return NULL;
    }
    return gr_strbuf_take(&c);
}

static void seed_name(const uint8_t *g, size_t n, char name[17]) {
    snprintf(name, 17, "%016" PRIx64, gr_hash64(g, n));
}

/* One genome into the archive, unless an equal one is there (names are content hashes). */
static bool add_seed(gr_zip *z, uint64_t *seen, int *nseen, int max_seen, const uint8_t *g,
                     size_t n, gr_error *err) {
    uint64_t h = gr_hash64(g, n);
    for (int i = 0; i < *nseen; i++)
        if (seen[i] == h) return true;
    if (*nseen < max_seen) seen[(*nseen)++] = h;
    char name[17];
    seed_name(g, n, name);
    return gr_zip_add(z, name, g, n, err);
}

/* The seed corpus: the all-zero genome (the smallest launch), a few seeded random ones, and
 * the genomes and witnesses of --seeds DIR (a `gpurace fuzz --corpus` folder or a libFuzzer
 * corpus; witnesses of another kernel are skipped). */
static bool write_seeds(const char *path, const gr_codec *codec, const gr_kernel_sig *k,
                        const char *seeds_dir, int *count, gr_error *err) {
    size_t n = gr_codec_genome_size(codec);
    gr_zip z = GR_ZIP_INIT;
    enum { MAX_SEEN = 65536 };
    uint64_t *seen = calloc(MAX_SEEN, sizeof *seen);
    uint8_t *g = calloc(n + 8, 1);
    int nseen = 0;
    bool ok = seen && g;
    if (!ok) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int s = 0; ok && s < BF_RANDOM_SEEDS; s++) {
        if (s > 0)
            for (size_t i = 0; i < n; i += 8) {
                uint64_t v = gr_mix64((uint64_t)s * 0x10001u + i);
                memcpy(g + i, &v, n - i < 8 ? n - i : 8);
            }
        ok = add_seed(&z, seen, &nseen, MAX_SEEN, g, n, err);
    }
    gr_corpus_listing list = {0};
    bool listed = false;
    if (ok && seeds_dir) {
        ok = listed = gr_corpus_list(seeds_dir, &list, err);
        if (!ok) gr_error_wrap(err, "--seeds");
    }
    for (int i = 0; ok && listed && i < list.ngenomes; i++) {
        const char *base = strrchr(list.genomes[i], '/');
        if (strchr(base ? base + 1 : list.genomes[i], '.')) continue; /* genomes have no extension */
        size_t len = 0;
        char *data = gr_read_file_kind(list.genomes[i], GR_FILE_DATA, &len, err);
        ok = data && add_seed(&z, seen, &nseen, MAX_SEEN, (const uint8_t *)data, len, err);
        free(data);
    }
    for (int i = 0; ok && listed && i < list.nwitnesses; i++) {
        gr_witness w;
        gr_error werr = GR_ERROR_INIT;
        if (!gr_witness_load(&w, list.witnesses[i], NULL, true, &werr)) {
            fprintf(stderr, "build-fuzzer: skipping %s: %s\n", list.witnesses[i],
                    werr.message ? werr.message : "?");
            gr_error_clear(&werr);
            continue;
        }
        const char *mine = k->qualified ? k->qualified : k->name;
        uint8_t *wg = NULL;
        size_t wn = 0;
        bool exact = false;
        if ((!w.kernel || strcmp(w.kernel, mine) == 0 || strcmp(w.kernel, k->name) == 0) &&
            gr_codec_encode(codec, &w.input, &wg, &wn, &exact, &werr)) {
            ok = add_seed(&z, seen, &nseen, MAX_SEEN, wg, wn, err);
            if (!exact)
                fprintf(stderr, "build-fuzzer: the witness %s is only approximated by its seed "
                                "(its launch is outside what the spec generates)\n",
                        list.witnesses[i]);
        }
        gr_error_clear(&werr);
        free(wg);
        gr_witness_free(&w);
    }
    if (listed) gr_corpus_listing_free(&list);
    ok = ok && gr_zip_write(&z, path, err);
    *count = (int)z.nentries;
    gr_zip_free(&z);
    free(seen);
    free(g);
    return ok;
}

/* libFuzzer's dictionary format: one quoted byte string a line. Each PTX constant as 4 and,
 * when it needs them, 8 little-endian bytes (the genome's words). */
static bool write_dict(const char *path, const char *ptx, gr_error *err) {
    gr_dictionary d;
    gr_dictionary_from_ptx(ptx, &d);
    gr_strbuf out = GR_STRBUF_INIT;
    gr_strbuf_appendf(&out, "# constants the kernel's PTX compares against (gpurace build-fuzzer)\n");
    for (int i = 0; i < d.n; i++) {
        uint64_t v = (uint64_t)d.values[i];
        int widths[2] = {4, 8};
        bool wide = d.values[i] < INT32_MIN || d.values[i] > (int64_t)UINT32_MAX;
        for (int w = wide ? 1 : 0; w < (wide ? 2 : 1); w++) {
            gr_strbuf_appendf(&out, "k%d_%d=\"", i, widths[w]);
            for (int b = 0; b < widths[w]; b++)
                gr_strbuf_appendf(&out, "\\x%02x", (unsigned)((v >> (8 * b)) & 0xff));
            gr_strbuf_append(&out, "\"\n");
        }
    }
    bool ok = !out.oom ? gr_write_file_atomic(path, out.data, out.len, err)
                       : gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_strbuf_free(&out);
    return ok;
}

static bool write_options(const char *path, size_t genome, gr_error *err) {
    char text[256];
    /* the genome has a fixed layout: inputs are that long, and libFuzzer must not grow them
     * slowly from a few bytes */
    int n = snprintf(text, sizeof text, "[libfuzzer]\nmax_len = %zu\nlen_control = 0\n",
                     genome < 64 ? (size_t)64 : genome);
    return gr_write_file_atomic(path, text, (size_t)n, err);
}

/* The link line: archives of `libdir` and their flags from its fuzzer-link.txt. */
static bool add_link_manifest(arg_list *a, const char *libdir, gr_error *err) {
    char manifest[PATH_MAX + 32];
    snprintf(manifest, sizeof manifest, "%s/fuzzer-link.txt", libdir);
    char *text = gr_read_file_kind(manifest, GR_FILE_SPEC, NULL, err);
    if (!text) return false;
    arg_add(a, "-Wl,--start-group");
    gr_strbuf flags = GR_STRBUF_INIT;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!*line) continue;
        if (line[0] == '-') {
            gr_strbuf_appendf(&flags, "%s ", line);
            continue;
        }
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", libdir, line);
        if (access(path, R_OK) != 0) {
            free(text);
            gr_strbuf_free(&flags);
            return gr_fail(err, GR_ERR_IO, "%s names %s, which is missing", manifest, path);
        }
        arg_add(a, path);
    }
    arg_add(a, "-Wl,--end-group");
    arg_add_words(a, gr_strbuf_cstr(&flags));
    gr_strbuf_free(&flags);
    free(text);
    return true;
}

static bool build_one(const cli_loaded *l, const cli_source_options *src, const gr_kernel_sig *k,
                      const char *spec_path, const char *seeds, const char *out,
                      const char *libdir, const char *cc, const char *cxx, gr_error *err) {
    gr_spec spec;
    bool have_spec = spec_path ? gr_spec_load(&spec, spec_path, k, err) : gr_spec_infer(&spec, k, err);
    if (!have_spec) return false;
    gr_codec codec;
    bool have_codec = gr_codec_init(&codec, &spec, err);
    gr_strbuf json = GR_STRBUF_INIT;
    char *csrc = NULL;
    char tmpdir[PATH_MAX] = "";
    bool ok = have_codec && gr_spec_to_json(&spec, &json, err);
    if (ok && !spec_path) {
        gr_strbuf a = GR_STRBUF_INIT;
        gr_spec_print_assumptions(&spec, &a);
        fprintf(stderr, "build-fuzzer: no --spec for kernel %s; inferred one (gpurace info %s --spec "
                        "prints it):\n%s", k->name, src->file, gr_strbuf_cstr(&a));
        gr_strbuf_free(&a);
    }
    char spec_name[PATH_MAX + 128];
    /* an inferred spec is an assumption the finding depends on: the target says so */
    snprintf(spec_name, sizeof spec_name, "the spec gpurace inferred from the signature (an "
             "assumption; gpurace info %s --spec prints it)", src->file);
    if (ok && spec_path && !realpath(spec_path, spec_name)) snprintf(spec_name, sizeof spec_name, "%s", spec_path);
    if (ok) {
        csrc = generated_source(l, src->file, k, gr_strbuf_cstr(&json), spec_name);
        if (!csrc) ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/gpurace-build-fuzzer-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (ok && !mkdtemp(tmpdir)) {
        ok = gr_fail(err, GR_ERR_IO, "cannot create a temporary folder: %s", strerror(errno));
        tmpdir[0] = '\0';
    } else if (!ok) {
        tmpdir[0] = '\0';
    }
    char cpath[PATH_MAX + 16], opath[PATH_MAX + 16];
    snprintf(cpath, sizeof cpath, "%s/target.c", tmpdir);
    snprintf(opath, sizeof opath, "%s/target.o", tmpdir);
    ok = ok && gr_write_file_atomic(cpath, csrc, strlen(csrc), err);
    arg_list a = {0};
    if (ok) {
        arg_add(&a, cc);
        arg_add_words(&a, getenv("CFLAGS"));
        arg_add(&a, "-w"); /* generated data: no warnings to read */
        arg_add(&a, "-c");
        arg_add(&a, cpath);
        arg_add(&a, "-o");
        arg_add(&a, opath);
        ok = run_tool(&a, "compiling the fuzz target", err);
        arg_free(&a);
    }
    if (ok) {
        arg_add(&a, cxx);
        arg_add_words(&a, getenv("CXXFLAGS"));
        arg_add(&a, opath);
        ok = add_link_manifest(&a, libdir, err);
        const char *engine = getenv("LIB_FUZZING_ENGINE");
        arg_add_words(&a, engine && *engine ? engine : "-fsanitize=fuzzer");
        arg_add(&a, "-o");
        arg_add(&a, out);
        ok = ok && run_tool(&a, "linking the fuzz target", err);
        arg_free(&a);
    }
    int nseeds = 0;
    char side[PATH_MAX + 32];
    if (ok) {
        snprintf(side, sizeof side, "%s_seed_corpus.zip", out);
        ok = write_seeds(side, &codec, k, seeds, &nseeds, err);
    }
    if (ok) {
        snprintf(side, sizeof side, "%s.dict", out);
        ok = write_dict(side, l->compiled.ptx, err);
    }
    if (ok) {
        snprintf(side, sizeof side, "%s.options", out);
        ok = write_options(side, gr_codec_genome_size(&codec), err);
    }
    if (ok)
        fprintf(stderr, "build-fuzzer: kernel %s -> %s (+ _seed_corpus.zip with %d seed%s, .dict, .options)\n",
                k->name, out, nseeds, nseeds == 1 ? "" : "s");
    if (tmpdir[0]) {
        unlink(cpath);
        unlink(opath);
        rmdir(tmpdir);
    }
    free(csrc);
    gr_strbuf_free(&json);
    if (have_codec) gr_codec_free(&codec);
    gr_spec_free(&spec);
    return ok;
}

int cmd_build_fuzzer(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *spec = NULL, *seeds = NULL, *out = NULL;
    cli_source_options src = {0};
    const cli_opt_spec specs[] = {{"--spec", CLI_VALUE, &spec, NULL},
                                  {"--seeds", CLI_VALUE, &seeds, NULL},
                                  {"-o", CLI_VALUE, &out, NULL},
                                  {NULL, CLI_FLAG, NULL, NULL}};
    if (!cli_parse("build-fuzzer", argc, argv, 2, &src, specs, &err)) goto fail;
    /* the target embeds one file's source and hashes it for its witnesses */
    if (src.nfiles > 1) {
        gr_fail(&err, GR_ERR_USAGE, "'gpurace build-fuzzer' takes one FILE, got %d: a fuzz target "
                "of a program of several files is not supported yet (gpurace fuzz takes them)",
                src.nfiles);
        goto fail;
    }
    if (!out) {
        gr_fail(&err, GR_ERR_USAGE, "build-fuzzer needs -o OUT (the fuzz target to write)");
        goto fail;
    }
    char libdir[PATH_MAX];
    if (!find_fuzzer_libs(libdir, sizeof libdir, &err)) goto fail;
    const char *cc_name = getenv("CC") && *getenv("CC") ? getenv("CC") : "clang";
    const char *cxx_name = getenv("CXX") && *getenv("CXX") ? getenv("CXX") : "clang++";
    char *cc = find_program(cc_name), *cxx = find_program(cxx_name);
    if (!cc || !cxx) {
        gr_fail(&err, GR_ERR_UNSUPPORTED,
                "build-fuzzer needs clang with libFuzzer to compile and link the target: '%s' "
                "is not found (install clang, or set CC and CXX)",
                !cc ? cc_name : cxx_name);
        free(cc);
        free(cxx);
        goto fail;
    }
    cli_loaded l;
    if (!cli_load(&src, &l, &err)) {
        free(cc);
        free(cxx);
        goto fail;
    }
    bool ok = true;
    if (src.kernel || l.kernels.count == 1) {
        const gr_kernel_sig *k = gr_kernel_select(&l.kernels, src.kernel, &err);
        ok = k && build_one(&l, &src, k, spec, seeds, out, libdir, cc, cxx, &err);
    } else if (spec) {
        ok = gr_fail(&err, GR_ERR_USAGE, "%s defines %d kernels: a --spec is for one of them "
                                         "(name it with --kernel)", src.file, l.kernels.count);
    } else {
        for (int i = 0; ok && i < l.kernels.count; i++) {
            const gr_kernel_sig *k = &l.kernels.kernels[i];
            gr_strbuf name = GR_STRBUF_INIT;
            gr_strbuf_appendf(&name, "%s_", out);
            for (const char *p = k->name; *p; p++)
                gr_strbuf_putc(&name, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                                              (*p >= '0' && *p <= '9') ? *p : '_');
            ok = build_one(&l, &src, k, NULL, seeds, gr_strbuf_cstr(&name), libdir, cc, cxx, &err);
            gr_strbuf_free(&name);
        }
    }
    cli_loaded_free(&l);
    free(cc);
    free(cxx);
    if (ok) return 0;
fail:
    gr_error_print(&err, stderr);
    int code = gr_error_exit_code(&err);
    gr_error_clear(&err);
    return code;
}
