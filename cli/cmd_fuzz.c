/* gpurace fuzz FILE [--kernel K] [--spec F] [--backend auto|sim|gpu] [--time S] [--runs N]
 *               [--corpus DIR] [--findings DIR] [--jobs N] [--seed N] [--stop-on-first]
 *               [--json F] [--sarif F] [--suppressions F] [--fail-on race|any|none]
 *               [--quiet] [--verbose] [--oracle seqcmp|none] [--reference NAME]
 *               [--oracle-schedules LIST] [--plain-inference] [-- libFuzzer flags]
 *
 * With --oracle seqcmp (the default when the spec names a reference function) every saved
 * finding's input is compared with the sequential reference (the witness records the verdict,
 * the report its `manifests`), and inputs that reach new coverage are probed cheaply (serial
 * against two schedules): an output divergence is a search feature, and one without a detected
 * race is saved as a finding. Without the oracle nothing of this runs.
 *
 * The race search. Genomes decode under the kernel's spec (inferred when --spec is absent; the
 * assumptions are printed) into complete launches; libFuzzer evolves them, guided by the
 * counters search/feedback.c fills. Each new finding (by signature) is saved at once as a
 * witness of the launch that showed it (and a reproducer .cu) under --findings (default:
 * CORPUS/findings with --corpus, else ./gpurace-findings), then minimized (bounded in tries and
 * time) and replaced by the smaller witness only when that reproduces the same signature; the
 * search goes on unless --stop-on-first. The final report lists every finding the campaign
 * recorded, from its saved witness (or, when it could not be saved, from the copy the worker
 * put in the campaign's shared table), and says how often a replay reproduced it: a finding is
 * never turned into silence because a nondeterministic backend did not show it again. The
 * exit status is 1 when a finding was recorded, 3 when the run could not do its job (findings
 * not saved, every worker dead, interrupted with nothing found), 0 only when the whole budget
 * ran and found nothing. The campaign runs
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/hints.h"
#include "cli/interrupt.h"
#include "cli/oracle_opts.h"
#include "cli/report_opts.h"
#include "cli/search_cli.h"
#include "corpus/corpus_dir.h"
#include "common/file.h"
#include "corpus/generate.h"
#include "exec/sim/sim.h"
#include "cli/report/report_exec.h"
#include "common/hash.h"
#include "corpus/derive.h"
#include "corpus/seeds.h"
#include "search/amplify.h"
#include "search/campaign.h"
#include "search/feedback.h"
#include "search/minimize.h"
#include "search/mutate.h"

#ifdef GPURACE_HAVE_LIBFUZZER
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *data, size_t size));
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
#endif

enum {
    FUZZ_MAX_PASSTHROUGH = 64,
    FUZZ_SEEN_MAX = 4096,
    FUZZ_MINIMIZE_TRIES = 300,
    FUZZ_MINIMIZE_SECONDS = 20,  /* well inside libFuzzer's per-input timeout below */
    FUZZ_INPUT_TIMEOUT_S = 120,  /* one execution, minimizing a new finding included */
    FUZZ_GPU_REPLAYS = 3,        /* replays of a saved witness on a nondeterministic backend */
    FUZZ_MAX_PENDING = 64,       /* root causes waiting for their minimization in one worker */
    FUZZ_DRAIN_SECONDS = 15,     /* minimizing what is left when the search ends (the parent
                                  * waits GRACE_MINIMIZING_S for it) */
};

/* What a finding depends on, best first: a finding seen with several keeps the best. */
typedef enum fuzz_origin {
    ORIGIN_RECORDED,  /* a launch the program's own tests make */
    ORIGIN_SPEC,      /* within the spec (derived from the recordings, or the user's) */
    ORIGIN_INFERRED,  /* within a spec gpurace inferred from the signature */
    ORIGIN_OUTSIDE,   /* outside the spec: needs an assumption (a warning) */
    ORIGIN_COUNT
} fuzz_origin;

static const char *origin_name(fuzz_origin o) {
    static const char *const names[] = {"recorded", "spec", "inferred-spec", "outside-spec"};
    return (unsigned)o < ORIGIN_COUNT ? names[o] : "spec";
}
#define FUZZ_MAX_SECONDS 2147483647ull /* --time: libFuzzer takes an int */

/* What a worker puts in the campaign's shared table the moment it claims a finding: enough for
 * the parent to report it even when its witness never reaches the disk. Findings are claimed by
 * root cause (class, race kind, the pair of source lines) and what they depend on, so a root
 * cause is saved and minimized once however many instruction pairs show it. */
typedef struct fuzz_record {
    bool is_divergence;   /* a nondeterministic output without a detected race */
    uint8_t origin;       /* fuzz_origin of the saved witness (minimizing may improve it) */
    int16_t seed;         /* amplified: the seed the input started from, else -1 */
    gr_finding finding;   /* as the launch reported it */
    uint32_t grid[3], block[3], shared_bytes;
    gr_input_schedule schedule;
    uint64_t root;        /* the root cause */
    uint64_t sig;         /* the search's signature of `finding` (replays look for it) */
    char object[64];      /* the buffer the address lies in ("" unknown) */
    int64_t element;
    char assumption[200]; /* outside the spec: what the input needed */
} fuzz_record;
_Static_assert(sizeof(fuzz_record) <= GR_CAMPAIGN_RECORD_BYTES, "fuzz_record must fit the table");

struct fuzz_worker;

/* A root cause's minimization, a slice at a time between executions of the search. */
typedef struct pending_min {
    struct fuzz_worker *w;
    gr_campaign_finding *slot;
    gr_minimizer *m;
    uint64_t sig;
    gr_search_relation rel;
    bool keep_in_spec;    /* the finding was within the spec: so must its smaller witness be */
    double seconds;       /* spent so far */
    bool active;
} pending_min;

typedef struct fuzz_worker {
    search_session *session;
    gr_dictionary dict;
    const char *corpus_dir, *findings_dir, *artifact_prefix;
    bool stop_on_first, verbose;
    char **passthrough;
    int npassthrough;
    int msg_fd;
    int user_fd;            /* the user's standard error, kept before workers redirect theirs */
    gr_campaign_stats *stats;
    int job;
    uint8_t *seen;          /* union of counters set so far in this worker */
    uint64_t covered;
    uint64_t local_sigs[FUZZ_SEEN_MAX];
    int nlocal;
    uint64_t pending_execs;
    /* --oracle seqcmp: the full comparison for saved findings, and a cheap probe (serial against
     * two schedules) for inputs that reached new coverage, whose divergence is a feature */
    cli_oracle_kind oracle;
    gr_seqcmp_options seqcmp, probe;
    /* --seeds: the amplifier and what witnesses say about where inputs came from */
    gr_amplifier *amp;
    char **seed_paths;      /* by seed */
    const char *spec_label; /* the spec inputs are judged against, in words */
    fuzz_origin plain_origin; /* without seeds: spec or inferred-spec */
    pending_min pending[FUZZ_MAX_PENDING];
    int next_pending;
    double last_exec_seconds;
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

static double mono_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The source position of an instruction as a number (its instruction id when it has none). */
static uint64_t site_of(const search_session *s, uint32_t insn) {
    ptx_srcloc loc;
    if (insn == UINT32_MAX) return 0;
    if (s->srcmap && ptx_srcmap_lookup(s->srcmap, insn, &loc) && loc.file && loc.line > 0) {
        uint64_t h = gr_hash64(loc.file, strlen(loc.file));
        return gr_hash_bytes(h, &loc.line, sizeof loc.line);
    }
    return (1ull << 63) | insn;
}

/* A finding's root cause: its class, race kind and the (unordered) pair of source lines; two
 * instruction pairs of one line pair (an unrolled loop, a vector access) are one cause. */
static uint64_t root_cause(const search_session *s, const gr_finding *f) {
    uint64_t a = site_of(s, f->insn_id), b = f->cls == GR_FINDING_RACE ? site_of(s, f->insn_id2) : 0;
    if (b < a) {
        uint64_t t = a;
        a = b;
        b = t;
    }
    char kind[64];
    gr_search_race_kind(f, kind, sizeof kind);
    uint64_t h = gr_hash64(&f->cls, sizeof f->cls);
    h = gr_hash_bytes(h, &a, sizeof a);
    h = gr_hash_bytes(h, &b, sizeof b);
    h = gr_hash_bytes(h, kind, strlen(kind));
    return h ? h : 1;
}

/* The campaign's key of a root cause seen with one origin. */
static uint64_t claim_key(uint64_t root, fuzz_origin o) {
    uint64_t h = gr_hash_bytes(root, &o, sizeof o);
    return h ? h : 1;
}

static fuzz_origin origin_of_amp(gr_amp_origin o) {
    return o == GR_AMP_RECORDED ? ORIGIN_RECORDED : o == GR_AMP_SPEC ? ORIGIN_SPEC : ORIGIN_OUTSIDE;
}

/* What an input under an inferred spec relies on, in words ("" when nothing stands out). */
static void inferred_needs(const gr_spec *spec, const gr_input *in, char *out, size_t n) {
    size_t len = 0;
    out[0] = '\0';
    uint64_t blocks = (uint64_t)in->grid[0] * in->grid[1] * in->grid[2];
    uint64_t threads = (uint64_t)in->block[0] * in->block[1] * in->block[2];
    if (blocks > 1)
        len += (size_t)snprintf(out + len, n - len, "a grid above 1 (%llu blocks)", (unsigned long long)blocks);
    if (threads % 32 && len < n)
        len += (size_t)snprintf(out + len, n - len, "%sblocks of %llu threads (not a multiple of 32)", len ? ", " : "",
                                (unsigned long long)threads);
    for (int i = 0; i < spec->nparams && i < in->nargs && len < n; i++) {
        const gr_param_spec *ps = &spec->params[i];
        if (ps->from_json || ps->role != GR_ROLE_SCALAR || gr_elem_is_float(ps->type)) continue;
        len += (size_t)snprintf(out + len, n - len, "%s%s = %lld", len ? ", " : "", ps->name,
                                (long long)gr_scalar_as_i64(in->args[i].type, in->args[i].bits));
    }
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

static void fill_record(fuzz_record *rec, const gr_input *in, const gr_finding *f,
                        const uint64_t *addrs, int naddrs) {
    memset(rec, 0, sizeof *rec);
    rec->finding = *f;
    for (int d = 0; d < 3; d++) rec->grid[d] = in->grid[d], rec->block[d] = in->block[d];
    rec->shared_bytes = in->shared_bytes;
    rec->schedule = in->schedule;
    rec->element = -1;
    for (int b = 0; f->address && b < in->nbuffers && b < naddrs; b++) {
        const gr_input_buffer *buf = &in->buffers[b];
        if (f->address < addrs[b] || f->address - addrs[b] >= buf->bytes) continue;
        snprintf(rec->object, sizeof rec->object, "%s", buf->name ? buf->name : "");
        size_t elem = gr_elem_size(buf->type);
        rec->element = (int64_t)((f->address - addrs[b]) / (elem ? elem : 1));
        break;
    }
}

/* What an input depends on, for its witness and the report. */
typedef struct input_origin {
    fuzz_origin origin;
    int seed;                   /* amplified: the seed it started from, else -1 */
    const char *assumption;     /* outside the spec / inferred: what it needed, or NULL */
} input_origin;

/* Makes and saves the witness of `in` with the findings of `res` (the one with `sig` first);
 * with `verdict` the value oracle's verdict is added first. The witness says what the input
 * depends on. The path is malloc'ed. */
static bool save_witness(fuzz_worker *w, const gr_input *in, const gr_launch_result *res,
                         uint64_t sig, bool verdict, const input_origin *og, char **path,
                         gr_error *err) {
    search_session *s = w->session;
    gr_witness wit;
    *path = NULL;
    if (!gr_search_make_witness(&s->target, in, res, sig, gr_runner_backend_name(s->runner), &wit,
                                err))
        return false;
    int naddr = 0;
    const uint64_t *addr = gr_runner_buffer_addresses(s->runner, &naddr);
    gr_search_witness_name_objects(&wit, addr, naddr);
    if (verdict && w->oracle == CLI_ORACLE_SEQCMP) add_seqcmp_verdict(w, in, &wit);
    if (og) {
        wit.origin.kind = strdup(origin_name(og->origin));
        if (og->seed >= 0 && w->seed_paths) wit.origin.seed = strdup(w->seed_paths[og->seed]);
        if (w->spec_label) wit.origin.spec = strdup(w->spec_label);
        if (og->assumption && og->assumption[0]) wit.origin.assumption = strdup(og->assumption);
    }
    char *rpath = NULL;
    bool ok = gr_search_save_finding(&s->target, w->findings_dir, &wit, path, &rpath, err);
    free(rpath);
    gr_witness_free(&wit);
    return ok;
}

/* ---- minimizing, a slice at a time ----------------------------------------------------------- */

/* The minimizer's question: does this smaller input show the same finding, on a launch shape the
 * spec allows (amplified searches never leave it), within the spec when the finding was (else
 * with the spec's structure: only contents may break it, as they did)? */
static bool minimized_still_shows(void *ctx, const gr_input *cand) {
    pending_min *p = ctx;
    search_session *s = p->w->session;
    if (p->w->amp) {
        if (!gr_spec_check_shape(&s->spec, cand, NULL)) return false;
        if (p->keep_in_spec ? gr_amplifier_classify(p->w->amp, cand, NULL, NULL, 0) == GR_AMP_OUTSIDE
                            : !gr_amplifier_fits_structure(p->w->amp, cand))
            return false;
    }
    gr_launch_result res;
    if (!gr_runner_run(s->runner, cand, &res, NULL)) return false;
    bool yes = gr_search_result_has(cand, &res, p->sig, p->rel);
    gr_launch_result_free(&res);
    return yes;
}

/* The minimization ended: the smaller witness replaces the one as found only when it shows the
 * same finding again; what it depends on is judged again (smaller may be within the spec). */
static void finish_pending(pending_min *p) {
    fuzz_worker *w = p->w;
    search_session *s = w->session;
    fuzz_record *rec = (fuzz_record *)p->slot->record;
    gr_minimize_stats ms = gr_minimizer_stats(p->m);
    const gr_input *best = gr_minimizer_best(p->m);
    gr_error err = GR_ERROR_INIT;
    gr_launch_result res;
    bool ran = (ms.accepted > 0 || w->oracle == CLI_ORACLE_SEQCMP) && gr_runner_run(s->runner, best, &res, &err);
    bool shows = ran && gr_search_result_has(best, &res, p->sig, GR_SEARCH_REL_NONE);
    gr_error_clear(&err);
    if (shows) {
        char why[sizeof rec->assumption], now_why[sizeof rec->assumption] = "";
        snprintf(why, sizeof why, "%s", rec->assumption);
        input_origin og = {(fuzz_origin)rec->origin, rec->seed, why};
        if (w->amp) { /* smaller may break the spec differently, or not at all */
            int seed = rec->seed;
            fuzz_origin now = origin_of_amp(gr_amplifier_classify(w->amp, best, &seed, now_why, sizeof now_why));
            if (now < og.origin) og = (input_origin){now, seed, NULL};
            else if (now == ORIGIN_OUTSIDE) snprintf(why, sizeof why, "%s", now_why);
        } else if (og.origin == ORIGIN_INFERRED) {
            inferred_needs(&s->spec, best, why, sizeof why);
            og.assumption = why;
        }
        char *again = NULL;
        if (save_witness(w, best, &res, p->sig, true, &og, &again, &err)) {
            gr_campaign_saved(w->stats, p->slot, again);
            rec->origin = (uint8_t)og.origin;
            rec->seed = (int16_t)og.seed;
            snprintf(rec->assumption, sizeof rec->assumption, "%s", og.assumption ? og.assumption : "");
            for (int d = 0; d < 3; d++) rec->grid[d] = best->grid[d], rec->block[d] = best->block[d];
            rec->shared_bytes = best->shared_bytes;
            rec->schedule = best->schedule;
            if (ms.accepted)
                say(w->msg_fd, "fuzz: minimized in %d tries to grid (%u,%u,%u) block (%u,%u,%u) -> %s\n", ms.tries,
                    best->grid[0], best->grid[1], best->grid[2], best->block[0], best->block[1], best->block[2], again);
        } else {
            say(w->msg_fd, "fuzz: could not save the minimized witness (the one as found stays): %s\n",
                err.message ? err.message : "?");
            gr_error_clear(&err);
        }
        free(again);
    }
    if (ran) gr_launch_result_free(&res);
    gr_minimizer_free(p->m);
    p->m = NULL;
    p->active = false;
    atomic_store(&p->slot->minimizing, 0);
}

/* One slice of the next pending minimization: a try, for about as long as an execution of the
 * search took, so the search keeps at least half of the executions. */
static void step_pending(fuzz_worker *w, int tries, double seconds) {
    for (int k = 0; k < FUZZ_MAX_PENDING; k++) {
        pending_min *p = &w->pending[(w->next_pending + k) % FUZZ_MAX_PENDING];
        if (!p->active) continue;
        w->next_pending = (int)((p - w->pending) + 1) % FUZZ_MAX_PENDING;
        double t0 = mono_seconds();
        bool done = gr_minimizer_step(p->m, tries, seconds);
        p->seconds += mono_seconds() - t0;
        if (done || p->seconds >= FUZZ_MINIMIZE_SECONDS) finish_pending(p);
        return;
    }
}

static bool any_pending(const fuzz_worker *w) {
    for (int k = 0; k < FUZZ_MAX_PENDING; k++)
        if (w->pending[k].active) return true;
    return false;
}

/* When the search ends: what is left is minimized within FUZZ_DRAIN_SECONDS, then the witnesses
 * as found stay. */
static void drain_pending(fuzz_worker *w) {
    double end = mono_seconds() + FUZZ_DRAIN_SECONDS;
    while (any_pending(w)) {
        double left = end - mono_seconds();
        for (int k = 0; k < FUZZ_MAX_PENDING; k++) {
            pending_min *p = &w->pending[k];
            if (!p->active) continue;
            if (left > 0) {
                double t0 = mono_seconds();
                gr_minimizer_step(p->m, FUZZ_MINIMIZE_TRIES, left);
                p->seconds += mono_seconds() - t0;
            }
            finish_pending(p);
            left = end - mono_seconds();
        }
    }
}

/* Cancels this worker's pending minimizations of a root cause seen with a worse origin: the
 * better witness is the one worth the time. */
static void cancel_worse(fuzz_worker *w, uint64_t root, fuzz_origin better) {
    for (int k = 0; k < FUZZ_MAX_PENDING; k++) {
        pending_min *p = &w->pending[k];
        const fuzz_record *rec = p->active ? (const fuzz_record *)p->slot->record : NULL;
        if (!rec || rec->root != root || rec->origin <= better) continue;
        gr_minimizer_free(p->m);
        p->m = NULL;
        p->active = false;
        atomic_store(&p->slot->minimizing, 0);
    }
}

/* A new root cause (or a known one with a better origin). `found` is the launch that reported
 * `f` (the runner's buffers still hold its addresses): its witness goes to disk first, before
 * anything else can fail or be killed; minimizing is queued and only ever replaces it with a
 * smaller witness that shows the same signature. A finding on a recorded launch keeps that
 * launch as its witness: the program's own test is the evidence. */
static void handle_new_finding(fuzz_worker *w, gr_campaign_finding *slot, const gr_input *in,
                               const gr_launch_result *found, const gr_finding *f, const input_origin *og) {
    search_session *s = w->session;
    uint64_t sig = gr_search_signature(f);
    gr_error err = GR_ERROR_INIT;
    char *path = NULL;
    if (!save_witness(w, in, found, sig, false, og, &path, &err)) {
        char problem[256];
        snprintf(problem, sizeof problem, "%s", err.message ? err.message : "cannot write the witness");
        gr_campaign_unsaved(w->stats, slot, problem);
        say(w->msg_fd, "\nfuzz: new %s (%s) could NOT be saved: %s\n", gr_finding_class_name(f->cls),
            f->message, problem);
        gr_error_clear(&err);
        return;
    }
    gr_campaign_saved(w->stats, slot, path);
    say(w->msg_fd, "\nfuzz: new %s (%s)%s: grid (%u,%u,%u) block (%u,%u,%u) -> %s\n",
        gr_finding_class_name(f->cls), f->message,
        og->origin == ORIGIN_RECORDED ? " on a recorded launch"
        : og->origin == ORIGIN_OUTSIDE ? " outside the spec"
                                       : "",
        in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1], in->block[2], path);
    free(path);
    if (og->origin == ORIGIN_RECORDED && w->oracle != CLI_ORACLE_SEQCMP) return;
    pending_min *p = NULL;
    for (int k = 0; k < FUZZ_MAX_PENDING && !p; k++)
        if (!w->pending[k].active) p = &w->pending[k];
    if (!p) return; /* every slot busy: the witness as found stays */
    *p = (pending_min){w, slot, NULL, sig, gr_search_relation_of(in, f), og->origin != ORIGIN_OUTSIDE, 0, true};
    /* a recorded launch is not shrunk (the oracle's verdict is still added) */
    p->m = gr_minimizer_new(w->amp ? NULL : &s->codec, in, minimized_still_shows, p,
                            og->origin == ORIGIN_RECORDED ? 1 : FUZZ_MINIMIZE_TRIES, &err);
    if (!p->m) {
        gr_error_clear(&err);
        p->active = false;
        return;
    }
    atomic_store(&slot->minimizing, 1);
    if (og->origin == ORIGIN_RECORDED) {
        finish_pending(p); /* nothing to shrink: the oracle's verdict only */
        return;
    }
    if (w->stop_on_first) { /* nothing else to do: minimize it now */
        while (p->active) step_pending(w, FUZZ_MINIMIZE_TRIES, FUZZ_MINIMIZE_SECONDS);
    }
}

/* Outputs that depend on the schedule while the detector saw no race: saved like a finding
 * (findings/nondeterministic-output-<feature>.json, no finding inside, the seqcmp verdict). */
static void save_divergence(fuzz_worker *w, gr_campaign_finding *slot, const gr_input *in,
                            uint64_t sig) {
    search_session *s = w->session;
    gr_launch_result none;
    memset(&none, 0, sizeof none);
    gr_witness wit;
    gr_error err = GR_ERROR_INIT;
    char path[4096];
    snprintf(path, sizeof path, "%s/nondeterministic-output-%016" PRIx64 ".json", w->findings_dir,
             sig);
    bool made = gr_search_make_witness(&s->target, in, &none, 0, gr_runner_backend_name(s->runner),
                                       &wit, &err);
    if (made) add_seqcmp_verdict(w, in, &wit);
    if (made && gr_witness_save(&wit, path, &err)) {
        gr_campaign_saved(w->stats, slot, path);
        say(w->msg_fd, "\nfuzz: new nondeterministic output without a detected race (%s) -> %s\n",
            wit.nverdicts ? wit.verdicts[0].detail : "?", path);
    } else {
        gr_campaign_unsaved(w->stats, slot, err.message ? err.message : "cannot write the witness");
        say(w->msg_fd, "\nfuzz: a nondeterministic output could NOT be saved: %s\n",
            err.message ? err.message : "?");
        gr_error_clear(&err);
    }
    if (made) gr_witness_free(&wit);
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
    if (feature && v.nondeterministic_without_race && !seen_locally(w, feature)) {
        fuzz_record rec;
        memset(&rec, 0, sizeof rec);
        rec.is_divergence = true;
        rec.origin = (uint8_t)w->plain_origin;
        rec.seed = -1;
        rec.root = rec.sig = feature;
        rec.finding.insn_id = rec.finding.insn_id2 = UINT32_MAX;
        snprintf(rec.finding.message, sizeof rec.finding.message, "%s", v.manifests);
        for (int d = 0; d < 3; d++) rec.grid[d] = in->grid[d], rec.block[d] = in->block[d];
        rec.shared_bytes = in->shared_bytes;
        rec.schedule = in->schedule;
        gr_campaign_finding *slot = gr_campaign_claim(w->stats, feature, w->job, &rec, sizeof rec);
        if (slot) save_divergence(w, slot, in, feature);
    }
    gr_seqcmp_verdict_free(&v);
}

static int fuzz_one(const uint8_t *data, size_t size) {
    fuzz_worker *w = g_worker;
    search_session *s = w->session;
    g_counters[0] = 1; /* libFuzzer needs a counter set every execution */
    if (atomic_load(&w->stats->stop)) _exit(0);
    double t0 = mono_seconds();
    gr_input in;
    input_origin og = {w->plain_origin, -1, NULL};
    gr_amp_input amp;
    char needs[sizeof ((fuzz_record *)0)->assumption] = "";
    if (w->amp) {
        if (!gr_amplifier_decode(w->amp, data, size, &amp, NULL)) return -1;
        in = amp.input;
        og = (input_origin){origin_of_amp(amp.origin), amp.seed, amp.assumption};
    } else if (!gr_codec_decode(&s->codec, data, size, &in, NULL)) {
        return -1;
    }
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    if (!gr_runner_run(s->runner, &in, &res, &err)) {
        if (err.status == GR_ERR_UNSUPPORTED) {
            /* the kernel cannot run here at all: every execution would fail the same way */
            say(2, "fuzz: %s\n", err.message ? err.message : "unsupported");
            _exit(GR_CAMPAIGN_EXIT_FATAL);
        }
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
    if (og.origin == ORIGIN_INFERRED && res.nfindings) {
        inferred_needs(&s->spec, &in, needs, sizeof needs);
        og.assumption = needs;
    }
    int naddr = 0;
    const uint64_t *addr = gr_runner_buffer_addresses(s->runner, &naddr);
    for (int i = 0; i < res.nfindings; i++) {
        uint64_t sig = gr_search_signature(&res.findings[i]), root = root_cause(s, &res.findings[i]);
        /* known with this origin or a better one: one more occurrence */
        gr_campaign_finding *known = NULL;
        for (int o = ORIGIN_RECORDED; o <= (int)og.origin && !known; o++)
            known = gr_campaign_find(w->stats, claim_key(root, (fuzz_origin)o));
        if (known) {
            atomic_fetch_add(&known->occurrences, 1);
            continue;
        }
        fuzz_record rec;
        fill_record(&rec, &in, &res.findings[i], addr, naddr);
        rec.origin = (uint8_t)og.origin;
        rec.seed = (int16_t)og.seed;
        rec.root = root;
        rec.sig = sig;
        snprintf(rec.assumption, sizeof rec.assumption, "%s", og.assumption ? og.assumption : "");
        gr_campaign_finding *slot = gr_campaign_claim(w->stats, claim_key(root, og.origin), w->job, &rec, sizeof rec);
        if (!slot) {
            /* another worker has it, or the table is full: then it is saved here, untracked */
            if (atomic_load(&w->stats->claimed) >= GR_CAMPAIGN_MAX_FINDINGS && !seen_locally(w, claim_key(root, og.origin))) {
                char *path = NULL;
                gr_error e2 = GR_ERROR_INIT;
                if (save_witness(w, &in, &res, sig, false, &og, &path, &e2))
                    atomic_fetch_add(&w->stats->overflow, 1);
                else
                    atomic_fetch_add(&w->stats->unsaved, 1);
                gr_error_clear(&e2);
                free(path);
            }
            continue;
        }
        cancel_worse(w, root, og.origin);
        handle_new_finding(w, slot, &in, &res, &res.findings[i], &og);
        if (w->stop_on_first && atomic_load(&slot->state) == GR_CAMPAIGN_SAVED) {
            atomic_fetch_add(&w->stats->execs, 1);
            _exit(0);
        }
    }
    gr_launch_result_free(&res);
    gr_input_free(&in);
    atomic_fetch_add(&w->stats->execs, 1);
    double took = mono_seconds() - t0;
    w->last_exec_seconds = took;
    /* minimizing between executions: one try, for about as long as this execution took */
    step_pending(w, 1, took < 0.005 ? 0.005 : took > 1.0 ? 1.0 : took);
    return 0;
}

#ifdef GPURACE_HAVE_LIBFUZZER
static size_t raw_mutate(uint8_t *data, size_t size, size_t max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    if (!g_worker) return LLVMFuzzerMutate(data, size, max_size);
    if (g_worker->amp) return gr_amplifier_mutate(g_worker->amp, data, size, max_size, seed ^ ((uint64_t)size << 32));
    return gr_search_mutate(&g_worker->session->codec, &g_worker->dict, data, size, max_size,
                            seed ^ ((uint64_t)size << 32), raw_mutate);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed) {
    if (!g_worker) return 0;
    if (g_worker->amp) return gr_amplifier_crossover(d1, s1, d2, s2, out, max_out, seed);
    return gr_search_crossover(&g_worker->session->codec, d1, s1, d2, s2, out, max_out, seed);
}
#endif

/* The worker's minimizations left when libFuzzer ends it. */
static void drain_at_exit(void) {
    /* not when the campaign asked the workers to stop: the witnesses as found are on disk */
    if (g_worker && g_worker->stats && !atomic_load(&g_worker->stats->stop)) drain_pending(g_worker);
}

static int run_worker(void *ctx, int job, int attempt, uint64_t seed, double seconds, uint64_t runs,
                      gr_campaign_stats *stats) {
    (void)attempt;
    fuzz_worker *w = ctx;
    w->stats = stats;
    w->job = job;
    /* standard error is the worker's log by now: messages for the user go to the terminal */
    w->msg_fd = w->user_fd >= 0 ? w->user_fd : 2;
    if (w->verbose) dup2(w->msg_fd, 2);
    gr_error err = GR_ERROR_INIT;
    w->session->run_opt.gpu_share = job; /* workers spread over the machine's GPUs */
    if (!search_session_runner(w->session, &err)) {
        say(2, "fuzz: worker %d: %s\n", job, err.message ? err.message : "cannot start");
        bool fatal = err.status == GR_ERR_UNSUPPORTED || err.status == GR_ERR_INPUT ||
                     err.status == GR_ERR_USAGE;
        return fatal ? GR_CAMPAIGN_EXIT_FATAL : 3;
    }
    w->seen = calloc(GR_FEEDBACK_DEFAULT_SIZE, 1);
    if (!w->seen) return 3;
    g_worker = w;
#ifdef GPURACE_HAVE_LIBFUZZER
    enum { NFLAGS = 11 };
    char flags[NFLAGS][GR_CAMPAIGN_PATH_MAX + 32];
    size_t genome = w->amp ? GR_AMP_GENOME_SIZE : gr_codec_genome_size(&w->session->codec);
    /* libFuzzer's -max_total_time is an int; the campaign's own deadline covers longer runs */
    double secs = seconds > 0 ? ceil(seconds) : 0;
    int max_total = secs >= (double)FUZZ_MAX_SECONDS ? (int)FUZZ_MAX_SECONDS : (int)secs;
    snprintf(flags[0], sizeof flags[0], "-seed=%u", (unsigned)(seed % 4000000000u) + 1u);
    snprintf(flags[1], sizeof flags[1], "-max_len=%zu", genome < 64 ? 64 : genome);
    snprintf(flags[2], sizeof flags[2], "-max_total_time=%d", max_total);
    snprintf(flags[3], sizeof flags[3], "-runs=%lld",
             runs && runs < (uint64_t)INT64_MAX ? (long long)runs : -1LL);
    snprintf(flags[4], sizeof flags[4], "-timeout=%d", FUZZ_INPUT_TIMEOUT_S);
    snprintf(flags[5], sizeof flags[5], "-print_final_stats=0");
    snprintf(flags[6], sizeof flags[6], "-rss_limit_mb=%d", 8192);
    snprintf(flags[7], sizeof flags[7], "-len_control=0");
    /* the parent handles Ctrl-C; inputs that crash a worker are kept for the user */
    snprintf(flags[8], sizeof flags[8], "-handle_int=0");
    snprintf(flags[9], sizeof flags[9], "-artifact_prefix=%s", w->artifact_prefix);
    /* a full disk or a file-size limit fails the write (and the save says so), not the worker */
    snprintf(flags[10], sizeof flags[10], "-handle_xfsz=0");
    char *argv[NFLAGS + 4 + FUZZ_MAX_PASSTHROUGH];
    int argc = 0;
    argv[argc++] = "gpurace-fuzz";
    for (int i = 0; i < NFLAGS; i++) argv[argc++] = flags[i];
    for (int i = 0; i < w->npassthrough; i++) argv[argc++] = w->passthrough[i];
    argv[argc++] = (char *)w->corpus_dir;
    argv[argc] = NULL;
    char **av = argv;
    atexit(drain_at_exit); /* libFuzzer ends the worker with exit() when its budget is spent */
    int rc = LLVMFuzzerRunDriver(&argc, &av, fuzz_one);
    drain_pending(w);
    return rc == 0 ? 0 : 75;
#else
    (void)seed, (void)seconds, (void)runs;
    say(w->msg_fd, "fuzz: this build of gpurace has no libFuzzer runtime\n");
    return 3;
#endif
}

/* ---- the shared corpus after a campaign of several workers ---------------------------------- */

/* libFuzzer's feature of an 8-bit counter value: its bucket (1, 2, 3, 4-7, 8-15, 16-31, 32-127,
 * 128+). */
static unsigned counter_bucket(uint8_t v) {
    return v >= 128 ? 7 : v >= 32 ? 6 : v >= 16 ? 5 : v >= 8 ? 4 : v >= 4 ? 3 : (unsigned)v - 1;
}

typedef struct merge_entry {
    char *name;
    size_t size;
} merge_entry;

static int merge_entry_cmp(const void *a, const void *b) {
    const merge_entry *x = a, *y = b;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool is_genome_entry(const char *dir, const char *name, size_t *size) {
    if (name[0] == '.') return false;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (size) *size = (size_t)st.st_size;
    return true;
}

/* In a child process: the merge libFuzzer's -merge=1 does (and its -fork=N parent does with its
 * jobs' finds), over the genomes of the corpus folder: inputs in order of size, each kept when
 * its execution reaches a feature (a feedback counter in one of libFuzzer's hit-count buckets)
 * that the inputs kept before it do not. Inputs that do not decode under the spec are removed,
 * as the fuzzer rejects them. Every input is run before any file is removed, so a merge that
 * dies leaves the corpus as it was. Exit status 0 when the merge completed. */
static int merge_child(fuzz_worker *w, int *kept_out, int *removed_out) {
    search_session *s = w->session;
    gr_error err = GR_ERROR_INIT;
    if (!search_session_runner(s, &err)) {
        say(2, "fuzz: merge: %s\n", err.message ? err.message : "cannot start");
        gr_error_clear(&err);
        return 3;
    }
    merge_entry *list = NULL;
    int n = 0;
    DIR *d = opendir(w->corpus_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t size = 0;
        if (!is_genome_entry(w->corpus_dir, e->d_name, &size)) continue;
        merge_entry *more = realloc(list, (size_t)(n + 1) * sizeof *more);
        if (!more) return 3;
        list = more;
        list[n].name = strdup(e->d_name);
        list[n].size = size;
        if (!list[n++].name) return 3;
    }
    if (d) closedir(d);
    if (n) qsort(list, (size_t)n, sizeof *list, merge_entry_cmp);
    uint8_t *features = calloc(GR_FEEDBACK_DEFAULT_SIZE, 1); /* one bit per bucket of a counter */
    uint8_t *counters = malloc(GR_FEEDBACK_DEFAULT_SIZE);
    bool *keep = calloc((size_t)n + 1, sizeof *keep);
    if (!features || !counters || !keep) return 3;
    for (int i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", w->corpus_dir, list[i].name);
        size_t len = 0;
        char *data = gr_read_file_kind(p, GR_FILE_DATA, &len, &err);
        if (!data) {
            gr_error_clear(&err);
            keep[i] = true; /* unreadable now: not this merge's to judge */
            continue;
        }
        gr_input in;
        bool decoded = gr_codec_decode(&s->codec, (const uint8_t *)data, len, &in, NULL);
        free(data);
        if (!decoded) continue;
        gr_launch_result res;
        if (!gr_runner_run(s->runner, &in, &res, &err)) {
            say(2, "fuzz: merge: %s: %s\n", p, err.message ? err.message : "the launch failed");
            gr_error_clear(&err);
            gr_input_free(&in);
            return 3;
        }
        memset(counters, 0, GR_FEEDBACK_DEFAULT_SIZE);
        gr_feedback_fill(counters, GR_FEEDBACK_DEFAULT_SIZE, &in, &res);
        for (size_t k = 0; k < GR_FEEDBACK_DEFAULT_SIZE; k++) {
            if (!counters[k]) continue;
            uint8_t bit = (uint8_t)(1u << counter_bucket(counters[k]));
            if (!(features[k] & bit)) {
                features[k] |= bit;
                keep[i] = true;
            }
        }
        gr_launch_result_free(&res);
        gr_input_free(&in);
    }
    int removed = 0, kept = 0;
    for (int i = 0; i < n; i++) {
        if (keep[i]) {
            kept++;
            continue;
        }
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", w->corpus_dir, list[i].name);
        if (unlink(p) == 0) removed++;
    }
    *kept_out = kept;
    *removed_out = removed;
    return 0;
}

/* After several workers extended one corpus folder, keeps only the inputs that add coverage
 * (merge_child, in a child process as a worker runs: a GPU backend needs a clean parent), so
 * the folder stays what libFuzzer's fork mode would leave; any engine, a fuzz target of
 * `gpurace build-fuzzer --seeds` or a later `gpurace fuzz --corpus` continues from it, and
 * `gpurace replay FILE DIR` re-runs it. */
static void merge_corpus(fuzz_worker *w) {
    typedef struct merge_result {
        int kept, removed;
    } merge_result;
    merge_result *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) _exit(merge_child(w, &shared->kept, &shared->removed));
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        fprintf(stderr, "fuzz: merged the shared corpus as libFuzzer -merge=1 does: %d input%s "
                        "kept, %d removed, in %s\n",
                shared->kept, shared->kept == 1 ? "" : "s", shared->removed, w->corpus_dir);
    else
        fprintf(stderr, "fuzz: the corpus was not merged (%s); %s is kept as it is\n",
                pid < 0 ? "cannot fork" : "the merge failed", w->corpus_dir);
    munmap(shared, sizeof *shared);
}

/* Creates `d` and its missing parents, and makes sure files can be written there: a findings
 * folder that cannot take a witness must stop the run before it starts, not lose findings. */
static bool make_writable_dir(const char *flag, const char *d, gr_error *err) {
    if (!gr_make_dirs(d, err)) {
        gr_error_wrap(err, "%s", flag);
        return false;
    }
    char probe[GR_CAMPAIGN_PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/.gpurace-write-test-%ld", d, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return gr_fail(err, GR_ERR_IO, "%s %s: cannot write there: %s", flag, d, strerror(errno));
    close(fd);
    unlink(probe);
    return true;
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

/* Inputs on which libFuzzer saw a worker crash (artifacts in the temporary folder) are moved
 * next to the kept worker logs; returns how many. */
static int keep_artifacts(const char *workdir, const char *keep_dir) {
    DIR *d = opendir(workdir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "artifact-", 9) != 0) continue;
        if (n == 0 && mkdir(keep_dir, 0777) != 0 && errno != EEXIST) break;
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", workdir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", keep_dir, e->d_name + 9);
        if (rename(from, to) == 0) n++;
    }
    closedir(d);
    return n;
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

/* Amplifying: every seed as recorded first, then each under a few other schedules. */
static void seed_amp_corpus(const gr_amplifier *amp, const char *dir, uint64_t seed) {
    uint8_t g[GR_AMP_GENOME_SIZE];
    for (int i = 0; i < gr_amplifier_nseeds(amp); i++) {
        gr_amplifier_seed_genome(amp, i, g);
        gr_corpus_save_genome(dir, g, sizeof g, NULL, NULL);
        for (int k = 1; k <= 2; k++) {
            uint64_t v = gr_mix64(seed + (uint64_t)i * 131u + (uint64_t)k);
            g[4] = (uint8_t)(v % GR_INPUT_SCHED_KIND_COUNT);
            g[6] = (uint8_t)((v >> 8) % 8);
            g[7] = 0;
            memcpy(g + 8, &v, 8);
            gr_corpus_save_genome(dir, g, sizeof g, NULL, NULL);
        }
    }
}

/* ---- the final report: every recorded finding, from its record ------------------------------ */

/* The backend finding a witness recorded (its finding with `sig`). */
static const gr_witness_finding *witness_finding(const gr_witness *w, uint64_t sig) {
    for (int i = 0; i < w->nfindings; i++)
        if (w->findings[i].signature == sig) return &w->findings[i];
    return w->nfindings ? &w->findings[0] : NULL;
}

static gr_finding_class class_of(const char *name) {
    for (int c = GR_FINDING_RACE; c <= GR_FINDING_FAULT; c++)
        if (strcmp(name, gr_finding_class_name((gr_finding_class)c)) == 0) return (gr_finding_class)c;
    return GR_FINDING_FAULT;
}

static uint8_t space_of(const char *name) {
    if (!name) return PTX_SPACE_NONE;
    if (strcmp(name, "global") == 0) return PTX_SPACE_GLOBAL;
    if (strcmp(name, "shared") == 0) return PTX_SPACE_SHARED;
    if (strcmp(name, "local") == 0) return PTX_SPACE_LOCAL;
    if (strcmp(name, "const") == 0) return PTX_SPACE_CONST;
    return PTX_SPACE_NONE;
}

static void finding_from_witness(const gr_witness_finding *wf, gr_finding *f) {
    memset(f, 0, sizeof *f);
    f->cls = class_of(wf->cls);
    f->insn_id = f->insn_id2 = UINT32_MAX;
    gr_exec_thread *th[2] = {&f->thread, &f->thread2};
    uint32_t *id[2] = {&f->insn_id, &f->insn_id2};
    for (int k = 0; k < wf->naccesses && k < 2; k++) {
        const gr_witness_access *a = &wf->accesses[k];
        *id[k] = a->instr;
        th[k]->block = (gr_dim3){a->block[0], a->block[1], a->block[2]};
        th[k]->thread = (gr_dim3){a->thread[0], a->thread[1], a->thread[2]};
    }
    f->address = wf->has_address ? wf->address : 0;
    f->size = wf->size;
    f->space = space_of(wf->space);
    snprintf(f->message, sizeof f->message, "%s", wf->message ? wf->message : "");
}

static void launch_of(const uint32_t grid[3], const uint32_t block[3], uint32_t shared,
                      const gr_input_schedule *sc, const char *backend, const search_session *s,
                      char *sched_buf, size_t n, gr_report_launch *L) {
    gr_schedule g = {(gr_schedule_kind)sc->kind, sc->seed, sc->quantum, sc->depth};
    gr_schedule_format(&g, sched_buf, n);
    *L = (gr_report_launch){true,
                            {grid[0], grid[1], grid[2]},
                            {block[0], block[1], block[2]},
                            shared,
                            sched_buf,
                            backend,
                            s->run_opt.detector == GR_DETECTOR_HB ? "hb" : "fsm",
                            s->run_opt.warp_model == GR_WARP_LOCKSTEP ? "lockstep" : "its"};
}

/* How often the saved witness shows its finding again: once on a deterministic backend, up to
 * FUZZ_GPU_REPLAYS times otherwise (stopping at the first reproduction). */
static void count_replays(search_session *s, const gr_input *in, uint64_t sig, int *replays,
                          int *reproduced) {
    int n = gr_runner_deterministic(s->runner) ? 1 : FUZZ_GPU_REPLAYS;
    *replays = *reproduced = 0;
    for (int k = 0; k < n && !*reproduced && !cli_interrupted(); k++) {
        gr_launch_result res;
        gr_error err = GR_ERROR_INIT;
        (*replays)++;
        if (!gr_runner_run(s->runner, in, &res, &err)) {
            gr_error_clear(&err);
            continue;
        }
        if (gr_search_result_has(in, &res, sig, GR_SEARCH_REL_NONE)) (*reproduced)++;
        gr_launch_result_free(&res);
    }
}

/* A finding on an inferred spec that needs an assumption the tool made is a warning naming
 * that assumption (the rule every report keeps). Which findings need one:
 *   - any finding on a launch of several blocks when the kernel never reads blockIdx/gridDim;
 *   - any finding on a block larger than a thread-indexed static shared array allows;
 *   - an out-of-bounds access of global memory: the buffers' lengths and the scalars that may
 *     size the indices were the tool's guesses;
 *   - an out-of-bounds access of shared memory on a block size the tool chose when the kernel's
 *     shared arrays do not say which blocks they are sized for.
 * Writes the assumption into buf ("" when the finding needs none). */
static void assumption_of(const search_session *s, const gr_input *in, const gr_report_finding *rf,
                          char *buf, size_t n) {
    buf[0] = '\0';
    if (!s->spec_inferred) return;
    const gr_spec_hints *h = &s->hints;
    if (h->known && !h->reads_block_index && (in->grid[0] > 1 || in->grid[1] > 1 || in->grid[2] > 1)) {
        snprintf(buf, n, "assumes a grid of %u x %u x %u blocks, but the kernel never reads "
                         "blockIdx or gridDim (written for one block?)",
                 in->grid[0], in->grid[1], in->grid[2]);
        return;
    }
    for (int d = 0; d < 3; d++)
        if (h->known && h->block_max[d] && in->block[d] > h->block_max[d]) {
            snprintf(buf, n, "assumes blockDim.%c = %u, larger than the thread-indexed shared "
                             "array %s allows (%u)",
                     "xyz"[d], in->block[d], h->block_max_why, h->block_max[d]);
            return;
        }
    if (rf->cls != GR_REPORT_OUT_OF_BOUNDS) return;
    bool shared = rf->space && strcmp(rf->space, "shared") == 0;
    if (shared) {
        bool bounded = h->known && (h->block_max[0] || h->block_exact[0] || h->block_upper[0]);
        if (!bounded)
            snprintf(buf, n, "assumes blocks of %u x %u x %u threads (no spec); the kernel's "
                             "shared arrays may be sized for smaller blocks",
                     in->block[0], in->block[1], in->block[2]);
        return;
    }
    if (rf->space && strcmp(rf->space, "global") != 0 && strcmp(rf->space, "generic") != 0) return;
    size_t len = (size_t)snprintf(buf, n, "assumes the buffer lengths");
    for (int i = 0; i < in->nbuffers && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s %s[%llu]", i ? "," : "",
                                in->buffers[i].name ? in->buffers[i].name : "?",
                                (unsigned long long)in->buffers[i].count);
    int scalars = 0;
    for (int i = 0; i < in->nargs && len < n; i++) {
        const gr_input_arg *a = &in->args[i];
        if (a->kind != GR_INPUT_SCALAR || gr_elem_is_float(a->type)) continue;
        len += (size_t)snprintf(buf + len, n - len, "%s %s = %lld", scalars++ ? "," : " and scalars",
                                a->name ? a->name : "?",
                                (long long)gr_scalar_as_i64(a->type, a->bits));
    }
    for (int i = s->spec.nparams; i < s->spec.nentries && len < n; i++) { /* a struct's fields */
        const gr_param_spec *ps = &s->spec.params[i];
        if (ps->role != GR_ROLE_SCALAR || gr_elem_is_float(ps->type) || ps->from_json) continue;
        gr_input_arg a;
        gr_spec_entry_arg(&s->spec, in, i, &a);
        len += (size_t)snprintf(buf + len, n - len, "%s %s = %lld", scalars++ ? "," : " and scalars",
                                ps->name, (long long)gr_scalar_as_i64(a.type, a.bits));
    }
    if (len < n)
        snprintf(buf + len, n - len, " the tool chose (no spec); give a spec whose lengths "
                                     "follow the scalars");
}

/* A finding under an inferred spec that goes away when every integer scalar the tool chose is
 * set to another value depends on the values it chose: a race with the scalars set to the
 * launch's thread count (`a[i * stride]` with stride = 0, rows of a matrix overlapping when the
 * leading dimension is 0), a hang with them set to 1 (a loop they bound that is long, not
 * endless). The assumption is named in buf. Only on a deterministic backend, where "goes away"
 * means something; the input is restored. */
static void scalar_dependence(search_session *s, gr_input *in, uint64_t sig, bool hang, char *buf,
                              size_t n) {
    buf[0] = '\0';
    if (!s->spec_inferred || !gr_runner_deterministic(s->runner)) return;
    uint64_t saved[64];
    int changed = 0;
    uint64_t threads = gr_input_threads(in);
    for (int i = 0; i < in->nargs && i < 64; i++) {
        gr_input_arg *a = &in->args[i];
        saved[i] = a->bits;
        if (a->kind != GR_INPUT_SCALAR || gr_elem_is_float(a->type)) continue;
        if (i < s->spec.nparams && s->spec.params[i].from_json) continue;
        if (s->spec.params[i].idom.kind == GR_DOM_CHOICES) continue; /* bool */
        uint64_t bits = gr_scalar_from_i64(a->type, hang ? 1 : (int64_t)threads);
        if (bits != a->bits) changed++;
        a->bits = bits;
    }
    /* the scalar fields of structs passed by value, written into their bytes (kept to restore) */
    uint8_t *saved_bytes[64] = {0};
    for (int e = s->spec.nparams; e < s->spec.nentries; e++) {
        const gr_param_spec *ps = &s->spec.params[e];
        if (ps->role != GR_ROLE_SCALAR || gr_elem_is_float(ps->type) || ps->from_json ||
            ps->idom.kind == GR_DOM_CHOICES || ps->parent < 0 || ps->parent >= in->nargs ||
            ps->parent >= 64)
            continue;
        gr_input_arg *st = &in->args[ps->parent];
        uint32_t size = (uint32_t)gr_elem_size(ps->type);
        if (st->kind != GR_INPUT_BYTES || ps->field_offset + size > st->nbytes) continue;
        if (!saved_bytes[ps->parent]) {
            if (!(saved_bytes[ps->parent] = malloc(st->nbytes))) continue;
            memcpy(saved_bytes[ps->parent], st->bytes, st->nbytes);
        }
        uint64_t bits = gr_scalar_from_i64(ps->type, hang ? 1 : (int64_t)threads);
        if (memcmp(st->bytes + ps->field_offset, &bits, size)) changed++;
        memcpy(st->bytes + ps->field_offset, &bits, size);
    }
    if (!changed) {
        for (int i = 0; i < in->nargs && i < 64; i++)
            if (saved_bytes[i]) {
                memcpy(in->args[i].bytes, saved_bytes[i], in->args[i].nbytes);
                free(saved_bytes[i]);
            }
        return;
    }
    gr_launch_result res;
    gr_error err = GR_ERROR_INIT;
    bool ran = gr_runner_run(s->runner, in, &res, &err);
    bool still = !ran || (hang ? res.status == GR_EXEC_HANG
                               : gr_search_result_has(in, &res, sig, GR_SEARCH_REL_NONE));
    if (ran) gr_launch_result_free(&res);
    gr_error_clear(&err);
    for (int i = 0; i < in->nargs && i < 64; i++) in->args[i].bits = saved[i];
    /* the fields' values as the finding had them, for the note, then the bytes restored */
    uint8_t *tried[64] = {0};
    for (int i = 0; i < in->nargs && i < 64; i++)
        if (saved_bytes[i]) {
            tried[i] = in->args[i].bytes;
            in->args[i].bytes = saved_bytes[i];
        }
    for (int i = 0; i < 64; i++) free(tried[i]);
    if (still) return;
    size_t len = (size_t)snprintf(buf, n, "assumes");
    int k = 0;
    for (int i = 0; i < in->nargs && i < 64 && len < n; i++) {
        const gr_input_arg *a = &in->args[i];
        if (a->kind != GR_INPUT_SCALAR || gr_elem_is_float(a->type) ||
            (i < s->spec.nparams && s->spec.params[i].from_json))
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s %s = %lld", k++ ? "," : "",
                                a->name ? a->name : "?", (long long)gr_scalar_as_i64(a->type, a->bits));
    }
    for (int e = s->spec.nparams; e < s->spec.nentries && len < n; e++) {
        const gr_param_spec *ps = &s->spec.params[e];
        if (ps->role != GR_ROLE_SCALAR || gr_elem_is_float(ps->type) || ps->from_json ||
            ps->idom.kind == GR_DOM_CHOICES)
            continue;
        gr_input_arg a;
        gr_spec_entry_arg(&s->spec, in, e, &a);
        len += (size_t)snprintf(buf + len, n - len, "%s %s = %lld", k++ ? "," : "", ps->name,
                                (long long)gr_scalar_as_i64(a.type, a.bits));
    }
    if (len < n)
        snprintf(buf + len, n - len, " (chosen by the tool, no spec): with each set to %llu %s",
                 hang ? 1ull : (unsigned long long)threads,
                 hang ? "the kernel terminates (a loop they bound is long, not endless)"
                      : "the race does not occur");
}

typedef struct report_tally {
    uint32_t lost; /* findings seen but not on disk */
    /* what the report says about where inputs came from */
    char **seed_paths;
    int nseed_paths;
    const char *spec_label;
    const char *file;
} report_tally;

/* What a finding depends on, in words (the report's "input" line). */
static void origin_note(const report_tally *t, const fuzz_record *rec, char *out, size_t n) {
    const char *seed = rec->seed >= 0 && rec->seed < t->nseed_paths ? t->seed_paths[rec->seed] : NULL;
    switch ((fuzz_origin)rec->origin) {
    case ORIGIN_RECORDED:
        snprintf(out, n, "a launch the program's own tests make (%s): the test itself races", seed ? seed : "recorded");
        break;
    case ORIGIN_SPEC:
        if (seed)
            snprintf(out, n, "within the spec (%s) but not a launch the tests make; it started from %s",
                     t->spec_label ? t->spec_label : "the spec", seed);
        else
            snprintf(out, n, "within the spec (%s)", t->spec_label ? t->spec_label : "given with --spec");
        break;
    case ORIGIN_OUTSIDE:
        snprintf(out, n, "outside the spec (%s): %s; this finding needs that assumption, which no recorded launch "
                         "makes%s%s",
                 t->spec_label ? t->spec_label : "the spec", rec->assumption[0] ? rec->assumption : "?",
                 seed ? "; it started from " : "", seed ? seed : "");
        break;
    default:
        snprintf(out, n, "needs %s; the kernel's spec was inferred (gpurace info %s --spec prints what was assumed; "
                         "a spec or recorded launches say what is valid)",
                 rec->assumption[0] ? rec->assumption : "the launch gpurace chose", t->file ? t->file : "FILE");
        break;
    }
}

/* One claimed finding of the campaign into the report: from its saved witness, or from the
 * copy in the table when there is none; then replayed to say whether it reproduces. */
static bool report_claimed(search_session *s, gr_report *r, const gr_campaign_finding *e,
                           uint64_t occurrences, cli_oracle_kind oracle_kind,
                           const gr_seqcmp_options *seqcmp, report_tally *tally, gr_error *err) {
    const fuzz_record *rec = (const fuzz_record *)e->record;
    uint64_t sig = rec->sig ? rec->sig : atomic_load(&e->signature);
    uint64_t hash = gr_search_source_hash(&s->target);
    gr_witness wit;
    bool have = false;
    char note[1024] = "";
    if (e->state == GR_CAMPAIGN_SAVED) {
        gr_error werr = GR_ERROR_INIT;
        have = gr_witness_load(&wit, e->path, &hash, false, &werr);
        if (!have)
            snprintf(note, sizeof note, "its witness could not be read back (%s)",
                     werr.message ? werr.message : "?");
        gr_error_clear(&werr);
    } else if (e->state == GR_CAMPAIGN_UNSAVED) {
        snprintf(note, sizeof note, "NOT saved: %s", e->problem);
    } else {
        snprintf(note, sizeof note, "NOT saved: the worker that found it died before saving it");
    }
    if (!have) tally->lost++;

    char sched[64];
    gr_report_launch L;
    size_t first = r->nfindings;
    if (rec->is_divergence) {
        if (have && oracle_kind == CLI_ORACLE_SEQCMP) {
            /* the oracle re-runs the input and adds the nondeterministic-output finding */
            cli_oracle_outcome outcome;
            bool ok = cli_oracle_apply_from(oracle_kind, seqcmp, s->loaded.module, s->kernel,
                                            s->have_spec ? &s->spec : NULL, &wit.input, s->srcmap,
                                            r, first, &outcome, err);
            cli_oracle_outcome_free(&outcome);
            if (!ok) {
                gr_witness_free(&wit);
                return false;
            }
        }
        if (r->nfindings == first) { /* not reproduced, or not saved: from the record */
            gr_report_finding rf;
            memset(&rf, 0, sizeof rf);
            rf.cls = GR_REPORT_NONDETERMINISTIC_OUTPUT;
            rf.severity = GR_SEVERITY_ERROR;
            rf.element = -1;
            rf.manifests = rec->finding.message[0] ? rec->finding.message : NULL;
            if (have && !note[0])
                snprintf(note, sizeof note, "the outputs did not differ again when replayed");
            if (!gr_report_add(r, &rf, err)) {
                if (have) gr_witness_free(&wit);
                return false;
            }
        }
        launch_of(rec->grid, rec->block, rec->shared_bytes, &rec->schedule,
                  have ? wit.backend : gr_runner_backend_name(s->runner), s, sched, sizeof sched, &L);
    } else {
        gr_finding f;
        const gr_witness_finding *wf = have ? witness_finding(&wit, sig) : NULL;
        if (wf) finding_from_witness(wf, &f);
        else f = rec->finding;
        if (have)
            launch_of(wit.input.grid, wit.input.block, wit.input.shared_bytes,
                      &wit.input.schedule, wit.backend, s, sched, sizeof sched, &L);
        else
            launch_of(rec->grid, rec->block, rec->shared_bytes, &rec->schedule,
                      gr_runner_backend_name(s->runner), s, sched, sizeof sched, &L);
        if (!r->launch.known) gr_report_set_launch(r, &L);
        gr_report_exec_context ctx = {s->loaded.module, s->srcmap, NULL, 0, s->target.file};
        if (!gr_report_add_exec_finding(r, &ctx, &f, NULL, err)) {
            if (have) gr_witness_free(&wit);
            return false;
        }
        if (r->nfindings > first) {
            gr_report_finding *rf = &r->findings[r->nfindings - 1];
            const char *object = wf ? wf->object : rec->object[0] ? rec->object : NULL;
            if (object) {
                rf->variable = gr_report_strdup(r, object);
                rf->element = wf ? wf->element : rec->element;
            }
        }
        if (have && r->nfindings > first) {
            int replays = 0, reproduced = 0;
            count_replays(s, &wit.input, sig, &replays, &reproduced);
            gr_report_finding *rf = &r->findings[r->nfindings - 1];
            rf->replays = replays;
            rf->reproduced = reproduced;
            if (replays && !reproduced)
                snprintf(note, sizeof note,
                         gr_runner_deterministic(s->runner)
                             ? "seen on the launch of the witness, which did not show it when "
                               "replayed (the simulator is deterministic: please report this)"
                             : "seen on the launch of the witness; reproduced in 0 of %d replays "
                               "(GPU interleavings vary from run to run: replay it again, or on "
                               "the simulator with --backend sim)",
                         replays);
            if (oracle_kind == CLI_ORACLE_SEQCMP) {
                cli_oracle_outcome outcome;
                bool ok = cli_oracle_apply_from(oracle_kind, seqcmp, s->loaded.module, s->kernel,
                                                s->have_spec ? &s->spec : NULL, &wit.input,
                                                s->srcmap, r, first, &outcome, err);
                cli_oracle_outcome_free(&outcome);
                if (!ok) {
                    gr_witness_free(&wit);
                    return false;
                }
            }
        }
    }
    for (size_t k = first; k < r->nfindings; k++) {
        gr_report_finding *rf = &r->findings[k];
        char assumed[512] = "";
        if (have) assumption_of(s, &wit.input, rf, assumed, sizeof assumed);
        if (have && !assumed[0] && (rf->cls == GR_REPORT_RACE || rf->cls == GR_REPORT_HANG))
            scalar_dependence(s, &wit.input, sig, rf->cls == GR_REPORT_HANG, assumed,
                              sizeof assumed);
        rf->launch = L;
        rf->launch.schedule = gr_report_strdup(r, L.schedule);
        rf->launch.backend = gr_report_strdup(r, L.backend);
        rf->launch.detector = gr_report_strdup(r, L.detector);
        rf->launch.warp_model = gr_report_strdup(r, L.warp_model);
        if (assumed[0]) {
            /* the finding needs a guess the tool made: a warning that names it */
            char both[1600];
            snprintf(both, sizeof both, "%s%s%s", assumed, note[0] ? "; " : "", note);
            rf->severity = GR_SEVERITY_WARNING;
            rf->note = gr_report_strdup(r, both);
        } else if (note[0]) {
            rf->note = gr_report_strdup(r, note);
        }
        if (!rec->is_divergence) {
            char words[1400];
            origin_note(tally, rec, words, sizeof words);
            rf->input = gr_report_strdup(r, origin_name((fuzz_origin)rec->origin));
            rf->input_note = gr_report_strdup(r, words);
            /* a finding that needs an input the spec does not allow is a warning */
            if (rec->origin == ORIGIN_OUTSIDE) rf->severity = GR_SEVERITY_WARNING;
            if (occurrences > rf->count) rf->count = occurrences;
        }
        if (have) {
            rf->witness = gr_report_strdup(r, e->path);
            char repro[GR_CAMPAIGN_PATH_MAX + 8];
            snprintf(repro, sizeof repro, "%s", e->path);
            size_t len = strlen(repro);
            struct stat st;
            if (len > 5 && strcmp(repro + len - 5, ".json") == 0) {
                strcpy(repro + len - 5, ".cu");
                if (stat(repro, &st) == 0) rf->reproducer = gr_report_strdup(r, repro);
            }
        }
    }
    if (have) gr_witness_free(&wit);
    return true;
}

/* ---- --seeds: starting from the program's own launches ----------------------------------------- */

typedef struct seed_setup {
    gr_seed_set set;
    bool have_set;
    gr_input *decoded;   /* libFuzzer corpus files, decoded under the spec */
    int ndecoded;
    gr_amplifier *amp;
    char **paths;        /* by amplifier seed */
    int npaths;
    int recorded, skipped;
    gr_strbuf derived;   /* the derived spec's text ("" with --spec) */
} seed_setup;

static void seed_setup_free(seed_setup *t) {
    gr_amplifier_free(t->amp);
    for (int i = 0; i < t->ndecoded; i++) gr_input_free(&t->decoded[i]);
    free(t->decoded);
    free(t->paths); /* the strings belong to the set */
    if (t->have_set) gr_seed_set_free(&t->set);
    gr_strbuf_free(&t->derived);
    memset(t, 0, sizeof *t);
}

/* The seeds of the session's kernel (recorded launches, witnesses, or a libFuzzer corpus decoded
 * under the session's spec); without --spec, the spec derived from them replaces the session's;
 * then the amplifier. */
static bool setup_seeds(search_session *s, const char *dir, bool spec_given, seed_setup *t, gr_error *err) {
    const gr_kernel_sig *k = s->kernel;
    const char *names[3] = {k->ptx_name, k->qualified, k->name};
    for (int i = 0; i < 3 && !t->have_set; i++) {
        if (!names[i]) continue;
        gr_error_clear(err);
        t->have_set = gr_seeds_load(dir, names[i], &t->set, err);
    }
    if (!t->have_set) return false;
    gr_error_clear(err);
    int cap = t->set.nseeds + t->set.ngenomes;
    const gr_input **inputs = calloc((size_t)cap + 1, sizeof *inputs);
    bool *recorded = calloc((size_t)cap + 1, sizeof *recorded);
    t->paths = calloc((size_t)cap + 1, sizeof *t->paths);
    t->decoded = calloc((size_t)t->set.ngenomes + 1, sizeof *t->decoded);
    int n = 0;
    bool ok = inputs && recorded && t->paths && t->decoded;
    if (!ok) gr_fail(err, GR_ERR_NOMEM, "out of memory");
    for (int i = 0; ok && i < t->set.nseeds; i++) {
        gr_error why = GR_ERROR_INIT;
        if (!gr_input_check_signature(&t->set.seeds[i].input, k, &why)) {
            t->skipped++;
            gr_error_clear(&why);
            continue;
        }
        inputs[n] = &t->set.seeds[i].input;
        recorded[n] = t->set.seeds[i].recorded;
        t->recorded += recorded[n];
        t->paths[n++] = t->set.seeds[i].path;
    }
    for (int i = 0; ok && i < t->set.ngenomes; i++) {
        size_t len;
        gr_error why = GR_ERROR_INIT;
        char *bytes = gr_read_file_kind(t->set.genomes[i], GR_FILE_DATA, &len, &why);
        if (bytes && gr_codec_decode(&s->codec, (const uint8_t *)bytes, len, &t->decoded[t->ndecoded], &why)) {
            inputs[n] = &t->decoded[t->ndecoded++];
            recorded[n] = false;
            t->paths[n++] = t->set.genomes[i];
        } else {
            t->skipped++;
        }
        gr_error_clear(&why);
        free(bytes);
    }
    if (ok && n == 0)
        ok = gr_fail_at(err, GR_ERR_INPUT, dir, 0, 0, "none of the %d seeds of %s fits its parameters in %s",
                        t->set.nseeds + t->set.ngenomes, k->name, s->target.file);
    if (ok && !spec_given) {
        gr_derive_options o = {dir, {0}};
        gr_launch_reads_of(s->loaded.module, k->ptx_name, &o.reads);
        gr_spec derived;
        ok = gr_spec_derive(k, inputs, n, &o, &t->derived, err) &&
             gr_spec_parse(&derived, gr_strbuf_cstr(&t->derived), "the spec derived from the seeds", k, err);
        if (ok) { /* the derived spec replaces the inferred one */
            gr_codec_free(&s->codec);
            gr_spec_free(&s->spec);
            s->spec = derived;
            s->spec_inferred = false;
            ok = gr_codec_init(&s->codec, &s->spec, err);
        }
    }
    if (ok) ok = (t->amp = gr_amplifier_new(&s->spec, inputs, recorded, n, err)) != NULL;
    t->npaths = n;
    free(inputs);
    free(recorded);
    return ok;
}

int cmd_fuzz(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    cli_interrupt_install();
    const char *spec = NULL, *backend = NULL, *time_s = NULL, *runs_s = NULL, *corpus = NULL,
               *findings = NULL, *jobs_s = NULL, *seed_s = NULL,
               *warp_model = NULL, *detector = NULL, *seeds_dir = NULL, *memory_limit = NULL;
    bool stop_on_first = false, plain_inference = false;
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
        {"--seed", CLI_VALUE, &seed_s, NULL},     {"--seeds", CLI_VALUE, &seeds_dir, NULL},
        {"--warp-model", CLI_VALUE, &warp_model, NULL}, {"--detector", CLI_VALUE, &detector, NULL},
        {"--memory-limit", CLI_VALUE, &memory_limit, NULL},
        {"--stop-on-first", CLI_FLAG, NULL, &stop_on_first}, CLI_ORACLE_OPT_SPECS(&oracle),
        {"--plain-inference", CLI_FLAG, NULL, &plain_inference},

        {NULL, CLI_FLAG, NULL, NULL}};
    if (!cli_parse("fuzz", split, argv, 2, &src, specs, &err)) return search_fail(&err);
    uint64_t seconds = 0, runs = 0, jobs = 1, seed = 1, memory_mb = 0;
    if ((time_s && !cli_parse_uint_flag("--time", time_s, 0, FUZZ_MAX_SECONDS, &seconds, &err)) ||
        (runs_s && !cli_parse_uint_flag("--runs", runs_s, 0, INT64_MAX, &runs, &err)) ||
        (jobs_s && !cli_parse_uint_flag("--jobs", jobs_s, 1, GR_CAMPAIGN_MAX_JOBS, &jobs, &err)) ||
        (seed_s && !cli_parse_uint_flag("--seed", seed_s, 0, UINT64_MAX, &seed, &err)) ||
        (memory_limit &&
         !cli_parse_uint_flag("--memory-limit", memory_limit, 1, 0xffffffffu, &memory_mb, &err)) ||
        !cli_report_claim_stdout(&report, &err))
        return search_fail(&err);
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
    search_session_options so = {spec, true, backend, detector, warp_model, 0, (uint32_t)memory_mb,
                                 true, maybe_gpu, plain_inference};
    int code = -1;
    char workdir[GR_CAMPAIGN_PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/gpurace-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    bool have_workdir = false;
    char *corpus_dir = NULL, *findings_dir = NULL, *keep_dir = NULL, *artifacts = NULL;
    gr_report r;
    gr_report_init(&r);
    gr_campaign_summary sum;
    memset(&sum, 0, sizeof sum);
    cli_oracle_kind oracle_kind = CLI_ORACLE_NONE;
    gr_seqcmp_options seqcmp;
    seed_setup seeds;
    memset(&seeds, 0, sizeof seeds);
    char spec_label[1400] = "";
    if (!search_session_open(&s, &src, &so, &err) ||
        !cli_oracle_parse(&oracle, s.loaded.source, src.file, &oracle_kind, &seqcmp, &err)) {
        if (cli_interrupted()) {
            gr_error_clear(&err);
            gr_fail(&err, GR_ERR_INTERNAL, "interrupted before the search started");
        }
        goto done;
    }
    if (cli_interrupted()) {
        gr_fail(&err, GR_ERR_INTERNAL, "interrupted before the search started");
        goto done;
    }
    /* --backend auto: the simulator's detector models grid sync, the GPU backend's does not */
    if (backend && strcmp(backend, "auto") == 0 &&
        cli_grid_sync_to_simulator("fuzz", &s.loaded, s.kernel)) {
        backend = "sim";
        s.run_opt.backend = "sim";
    }
    /* On the simulator, a kernel that uses PTX it cannot run is refused once, here, rather than
     * by every worker (the file's other kernels still run) */
    if (!backend || strcmp(backend, "sim") == 0) {
        gr_backend *probe = gr_sim_backend_new(&err);
        bool ok = probe && gr_backend_load(probe, s.loaded.module, &err) &&
                  gr_sim_kernel_runnable(probe, s.kernel->ptx_name, &err);
        if (probe) gr_backend_free(probe);
        if (!ok) goto done;
    }
    oracle_kind = cli_oracle_default(&oracle, s.have_spec ? &s.spec : NULL, oracle_kind);
    if (oracle_kind == CLI_ORACLE_TWOPASS) {
        gr_fail(&err, GR_ERR_USAGE, "fuzz takes --oracle seqcmp or none (twopass: use check or "
                                    "replay on the saved witnesses)");
        goto done;
    }
    if (seeds_dir && !setup_seeds(&s, seeds_dir, spec != NULL, &seeds, &err)) goto done;
    if (spec) snprintf(spec_label, sizeof spec_label, "%s", spec);
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
    if (findings_dir) {
        keep_dir = malloc(strlen(findings_dir) + 16);
        if (keep_dir) sprintf(keep_dir, "%s/worker-logs", findings_dir);
    }
    artifacts = malloc(strlen(workdir) + 16);
    if (artifacts) sprintf(artifacts, "%s/artifact-", workdir);
    if (!corpus_dir || !findings_dir || !keep_dir || !artifacts) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (!make_writable_dir("--corpus", corpus_dir, &err) ||
        !make_writable_dir("--findings", findings_dir, &err))
        goto done;
    if (seeds.amp) {
        if (seeds.derived.len) { /* the spec the findings are judged against, to read and edit */
            gr_strbuf path = GR_STRBUF_INIT;
            gr_strbuf_appendf(&path, "%s/%s.derived-spec.json", findings_dir, s.kernel->name);
            if (!gr_write_file_atomic(gr_strbuf_cstr(&path), gr_strbuf_cstr(&seeds.derived), seeds.derived.len, &err)) {
                gr_strbuf_free(&path);
                goto done;
            }
            snprintf(spec_label, sizeof spec_label, "derived from the launches in %s: %s", seeds_dir,
                     gr_strbuf_cstr(&path));
            gr_strbuf_free(&path);
        }
        fprintf(stderr, "fuzz: amplifying %d launch%s of %s from %s (%d recorded by the program, %d fit%s the spec",
                seeds.npaths, seeds.npaths == 1 ? "" : "es", s.kernel->name, seeds_dir, seeds.recorded,
                gr_amplifier_nfitting(seeds.amp), gr_amplifier_nfitting(seeds.amp) == 1 ? "s" : "");
        if (seeds.skipped) fprintf(stderr, "; %d that do not fit the kernel's parameters left out", seeds.skipped);
        fprintf(stderr, "); spec %s\n", spec_label);
        if (gr_amplifier_nfitting(seeds.amp) == 0)
            fprintf(stderr, "fuzz: no seed fits the spec: sizes and launch shapes stay as recorded, contents change\n");
        seed_amp_corpus(seeds.amp, corpus_dir, seed);
    } else {
        seed_corpus(&s, corpus_dir, seed);
    }
    fuzz_worker w;
    memset(&w, 0, sizeof w);
    w.session = &s;
    w.amp = seeds.amp;
    w.seed_paths = seeds.paths;
    w.spec_label = spec_label[0] ? spec_label : NULL;
    w.plain_origin = s.spec_inferred ? ORIGIN_INFERRED : ORIGIN_SPEC;
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
    w.artifact_prefix = artifacts;
    w.stop_on_first = stop_on_first;
    w.verbose = report.verbose;
    w.user_fd = dup(2);
    w.passthrough = argv + split + 1;
    w.npassthrough = split < argc ? argc - split - 1 : 0;
    char budget[96];
    if (seconds)
        snprintf(budget, sizeof budget, "time %s, ", time_s ? time_s : "60s");
    else if (runs)
        snprintf(budget, sizeof budget, "%" PRIu64 " runs, ", (uint64_t)runs);
    else
        budget[0] = '\0';
    fprintf(stderr, "fuzz: kernel %s, backend %s, %s%d job%s, findings in %s\n", s.kernel->name,
            s.run_opt.backend, budget, (int)jobs, jobs == 1 ? "" : "s", findings_dir);
    gr_campaign_options co = {(int)jobs, (double)seconds, runs, seed, stop_on_first, 0, stderr,
                              isatty(2) != 0, report.verbose ? NULL : workdir, keep_dir,
                              cli_interrupt_install()};
    bool ran = gr_campaign_run(&co, run_worker, &w, &sum, &err);
    if (w.user_fd >= 0) close(w.user_fd);
    if (!ran) goto done;
    /* several workers grew one corpus: merge it as libFuzzer's fork mode merges its jobs'
     * (before this process opens a backend: a GPU merge child needs a clean parent) */
    if (corpus && jobs > 1 && sum.execs > 0 && !cli_interrupted()) merge_corpus(&w);
    int crashes = keep_artifacts(workdir, keep_dir);
    fprintf(stderr, "fuzz: %" PRIu64 " executions in %.1fs (%.0f/s), coverage %" PRIu64 ", %u finding%s, %u worker restart%s\n",
            sum.execs, sum.elapsed, sum.elapsed > 0 ? (double)sum.execs / sum.elapsed : 0.0, sum.coverage,
            sum.findings, sum.findings == 1 ? "" : "s", sum.restarts, sum.restarts == 1 ? "" : "s");
    if (sum.deaths && sum.nkept_logs)
        fprintf(stderr, "fuzz: %u worker death%s; the newest logs are kept in %s\n", sum.deaths,
                sum.deaths == 1 ? "" : "s", keep_dir);
    if (crashes)
        fprintf(stderr, "fuzz: %d input%s that crashed a worker %s kept in %s\n", crashes,
                crashes == 1 ? "" : "s", crashes == 1 ? "is" : "are", keep_dir);
    if (!search_session_runner(&s, &err)) goto done;
    r.command = "fuzz";
    r.file = gr_report_strdup(&r, src.file);
    r.linked_files = src.files + 1;
    r.nlinked_files = src.nfiles > 1 ? src.nfiles - 1 : 0;
    r.kernel = gr_report_strdup(&r, s.kernel->name);
    report_tally tally = {0, seeds.paths, seeds.npaths, w.spec_label, src.file};
    /* one finding per root cause: the entry with the best evidence (saved, then what it depends
     * on), with the occurrences of every entry of that cause */
    bool *grouped = calloc((size_t)sum.ntable + 1, sizeof *grouped);
    if (!grouped) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < sum.ntable; i++) {
        if (grouped[i]) continue;
        const fuzz_record *ri = (const fuzz_record *)sum.table[i].record;
        int rep = i;
        uint64_t occurrences = 0;
        for (int j = i; j < sum.ntable; j++) {
            const fuzz_record *rj = (const fuzz_record *)sum.table[j].record;
            if (grouped[j] || (j != i && (rj->is_divergence || ri->is_divergence || rj->root != ri->root))) continue;
            grouped[j] = true;
            occurrences += atomic_load(&sum.table[j].occurrences);
            const fuzz_record *rr = (const fuzz_record *)sum.table[rep].record;
            bool j_saved = sum.table[j].state == GR_CAMPAIGN_SAVED, rep_saved = sum.table[rep].state == GR_CAMPAIGN_SAVED;
            if ((j_saved && !rep_saved) || (j_saved == rep_saved && rj->origin < rr->origin)) rep = j;
        }
        if (!report_claimed(&s, &r, &sum.table[rep], occurrences, oracle_kind, &seqcmp, &tally, &err)) {
            free(grouped);
            goto done;
        }
    }
    free(grouped);
    /* unsaved findings beyond the table have no record there: count them too */
    uint32_t in_table = 0;
    for (int i = 0; i < sum.ntable; i++) in_table += sum.table[i].state == GR_CAMPAIGN_UNSAVED;
    uint32_t lost = tally.lost + (sum.unsaved > in_table ? sum.unsaved - in_table : 0);
    char problem[1400] = "";
    if (lost)
        snprintf(problem, sizeof problem, "%u finding%s could not be saved (see the note on each)",
                 lost, lost == 1 ? "" : "s");
    if (!sum.complete)
        snprintf(problem + strlen(problem), sizeof problem - strlen(problem), "%s%s%s%s",
                 problem[0] ? "; " : "", sum.problem,
                 sum.nkept_logs ? "; worker logs kept in " : "", sum.nkept_logs ? keep_dir : "");
    if (problem[0]) r.problem = gr_report_strdup(&r, problem);
    if (sum.overflow)
        fprintf(stderr, "fuzz: %u more finding%s beyond the first %d saved in %s (not listed here: "
                        "gpurace replay lists them)\n",
                sum.overflow, sum.overflow == 1 ? "" : "s", GR_CAMPAIGN_MAX_FINDINGS, findings_dir);
    code = cli_report_emit(&r, &report, s.srcmap, NULL, &err);
    if (code == 0 && !report.quiet && !cli_interrupted()) {
        gr_strbuf hint = GR_STRBUF_INIT;
        cli_optimizer_hint(&src, &s.loaded, s.kernel->ptx_name, &hint);
        if (hint.len) fputs(gr_strbuf_cstr(&hint), stderr);
        gr_strbuf_free(&hint);
    }
    /* findings that are not on disk outrank the others; a run that did not do its whole job
     * never passes */
    if (code >= 0 && (lost || (code == 0 && !sum.complete))) code = 3;
    if (code < 0) { /* the report could not be written: the campaign's results are not out */
        gr_error_print(&err, stderr);
        gr_error_clear(&err);
        code = 3;
    }
done:
    if (code < 0) code = search_fail(&err);
    cli_report_release_stdout();
    gr_report_free(&r);
    gr_campaign_summary_free(&sum);
    seed_setup_free(&seeds); /* before the session: the amplifier uses its spec */
    search_session_close(&s);
    if (have_workdir) remove_tree(workdir);
    free(corpus_dir);
    free(findings_dir);
    free(keep_dir);
    free(artifacts);
    return code;
}
