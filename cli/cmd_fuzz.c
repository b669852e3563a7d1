/* gpurace fuzz FILE [--kernel K] [--spec F] [--backend auto|sim|gpu] [--time S] [--runs N]
 *               [--corpus DIR] [--findings DIR] [--jobs N] [--seed N] [--stop-on-first]
 *               [--json F] [--sarif F] [--suppressions F] [--fail-on race|any|none]
 *               [--quiet] [--verbose] [--oracle seqcmp|none] [--reference NAME]
 *               [--oracle-schedules LIST] [-- libFuzzer flags]
 *
 * With --oracle seqcmp (the default when the spec names a reference function) every saved
 * finding's input is compared with the sequential reference (the witness records the verdict,
 * the report its `manifests`), and inputs that reach new coverage are probed cheaply (serial
 * against two schedules): an output divergence is a search feature, and one without a detected
 * race is saved as a finding. Without the oracle nothing of this runs.
 *
 * The race search. Genomes decode under the kernel's spec (inferred when --spec is absent; the
 * assumptions are printed) into complete launches; libFuzzer evolves them, guided by the
 * counters search/feedback.c fills. Each new finding (by signature) is minimized, saved as a
 * witness (and a reproducer .cu) under --findings (default: CORPUS/findings with --corpus, else
 * ./gpurace-findings), printed, and the search goes on unless --stop-on-first. The campaign runs
 * in forked workers (search/campaign.h) because libFuzzer ends its process with exit(); this
 * file holds the glue libFuzzer calls, which by its C interface has no context argument: the
 * worker's state is reached through one process-global pointer set once in the worker. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/oracle_opts.h"
#include "cli/report_opts.h"
#include "cli/search_cli.h"
#include "corpus/corpus_dir.h"
#include "corpus/generate.h"
#include "search/campaign.h"
#include "search/feedback.h"
#include "search/minimize.h"
#include "search/mutate.h"

#ifdef GPURACE_HAVE_LIBFUZZER
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *data, size_t size));
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
#endif

enum { FUZZ_MAX_PASSTHROUGH = 64, FUZZ_SEEN_MAX = 4096, FUZZ_MINIMIZE_TRIES = 300 };

typedef struct fuzz_worker {
    search_session *session;
    gr_dictionary dict;
    const char *corpus_dir, *findings_dir, *log_dir;
    bool stop_on_first, verbose;
    char **passthrough;
    int npassthrough;
    int msg_fd;
    gr_campaign_stats *stats;
    uint8_t *seen;          /* union of counters set so far in this worker */
    uint64_t covered;
    uint64_t local_sigs[FUZZ_SEEN_MAX];
    int nlocal;
    uint64_t pending_execs;
    /* --oracle seqcmp: the full comparison for saved findings, and a cheap probe (serial against
     * two schedules) for inputs that reached new coverage, whose divergence is a feature */
    cli_oracle_kind oracle;
    gr_seqcmp_options seqcmp, probe;
} fuzz_worker;

/* libFuzzer's callbacks take no context: the worker process sets these once. */
static fuzz_worker *g_worker;
__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t g_counters[GR_FEEDBACK_DEFAULT_SIZE];

static void say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int fd, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0) {
        /* nothing to do: the message is informational */
    }
}

static bool seen_locally(fuzz_worker *w, uint64_t sig) {
    for (int i = 0; i < w->nlocal; i++)
        if (w->local_sigs[i] == sig) return true;
    if (w->nlocal < FUZZ_SEEN_MAX) w->local_sigs[w->nlocal++] = sig;
    return false;
}

/* The value oracle's verdict on a witness's input, recorded in the witness (oracle "seqcmp"). */
/* The sequential comparison of one input on the session's kernel; false (error dropped: the
 * campaign goes on without this verdict) when it could not run. */
static bool run_seqcmp(search_session *s, const gr_input *in, const gr_seqcmp_options *o,
                       gr_seqcmp_verdict *v) {
    gr_error err = GR_ERROR_INIT;
    if (gr_seqcmp_run(s->loaded.module, s->kernel->ptx_name, s->kernel,
                      s->have_spec ? &s->spec : NULL, in, o, v, &err))
        return true;
    gr_error_clear(&err);
    return false;
}

static void add_seqcmp_verdict(fuzz_worker *w, const gr_input *in, gr_witness *wit) {
    search_session *s = w->session;
    gr_seqcmp_options o = w->seqcmp;
    o.races_detected = wit->nfindings > 0;
    gr_seqcmp_verdict v;
    if (!run_seqcmp(s, in, &o, &v)) return;
    gr_witness_verdict *vs = calloc(1, sizeof *vs);
    if (vs) {
        vs->oracle = strdup("seqcmp");
        vs->verdict = strdup(v.nondeterministic_without_race ? "nondeterministic"
                             : v.differs                     ? "differs"
                                                             : "same");
        vs->detail = strdup(v.manifests);
        free(wit->verdicts);
        wit->verdicts = vs;
        wit->nverdicts = 1;
    }
    gr_seqcmp_verdict_free(&v);
}

/* A new finding: minimize, save witness and reproducer, tell the user. */
/* `found` is the launch that reported `f`: when the backend cannot run again (a trap on the
 * GPU ends its context, and the worker restarts after this), the witness is made from it. */
static void handle_new_finding(fuzz_worker *w, const gr_input *in, const gr_launch_result *found,
                               const gr_finding *f) {
    search_session *s = w->session;
    uint64_t sig = gr_search_signature(f);
    gr_search_relation rel = gr_search_relation_of(in, f);
    gr_input small;
    gr_minimize_stats ms = {0, 0};
    gr_error err = GR_ERROR_INIT;
    if (!gr_minimize_same_finding(s->runner, &s->codec, in, sig, rel, FUZZ_MINIMIZE_TRIES, &small,
                                  &ms, &err)) {
        gr_error_clear(&err);
        if (!gr_input_copy(&small, in)) return;
    }
    gr_launch_result res;
    const gr_launch_result *result = &res;
    const gr_input *keep = &small;
    bool ran = gr_runner_run(s->runner, keep, &res, &err);
    if (!ran || !gr_search_result_has(keep, &res, sig, GR_SEARCH_REL_NONE)) {
        /* not reproducible after all (GPU timing): keep the original launch */
        if (ran) gr_launch_result_free(&res);
        keep = in;
        gr_error_clear(&err);
        ran = gr_runner_run(s->runner, keep, &res, &err);
        if (!ran) {
            gr_error_clear(&err);
            result = found;
        }
    }
    gr_witness wit;
    char *wpath = NULL, *rpath = NULL;
    if (gr_search_make_witness(&s->target, keep, result, sig, gr_runner_backend_name(s->runner), &wit, &err)) {
        if (w->oracle == CLI_ORACLE_SEQCMP) add_seqcmp_verdict(w, keep, &wit);
        if (gr_search_save_finding(&s->target, w->findings_dir, &wit, &wpath, &rpath, &err)) {
            gr_campaign_saved(w->stats, sig);
            say(w->msg_fd, "\nfuzz: new %s (%s): grid (%u,%u,%u) block (%u,%u,%u), minimized in %d tries -> %s\n",
                gr_finding_class_name(f->cls), f->message, keep->grid[0], keep->grid[1], keep->grid[2],
                keep->block[0], keep->block[1], keep->block[2], ms.tries, wpath);
        }
        gr_witness_free(&wit);
    }
    if (gr_error_failed(&err)) {
        say(w->msg_fd, "\nfuzz: could not save a finding: %s\n", err.message ? err.message : "?");
        gr_error_clear(&err);
    }
    free(wpath);
    free(rpath);
    if (ran) gr_launch_result_free(&res);
    gr_input_free(&small);
}

/* Outputs that depend on the schedule while the detector saw no race: saved like a finding
 * (findings/nondeterministic-output-<feature>.json, no finding inside, the seqcmp verdict). */
static void save_divergence(fuzz_worker *w, const gr_input *in, uint64_t sig) {
    search_session *s = w->session;
    gr_launch_result none;
    memset(&none, 0, sizeof none);
    gr_witness wit;
    gr_error err = GR_ERROR_INIT;
    if (!gr_search_make_witness(&s->target, in, &none, 0, gr_runner_backend_name(s->runner), &wit,
                                &err)) {
        gr_error_clear(&err);
        return;
    }
    add_seqcmp_verdict(w, in, &wit);
    char path[4096];
    snprintf(path, sizeof path, "%s/nondeterministic-output-%016" PRIx64 ".json", w->findings_dir,
             sig);
    if (gr_witness_save(&wit, path, &err)) {
        gr_campaign_saved(w->stats, sig);
        say(w->msg_fd, "\nfuzz: new nondeterministic output without a detected race (%s) -> %s\n",
            wit.nverdicts ? wit.verdicts[0].detail : "?", path);
    } else {
        say(w->msg_fd, "\nfuzz: could not save a finding: %s\n", err.message ? err.message : "?");
        gr_error_clear(&err);
    }
    gr_witness_free(&wit);
}

/* The probe: does this input's output depend on the schedule? A divergence is a feature (new
 * divergences are new behaviour); one without a detected race is a finding. */
static void probe_outputs(fuzz_worker *w, const gr_input *in, const gr_launch_result *res) {
    search_session *s = w->session;
    gr_seqcmp_options o = w->probe;
    for (int i = 0; i < res->nfindings; i++)
        if (res->findings[i].cls == GR_FINDING_RACE) o.races_detected = true;
    gr_seqcmp_verdict v;
    if (!run_seqcmp(s, in, &o, &v)) return;
    uint64_t feature = gr_seqcmp_feature(&v);
    gr_feedback_add_feature(g_counters, sizeof g_counters, feature);
    if (feature && v.nondeterministic_without_race && !seen_locally(w, feature) &&
        gr_campaign_claim(w->stats, feature))
        save_divergence(w, in, feature);
    gr_seqcmp_verdict_free(&v);
}

static int fuzz_one(const uint8_t *data, size_t size) {
    fuzz_worker *w = g_worker;
    search_session *s = w->session;
    g_counters[0] = 1; /* libFuzzer needs a counter set every execution */
    if (atomic_load(&w->stats->stop)) _exit(0);
    gr_input in;
    if (!gr_codec_decode(&s->codec, data, size, &in, NULL)) return -1;
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    if (!gr_runner_run(s->runner, &in, &res, &err)) {
        bool internal = err.status == GR_ERR_INTERNAL || err.status == GR_ERR_NOMEM || strcmp(gr_runner_backend_name(s->runner), "gpu") == 0;
        if (w->verbose) say(2, "fuzz: launch failed: %s\n", err.message ? err.message : "?");
        gr_error_clear(&err);
        gr_input_free(&in);
        if (internal) _exit(75); /* a lost device context: the supervisor restarts this worker */
        return -1;
    }
    gr_feedback_fill(g_counters, sizeof g_counters, &in, &res);
    uint64_t newly = 0;
    for (size_t i = 0; i < sizeof g_counters; i++)
        if (g_counters[i] && !w->seen[i]) {
            w->seen[i] = 1;
            newly++;
        }
    if (newly) {
        w->covered += newly;
        gr_campaign_note_coverage(w->stats, w->covered);
        if (w->oracle == CLI_ORACLE_SEQCMP) probe_outputs(w, &in, &res);
    }
    for (int i = 0; i < res.nfindings; i++) {
        uint64_t sig = gr_search_signature(&res.findings[i]);
        if (seen_locally(w, sig) || !gr_campaign_claim(w->stats, sig)) continue;
        handle_new_finding(w, &in, &res, &res.findings[i]);
        if (w->stop_on_first) {
            atomic_fetch_add(&w->stats->execs, 1);
            _exit(0);
        }
    }
    gr_launch_result_free(&res);
    gr_input_free(&in);
    atomic_fetch_add(&w->stats->execs, 1);
    return 0;
}

#ifdef GPURACE_HAVE_LIBFUZZER
static size_t raw_mutate(uint8_t *data, size_t size, size_t max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (!g_worker) return LLVMFuzzerMutate(data, size, max_size);
    return gr_search_mutate(&g_worker->session->codec, &g_worker->dict, data, size, max_size,
                            seed ^ ((uint64_t)size << 32), raw_mutate);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
    if (!g_worker) return 0;
    return gr_search_crossover(&g_worker->session->codec, d1, s1, d2, s2, out, max_out, seed);
}
#endif

static int run_worker(void *ctx, int job, int attempt, uint64_t seed, double seconds, uint64_t runs,
                      gr_campaign_stats *stats) {
    fuzz_worker *w = ctx;
    w->stats = stats;
    w->msg_fd = dup(2);
    if (w->msg_fd < 0) w->msg_fd = 2;
    if (!w->verbose) {
        char log[4096];
        snprintf(log, sizeof log, "%s/worker-%d.log", w->log_dir, job);
        int fd = open(log, O_WRONLY | O_CREAT | (attempt ? O_APPEND : O_TRUNC), 0644);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, 1);
            close(nul);
        }
    }
    gr_error err = GR_ERROR_INIT;
    if (!search_session_runner(w->session, &err)) {
        /* stderr is the worker's log by now: the reason goes where the user looks */
        say(w->msg_fd, "fuzz: worker %d: %s\n", job, err.message ? err.message : "cannot start");
        return 3;
    }
    w->seen = calloc(GR_FEEDBACK_DEFAULT_SIZE, 1);
    if (!w->seen) return 3;
    g_worker = w;
#ifdef GPURACE_HAVE_LIBFUZZER
    char flags[8][64];
    size_t genome = gr_codec_genome_size(&w->session->codec);
    snprintf(flags[0], 64, "-seed=%u", (unsigned)(seed % 4000000000u) + 1u);
    snprintf(flags[1], 64, "-max_len=%zu", genome < 64 ? 64 : genome);
    snprintf(flags[2], 64, "-max_total_time=%d", seconds > 0 ? (int)ceil(seconds) : 0);
    snprintf(flags[3], 64, "-runs=%lld", runs ? (long long)runs : -1LL);
    snprintf(flags[4], 64, "-timeout=%d", 30);
    snprintf(flags[5], 64, "-print_final_stats=0");
    snprintf(flags[6], 64, "-rss_limit_mb=%d", 8192);
    snprintf(flags[7], 64, "-len_control=0");
    char *argv[16 + FUZZ_MAX_PASSTHROUGH];
    int argc = 0;
    argv[argc++] = "gpurace-fuzz";
    for (int i = 0; i < 8; i++) argv[argc++] = flags[i];
    for (int i = 0; i < w->npassthrough; i++) argv[argc++] = w->passthrough[i];
    argv[argc++] = (char *)w->corpus_dir;
    argv[argc] = NULL;
    char **av = argv;
    int rc = LLVMFuzzerRunDriver(&argc, &av, fuzz_one);
    return rc == 0 ? 0 : 75;
#else
    (void)seed, (void)seconds, (void)runs;
    say(w->msg_fd, "fuzz: this build of gpurace has no libFuzzer runtime\n");
    return 3;
#endif
}

static bool make_dir(const char *d, gr_error *err) {
    if (mkdir(d, 0777) == 0 || errno == EEXIST) return true;
    return gr_fail(err, GR_ERR_IO, "cannot create %s: %s", d, strerror(errno));
}

static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
            else unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* A few starting genomes: all zeros (the smallest launch) and some seeded random ones. */
static void seed_corpus(const search_session *s, const char *dir, uint64_t seed) {
    size_t n = gr_codec_genome_size(&s->codec);
    uint8_t *g = calloc(n + 8, 1);
    if (!g) return;
    for (int k = 0; k < 8; k++) {
        if (k > 0)
            for (size_t i = 0; i < n; i += 8) {
                uint64_t v = gr_mix64(seed + (uint64_t)k * 0x10001u + i);
                memcpy(g + i, &v, n - i < 8 ? n - i : 8);
            }
        gr_corpus_save_genome(dir, g, n, NULL, NULL);
    }
    free(g);
}

static bool parse_count(const char *what, const char *text, uint64_t *out, gr_error *err) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!*text || *end || errno || *text == '-')
        return gr_fail(err, GR_ERR_USAGE, "%s must be a non-negative integer, not '%s'", what, text);
    *out = v;
    return true;
}

/* Finds the witness saved for `sig` in dir (any class). */
static char *witness_for(const char *dir, uint64_t sig) {
    char suffix[40];
    snprintf(suffix, sizeof suffix, "-%016" PRIx64 ".json", sig);
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char *found = NULL;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        if (len > sl && strcmp(e->d_name + len - sl, suffix) == 0) {
            found = malloc(strlen(dir) + len + 2);
            if (found) sprintf(found, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return found;
}

int cmd_fuzz(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *spec = NULL, *backend = NULL, *time_s = NULL, *runs_s = NULL, *corpus = NULL,
               *findings = NULL, *jobs_s = NULL, *seed_s = NULL,
               *warp_model = NULL, *detector = NULL;
    bool stop_on_first = false;
    cli_report_options report = {0};
    cli_oracle_options oracle = {0};
    int split = argc;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
    cli_source_options src = {0};
    const cli_opt_spec specs[] = {
        {"--spec", CLI_VALUE, &spec, NULL},       {"--backend", CLI_VALUE, &backend, NULL},
        {"--time", CLI_VALUE, &time_s, NULL},     {"--runs", CLI_VALUE, &runs_s, NULL},
        {"--corpus", CLI_VALUE, &corpus, NULL},   {"--findings", CLI_VALUE, &findings, NULL},
        {"--jobs", CLI_VALUE, &jobs_s, NULL},     CLI_REPORT_OPT_SPECS(&report),
        {"--seed", CLI_VALUE, &seed_s, NULL},
        {"--warp-model", CLI_VALUE, &warp_model, NULL}, {"--detector", CLI_VALUE, &detector, NULL},
        {"--stop-on-first", CLI_FLAG, NULL, &stop_on_first}, CLI_ORACLE_OPT_SPECS(&oracle),

        {NULL, CLI_FLAG, NULL, NULL}};
    if (!cli_parse("fuzz", split, argv, 2, &src, specs, &err)) return search_fail(&err);
    uint64_t seconds = 0, runs = 0, jobs = 1, seed = 1;
    if ((time_s && !parse_count("--time", time_s, &seconds, &err)) ||
        (runs_s && !parse_count("--runs", runs_s, &runs, &err)) ||
        (jobs_s && !parse_count("--jobs", jobs_s, &jobs, &err)) ||
        (seed_s && !parse_count("--seed", seed_s, &seed, &err)))
        return search_fail(&err);
    if (jobs < 1 || jobs > GR_CAMPAIGN_MAX_JOBS) {
        gr_fail(&err, GR_ERR_USAGE, "--jobs must be between 1 and %d", GR_CAMPAIGN_MAX_JOBS);
        return search_fail(&err);
    }
    if (!time_s && !runs_s) seconds = 60;
    if (argc - split - 1 > FUZZ_MAX_PASSTHROUGH) {
        gr_fail(&err, GR_ERR_USAGE, "too many libFuzzer flags after --");
        return search_fail(&err);
    }
#ifndef GPURACE_HAVE_LIBFUZZER
    gr_fail(&err, GR_ERR_UNSUPPORTED, "this build of gpurace has no libFuzzer runtime (build with clang installed)");
    return search_fail(&err);
#endif
    search_session s;
    /* Workers are forked: a GPU worker needs a parent that never initialized the driver. */
    bool maybe_gpu = backend && strcmp(backend, "sim") != 0;
    search_session_options so = {spec, true, backend, detector, warp_model, 0, true, maybe_gpu};
    int code = -1;
    char workdir[] = "/tmp/gpurace-fuzz-XXXXXX";
    bool have_workdir = false;
    char *corpus_dir = NULL, *findings_dir = NULL;
    gr_report r;
    gr_report_init(&r);
    cli_oracle_kind oracle_kind = CLI_ORACLE_NONE;
    gr_seqcmp_options seqcmp;
    if (!search_session_open(&s, &src, &so, &err) ||
        !cli_oracle_parse(&oracle, s.loaded.source, src.file, &oracle_kind, &seqcmp, &err))
        goto done;
    oracle_kind = cli_oracle_default(&oracle, s.have_spec ? &s.spec : NULL, oracle_kind);
    if (oracle_kind == CLI_ORACLE_TWOPASS) {
        gr_fail(&err, GR_ERR_USAGE, "fuzz takes --oracle seqcmp or none (twopass: use check or "
                                    "replay on the saved witnesses)");
        goto done;
    }
    if (s.spec_inferred) {
        gr_strbuf a = GR_STRBUF_INIT;
        gr_spec_print_assumptions(&s.spec, &a);
        fprintf(stderr, "fuzz: no --spec for kernel %s; inferred one (gpurace info %s --spec prints it):\n%s",
                s.kernel->name, src.file, gr_strbuf_cstr(&a));
        gr_strbuf_free(&a);
    }
    if (!mkdtemp(workdir)) {
        gr_fail(&err, GR_ERR_IO, "cannot create a temporary folder: %s", strerror(errno));
        goto done;
    }
    have_workdir = true;
    if (corpus) {
        corpus_dir = strdup(corpus);
    } else {
        corpus_dir = malloc(strlen(workdir) + 16);
        if (corpus_dir) sprintf(corpus_dir, "%s/corpus", workdir);
    }
    if (findings) {
        findings_dir = strdup(findings);
    } else if (corpus) {
        findings_dir = malloc(strlen(corpus) + 16);
        if (findings_dir) sprintf(findings_dir, "%s/findings", corpus);
    } else {
        findings_dir = strdup("gpurace-findings");
    }
    if (!corpus_dir || !findings_dir) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (!make_dir(corpus_dir, &err) || !make_dir(findings_dir, &err)) goto done;
    seed_corpus(&s, corpus_dir, seed);
    fuzz_worker w;
    memset(&w, 0, sizeof w);
    w.session = &s;
    w.oracle = oracle_kind;
    w.seqcmp = seqcmp;
    w.probe = seqcmp;
    w.probe.detect = false; /* the execution's own detector result counts */
    w.probe.max_diffs = 1;
    if (!oracle.schedules) {
        w.probe.nschedules = 2;
        gr_schedule_parse("rr:1", &w.probe.schedules[0], &err);
        gr_schedule_parse("reverse:1", &w.probe.schedules[1], &err);
    }
    gr_dictionary_from_ptx(s.loaded.compiled.ptx, &w.dict);
    w.corpus_dir = corpus_dir;
    w.findings_dir = findings_dir;
    w.log_dir = workdir;
    w.stop_on_first = stop_on_first;
    w.verbose = report.verbose;
    w.passthrough = argv + split + 1;
    w.npassthrough = split < argc ? argc - split - 1 : 0;
    fprintf(stderr, "fuzz: kernel %s, backend %s, %s%s, %d job%s, findings in %s\n", s.kernel->name,
            s.run_opt.backend, seconds ? "time " : "", seconds ? time_s ? time_s : "60s" : "", (int)jobs,
            jobs == 1 ? "" : "s", findings_dir);
    gr_campaign_options co = {(int)jobs, (double)seconds, runs, seed, stop_on_first, 0, stderr,
                              isatty(2) != 0};
    gr_campaign_summary sum;
    if (!gr_campaign_run(&co, run_worker, &w, &sum, &err)) goto done;
    fprintf(stderr, "fuzz: %" PRIu64 " executions in %.1fs (%.0f/s), coverage %" PRIu64 ", %u finding%s, %u worker restart%s\n",
            sum.execs, sum.elapsed, sum.elapsed > 0 ? (double)sum.execs / sum.elapsed : 0.0, sum.coverage,
            sum.findings, sum.findings == 1 ? "" : "s", sum.restarts, sum.restarts == 1 ? "" : "s");
    if (!search_session_runner(&s, &err)) goto done;
    r.command = "fuzz";
    r.file = gr_report_strdup(&r, src.file);
    r.kernel = gr_report_strdup(&r, s.kernel->name);
    uint64_t hash = gr_search_source_hash(&s.target);
    for (int i = 0; i < sum.nsignatures; i++) {
        char *wp = witness_for(findings_dir, sum.signatures[i]);
        if (!wp) continue;
        gr_witness wit;
        if (!gr_witness_load(&wit, wp, &hash, false, &err)) {
            free(wp);
            goto done;
        }
        char *rp = strdup(wp);
        struct stat st;
        if (rp && strlen(rp) > 5) strcpy(rp + strlen(rp) - 5, ".cu");
        if (rp && stat(rp, &st) != 0) {
            free(rp);
            rp = NULL;
        }
        int got = 0;
        size_t first = r.nfindings;
        bool ok = search_report_witness(&s, &r, &wit, wp, rp, sum.signatures[i], &got, &err);
        if (ok && oracle_kind == CLI_ORACLE_SEQCMP) {
            /* manifests for the witness's race; a saved divergence becomes its finding here */
            cli_oracle_outcome outcome;
            ok = cli_oracle_apply_from(oracle_kind, &seqcmp, s.loaded.module, s.kernel,
                                       s.have_spec ? &s.spec : NULL, &wit.input, s.srcmap, &r,
                                       first, &outcome, &err);
            cli_oracle_outcome_free(&outcome);
            for (size_t k = first; ok && k < r.nfindings; k++)
                if (!r.findings[k].witness) r.findings[k].witness = gr_report_strdup(&r, wp);
        }
        gr_witness_free(&wit);
        free(wp);
        free(rp);
        if (!ok) goto done;
    }
    code = cli_report_emit(&r, &report, s.srcmap, NULL, &err);
done:
    if (code < 0) code = search_fail(&err);
    gr_report_free(&r);
    search_session_close(&s);
    if (have_workdir) remove_tree(workdir);
    free(corpus_dir);
    free(findings_dir);
    return code;
}
