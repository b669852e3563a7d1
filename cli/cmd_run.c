/* gpurace run [options] -- PROGRAM [ARGS]
 * gpurace run [options] FILE.cu... [-I DIR] [-D NAME[=V]] [-L DIR] [-l LIB] [-- ARGS]
 *
 * Runs an unmodified CUDA program on the CPU: the program starts with gpurace's CUDA runtime
 * (exec/cudart, a libcudart.so.13 whose device is the simulator) in place of NVIDIA's, so every
 * kernel launch runs on the simulator under the race detector, with the program's own launch
 * configuration and data, and the program goes on as it would on a GPU. The runtime writes what
 * it finds into a run folder (exec/cudart/channel.h); this side renders the report once the
 * program has ended, also when it crashed. With FILE.cu arguments gpurace builds the program
 * first (nvcc -cudart shared -lineinfo).
 *
 * Exit status: 3 when gpurace could not do its whole job (an unimplemented runtime function,
 * a kernel without PTX or with PTX the simulator does not run, a finding it could not save, no
 * process that used its runtime); else 1 when there are findings (per --fail-on); else 3 when
 * the program was killed by a signal (its launches until then were checked); else 0. The
 * program's own exit status is printed and goes into the JSON report ("program"); it does not
 * change gpurace's. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/report/report_exec.h"
#include "cli/report/suppress.h"
#include "cli/report_opts.h"
#include "common/file.h"
#include "common/strbuf.h"
#include "exec/cudart/channel.h"
#include "jit/compile/compile.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/signature/signature.h"

extern char **environ;

/* exec/gpuhook's library, next to gpurace's libcudart.so.13 */
#define GR_GPU_HOOK_LIBRARY "libgpurace-gpu.so"

/* ---- options --------------------------------------------------------------------------------- */

typedef struct run_options {
    const char *kernels[CLI_MAX_LIST];
    int nkernels;
    const char *sources[CLI_MAX_LIST];
    int nsources;
    const char *files[CLI_MAX_LIST]; /* FILE.cu... to build */
    int nfiles;
    const char *include_dirs[CLI_MAX_LIST], *defines[CLI_MAX_LIST];
    int nincludes, ndefines;
    const char *lib_dirs[CLI_MAX_LIST], *libs[CLI_MAX_LIST];
    int nlib_dirs, nlibs;
    const char *launches, *step_budget, *detector, *schedule, *warp_model, *findings, *progress,
        *backend, *output, *record, *record_max, *record_bytes;
    cli_report_options report;
    char **program; /* argv of the program (PROGRAM ARGS, or just ARGS when building) */
    int nprogram;
} run_options;

typedef enum { OPT_FLAG, OPT_VALUE, OPT_LIST } opt_kind;

typedef struct opt_row {
    const char *name;
    opt_kind kind;
    const char **value; /* OPT_VALUE */
    bool *flag;         /* OPT_FLAG */
    const char **list;  /* OPT_LIST */
    int *count;
} opt_row;

static bool parse_options(int argc, char **argv, run_options *o, gr_error *err) {
    const opt_row rows[] = {
        {"--kernel", OPT_LIST, NULL, NULL, o->kernels, &o->nkernels},
        {"--source", OPT_LIST, NULL, NULL, o->sources, &o->nsources},
        {"-I", OPT_LIST, NULL, NULL, o->include_dirs, &o->nincludes},
        {"-D", OPT_LIST, NULL, NULL, o->defines, &o->ndefines},
        {"-L", OPT_LIST, NULL, NULL, o->lib_dirs, &o->nlib_dirs},
        {"-l", OPT_LIST, NULL, NULL, o->libs, &o->nlibs},
        {"--launches", OPT_VALUE, &o->launches, NULL, NULL, NULL},
        {"--step-budget", OPT_VALUE, &o->step_budget, NULL, NULL, NULL},
        {"--detector", OPT_VALUE, &o->detector, NULL, NULL, NULL},
        {"--schedule", OPT_VALUE, &o->schedule, NULL, NULL, NULL},
        {"--warp-model", OPT_VALUE, &o->warp_model, NULL, NULL, NULL},
        {"--findings", OPT_VALUE, &o->findings, NULL, NULL, NULL},
        {"--progress", OPT_VALUE, &o->progress, NULL, NULL, NULL},
        {"--backend", OPT_VALUE, &o->backend, NULL, NULL, NULL},
        {"-o", OPT_VALUE, &o->output, NULL, NULL, NULL},
        {"--record-max", OPT_VALUE, &o->record_max, NULL, NULL, NULL},
        {"--record-bytes", OPT_VALUE, &o->record_bytes, NULL, NULL, NULL},
        {"--record", OPT_VALUE, &o->record, NULL, NULL, NULL},
        {"--json", OPT_VALUE, &o->report.json, NULL, NULL, NULL},
        {"--sarif", OPT_VALUE, &o->report.sarif, NULL, NULL, NULL},
        {"--suppressions", OPT_VALUE, &o->report.suppressions, NULL, NULL, NULL},
        {"--fail-on", OPT_VALUE, &o->report.fail_on, NULL, NULL, NULL},
        {"--quiet", OPT_FLAG, NULL, &o->report.quiet, NULL, NULL},
        {"--verbose", OPT_FLAG, NULL, &o->report.verbose, NULL, NULL},
    };
    enum { NROWS = sizeof rows / sizeof rows[0] };
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            o->program = argv + i + 1;
            o->nprogram = argc - i - 1;
            break;
        }
        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->nfiles == CLI_MAX_LIST) return gr_fail(err, GR_ERR_USAGE, "too many files");
            o->files[o->nfiles++] = a;
            continue;
        }
        const opt_row *row = NULL;
        const char *inline_value = NULL;
        for (int r = 0; r < NROWS && !row; r++) {
            size_t n = strlen(rows[r].name);
            if (strncmp(a, rows[r].name, n) != 0) continue;
            if (a[n] == '\0') row = &rows[r];
            else if (a[n] == '=' && rows[r].kind != OPT_FLAG) row = &rows[r], inline_value = a + n + 1;
            else if (a[1] != '-' && rows[r].kind != OPT_FLAG) row = &rows[r], inline_value = a + n; /* -IDIR */
        }
        if (!row)
            return gr_fail(err, GR_ERR_USAGE, "unknown option '%s' of 'gpurace run' (see 'gpurace help run')", a);
        if (row->kind == OPT_FLAG) {
            *row->flag = true;
            continue;
        }
        const char *v = inline_value;
        if (!v) {
            if (i + 1 >= argc) return gr_fail(err, GR_ERR_USAGE, "option %s of 'gpurace run' needs a value", a);
            v = argv[++i];
        }
        if (row->kind == OPT_VALUE) {
            *row->value = v;
        } else {
            if (*row->count == CLI_MAX_LIST) return gr_fail(err, GR_ERR_USAGE, "too many %s options", row->name);
            row->list[(*row->count)++] = v;
        }
    }
    if (o->nfiles == 0 && o->nprogram == 0)
        return gr_fail(err, GR_ERR_USAGE,
                       "'gpurace run' needs a program: gpurace run [options] -- PROGRAM [ARGS], or "
                       "gpurace run FILE.cu [-- ARGS] to build one");
    if (o->backend && strcmp(o->backend, "sim") != 0 && strcmp(o->backend, "gpu") != 0)
        return gr_fail(err, GR_ERR_USAGE, "--backend must be sim or gpu, not '%s'", o->backend);
    if (o->backend && strcmp(o->backend, "gpu") == 0) {
        /* the GPU runs each launch once, in the order the program makes them */
        const char *sim_only[][2] = {{"--schedule", o->schedule}};
        for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++)
            if (sim_only[i][1])
                return gr_fail(err, GR_ERR_USAGE, "%s is for the simulator; --backend gpu does not take it",
                               sim_only[i][0]);
        if (o->detector && strcmp(o->detector, "fsm") != 0 && strcmp(o->detector, "auto") != 0)
            return gr_fail(err, GR_ERR_USAGE,
                           "--backend gpu checks with the shadow-FSM detector (--detector fsm), not '%s'",
                           o->detector);
    }
    if ((o->record_max || o->record_bytes) && !o->record)
        return gr_fail(err, GR_ERR_USAGE, "--record-max and --record-bytes go with --record DIR");
    if (o->output && o->nfiles == 0)
        return gr_fail(err, GR_ERR_USAGE, "-o names the program gpurace builds: give FILE.cu too");
    gr_detector_kind kind;
    gr_confirm_mode confirm;
    if (!cli_parse_detector(o->detector, false, &kind, &confirm, NULL, err)) return false;
    gr_schedule sched;
    if (o->schedule && !gr_schedule_parse(o->schedule, &sched, err)) return false;
    if (o->warp_model && strcmp(o->warp_model, "its") != 0 && strcmp(o->warp_model, "lockstep") != 0)
        return gr_fail(err, GR_ERR_USAGE, "--warp-model must be its or lockstep");
    const char *numbers[][2] = {{"--launches", o->launches}, {"--step-budget", o->step_budget},
                                {"--progress", o->progress}, {"--record-max", o->record_max},
                                {"--record-bytes", o->record_bytes}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        const char *v = numbers[i][1];
        if (!v) continue;
        char *end;
        errno = 0;
        strtoull(v, &end, 10);
        if (!*v || *end || errno || v[0] == '-')
            return gr_fail(err, GR_ERR_USAGE, "%s needs a whole number, not '%s'", numbers[i][0], v);
    }
    gr_fail_on fail_on;
    if (o->report.fail_on && !gr_fail_on_parse(o->report.fail_on, &fail_on, err)) return false;
    return true;
}

/* ---- files and processes -------------------------------------------------------------------- */

static bool is_executable(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* PROGRAM as execvp would find it (NULL when it is nowhere). */
static char *resolve_program(const char *name) {
    if (strchr(name, '/')) return strdup(name);
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/bin:/bin"; dir && *dir;) {
        const char *end = strchr(dir, ':');
        size_t len = end ? (size_t)(end - dir) : strlen(dir);
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%.*s/%s", (int)len, len ? dir : ".", name);
        if (!sb.oom && is_executable(sb.data)) return gr_strbuf_take(&sb);
        gr_strbuf_free(&sb);
        dir = end ? end + 1 : NULL;
    }
    return NULL;
}

static char *absolute_path(const char *path) {
    if (path[0] == '/') return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return NULL;
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "%s/%s", cwd, path);
    return sb.oom ? (gr_strbuf_free(&sb), NULL) : gr_strbuf_take(&sb);
}

/* The folder holding gpurace's library `lib` (libcudart.so.13, or libgpurace-gpu.so for
 * --backend gpu): $GPURACE_CUDART_DIR, next to this executable (lib/gpurace/), or where the
 * build put it. */
static char *find_library_dir(const char *lib_name) {
    const char *env = getenv("GPURACE_CUDART_DIR");
    gr_strbuf sb = GR_STRBUF_INIT;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *candidates[3] = {env, NULL, GR_CUDART_DIR};
    char *exe_dir = NULL;
    if (n > 0) {
        exe[n] = '\0';
        exe_dir = gr_path_directory(exe);
        if (exe_dir) {
            gr_strbuf_appendf(&sb, "%s/lib/gpurace", exe_dir);
            candidates[1] = gr_strbuf_cstr(&sb);
        }
    }
    char *found = NULL;
    for (int i = 0; i < 3 && !found; i++) {
        if (!candidates[i] || !*candidates[i]) continue;
        gr_strbuf lib = GR_STRBUF_INIT;
        gr_strbuf_appendf(&lib, "%s/%s", candidates[i], lib_name);
        if (access(gr_strbuf_cstr(&lib), R_OK) == 0) found = strdup(candidates[i]);
        gr_strbuf_free(&lib);
    }
    free(exe_dir);
    gr_strbuf_free(&sb);
    return found;
}

/* nvcc from $PATH, $CUDA_HOME/bin, or the toolkit found at build time. */
static char *find_nvcc(void) {
    char *p = resolve_program("nvcc");
    if (p && is_executable(p)) return p;
    free(p);
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%s/bin/nvcc", home);
        if (!sb.oom && is_executable(sb.data)) return gr_strbuf_take(&sb);
        gr_strbuf_free(&sb);
    }
    return is_executable(GR_NVCC_DEFAULT) ? strdup(GR_NVCC_DEFAULT) : NULL;
}

/* Runs argv (a tool gpurace calls) with its output into `log`; its exit status, -1 when it
 * could not start. */
static int run_tool(char *const *argv, gr_strbuf *log) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    char buf[4096];
    ssize_t got;
    while ((got = read(fds[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0) gr_strbuf_append_n(log, buf, (size_t)got);
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct argv_list {
    char **v;
    int n, cap;
    bool oom;
} argv_list;

static void argv_push(argv_list *l, const char *s) {
    if (l->oom) return;
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        char **grown = realloc(l->v, (size_t)cap * sizeof *grown);
        if (!grown) {
            l->oom = true;
            return;
        }
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n] = s ? strdup(s) : NULL;
    if (s && !l->v[l->n]) l->oom = true;
    l->n++;
    l->v[l->n] = NULL;
}

static void argv_pushf(argv_list *l, const char *fmt, const char *a) {
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, fmt, a);
    argv_push(l, gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
}

static void argv_free(argv_list *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Builds FILE.cu... into `out` with the shared runtime and line information. */
static bool build_program(const run_options *o, const char *out, gr_error *err) {
    char *nvcc = find_nvcc();
    if (!nvcc)
        return gr_fail(err, GR_ERR_USAGE,
                       "gpurace run FILE.cu needs nvcc (not in PATH, $CUDA_HOME/bin or %s)", GR_NVCC_DEFAULT);
    argv_list a = {0};
    argv_push(&a, nvcc);
    free(nvcc);
    argv_push(&a, "-cudart");
    argv_push(&a, "shared");
    argv_push(&a, "-lineinfo");
    /* several files may call device code of one another: relocatable device code, whose units'
     * PTX the runtime links (exec/cudart/module.c) */
    if (o->nfiles > 1) argv_push(&a, "-rdc=true");
    argv_push(&a, "-o");
    argv_push(&a, out);
    for (int i = 0; i < o->nincludes; i++) argv_pushf(&a, "-I%s", o->include_dirs[i]);
    for (int i = 0; i < o->ndefines; i++) argv_pushf(&a, "-D%s", o->defines[i]);
    for (int i = 0; i < o->nfiles; i++) argv_push(&a, o->files[i]);
    for (int i = 0; i < o->nlib_dirs; i++) argv_pushf(&a, "-L%s", o->lib_dirs[i]);
    for (int i = 0; i < o->nlibs; i++) argv_pushf(&a, "-l%s", o->libs[i]);
    if (a.oom) {
        argv_free(&a);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    gr_strbuf log = GR_STRBUF_INIT;
    int st = run_tool(a.v, &log);
    bool ok = st == 0;
    if (!ok) {
        gr_fail(err, GR_ERR_COMPILE, "building %s%s with nvcc failed%s", o->files[0],
                o->nfiles > 1 ? " and the other files" : "", st < 0 ? " (nvcc did not run)" : "");
        if (log.len) gr_error_set_detail(err, gr_strbuf_cstr(&log));
    }
    gr_strbuf_free(&log);
    argv_free(&a);
    return ok;
}

/* --source FILE: the kernels' PTX, with line information, for the runtime to use. */
static bool compile_sources(const run_options *o, const char *dir, gr_strbuf *list, gr_error *err) {
    for (int i = 0; i < o->nsources; i++) {
        gr_compile_options co = {0};
        co.include_dirs = o->include_dirs;
        co.n_include_dirs = o->nincludes;
        co.defines = o->defines;
        co.n_defines = o->ndefines;
        gr_compile_result res = {0};
        if (!gr_compile_file(o->sources[i], &co, &res, err)) return false;
        const char *base = strrchr(o->sources[i], '/');
        base = base ? base + 1 : o->sources[i];
        gr_strbuf path = GR_STRBUF_INIT;
        gr_strbuf_appendf(&path, "%s/%s.%d.ptx", dir, base, i);
        bool ok = gr_write_file_atomic(gr_strbuf_cstr(&path), res.ptx, res.ptx_len, err);
        gr_compile_result_free(&res);
        if (ok) gr_strbuf_appendf(list, "%s\n", gr_strbuf_cstr(&path));
        gr_strbuf_free(&path);
        if (!ok) return false;
    }
    return true;
}

/* ---- the static runtime ----------------------------------------------------------------------- */

typedef enum { ELF_OTHER, ELF_SHARED_CUDART, ELF_STATIC_CUDART, ELF_NO_CUDA } elf_cuda;

/* Whether an ELF program carries CUDA device code (.nv_fatbin) and links libcudart.so; the
 * libcudart it names goes to `needed` ("libcudart.so.12"). */
static elf_cuda elf_cuda_kind(const char *path, char *needed, size_t cap) {
    needed[0] = '\0';
    int fd = open(path, O_RDONLY);
    if (fd < 0) return ELF_OTHER;
    elf_cuda kind = ELF_OTHER;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *shstr = NULL, *dynstr = NULL;
    Elf64_Dyn *dyn = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_shstrndx >= eh.e_shnum)
        goto done;
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (!sh || pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) != (ssize_t)(eh.e_shnum * sizeof *sh))
        goto done;
    const Elf64_Shdr *ss = &sh[eh.e_shstrndx];
    if (ss->sh_size > (1u << 24) || !(shstr = calloc(ss->sh_size + 1, 1)) ||
        pread(fd, shstr, ss->sh_size, (off_t)ss->sh_offset) != (ssize_t)ss->sh_size)
        goto done;
    bool fatbin = false, needs_cudart = false;
    for (int i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name >= ss->sh_size) continue;
        const char *name = shstr + sh[i].sh_name;
        if (strcmp(name, ".nv_fatbin") == 0) fatbin = true;
        if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh.e_shnum || sh[i].sh_size > (1u << 24)) continue;
        const Elf64_Shdr *ds = &sh[sh[i].sh_link];
        if (ds->sh_size > (1u << 24)) continue;
        free(dyn);
        free(dynstr);
        dyn = malloc(sh[i].sh_size + 1);
        dynstr = calloc(ds->sh_size + 1, 1);
        if (!dyn || !dynstr || pread(fd, dyn, sh[i].sh_size, (off_t)sh[i].sh_offset) != (ssize_t)sh[i].sh_size ||
            pread(fd, dynstr, ds->sh_size, (off_t)ds->sh_offset) != (ssize_t)ds->sh_size)
            continue;
        for (size_t k = 0; k < sh[i].sh_size / sizeof *dyn && dyn[k].d_tag != DT_NULL; k++)
            if (dyn[k].d_tag == DT_NEEDED && dyn[k].d_un.d_val < ds->sh_size &&
                strncmp(dynstr + dyn[k].d_un.d_val, "libcudart.so", 12) == 0) {
                needs_cudart = true;
                snprintf(needed, cap, "%s", dynstr + dyn[k].d_un.d_val);
            }
    }
    kind = needs_cudart ? ELF_SHARED_CUDART : fatbin ? ELF_STATIC_CUDART : ELF_NO_CUDA;
done:
    free(sh);
    free(shstr);
    free(dyn);
    free(dynstr);
    close(fd);
    return kind;
}

/* ---- the program ---------------------------------------------------------------------------- */

typedef struct program_end {
    bool exited;
    int status; /* exit status, or the signal */
} program_end;

/* NAME=VALUE in a fresh environment array (replacing NAME). */
static void env_set(argv_list *env, const char *name, const char *value) {
    size_t n = strlen(name);
    for (int i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=') {
            free(env->v[i]);
            memmove(&env->v[i], &env->v[i + 1], (size_t)(env->n - i) * sizeof *env->v);
            env->n--;
            break;
        }
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "%s=%s", name, value);
    argv_push(env, gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
}

/* The environment the program starts with: gpurace's runtime first on the library path and
 * preloaded (a program whose RPATH names the toolkit still gets it), and the run's settings. */
static bool program_env(const run_options *o, bool on_gpu, const char *cudart_dir,
                        const char *records, const char *findings, const char *sources,
                        const char *record, argv_list *env) {
    for (char **e = environ; *e; e++) argv_push(env, *e);
    gr_strbuf sb = GR_STRBUF_INIT;
    const char *old = getenv("LD_LIBRARY_PATH");
    if (on_gpu) {
        /* the program keeps its own CUDA runtime; gpurace stands between it and the driver (in
         * sanitizer builds the sanitizer's runtime comes first, as for the simulator's) */
        const char *old_preload = getenv("LD_PRELOAD"), *sanitizer = GR_CUDART_PRELOAD;
        if (*sanitizer) gr_strbuf_appendf(&sb, "%s ", sanitizer);
        gr_strbuf_appendf(&sb, "%s/" GR_GPU_HOOK_LIBRARY, cudart_dir);
        if (old_preload && *old_preload) gr_strbuf_appendf(&sb, " %s", old_preload);
        env_set(env, "LD_PRELOAD", gr_strbuf_cstr(&sb));
        gr_strbuf_reset(&sb);
        goto settings;
    }
    gr_strbuf_appendf(&sb, "%s%s%s", cudart_dir, old && *old ? ":" : "", old && *old ? old : "");
    env_set(env, "LD_LIBRARY_PATH", gr_strbuf_cstr(&sb));
    gr_strbuf_reset(&sb);
    const char *preload = GR_CUDART_PRELOAD, *old_preload = getenv("LD_PRELOAD");
    if (*preload) gr_strbuf_appendf(&sb, "%s ", preload);
    gr_strbuf_appendf(&sb, "%s/libcudart.so.13", cudart_dir);
    if (old_preload && *old_preload) gr_strbuf_appendf(&sb, " %s", old_preload);
    env_set(env, "LD_PRELOAD", gr_strbuf_cstr(&sb));
    gr_strbuf_reset(&sb);
settings:
    if (*GR_CUDART_PRELOAD) {
        /* the sanitizer checks gpurace's library; the program's own crashes stay its own */
        const char *asan = getenv("ASAN_OPTIONS");
        gr_strbuf_appendf(&sb, "%s%shandle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0",
                          asan && *asan ? asan : "", asan && *asan ? ":" : "");
        env_set(env, "ASAN_OPTIONS", gr_strbuf_cstr(&sb));
        gr_strbuf_reset(&sb);
    }
    for (int i = 0; i < o->nkernels; i++) gr_strbuf_appendf(&sb, "%s\n", o->kernels[i]);
    env_set(env, GR_RUN_ENV_KERNELS, gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    env_set(env, GR_RUN_ENV_DIR, records);
    env_set(env, GR_RUN_ENV_FINDINGS, findings);
    env_set(env, GR_RUN_ENV_SOURCES, sources);
    env_set(env, GR_RUN_ENV_LAUNCHES, o->launches ? o->launches : "");
    env_set(env, GR_RUN_ENV_STEP_BUDGET, o->step_budget ? o->step_budget : "");
    env_set(env, GR_RUN_ENV_DETECTOR, o->detector ? o->detector : "");
    env_set(env, GR_RUN_ENV_SCHEDULE, o->schedule ? o->schedule : "");
    env_set(env, GR_RUN_ENV_WARP_MODEL, o->warp_model ? o->warp_model : "");
    env_set(env, GR_RUN_ENV_RECORD, record ? record : "");
    env_set(env, GR_RUN_ENV_RECORD_MAX, o->record_max ? o->record_max : "");
    env_set(env, GR_RUN_ENV_RECORD_BYTES, o->record_bytes ? o->record_bytes : "");
    return !env->oom;
}

typedef struct run_totals {
    int processes, finished;
    uint64_t launches, checked, repeated, thread_instructions;
    double launch_seconds;
    int modules, kernels;
    uint64_t recorded, record_repeats, record_left_out;
    double kernel_seconds;
    uint64_t unchecked;
} run_totals;

static int cmp_names(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static run_totals read_totals(const char *records) {
    run_totals t = {0};
    struct dirent **names = NULL;
    int n = scandir(records, &names, NULL, cmp_names);
    for (int i = 0; i < n; i++) {
        if (gr_run_record_kind_of(names[i]->d_name) == GR_RUN_RECORD_COUNTERS) {
            gr_strbuf path = GR_STRBUF_INIT;
            gr_strbuf_appendf(&path, "%s/%s", records, names[i]->d_name);
            gr_run_counters r;
            gr_error err = GR_ERROR_INIT;
            if (gr_run_counters_read(gr_strbuf_cstr(&path), &r, &err)) {
                t.processes++;
                t.finished += r.finished;
                t.launches += r.launches;
                t.checked += r.checked;
                t.repeated += r.repeated;
                t.thread_instructions += r.thread_instructions;
                t.launch_seconds += r.launch_seconds;
                t.modules += r.modules;
                t.kernels += r.kernels;
                t.recorded += r.recorded;
                t.record_repeats += r.record_repeats;
                t.record_left_out += r.record_left_out;
                t.kernel_seconds += r.kernel_seconds;
                t.unchecked += r.unchecked;
            }
            gr_error_clear(&err);
            gr_strbuf_free(&path);
        }
        free(names[i]);
    }
    free(names);
    return t;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void print_progress(const char *records, double started) {
    run_totals t = read_totals(records);
    double wall = now_seconds() - started;
    fprintf(stderr,
            "gpurace: %.0f s: %" PRIu64 " launches (%" PRIu64 " checked), %.1f launches/s, %.1f M "
            "thread-instructions/s\n",
            wall, t.launches, t.checked, wall > 0 ? (double)t.launches / wall : 0.0,
            t.launch_seconds > 0 ? (double)t.thread_instructions / t.launch_seconds / 1e6 : 0.0);
}

/* Starts the program and waits for it, printing progress every `every` seconds (0: never). */
static bool run_program(const char *path, char **argv, char **env, const char *records,
                        double every, program_end *end, gr_error *err) {
    sigset_t chld, old_mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old_mask);
    /* the terminal's Ctrl-C reaches the program; gpurace waits to report what it saw */
    struct sigaction ignore = {0}, old_int, old_quit;
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    int fds[2];
    bool ok = pipe(fds) == 0 && fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0;
    pid_t pid = ok ? fork() : -1;
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(fds[0]);
        execve(path, argv, env);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    if (pid > 0) {
        close(fds[1]);
        int exec_errno = 0;
        ssize_t got;
        while ((got = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
        close(fds[0]);
        double started = now_seconds(), next = started + every;
        int st = 0;
        for (;;) {
            pid_t w = waitpid(pid, &st, WNOHANG);
            if (w == pid) break;
            if (w < 0 && errno != EINTR) break;
            double wait = every > 0 ? next - now_seconds() : 3600;
            if (wait < 0.01) wait = 0.01;
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            sigtimedwait(&chld, NULL, &ts);
            if (every > 0 && now_seconds() >= next) {
                print_progress(records, started);
                next += every;
            }
        }
        if (got == (ssize_t)sizeof exec_errno) {
            ok = gr_fail(err, GR_ERR_USAGE, "cannot run %s: %s", path, strerror(exec_errno));
        } else {
            end->exited = WIFEXITED(st);
            end->status = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st);
        }
    } else {
        if (ok) {
            close(fds[0]);
            close(fds[1]);
        }
        ok = gr_fail(err, GR_ERR_INTERNAL, "cannot start %s: %s", path, strerror(errno));
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return ok;
}

/* ---- the report ----------------------------------------------------------------------------- */

/* A module's PTX from the findings folder, parsed once for source lines and kernel names. */
typedef struct loaded_module {
    char *file;
    char *ptx;
    ptx_module *ir;
    ptx_srcmap *srcmap;
    gr_kernel_list sigs;
    bool have_sigs;
} loaded_module;

typedef struct module_cache {
    loaded_module *m;
    int n;
} module_cache;

static loaded_module *module_get(module_cache *c, const char *findings, const char *file) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->m[i].file, file) == 0) return &c->m[i];
    loaded_module *grown = realloc(c->m, (size_t)(c->n + 1) * sizeof *grown);
    if (!grown) return NULL;
    c->m = grown;
    loaded_module *m = &c->m[c->n++];
    memset(m, 0, sizeof *m);
    m->file = strdup(file);
    gr_strbuf path = GR_STRBUF_INIT;
    gr_strbuf_appendf(&path, "%s/%s", findings, file);
    gr_error err = GR_ERROR_INIT;
    size_t len = 0;
    m->ptx = *file ? gr_read_file(gr_strbuf_cstr(&path), &len, &err) : NULL;
    if (m->ptx && ptx_parse(m->ptx, len, file, &m->ir, &err)) {
        m->srcmap = ptx_srcmap_new(m->ir);
        m->have_sigs = gr_kernel_list_build(m->ir, NULL, &m->sigs, &err);
    }
    gr_error_clear(&err);
    gr_strbuf_free(&path);
    return m;
}

static void module_cache_free(module_cache *c) {
    for (int i = 0; i < c->n; i++) {
        loaded_module *m = &c->m[i];
        if (m->have_sigs) gr_kernel_list_free(&m->sigs);
        if (m->srcmap) ptx_srcmap_free(m->srcmap);
        if (m->ir) ptx_module_free(m->ir);
        free(m->ptx);
        free(m->file);
    }
    free(c->m);
}

/* The kernel's name as users write it ("scale<float>"), from the module or by demangling. */
static char *kernel_display_name(const loaded_module *m, const char *ptx_name) {
    for (int i = 0; m && m->have_sigs && i < m->sigs.count; i++)
        if (strcmp(m->sigs.kernels[i].ptx_name, ptx_name) == 0 && m->sigs.kernels[i].qualified)
            return strdup(m->sigs.kernels[i].qualified);
    char *d = gr_demangle(ptx_name);
    if (!d) return strdup(ptx_name);
    char *paren = strchr(d, '(');
    if (paren) *paren = '\0';
    return d;
}

typedef struct run_outcome {
    int fatal;               /* fatal records */
    gr_strbuf fatal_text;    /* their messages */
    gr_strbuf note_text;     /* notes (launches --record left out) */
    gr_strbuf replay_text;   /* how to replay each witness */
} run_outcome;

/* One launch record's findings into the report, each with the program's launch. */
static bool add_launch(gr_report *r, module_cache *cache, const char *findings_shown,
                       const char *findings, const gr_run_launch_record *rec, run_outcome *out,
                       gr_error *err) {
    loaded_module *m = module_get(cache, findings, rec->module);
    char *kname = kernel_display_name(m, rec->kernel);
    if (!kname) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    gr_report_launch L = {true,
                          {rec->grid.x, rec->grid.y, rec->grid.z},
                          {rec->block.x, rec->block.y, rec->block.z},
                          rec->shared,
                          rec->schedule,
                          rec->backend ? rec->backend : "sim",
                          rec->detector,
                          rec->warp_model};
    gr_report_set_launch(r, &L); /* block shape: which threads share a warp */
    r->kernel = gr_report_strdup(r, kname);
    gr_report_buffer *bufs = calloc((size_t)rec->nbuffers + 1, sizeof *bufs);
    for (int i = 0; bufs && i < rec->nbuffers; i++)
        bufs[i] = (gr_report_buffer){rec->buffers[i].name, rec->buffers[i].space, rec->buffers[i].base,
                                     rec->buffers[i].bytes, rec->buffers[i].elem_size};
    gr_report_exec_context ctx = {m && m->ir ? m->ir : NULL, m ? m->srcmap : NULL, bufs,
                                  bufs ? rec->nbuffers : 0, NULL};
    char *witness = NULL;
    if (rec->witness) {
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%s/%s", findings_shown, rec->witness);
        witness = gr_strbuf_take(&sb);
    }
    bool ok = true, added = false;
    for (int i = 0; ok && i < rec->nfindings; i++) {
        size_t before = r->nfindings;
        ok = gr_report_add_exec_finding(r, &ctx, &rec->findings[i], NULL, err);
        if (!ok || r->nfindings == before) continue;
        gr_report_finding *f = &r->findings[r->nfindings - 1];
        f->launch = r->launch;
        f->program_launch = rec->launch;
        f->kernel_call = rec->kernel_call;
        f->witness = gr_report_strdup(r, witness);
        added = true;
    }
    r->dropped += (uint64_t)rec->dropped;
    if (added && witness && *rec->module)
        gr_strbuf_appendf(&out->replay_text, "  gpurace replay %s/%s --kernel %s %s\n", findings_shown,
                          rec->module, rec->kernel, witness);
    free(witness);
    free(bufs);
    free(kname);
    return ok;
}

static bool collect(gr_report *r, const char *records, const char *findings,
                    const char *findings_shown, run_outcome *out, gr_error *err) {
    struct dirent **names = NULL;
    int n = scandir(records, &names, NULL, cmp_names);
    if (n < 0) return gr_fail(err, GR_ERR_IO, "cannot read the run folder %s: %s", records, strerror(errno));
    module_cache cache = {0};
    bool ok = true;
    for (int i = 0; i < n; i++) {
        gr_run_record_kind kind = gr_run_record_kind_of(names[i]->d_name);
        gr_strbuf path = GR_STRBUF_INIT;
        gr_strbuf_appendf(&path, "%s/%s", records, names[i]->d_name);
        if (ok && kind == GR_RUN_RECORD_LAUNCH) {
            gr_run_launch_record rec;
            if (gr_run_launch_read(gr_strbuf_cstr(&path), &rec, err)) {
                ok = add_launch(r, &cache, findings_shown, findings, &rec, out, err);
                gr_run_launch_free(&rec);
            } else {
                ok = false;
            }
        } else if (ok && kind == GR_RUN_RECORD_FATAL) {
            gr_run_fatal_record rec;
            if (gr_run_fatal_read(gr_strbuf_cstr(&path), &rec, err)) {
                out->fatal++;
                gr_strbuf_appendf(&out->fatal_text, "gpurace: error: %s\n", rec.message);
                gr_run_fatal_free(&rec);
            } else {
                ok = false;
            }
        } else if (ok && kind == GR_RUN_RECORD_NOTE) {
            gr_run_fatal_record rec;
            if (gr_run_fatal_read(gr_strbuf_cstr(&path), &rec, err)) {
                gr_strbuf_appendf(&out->note_text, "gpurace: note: %s\n", rec.message);
                gr_run_fatal_free(&rec);
            } else {
                ok = false;
            }
        }
        gr_strbuf_free(&path);
        free(names[i]);
    }
    free(names);
    module_cache_free(&cache);
    r->launch.known = false; /* each finding carries its own */
    r->kernel = NULL;
    return ok;
}

static const char *signal_name(int sig) {
    const char *s = strsignal(sig);
    return s ? s : "unknown signal";
}

/* The JSON document, with what the program did. */
static bool write_json(const gr_report *r, const char *path, const char *program,
                       const program_end *end, const run_totals *t, gr_error *err) {
    gr_strbuf out = GR_STRBUF_INIT;
    bool ok = gr_report_render_json(r, &out, err);
    json_t *doc = ok ? json_loads(gr_strbuf_cstr(&out), 0, NULL) : NULL;
    if (ok && !doc) ok = gr_fail(err, GR_ERR_INTERNAL, "the JSON report does not parse");
    if (ok) {
        json_t *p = json_object();
        json_object_set_new(p, "path", json_string(program));
        if (end->exited) json_object_set_new(p, "exit_status", json_integer(end->status));
        else json_object_set_new(p, "signal", json_integer(end->status));
        json_object_set_new(p, "processes", json_integer(t->processes));
        json_object_set_new(p, "launches", json_integer((json_int_t)t->launches));
        json_object_set_new(p, "checked", json_integer((json_int_t)t->checked));
        json_object_set_new(p, "thread_instructions", json_integer((json_int_t)t->thread_instructions));
        json_object_set_new(p, "launch_seconds", json_real(t->launch_seconds));
        if (t->recorded || t->record_repeats || t->record_left_out) {
            json_object_set_new(p, "recorded", json_integer((json_int_t)t->recorded));
            json_object_set_new(p, "record_repeats", json_integer((json_int_t)t->record_repeats));
            json_object_set_new(p, "record_left_out", json_integer((json_int_t)t->record_left_out));
        }
        json_object_set_new(doc, "program", p);
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        gr_strbuf_reset(&out);
        if (text) {
            gr_strbuf_append(&out, text);
            gr_strbuf_putc(&out, '\n');
            free(text);
            ok = gr_report_write(path, &out, err);
        } else {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
        }
    }
    json_decref(doc);
    gr_strbuf_free(&out);
    return ok;
}

/* Suppressions, then the text report on standard error (the program owns standard output),
 * the JSON and SARIF files. Returns 0/1 per --fail-on, or -1 with err set. */
static int emit(gr_report *r, const run_options *o, const char *trailer, const char *program,
                const program_end *end, const run_totals *t, gr_error *err) {
    gr_fail_on fail_on = GR_FAIL_ON_ERROR;
    if (o->report.fail_on && !gr_fail_on_parse(o->report.fail_on, &fail_on, err)) return -1;
    gr_suppressions *rules = NULL;
    if (o->report.suppressions) {
        rules = gr_suppressions_new();
        if (!rules) return gr_fail(err, GR_ERR_NOMEM, "out of memory"), -1;
        if (!gr_suppressions_load(rules, o->report.suppressions, err)) {
            gr_suppressions_free(rules);
            return -1;
        }
    }
    gr_strbuf out = GR_STRBUF_INIT, warnings = GR_STRBUF_INIT;
    gr_suppress_options so = {rules, true, NULL, NULL, &warnings}; /* source lines from disk */
    gr_report_apply_suppressions(r, &so);
    if (warnings.len) fputs(gr_strbuf_cstr(&warnings), stderr);
    int code = -1;
    if (!(o->report.json && strcmp(o->report.json, "-") == 0)) {
        bool color = isatty(STDERR_FILENO) && !getenv("NO_COLOR");
        gr_report_text_options to = {color,
                                     o->report.quiet     ? GR_REPORT_QUIET
                                     : o->report.verbose ? GR_REPORT_VERBOSE
                                                         : GR_REPORT_NORMAL,
                                     0};
        gr_report_render_text(r, &to, &out);
        if (trailer) gr_strbuf_append(&out, trailer);
        fflush(stdout);
        fputs(gr_strbuf_cstr(&out), stderr);
        fflush(stderr);
    }
    if (o->report.json && !write_json(r, o->report.json, program, end, t, err)) goto done;
    if (o->report.sarif) {
        gr_strbuf_reset(&out);
        gr_report_sarif_options sarif = {NULL, NULL};
        if (!gr_report_render_sarif(r, &sarif, &out, err) || !gr_report_write(o->report.sarif, &out, err))
            goto done;
    }
    code = gr_report_exit_status(r, fail_on);
done:
    gr_strbuf_free(&out);
    gr_strbuf_free(&warnings);
    gr_suppressions_free(rules);
    return code;
}

/* Removes the run folder: files, and the one level of folders gpurace made in it. */
static void remove_tree(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        gr_strbuf path = GR_STRBUF_INIT;
        gr_strbuf_appendf(&path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (!path.oom && lstat(path.data, &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth > 0) remove_tree(path.data, depth - 1);
            else remove(path.data);
        }
        gr_strbuf_free(&path);
    }
    closedir(d);
    rmdir(dir);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int fail(gr_error *err) {
    gr_error_print(err, stderr);
    int code = gr_error_exit_code(err);
    gr_error_clear(err);
    return code;
}

int cmd_run(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    run_options o;
    memset(&o, 0, sizeof o);
    if (!parse_options(argc, argv, &o, &err)) return fail(&err);

    bool on_gpu = o.backend && strcmp(o.backend, "gpu") == 0;
    char *cudart_dir = find_library_dir(on_gpu ? GR_GPU_HOOK_LIBRARY : "libcudart.so.13");
    if (!cudart_dir) {
        gr_fail(&err, GR_ERR_INTERNAL,
                on_gpu ? "gpurace's GPU interposer (" GR_GPU_HOOK_LIBRARY ") is missing: build the "
                         "gr_gpuhook target, or set GPURACE_CUDART_DIR to the folder that holds it"
                       : "gpurace's CUDA runtime (libcudart.so.13) is missing: build the gr_cudart "
                         "target, or set GPURACE_CUDART_DIR to the folder that holds it");
        return fail(&err);
    }
    const char *tmp = getenv("TMPDIR");
    gr_strbuf run_dir = GR_STRBUF_INIT;
    gr_strbuf_appendf(&run_dir, "%s/gpurace-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *run_path = run_dir.oom ? NULL : mkdtemp(run_dir.data);
    if (!run_path) {
        gr_fail(&err, GR_ERR_IO, "cannot create a run folder under %s: %s", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        gr_strbuf_free(&run_dir);
        free(cudart_dir);
        return fail(&err);
    }
    gr_strbuf records = GR_STRBUF_INIT, built = GR_STRBUF_INIT, sources = GR_STRBUF_INIT;
    gr_strbuf_appendf(&records, "%s/records", run_path);
    const char *findings_shown = o.findings ? o.findings : "gpurace-findings";
    char *findings = absolute_path(findings_shown);
    char *program = NULL;
    argv_list pargv = {0}, env = {0};
    gr_report r;
    gr_report_init(&r);
    run_outcome out = {0, GR_STRBUF_INIT, GR_STRBUF_INIT, GR_STRBUF_INIT};
    char *record = NULL;
    program_end end = {true, 0};
    run_totals totals = {0};
    int code = 3;
    if (!findings || mkdir(gr_strbuf_cstr(&records), 0700) != 0) {
        gr_fail(&err, GR_ERR_IO, "cannot set up the run folder %s", run_path);
        goto done;
    }

    /* the program: built here, or named */
    if (o.nfiles) {
        const char *base = strrchr(o.files[0], '/');
        base = base ? base + 1 : o.files[0];
        if (o.output) gr_strbuf_append(&built, o.output);
        else gr_strbuf_appendf(&built, "%s/%.*s", run_path, (int)strcspn(base, "."), base);
        if (!build_program(&o, gr_strbuf_cstr(&built), &err)) goto done;
        program = absolute_path(gr_strbuf_cstr(&built));
        const char *slash = strrchr(gr_strbuf_cstr(&built), '/');
        argv_push(&pargv, slash ? slash + 1 : gr_strbuf_cstr(&built)); /* argv[0]: the program's name */
        for (int i = 0; i < o.nprogram; i++) argv_push(&pargv, o.program[i]);
    } else {
        program = resolve_program(o.program[0]);
        if (!program) {
            gr_fail(&err, GR_ERR_USAGE, "cannot run %s: no such program", o.program[0]);
            goto done;
        }
        for (int i = 0; i < o.nprogram; i++) argv_push(&pargv, o.program[i]);
    }
    char needed[128];
    elf_cuda kind = elf_cuda_kind(program, needed, sizeof needed);
    if (!on_gpu && kind == ELF_SHARED_CUDART && strcmp(needed, "libcudart.so.13") != 0) {
        gr_fail(&err, GR_ERR_USAGE,
                "%s needs %s, the runtime of another CUDA version; gpurace's runtime is "
                "libcudart.so.13: build the program with CUDA 13",
                o.nfiles ? gr_strbuf_cstr(&built) : o.program[0], needed);
        goto done;
    }
    if (!on_gpu && kind == ELF_STATIC_CUDART) {
        gr_fail(&err, GR_ERR_USAGE,
                "%s is linked with the static CUDA runtime (nvcc's default), which gpurace cannot "
                "replace: relink it with `-cudart shared` (nvcc), or let gpurace build it with "
                "`gpurace run FILE.cu`",
                o.nfiles ? gr_strbuf_cstr(&built) : o.program[0]);
        goto done;
    }
    if (!compile_sources(&o, run_path, &sources, &err)) goto done;
    /* --record: a folder the runtime can write, named absolutely (the program may chdir) */
    if (o.record && (!gr_make_dirs(o.record, &err) || !(record = absolute_path(o.record)) ||
                     access(record, W_OK) != 0)) {
        if (!gr_error_failed(&err))
            gr_fail(&err, GR_ERR_IO, "--record %s: cannot write there: %s", o.record, strerror(errno));
        else
            gr_error_wrap(&err, "--record");
        goto done;
    }
    if (!program_env(&o, on_gpu, cudart_dir, gr_strbuf_cstr(&records), findings, gr_strbuf_cstr(&sources), record,
                     &env) ||
        pargv.oom) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    double every = isatty(STDERR_FILENO) ? 10 : 60;
    if (o.progress) every = strtod(o.progress, NULL);
    double started = now_seconds();
    if (!run_program(program, pargv.v, env.v, gr_strbuf_cstr(&records), every, &end, &err)) goto done;
    double wall = now_seconds() - started;

    r.tool_version = GPURACE_VERSION;
    r.command = "run";
    r.file = gr_report_strdup(&r, o.nfiles ? o.files[0] : o.program[0]);
    if (!collect(&r, gr_strbuf_cstr(&records), findings, findings_shown, &out, &err)) goto done;
    totals = read_totals(gr_strbuf_cstr(&records));

    gr_strbuf trailer = GR_STRBUF_INIT;
    if (out.replay_text.len && !o.report.quiet)
        gr_strbuf_appendf(&trailer, "gpurace: replay a finding without the program:\n%s",
                          gr_strbuf_cstr(&out.replay_text));
    if (on_gpu)
        gr_strbuf_appendf(&trailer,
                          "gpurace run: %" PRIu64 " launch%s of %d kernel%s (%" PRIu64
                          " checked on the GPU: %.3f s in those launches, %.3f s of it in "
                          "instrumented kernels) in %.2f s; ",
                          totals.launches, totals.launches == 1 ? "" : "es", totals.kernels,
                          totals.kernels == 1 ? "" : "s", totals.checked, totals.launch_seconds,
                          totals.kernel_seconds, wall);
    else
        gr_strbuf_appendf(&trailer,
                          "gpurace run: %" PRIu64 " launch%s of %d kernel%s (%" PRIu64
                          " under the race detector) in %.2f s, %.1f M thread-instructions/s; ",
                          totals.launches, totals.launches == 1 ? "" : "es", totals.kernels,
                          totals.kernels == 1 ? "" : "s", totals.checked, wall,
                          totals.launch_seconds > 0 ? (double)totals.thread_instructions / totals.launch_seconds / 1e6
                                                    : 0.0);
    if (end.exited) gr_strbuf_appendf(&trailer, "the program exited with status %d\n", end.status);
    else gr_strbuf_appendf(&trailer, "the program was killed by signal %d (%s)\n", end.status, signal_name(end.status));
    if (o.record) {
        gr_strbuf_appendf(&trailer, "gpurace run: recorded %" PRIu64 " distinct launch%s as seeds in %s",
                          totals.recorded, totals.recorded == 1 ? "" : "es", o.record);
        if (totals.record_repeats || totals.record_left_out)
            gr_strbuf_appendf(&trailer, " (%" PRIu64 " repeated launch%s not saved again%s%" PRIu64
                                        " left out over the cap)",
                              totals.record_repeats, totals.record_repeats == 1 ? "" : "es",
                              totals.record_left_out ? ", " : "; ", totals.record_left_out);
        gr_strbuf_appendf(&trailer, "; next: gpurace spec derive %s -o SPEC, gpurace fuzz FILE --seeds %s\n",
                          o.record, o.record);
    }
    if (out.note_text.len) gr_strbuf_append(&trailer, gr_strbuf_cstr(&out.note_text));
    if (out.fatal) gr_strbuf_append(&trailer, gr_strbuf_cstr(&out.fatal_text));
    if (totals.processes == 0 && out.fatal == 0 && end.exited)
        gr_strbuf_appendf(&trailer,
                          on_gpu ? "gpurace: error: no process of the run reached the CUDA "
                                   "driver through gpurace, so no launch was checked: does %s use "
                                   "CUDA?\n"
                                 : "gpurace: error: no process of the run used gpurace's CUDA "
                                   "runtime, so no launch was checked: does %s use CUDA through "
                                   "libcudart.so (nvcc -cudart shared)?\n",
                          o.nfiles ? o.files[0] : o.program[0]);
    int status = emit(&r, &o, gr_strbuf_cstr(&trailer), program, &end, &totals, &err);
    gr_strbuf_free(&trailer);
    if (status < 0) goto done;
    if (out.fatal) code = 3;
    else if (status == 1) code = 1;
    else if (!end.exited || totals.processes == 0) code = 3;
    else code = 0;

done:
    if (gr_error_failed(&err)) code = fail(&err);
    gr_report_free(&r);
    gr_strbuf_free(&out.fatal_text);
    gr_strbuf_free(&out.note_text);
    free(record);
    gr_strbuf_free(&out.replay_text);
    argv_free(&pargv);
    argv_free(&env);
    free(program);
    free(findings);
    free(cudart_dir);
    if (run_path) remove_tree(run_path, 1);
    gr_strbuf_free(&run_dir);
    gr_strbuf_free(&records);
    gr_strbuf_free(&built);
    gr_strbuf_free(&sources);
    return code;
}
