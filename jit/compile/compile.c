#include "jit/compile/compile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvrtc.h>

#include "common/file.h"
#include "jit/compile/cache.h"
#include "common/strbuf.h"

/* Build-time defaults; the run-time environment is consulted first where it makes sense. */
#ifndef GR_NVCC_DEFAULT
#define GR_NVCC_DEFAULT "nvcc"
#endif
#ifndef GR_CUDA_INCLUDE_DEFAULT
#define GR_CUDA_INCLUDE_DEFAULT "/usr/local/cuda/include"
#endif

#define DEFAULT_ARCH "compute_90"
#define CXX_STANDARD "--std=c++17"

const char *gr_compiler_name(gr_compiler c) {
    switch (c) {
    case GR_COMPILER_AUTO: return "auto";
    case GR_COMPILER_NVRTC: return "nvrtc";
    case GR_COMPILER_NVCC: return "nvcc";
    }
    return "unknown";
}

void gr_compile_result_free(gr_compile_result *r) {
    if (!r) return;
    free(r->ptx);
    free(r->log);
    free(r->command);
    free(r->note);
    *r = (gr_compile_result){0};
}

/* ------------------------------------------------------------------------------------------
 * Host-code heuristic.
 *
 * NVRTC compiles device code only and ships no C/C++ standard library, so a file needs nvcc when
 * it has any of:
 *   - a `int main(` definition (a whole program rather than a kernel file);
 *   - a kernel launch `<<<`;
 *   - a call to the CUDA runtime API, i.e. an identifier `cuda` + capital letter followed by `(`
 *     (cudaMalloc, cudaMemcpy, cudaDeviceSynchronize, ...). Types such as cudaStream_t are not
 *     followed by `(` and do not count;
 *   - an `#include <...>` of a standard-library header (<iostream>, <vector>, <cstdio>,
 *     <stdio.h>, ...). C++ standard headers are recognized by having neither '.' nor '/' in
 *     their name; C headers come from a list. CUDA headers (<cuda_runtime.h>, <cuda/atomic>,
 *     <cooperative_groups.h>) do not count: NVRTC handles them.
 * Comments, string literals and character literals are blanked first so text inside them never
 * matches. The heuristic may miss cases; in auto mode a failed NVRTC compile whose log shows a
 * host-only construct is retried with nvcc anyway, so a miss costs time, not a wrong answer.
 * ------------------------------------------------------------------------------------------ */

/* Copy of `src` with comments and the contents of string/char literals replaced by spaces
 * (newlines kept). NULL when out of memory. */
static char *blank_comments_and_literals(const char *src) {
    size_t n = strlen(src);
    char *out = malloc(n + 1);
    if (!out) return NULL;
    memcpy(out, src, n + 1);
    size_t i = 0;
    while (i < n) {
        if (src[i] == '/' && src[i + 1] == '/') {
            while (i < n && src[i] != '\n') out[i++] = ' ';
        } else if (src[i] == '/' && src[i + 1] == '*') {
            out[i] = out[i + 1] = ' ';
            i += 2;
            while (i < n && !(src[i] == '*' && src[i + 1] == '/')) {
                if (src[i] != '\n') out[i] = ' ';
                i++;
            }
            if (i < n) {
                out[i] = out[i + 1] = ' ';
                i += 2;
            }
        } else if (src[i] == '"' || src[i] == '\'') {
            char quote = src[i++];
            while (i < n && src[i] != quote && src[i] != '\n') {
                if (src[i] == '\\' && i + 1 < n) out[i++] = ' ';
                out[i++] = ' ';
            }
            if (i < n && src[i] == quote) i++;
        } else {
            i++;
        }
    }
    return out;
}

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static bool is_standard_library_header(const char *name, size_t len) {
    static const char *const c_headers[] = {
        "assert.h", "ctype.h",  "errno.h",  "float.h",    "inttypes.h", "limits.h",
        "locale.h", "math.h",   "setjmp.h", "signal.h",   "stdarg.h",   "stdbool.h",
        "stddef.h", "stdint.h", "stdio.h",  "stdlib.h",   "string.h",   "time.h",
        "unistd.h", "pthread.h", "wchar.h", "sys/time.h", "sys/types.h",
    };
    for (size_t i = 0; i < sizeof c_headers / sizeof c_headers[0]; i++)
        if (strlen(c_headers[i]) == len && memcmp(c_headers[i], name, len) == 0) return true;
    return memchr(name, '.', len) == NULL && memchr(name, '/', len) == NULL;
}

/* `p` points just after "#"; true when the directive includes a standard-library header. */
static bool directive_includes_standard_header(const char *p) {
    while (*p == ' ' || *p == '\t') p++;
    if (strncmp(p, "include", 7) != 0) return false;
    p += 7;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '<') return false;
    const char *name = ++p;
    while (*p && *p != '>' && *p != '\n') p++;
    if (*p != '>') return false;
    return is_standard_library_header(name, (size_t)(p - name));
}

static const char *skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static bool scan_for_host_code(const char *code) {
    const char *prev_ident = NULL;
    size_t prev_len = 0;
    bool at_line_start = true;
    for (const char *p = code; *p;) {
        if (*p == '\n') {
            at_line_start = true;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
            continue;
        }
        if (*p == '#' && at_line_start) {
            if (directive_includes_standard_header(p + 1)) return true;
            while (*p && *p != '\n') p++; /* other directives are not code */
            continue;
        }
        at_line_start = false;
        if (p[0] == '<' && p[1] == '<' && p[2] == '<') return true;
        if (is_ident_char(*p) && !isdigit((unsigned char)*p)) {
            const char *ident = p;
            while (is_ident_char(*p)) p++;
            size_t len = (size_t)(p - ident);
            bool call = *skip_blanks(p) == '(';
            if (call && len == 4 && memcmp(ident, "main", 4) == 0 && prev_len == 3 &&
                memcmp(prev_ident, "int", 3) == 0)
                return true;
            if (call && len > 4 && memcmp(ident, "cuda", 4) == 0 &&
                isupper((unsigned char)ident[4]))
                return true;
            prev_ident = ident;
            prev_len = len;
            continue;
        }
        prev_ident = NULL;
        prev_len = 0;
        p++;
    }
    return false;
}

bool gr_source_has_host_code(const char *source) {
    if (!source) return false;
    char *code = blank_comments_and_literals(source);
    if (!code) return scan_for_host_code(source); /* out of memory: scan the raw text */
    bool host = scan_for_host_code(code);
    free(code);
    return host;
}

/* ------------------------------------------------------------------------------------------
 * Shared helpers.
 * ------------------------------------------------------------------------------------------ */

static bool is_directory(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_executable_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The virtual architecture to emit PTX for; an "sm_NN" request means its "compute_NN". */
static char *virtual_arch(const gr_compile_options *opt) {
    const char *arch = opt && opt->arch && opt->arch[0] ? opt->arch : DEFAULT_ARCH;
    gr_strbuf sb = GR_STRBUF_INIT;
    if (strncmp(arch, "sm_", 3) == 0) {
        gr_strbuf_append(&sb, "compute_");
        gr_strbuf_append(&sb, arch + 3);
    } else {
        gr_strbuf_append(&sb, arch);
    }
    return gr_strbuf_take(&sb);
}

/* Returns a heap copy of `log` without trailing blanks, or NULL when it holds nothing. */
static char *trimmed_log(const char *log) {
    if (!log) return NULL;
    size_t n = strlen(log);
    while (n > 0 && isspace((unsigned char)log[n - 1])) n--;
    if (n == 0) return NULL;
    return strndup(log, n);
}

/* Finds the first "FILE(LINE): error" (EDG, used by NVRTC and nvcc's front end) or
 * "FILE:LINE:COL: error" / "fatal error" (the host compiler) line of a compiler log. */
static bool first_error_location(const char *log, char *file, size_t file_size, int *line,
                                 int *column) {
    for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *eol = strchr(l, '\n');
        size_t len = eol ? (size_t)(eol - l) : strlen(l);
        const char *paren = memchr(l, '(', len);
        if (paren && paren > l) {
            char *end;
            long ln = strtol(paren + 1, &end, 10);
            if (end > paren + 1 && end[0] == ')' && end[1] == ':' &&
                (strncmp(end + 2, " error", 6) == 0 ||
                 strncmp(end + 2, " catastrophic error", 19) == 0)) {
                snprintf(file, file_size, "%.*s", (int)(paren - l), l);
                *line = (int)ln;
                *column = 0;
                return true;
            }
        }
        const char *colon = memchr(l, ':', len);
        if (colon && colon > l) {
            char *end;
            long ln = strtol(colon + 1, &end, 10);
            long col = 0;
            if (end > colon + 1 && *end == ':') {
                char *after;
                col = strtol(end + 1, &after, 10);
                if (after > end + 1 && *after == ':') end = after;
                else col = 0;
            }
            if (end > colon + 1 && *end == ':' &&
                (strncmp(end + 1, " error", 6) == 0 || strncmp(end + 1, " fatal error", 12) == 0)) {
                snprintf(file, file_size, "%.*s", (int)(colon - l), l);
                *line = (int)ln;
                *column = (int)col;
                return true;
            }
        }
    }
    return false;
}

/* Records a compile failure: message "compilation of NAME failed", location of the first
 * error in the log when there is one, the full log (after an optional note) as the detail. */
static bool fail_compilation(gr_error *err, const char *name, const char *note, const char *log) {
    char file[512] = "";
    int line = 0, column = 0;
    if (!log || !first_error_location(log, file, sizeof file, &line, &column)) file[0] = '\0';
    gr_fail_at(err, GR_ERR_COMPILE, file[0] ? file : NULL, line, column, "compilation of %s failed",
               name);
    gr_strbuf detail = GR_STRBUF_INIT;
    if (note) gr_strbuf_appendf(&detail, "note: %s\n", note);
    if (log) gr_strbuf_append(&detail, log);
    if (detail.len > 0) gr_error_set_detail(err, gr_strbuf_cstr(&detail));
    gr_strbuf_free(&detail);
    return false;
}

/* ------------------------------------------------------------------------------------------
 * NVRTC (in-process).
 * ------------------------------------------------------------------------------------------ */

/* The CUDA headers NVRTC needs for <cooperative_groups.h>, <cuda/atomic>, ...: the toolkit
 * this program was built against (it matches the NVRTC library), else $CUDA_HOME/include. */
static char *cuda_include_dir(void) {
    if (is_directory(GR_CUDA_INCLUDE_DEFAULT)) return strdup(GR_CUDA_INCLUDE_DEFAULT);
    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%s/include", home);
        if (!sb.oom && is_directory(gr_strbuf_cstr(&sb))) return gr_strbuf_take(&sb);
        gr_strbuf_free(&sb);
    }
    return NULL;
}

/* A list of heap strings, for building argument vectors. */
typedef struct string_list {
    char **items;
    int count;
    int cap;
    bool oom;
} string_list;

static void list_add(string_list *l, const char *prefix, const char *value) {
    if (l->oom) return;
    if (l->count + 2 > l->cap) { /* room for a terminating NULL */
        int cap = l->cap ? l->cap * 2 : 16;
        char **items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items) {
            l->oom = true;
            return;
        }
        l->items = items;
        l->cap = cap;
    }
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_append(&sb, prefix);
    gr_strbuf_append(&sb, value);
    char *s = gr_strbuf_take(&sb);
    if (!s) {
        l->oom = true;
        return;
    }
    l->items[l->count++] = s;
    l->items[l->count] = NULL;
}

static void list_free(string_list *l) {
    for (int i = 0; i < l->count; i++) free(l->items[i]);
    free(l->items);
    *l = (string_list){0};
}

/* Include dirs, defines and extra flags, in that order, common to NVRTC and nvcc. */
static void add_user_flags(string_list *args, const gr_compile_options *opt) {
    if (!opt) return;
    for (int i = 0; i < opt->n_include_dirs; i++) list_add(args, "-I", opt->include_dirs[i]);
    for (int i = 0; i < opt->n_defines; i++) list_add(args, "-D", opt->defines[i]);
    for (int i = 0; i < opt->n_extra_flags; i++) list_add(args, "", opt->extra_flags[i]);
}

/* Mode flags: -G keeps every access and implies line info; otherwise -lineinfo. nvcc warns
 * when both are given, so only one is passed. */
static void add_mode_flags(string_list *args, const gr_compile_options *opt) {
    list_add(args, "", opt && opt->source_faithful ? "-G" : "-lineinfo");
}

/* The relocatable-device-code flag as each compiler spells it. */
static void add_relocatable_flag(string_list *args, const gr_compile_options *opt, bool nvrtc) {
    if (opt && opt->relocatable)
        list_add(args, "", nvrtc ? "--relocatable-device-code=true" : "-rdc=true");
}

typedef enum nvrtc_outcome { NVRTC_OK, NVRTC_COMPILE_ERROR, NVRTC_OTHER_ERROR } nvrtc_outcome;

/* Compiles with NVRTC. On a compile error, *log holds the compiler log and nothing is recorded
 * in `err` (the caller decides between reporting it and retrying with nvcc). */
static nvrtc_outcome compile_with_nvrtc(const char *source, const char *name,
                                        const gr_compile_options *opt, gr_compile_result *out,
                                        char **log, gr_error *err) {
    *log = NULL;
    string_list args = {0};
    char *arch = virtual_arch(opt);
    list_add(&args, "--gpu-architecture=", arch ? arch : DEFAULT_ARCH);
    free(arch);
    add_mode_flags(&args, opt);
    add_relocatable_flag(&args, opt, true);
    list_add(&args, "", CXX_STANDARD);
    add_user_flags(&args, opt);
    char *cuda_inc = cuda_include_dir();
    if (cuda_inc) {
        list_add(&args, "-I", cuda_inc);
        gr_strbuf cccl = GR_STRBUF_INIT; /* CUDA 13 keeps libcu++/CUB/Thrust here */
        gr_strbuf_appendf(&cccl, "%s/cccl", cuda_inc);
        if (!cccl.oom && is_directory(gr_strbuf_cstr(&cccl))) list_add(&args, "-I", cccl.data);
        gr_strbuf_free(&cccl);
        free(cuda_inc);
    }
    if (args.oom) {
        list_free(&args);
        gr_fail(err, GR_ERR_NOMEM, "out of memory preparing the NVRTC options");
        return NVRTC_OTHER_ERROR;
    }

    nvrtc_outcome outcome = NVRTC_OTHER_ERROR;
    nvrtcProgram prog = NULL;
    nvrtcResult rc = nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
    if (rc != NVRTC_SUCCESS) {
        gr_fail(err, GR_ERR_INTERNAL, "NVRTC could not create a program for %s: %s", name,
                nvrtcGetErrorString(rc));
        list_free(&args);
        return NVRTC_OTHER_ERROR;
    }
    nvrtcResult compile_rc = nvrtcCompileProgram(prog, args.count, (const char *const *)args.items);
    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        char *raw = malloc(log_size);
        if (raw && nvrtcGetProgramLog(prog, raw) == NVRTC_SUCCESS) *log = trimmed_log(raw);
        free(raw);
    }
    if (compile_rc == NVRTC_ERROR_COMPILATION) {
        outcome = NVRTC_COMPILE_ERROR;
    } else if (compile_rc != NVRTC_SUCCESS) {
        /* An option NVRTC refused (e.g. a bad --arch or extra flag) lands here. */
        gr_fail(err, GR_ERR_USAGE, "NVRTC refused the options for %s: %s", name,
                nvrtcGetErrorString(compile_rc));
        if (*log) gr_error_set_detail(err, *log);
    } else {
        size_t ptx_size = 0;
        char *ptx = NULL;
        if (nvrtcGetPTXSize(prog, &ptx_size) == NVRTC_SUCCESS && ptx_size > 0 &&
            (ptx = malloc(ptx_size)) != NULL && nvrtcGetPTX(prog, ptx) == NVRTC_SUCCESS) {
            ptx[ptx_size - 1] = '\0';
            out->ptx = ptx;
            out->ptx_len = strlen(ptx);
            out->log = *log;
            *log = NULL;
            out->used = GR_COMPILER_NVRTC;
            outcome = NVRTC_OK;
        } else {
            free(ptx);
            gr_fail(err, GR_ERR_INTERNAL, "NVRTC compiled %s but returned no PTX", name);
        }
    }
    nvrtcDestroyProgram(&prog);
    list_free(&args);
    return outcome;
}

/* True when the log reports a missing header that belongs to the C/C++ standard library (which
 * NVRTC does not ship). A missing user header is the user's problem; nvcc would fail the same. */
static bool log_shows_missing_standard_header(const char *log) {
    static const char *const phrases[] = {"cannot open source file \"",
                                          "could not open source file \""};
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
        for (const char *hit = strstr(log, phrases[i]); hit; hit = strstr(hit + 1, phrases[i])) {
            const char *name = hit + strlen(phrases[i]);
            const char *end = strchr(name, '"');
            if (end && is_standard_library_header(name, (size_t)(end - name))) return true;
        }
    }
    return false;
}

/* True when an NVRTC log shows a construct only nvcc can compile: a missing standard header,
 * a host function, or an undefined CUDA runtime API call. */
static bool log_shows_host_only_construct(const char *log) {
    if (!log) return false;
    return log_shows_missing_standard_header(log) ||
           strstr(log, "not allowed in JIT mode") || /* host functions, annotated or not */
           strstr(log, "identifier \"cuda");
}

/* ------------------------------------------------------------------------------------------
 * nvcc (child process).
 * ------------------------------------------------------------------------------------------ */

/* nvcc from $PATH, then $CUDA_HOME/bin, then the one found at build time. NULL if none runs. */
static char *find_nvcc(void) {
    const char *path = getenv("PATH");
    if (path) {
        for (const char *dir = path; *dir;) {
            const char *end = strchr(dir, ':');
            size_t len = end ? (size_t)(end - dir) : strlen(dir);
            if (len > 0) {
                gr_strbuf sb = GR_STRBUF_INIT;
                gr_strbuf_appendf(&sb, "%.*s/nvcc", (int)len, dir);
                if (!sb.oom && is_executable_file(sb.data)) return gr_strbuf_take(&sb);
                gr_strbuf_free(&sb);
            }
            if (!end) break;
            dir = end + 1;
        }
    }
    const char *home = getenv("CUDA_HOME");
    if (home && home[0]) {
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%s/bin/nvcc", home);
        if (!sb.oom && is_executable_file(sb.data)) return gr_strbuf_take(&sb);
        gr_strbuf_free(&sb);
    }
    if (is_executable_file(GR_NVCC_DEFAULT)) return strdup(GR_NVCC_DEFAULT);
    return NULL;
}

/* A shell-readable rendering of argv, for --verbose output (never executed by a shell). */
static char *render_command(char *const *argv) {
    gr_strbuf sb = GR_STRBUF_INIT;
    for (int i = 0; argv[i]; i++) {
        if (i) gr_strbuf_putc(&sb, ' ');
        bool plain = argv[i][0] != '\0';
        for (const char *c = argv[i]; *c && plain; c++)
            plain = is_ident_char(*c) || strchr("-./=+,:@%", *c);
        if (plain) {
            gr_strbuf_append(&sb, argv[i]);
            continue;
        }
        gr_strbuf_putc(&sb, '\'');
        for (const char *c = argv[i]; *c; c++) {
            if (*c == '\'') gr_strbuf_append(&sb, "'\\''");
            else gr_strbuf_putc(&sb, *c);
        }
        gr_strbuf_putc(&sb, '\'');
    }
    return gr_strbuf_take(&sb);
}

#define EXEC_FAILED_STATUS 127

/* Runs argv[0] with its standard output and error collected into *output; stdin is /dev/null.
 * Returns false (with `err` set) only when the process could not be run at all. */
static bool run_and_capture(char *const *argv, int *exit_status, char **output, gr_error *err) {
    *output = NULL;
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return gr_fail(err, GR_ERR_IO, "cannot create a pipe for %s: %s", argv[0], strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return gr_fail(err, GR_ERR_IO, "cannot start %s: %s", argv[0], strerror(errno));
    }
    if (pid == 0) { /* child: only async-signal-safe calls from here on */
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
        dup2(pipe_fds[1], STDOUT_FILENO);
        dup2(pipe_fds[1], STDERR_FILENO);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        execv(argv[0], argv);
        static const char msg[] = "cannot execute the compiler\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(EXEC_FAILED_STATUS);
    }
    close(pipe_fds[1]);
    gr_strbuf collected = GR_STRBUF_INIT;
    char chunk[4096];
    for (;;) {
        ssize_t got = read(pipe_fds[0], chunk, sizeof chunk);
        if (got > 0) gr_strbuf_append_n(&collected, chunk, (size_t)got);
        else if (got == 0 || errno != EINTR) break;
    }
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    *output = trimmed_log(gr_strbuf_cstr(&collected));
    gr_strbuf_free(&collected);
    if (WIFEXITED(status)) {
        *exit_status = WEXITSTATUS(status);
        return true;
    }
    free(*output);
    *output = NULL;
    return gr_fail(err, GR_ERR_INTERNAL, "%s was killed by signal %d", argv[0],
                   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static char *temp_path(const char *suffix, int *fd) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0]) dir = "/tmp";
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "%s/gpurace-XXXXXX%s", dir, suffix);
    char *path = gr_strbuf_take(&sb);
    if (!path) return NULL;
    *fd = mkstemps(path, (int)strlen(suffix));
    if (*fd < 0) {
        free(path);
        return NULL;
    }
    return path;
}

/* Writes `source` to a temporary .cu file, behind a #line directive so that nvcc's messages
 * and the PTX's .file entries name `name` rather than the temporary file. */
static char *write_temp_source(const char *source, const char *name, gr_error *err) {
    int fd = -1;
    char *path = temp_path(".cu", &fd);
    if (!path) {
        gr_fail(err, GR_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
        return NULL;
    }
    gr_strbuf text = GR_STRBUF_INIT;
    gr_strbuf_append(&text, "#line 1 \"");
    for (const char *c = name; *c; c++) {
        if (*c == '"' || *c == '\\') gr_strbuf_putc(&text, '\\');
        gr_strbuf_putc(&text, *c);
    }
    gr_strbuf_append(&text, "\"\n");
    gr_strbuf_append(&text, source);
    bool ok = !text.oom;
    for (size_t done = 0; ok && done < text.len;) {
        ssize_t n = write(fd, text.data + done, text.len - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += (size_t)n;
    }
    ok = close(fd) == 0 && ok;
    gr_strbuf_free(&text);
    if (!ok) {
        gr_fail(err, GR_ERR_IO, "cannot write the temporary file %s", path);
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

/* Compiles with `nvcc -ptx`. `real_file` is the file on disk when there is one; otherwise the
 * source goes through a temporary file. `note` (may be NULL) opens the log and the error. */
static bool compile_with_nvcc(const char *source, const char *name, const char *real_file,
                              const gr_compile_options *opt, const char *note,
                              gr_compile_result *out, gr_error *err) {
    char *nvcc = find_nvcc();
    if (!nvcc) {
        gr_fail(err, GR_ERR_UNSUPPORTED,
                "%s needs nvcc (it has host code), but nvcc was found neither in PATH, "
                "nor in $CUDA_HOME/bin, nor at %s",
                name, GR_NVCC_DEFAULT);
        if (note) gr_error_set_detail(err, note);
        return false;
    }
    char *temp_source = NULL;
    char *input = NULL;
    char *source_dir = NULL;
    if (real_file) {
        /* A path starting with '-' would read as an option. */
        gr_strbuf sb = GR_STRBUF_INIT;
        gr_strbuf_appendf(&sb, "%s%s", real_file[0] == '-' ? "./" : "", real_file);
        input = gr_strbuf_take(&sb);
    } else {
        temp_source = write_temp_source(source, name, err);
        if (!temp_source) {
            free(nvcc);
            return false;
        }
        input = strdup(temp_source);
        source_dir = gr_path_directory(name); /* quoted includes resolve next to `name` */
    }
    int out_fd = -1;
    char *ptx_path = temp_path(".ptx", &out_fd);
    if (ptx_path) close(out_fd);

    bool ok = false;
    string_list args = {0};
    char *arch = virtual_arch(opt);
    list_add(&args, "", nvcc);
    list_add(&args, "", "-ptx");
    list_add(&args, "-arch=", arch ? arch : DEFAULT_ARCH);
    add_mode_flags(&args, opt);
    add_relocatable_flag(&args, opt, false);
    list_add(&args, "", CXX_STANDARD);
    add_user_flags(&args, opt);
    if (source_dir) list_add(&args, "-I", source_dir);
    list_add(&args, "", "-x");
    list_add(&args, "", "cu");
    list_add(&args, "", "-o");
    list_add(&args, "", ptx_path ? ptx_path : "");
    list_add(&args, "", input ? input : "");
    free(arch);

    if (!ptx_path) {
        gr_fail(err, GR_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
    } else if (args.oom || !input) {
        gr_fail(err, GR_ERR_NOMEM, "out of memory preparing the nvcc command");
    } else {
        int status = 0;
        char *log = NULL;
        if (run_and_capture(args.items, &status, &log, err)) {
            if (status == EXEC_FAILED_STATUS && log && strstr(log, "cannot execute the compiler")) {
                gr_fail(err, GR_ERR_IO, "cannot run %s", nvcc);
            } else if (status != 0) {
                fail_compilation(err, name, note, log);
            } else {
                size_t len = 0;
                char *ptx = gr_read_file(ptx_path, &len, err);
                if (ptx) {
                    out->ptx = ptx;
                    out->ptx_len = len;
                    out->used = GR_COMPILER_NVCC;
                    out->command = render_command(args.items);
                    gr_strbuf combined = GR_STRBUF_INIT;
                    if (note) gr_strbuf_appendf(&combined, "note: %s\n", note);
                    if (log) gr_strbuf_append(&combined, log);
                    out->log = trimmed_log(gr_strbuf_cstr(&combined));
                    gr_strbuf_free(&combined);
                    ok = true;
                }
            }
            free(log);
        }
    }
    if (ptx_path) unlink(ptx_path);
    if (temp_source) unlink(temp_source);
    free(ptx_path);
    free(temp_source);
    free(source_dir);
    free(input);
    free(nvcc);
    list_free(&args);
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * Device code alone: host function bodies left out, for host code that does not compile.
 * ------------------------------------------------------------------------------------------ */

/* Whether `word` occurs in code[from, to) as a whole identifier. */
static bool has_word(const char *code, size_t from, size_t to, const char *word) {
    size_t n = strlen(word);
    for (size_t i = from; i + n <= to; i++)
        if (memcmp(code + i, word, n) == 0 && (i == from || !is_ident_char(code[i - 1])) &&
            (i + n == to || !is_ident_char(code[i + n])))
            return true;
    return false;
}

/* The function name of a declaration code[from, to) that ends in its parameter list: the
 * identifier before the '(' that matches the last ')'. */
static void function_name(const char *code, size_t from, size_t to, char *buf, size_t n) {
    buf[0] = '\0';
    size_t close = to;
    while (close > from && code[close - 1] != ')') close--;
    if (close == from) return;
    int depth = 0;
    size_t open = close;
    while (open > from) {
        open--;
        if (code[open] == ')') depth++;
        else if (code[open] == '(' && --depth == 0) break;
    }
    size_t end = open;
    while (end > from && isspace((unsigned char)code[end - 1])) end--;
    size_t start = end;
    while (start > from && (is_ident_char(code[start - 1]) || code[start - 1] == ':' ||
                            code[start - 1] == '~'))
        start--;
    size_t len = end - start < n - 1 ? end - start : n - 1;
    memcpy(buf, code + start, len);
    buf[len] = '\0';
}

/* The declaration before a '{' at `brace` (since the last ';', '{' or '}' at this level, and
 * after a preprocessor line) is a function definition: it ends in a parameter list, maybe
 * followed by qualifiers, and is no initializer, class, namespace or linkage block. */
static bool is_function_body(const char *code, size_t from, size_t brace) {
    size_t end = brace;
    while (end > from && isspace((unsigned char)code[end - 1])) end--;
    /* trailing qualifiers: const, noexcept, override, final, volatile, & / && */
    for (bool again = true; again;) {
        again = false;
        static const char *const quals[] = {"const", "noexcept", "override", "final", "volatile"};
        for (size_t q = 0; q < sizeof quals / sizeof *quals; q++) {
            size_t n = strlen(quals[q]);
            if (end - from >= n && memcmp(code + end - n, quals[q], n) == 0 &&
                (end - n == from || !is_ident_char(code[end - n - 1]))) {
                end -= n;
                while (end > from && isspace((unsigned char)code[end - 1])) end--;
                again = true;
            }
        }
        while (end > from && code[end - 1] == '&') end--, again = true;
    }
    if (end == from || code[end - 1] != ')') return false;
    for (size_t i = from; i < end; i++)
        if (code[i] == '=' && (i + 1 >= end || code[i + 1] != '=') &&
            (i == from || (code[i - 1] != '=' && code[i - 1] != '!' && code[i - 1] != '<' &&
                           code[i - 1] != '>' && code[i - 1] != 'r')))
            return false; /* an initializer (operator= keeps its 'r') */
    return !has_word(code, from, end, "class") && !has_word(code, from, end, "struct") &&
           !has_word(code, from, end, "union") && !has_word(code, from, end, "enum") &&
           !has_word(code, from, end, "namespace");
}

/* `source` with the body of every host function replaced by a trap (newlines kept, so line
 * numbers stay): functions marked __global__ or __device__ (and __host__ __device__) keep
 * theirs. Namespace, linkage and class bodies are entered. `dropped` gets the names left out.
 * NULL when out of memory or when there is no host function. */
static char *without_host_bodies(const char *source, gr_strbuf *dropped) {
    char *code = blank_comments_and_literals(source);
    char *out = strdup(source);
    if (!code || !out) {
        free(code);
        free(out);
        return NULL;
    }
    size_t n = strlen(code), decl_start = 0;
    int stubbed = 0;
    bool line_start = true;
    for (size_t i = 0; i < n; i++) {
        char c = code[i];
        if (line_start && c == '#') { /* a preprocessor line (with continuations) */
            while (i < n && !(code[i] == '\n' && code[i - 1] != '\\')) i++;
            decl_start = i + 1;
            continue;
        }
        line_start = c == '\n' || (line_start && isspace((unsigned char)c));
        if (c == ';' || c == '}') {
            decl_start = i + 1;
        } else if (c == '{') {
            if (!is_function_body(code, decl_start, i)) {
                decl_start = i + 1; /* a scope to enter (namespace, extern "C", class) */
                continue;
            }
            int depth = 0;
            size_t close = i;
            for (; close < n; close++) {
                if (code[close] == '{') depth++;
                else if (code[close] == '}' && --depth == 0) break;
            }
            bool device = has_word(code, decl_start, i, "__global__") ||
                          has_word(code, decl_start, i, "__device__");
            if (!device && close < n) {
                char name[128];
                function_name(code, decl_start, i, name, sizeof name);
                gr_strbuf_appendf(dropped, "%s%s", stubbed++ ? ", " : "", name[0] ? name : "?");
                for (size_t k = i + 1; k < close; k++)
                    if (out[k] != '\n') out[k] = ' ';
                static const char trap[] = " __builtin_trap(); ";
                if (close - i - 1 >= sizeof trap - 1) memcpy(out + i + 1, trap, sizeof trap - 1);
                else {
                    /* too short for the trap: a body of blanks is fine for void, warned for others */
                }
            }
            i = close < n ? close : n;
            decl_start = i + 1;
        }
    }
    free(code);
    if (!stubbed) {
        free(out);
        return NULL;
    }
    return out;
}

static char *first_error_line(const char *log);

/* nvcc failed on a file with host code: compile its device code alone. True (with `out` and
 * its note) when that works; false leaves `err` as it was (the original error stands). */
static bool compile_device_code_alone(const char *source, const char *name,
                                      const gr_compile_options *opt, gr_compile_result *out,
                                      gr_error *err) {
    gr_strbuf dropped = GR_STRBUF_INIT;
    char *stubbed = without_host_bodies(source, &dropped);
    bool ok = false;
    if (stubbed) {
        gr_error again = GR_ERROR_INIT;
        gr_compile_result r = {0};
        if (compile_with_nvcc(stubbed, name, NULL, opt, NULL, &r, &again)) {
            char *first = first_error_line(err->detail ? err->detail : err->message);
            gr_strbuf note = GR_STRBUF_INIT;
            gr_strbuf_appendf(&note,
                              "the host code of %s does not compile with this CUDA toolkit (%s); "
                              "its device code was compiled alone, without the bodies of its "
                              "host functions: %s",
                              name, first ? first : "see the compiler log",
                              gr_strbuf_cstr(&dropped));
            free(first);
            r.note = gr_strbuf_take(&note);
            *out = r;
            gr_error_clear(err);
            ok = true;
        } else {
            gr_error_clear(&again);
        }
    }
    free(stubbed);
    gr_strbuf_free(&dropped);
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * Entry points.
 * ------------------------------------------------------------------------------------------ */

/* The first line of `log` that reports an error, for the one-line fallback note. */
static char *first_error_line(const char *log) {
    for (const char *l = log; l && *l;) {
        const char *eol = strchr(l, '\n');
        size_t len = eol ? (size_t)(eol - l) : strlen(l);
        const char *hit = strstr(l, "error");
        if (hit && (!eol || hit < eol)) return strndup(l, len);
        l = eol ? eol + 1 : NULL;
    }
    return NULL;
}

static bool compile_uncached(const char *source, const char *name, const char *real_file,
                             const gr_compile_options *opt, gr_compile_result *out,
                             gr_error *err) {
    if (strcmp(gr_path_extension(name), "ptx") == 0) { /* PTX is taken as it is */
        out->ptx = strdup(source);
        if (!out->ptx) return gr_fail(err, GR_ERR_NOMEM, "out of memory copying %s", name);
        out->ptx_len = strlen(source);
        out->used = GR_COMPILER_AUTO;
        return true;
    }
    gr_compiler chosen = opt ? opt->compiler : GR_COMPILER_AUTO;
    if (chosen == GR_COMPILER_NVCC ||
        (chosen == GR_COMPILER_AUTO && gr_source_has_host_code(source))) {
        if (compile_with_nvcc(source, name, real_file, opt, NULL, out, err)) return true;
        return err->status == GR_ERR_COMPILE &&
               compile_device_code_alone(source, name, opt, out, err);
    }

    char *log = NULL;
    nvrtc_outcome outcome = compile_with_nvrtc(source, name, opt, out, &log, err);
    if (outcome != NVRTC_COMPILE_ERROR) {
        free(log);
        return outcome == NVRTC_OK;
    }
    bool ok = false;
    if (chosen == GR_COMPILER_AUTO && log_shows_host_only_construct(log)) {
        char *first = first_error_line(log);
        gr_strbuf note = GR_STRBUF_INIT;
        gr_strbuf_appendf(&note, "NVRTC could not compile %s (%s); retried with nvcc",
                          name, first ? first : "host-only construct");
        free(first);
        ok = compile_with_nvcc(source, name, real_file, opt, gr_strbuf_cstr(&note), out, err);
        gr_strbuf_free(&note);
    } else {
        const char *hint = NULL;
        if (chosen == GR_COMPILER_NVRTC && gr_source_has_host_code(source))
            hint = "this file has host code (main, kernel launches, host API calls or "
                   "standard-library headers); NVRTC compiles device code only: use "
                   "--compiler nvcc or --compiler auto";
        fail_compilation(err, name, hint, log);
    }
    free(log);
    return ok;
}

/* What the compilers are, as one line of the cache key: NVRTC's version, the nvcc and CUDA
 * headers found, and whether the file is compiled in place (nvcc names it in .file). */
static char *compiler_identity(const char *real_file) {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return NULL;
    char *nvcc = find_nvcc(), *include = cuda_include_dir();
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_strbuf_appendf(&sb, "nvrtc %d.%d; nvcc %s; include %s; %s", major, minor,
                      nvcc ? nvcc : "-", include ? include : "-", real_file ? "file" : "text");
    free(nvcc);
    free(include);
    return sb.oom ? (gr_strbuf_free(&sb), NULL) : gr_strbuf_take(&sb);
}

/* Compiles through the on-disk cache (cache.h): a hit costs a file read. */
static bool compile_text(const char *source, const char *name, const char *real_file,
                         const gr_compile_options *opt, gr_compile_result *out, gr_error *err) {
    if (strcmp(gr_path_extension(name), "ptx") == 0)
        return compile_uncached(source, name, real_file, opt, out, err);
    char *identity = compiler_identity(real_file);
    gr_compile_cache_key key;
    bool cacheable = identity && gr_compile_cache_key_make(source, name, opt, identity, &key);
    free(identity);
    if (cacheable && gr_compile_cache_load(&key, out)) return true;
    bool ok = compile_uncached(source, name, real_file, opt, out, err);
    if (ok && cacheable) gr_compile_cache_store(&key, out);
    return ok;
}

bool gr_compile_source(const char *source, const char *name, const gr_compile_options *opt,
                       gr_compile_result *out, gr_error *err) {
    *out = (gr_compile_result){0};
    if (!source || !name) return gr_fail(err, GR_ERR_INTERNAL, "gr_compile_source: no source");
    return compile_text(source, name, NULL, opt, out, err);
}

bool gr_compile_file(const char *path, const gr_compile_options *opt, gr_compile_result *out,
                     gr_error *err) {
    *out = (gr_compile_result){0};
    if (!path) return gr_fail(err, GR_ERR_INTERNAL, "gr_compile_file: no path");
    if (is_directory(path))
        return gr_fail_at(err, GR_ERR_IO, path, 0, 0, "%s is a directory, not a .cu or .ptx file",
                          path);
    char *source = gr_read_file(path, NULL, err);
    if (!source) return false;
    bool ok = compile_text(source, path, path, opt, out, err);
    free(source);
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * Compiling in a child process (gr_compile_file_isolated).
 * ------------------------------------------------------------------------------------------ */

/* Length-prefixed strings over the pipe; NULL travels as length UINT64_MAX. */
static bool pipe_write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static bool pipe_read_all(int fd, void *p, size_t n) {
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

static bool pipe_write_str(int fd, const char *s, size_t len) {
    uint64_t n = s ? (uint64_t)len : UINT64_MAX;
    return pipe_write_all(fd, &n, sizeof n) && (!s || pipe_write_all(fd, s, len));
}

static bool pipe_read_str(int fd, char **out, size_t *len) {
    uint64_t n;
    *out = NULL;
    if (!pipe_read_all(fd, &n, sizeof n)) return false;
    if (n == UINT64_MAX) return true;
    if (n > ((uint64_t)1 << 34)) return false;
    char *s = malloc((size_t)n + 1);
    if (!s) return false;
    if (!pipe_read_all(fd, s, (size_t)n)) {
        free(s);
        return false;
    }
    s[n] = '\0';
    *out = s;
    if (len) *len = (size_t)n;
    return true;
}

bool gr_compile_file_isolated(const char *path, const gr_compile_options *opt,
                              gr_compile_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    int fds[2];
    if (pipe(fds) != 0)
        return gr_fail(err, GR_ERR_IO, "cannot create a pipe to the compiler process: %s",
                       strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return gr_fail(err, GR_ERR_IO, "cannot start the compiler process: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        gr_compile_result r;
        gr_error e = GR_ERROR_INIT;
        int32_t ok = gr_compile_file(path, opt, &r, &e) ? 1 : 0;
        int32_t head[4] = {ok, (int32_t)e.status, e.line, e.column};
        int32_t used = ok ? (int32_t)r.used : 0;
        bool sent = pipe_write_all(fds[1], head, sizeof head) &&
                    pipe_write_all(fds[1], &used, sizeof used) &&
                    pipe_write_str(fds[1], e.file, strlen(e.file)) &&
                    pipe_write_str(fds[1], e.message, e.message ? strlen(e.message) : 0) &&
                    pipe_write_str(fds[1], e.detail, e.detail ? strlen(e.detail) : 0) &&
                    pipe_write_str(fds[1], ok ? r.ptx : NULL, ok ? r.ptx_len : 0) &&
                    pipe_write_str(fds[1], ok ? r.log : NULL, ok && r.log ? strlen(r.log) : 0) &&
                    pipe_write_str(fds[1], ok ? r.command : NULL,
                                   ok && r.command ? strlen(r.command) : 0) &&
                    pipe_write_str(fds[1], ok ? r.note : NULL, ok && r.note ? strlen(r.note) : 0);
        _exit(sent ? 0 : 1);
    }
    close(fds[1]);
    int32_t head[4] = {0}, used = 0;
    char *file = NULL, *message = NULL, *detail = NULL;
    bool got = pipe_read_all(fds[0], head, sizeof head) && pipe_read_all(fds[0], &used, sizeof used) &&
               pipe_read_str(fds[0], &file, NULL) && pipe_read_str(fds[0], &message, NULL) &&
               pipe_read_str(fds[0], &detail, NULL) &&
               pipe_read_str(fds[0], &out->ptx, &out->ptx_len) &&
               pipe_read_str(fds[0], &out->log, NULL) && pipe_read_str(fds[0], &out->command, NULL) &&
               pipe_read_str(fds[0], &out->note, NULL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    bool ok = false;
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        gr_fail(err, GR_ERR_INTERNAL, "the compiler process for %s ended without a result", path);
    } else if (!head[0]) {
        if (file && file[0]) gr_fail_at(err, (gr_status)head[1], file, head[2], head[3], "%s", message ? message : "compilation failed");
        else gr_fail(err, (gr_status)head[1], "%s", message ? message : "compilation failed");
        if (detail) gr_error_set_detail(err, detail);
    } else if (!out->ptx) {
        gr_fail(err, GR_ERR_INTERNAL, "the compiler process for %s sent no PTX", path);
    } else {
        out->used = (gr_compiler)used;
        ok = true;
    }
    free(file);
    free(message);
    free(detail);
    if (!ok) gr_compile_result_free(out);
    return ok;
}
