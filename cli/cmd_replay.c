/* gpurace replay FILE... WITNESS|DIR [--json F] [--sarif F] [--force] [--backend auto|sim|gpu]
 *
 *               [--spec F] [--oracle seqcmp|twopass|none] [--reference NAME]
 *               [--oracle-schedules LIST]
 *
 * FILE... : the kernel's file first, then files it is linked with (cli/load.h).
 * Re-runs saved launches (CI regression mode): one witness, or every witness of a directory
 * (the .json files of DIR and of DIR/findings), and genome files (names without an extension:
 * a corpus folder's entries, a fuzzing engine's crash-<sha1> files) decoded under the spec.
 * Exit status 1 when any finding reproduces.
 * Also holds what the search subcommands share (cli/search_cli.h). */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/oracle_opts.h"
#include "cli/report/report_exec.h"
#include "cli/report_opts.h"
#include "cli/search_cli.h"
#include "common/file.h"


cli_backend_override cli_search_backend_override;

int search_fail(gr_error *err) {
    gr_error_print(err, stderr);
    int code = gr_error_exit_code(err);
    gr_error_clear(err);
    return code;
}

bool search_session_open(search_session *s, const cli_source_options *src,
                         const search_session_options *o, gr_error *err) {
    memset(s, 0, sizeof *s);
    if (!cli_load_ex(src, o->isolate_compile, &s->loaded, err)) return false;
    s->loaded_ok = true;
    s->kernel = gr_kernel_select(&s->loaded.kernels, src->kernel, err);
    if (!s->kernel || !cli_check_kernel_linked(&s->loaded, s->kernel, src->command, err))
        return false;
    s->srcmap = cli_loaded_srcmap(&s->loaded);
    /* several FILEs: the others are part of the program (source hash, reproducer) */
    s->target = (gr_search_target){s->loaded.module, s->kernel, s->loaded.source,
                                   s->loaded.compiled.ptx, src->file, s->srcmap, NULL, 0,
                                   GPURACE_VERSION, s->loaded.files + 1,
                                   (const char *const *)s->loaded.texts + 1,
                                   s->loaded.nfiles - 1};
    if (o->need_spec || o->spec_path) {
        bool ok;
        if (o->spec_path) {
            ok = gr_spec_load(&s->spec, o->spec_path, s->kernel, err);
        } else {
            /* what the kernel's code says narrows the guesses, unless asked for the plain ones */
            if (!o->plain_inference && !gr_spec_hints_find(s->loaded.module, s->kernel, &s->hints, err))
                return false;
            ok = gr_spec_infer_hinted(&s->spec, s->kernel, &s->hints, err);
        }
        if (!ok) return false;
        s->have_spec = true;
        s->spec_inferred = !o->spec_path;
        if (!gr_codec_init(&s->codec, &s->spec, err)) return false;
        s->have_codec = true;
    }
    s->run_opt.backend = o->backend ? o->backend : "sim";
    if (!cli_parse_detector(o->detector, false, &s->run_opt.detector, &s->run_opt.confirm, NULL,
                            err))
        return false;
    s->run_opt.warp_model = GR_WARP_ITS;
    if (o->warp_model) {
        if (strcmp(o->warp_model, "lockstep") == 0) s->run_opt.warp_model = GR_WARP_LOCKSTEP;
        else if (strcmp(o->warp_model, "its") != 0)
            return gr_fail(err, GR_ERR_USAGE, "--warp-model must be its or lockstep");
    }
    if (strcmp(s->run_opt.backend, "auto") != 0 && strcmp(s->run_opt.backend, "sim") != 0 &&
        strcmp(s->run_opt.backend, "gpu") != 0)
        return gr_fail(err, GR_ERR_USAGE, "--backend must be auto, sim or gpu");
    s->run_opt.step_budget = o->step_budget;
    s->run_opt.memory_limit_mb = o->memory_limit_mb;
    s->run_opt.step_budget_per_thread = GR_SEARCH_STEPS_PER_THREAD;
    s->run_opt.open_backend = cli_search_backend_override.open;
    s->run_opt.open_backend_ctx = cli_search_backend_override.ctx;
    s->run_opt.open_backend_deterministic = cli_search_backend_override.deterministic;
    return o->defer_runner || search_session_runner(s, err);
}

bool search_session_runner(search_session *s, gr_error *err) {
    if (s->runner) return true;
    s->runner = gr_runner_new(s->loaded.module, s->kernel, &s->run_opt, err);
    return s->runner != NULL;
}

void search_session_close(search_session *s) {
    gr_runner_free(s->runner);
    if (s->have_codec) gr_codec_free(&s->codec);
    if (s->have_spec) gr_spec_free(&s->spec);
    if (s->srcmap) ptx_srcmap_free(s->srcmap);
    if (s->loaded_ok) cli_loaded_free(&s->loaded);
    memset(s, 0, sizeof *s);
}

static const char *sched_text(const gr_input_schedule *sc, char *buf, size_t n) {
    gr_schedule g = {(gr_schedule_kind)sc->kind, sc->seed, sc->quantum, sc->depth};
    gr_schedule_format(&g, buf, n);
    return buf;
}

bool search_report_witness(search_session *s, gr_report *r, const gr_witness *w,
                           const char *witness_path, const char *repro_path, uint64_t only,
                           int *reproduced, gr_error *err) {
    if (reproduced) *reproduced = 0;
    if (!gr_input_check_signature(&w->input, s->kernel, err)) {
        if (witness_path) gr_error_wrap(err, "%s", witness_path);
        return false;
    }
    gr_launch_result res;
    if (!gr_runner_run(s->runner, &w->input, &res, err)) return false;
    const gr_input *in = &w->input;
    char sched[64];
    gr_report_launch L = {true,
                          {in->grid[0], in->grid[1], in->grid[2]},
                          {in->block[0], in->block[1], in->block[2]},
                          in->shared_bytes,
                          sched_text(&in->schedule, sched, sizeof sched),
                          gr_runner_backend_name(s->runner),
                          s->run_opt.detector == GR_DETECTOR_HB ? "hb" : "fsm",
                          s->run_opt.warp_model == GR_WARP_LOCKSTEP ? "lockstep" : "its"};
    if (!r->launch.known) gr_report_set_launch(r, &L);
    int naddr = 0;
    const uint64_t *addr = gr_runner_buffer_addresses(s->runner, &naddr);
    gr_report_buffer *bufs = calloc((size_t)in->nbuffers + 1, sizeof *bufs);
    for (int i = 0; bufs && i < in->nbuffers && i < naddr; i++)
        bufs[i] = (gr_report_buffer){in->buffers[i].name, PTX_SPACE_GLOBAL, addr[i],
                                     in->buffers[i].bytes,
                                     (uint32_t)gr_elem_size(in->buffers[i].type)};
    gr_report_exec_context ctx = {s->loaded.module, s->srcmap, bufs, bufs ? in->nbuffers : 0,
                                  s->target.file};
    bool ok = true;
    for (int i = 0; i < res.nfindings && ok; i++) {
        const gr_finding *f = &res.findings[i];
        if (only && gr_search_signature(f) != only) continue;
        if (reproduced) (*reproduced)++;
        size_t before = r->nfindings;
        ok = gr_report_add_exec_finding(r, &ctx, f, NULL, err);
        if (ok && r->nfindings > before) {
            gr_report_finding *rf = &r->findings[r->nfindings - 1];
            rf->witness = gr_report_strdup(r, witness_path);
            rf->reproducer = gr_report_strdup(r, repro_path);
            /* each witness has its own launch: the report's first one is not this one's */
            rf->launch = L;
            rf->launch.schedule = gr_report_strdup(r, L.schedule);
            rf->launch.backend = gr_report_strdup(r, L.backend);
            rf->launch.detector = gr_report_strdup(r, L.detector);
            rf->launch.warp_model = gr_report_strdup(r, L.warp_model);
        }
        if (only) break; /* one entry per saved finding */
    }
    free(bufs);
    gr_launch_result_free(&res);
    return ok;
}

/* ---- replay ---------------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends DIR's *.json files to the list. */
static void list_json(const char *dir, char ***list, int *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        char **nl = realloc(*list, (size_t)(*n + 1) * sizeof *nl);
        if (!nl) break;
        *list = nl;
        size_t m = strlen(dir) + len + 2;
        (*list)[*n] = malloc(m);
        if (!(*list)[*n]) break;
        snprintf((*list)[*n], m, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
}

/* A genome file: libFuzzer's and gpurace's corpus entries and the engine's crash files are
 * named without an extension (a content hash, crash-<sha1>, timeout-<sha1> ...). */
static bool is_genome_name(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return base[0] != '.' && strchr(base, '.') == NULL;
}

/* Appends DIR's genome files to the list. */
static void list_genomes(const char *dir, char ***list, int *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_genome_name(e->d_name)) continue;
        size_t m = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(m);
        if (!p) break;
        snprintf(p, m, "%s/%s", dir, e->d_name);
        struct stat st;
        char **nl = stat(p, &st) == 0 && S_ISREG(st.st_mode) ? realloc(*list, (size_t)(*n + 1) * sizeof *nl) : NULL;
        if (!nl) {
            free(p);
            continue;
        }
        *list = nl;
        (*list)[(*n)++] = p;
    }
    closedir(d);
}

/* Re-runs genome files (a corpus, or the crash files a fuzzing engine kept) under the kernel's
 * spec: each finding is reported once, from the first genome that shows it. A genome that
 * does not decode under the spec is named and skipped (the fuzz target rejects it too). */
static bool replay_genomes(search_session *s, gr_report *r, char **files, int nfiles,
                           int *skipped, gr_error *err) {
    uint64_t *seen = NULL;
    int nseen = 0, with = 0;
    bool ok = true;
    for (int i = 0; ok && i < nfiles; i++) {
        size_t len = 0;
        char *data = gr_read_file_kind(files[i], GR_FILE_DATA, &len, err);
        if (!data) return false;
        gr_witness w;
        memset(&w, 0, sizeof w);
        gr_error derr = GR_ERROR_INIT;
        if (!gr_codec_decode(&s->codec, (const uint8_t *)data, len, &w.input, &derr)) {
            fprintf(stderr, "replay: %s: skipped, not a launch under this spec: %s\n", files[i],
                    derr.message ? derr.message : "?");
            gr_error_clear(&derr);
            free(data);
            (*skipped)++;
            continue;
        }
        free(data);
        gr_launch_result res;
        if (!gr_runner_run(s->runner, &w.input, &res, err)) {
            gr_error_wrap(err, "%s", files[i]);
            gr_input_free(&w.input);
            ok = false;
            break;
        }
        int fresh = 0;
        for (int k = 0; ok && k < res.nfindings; k++) {
            uint64_t sig = gr_search_signature(&res.findings[k]);
            bool known = false;
            for (int j = 0; j < nseen && !known; j++) known = seen[j] == sig;
            if (known) continue;
            uint64_t *more = realloc(seen, (size_t)(nseen + 1) * sizeof *more);
            if (!more) {
                ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
                break;
            }
            seen = more;
            seen[nseen++] = sig;
            fresh++;
            ok = search_report_witness(s, r, &w, files[i], NULL, sig, NULL, err);
        }
        if (res.nfindings) {
            with++;
            fprintf(stderr, "replay: %s: %d finding%s (%d not seen in an earlier genome)\n",
                    files[i], res.nfindings, res.nfindings == 1 ? "" : "s", fresh);
        }
        gr_launch_result_free(&res);
        gr_input_free(&w.input);
    }
    free(seen);
    if (ok)
        fprintf(stderr, "replay: %d genome%s run, %d with findings, %d distinct finding%s\n",
                nfiles - *skipped, nfiles - *skipped == 1 ? "" : "s", with, nseen,
                nseen == 1 ? "" : "s");
    return ok;
}

/* Removes the last positional argument (WITNESS) from argv; value options are skipped. */
int search_take_positional(int argc, char **argv, const char *const *value_opts, char **rest,
                           const char **second) {
    /* FILE... WITNESS: the witness is the last positional argument, after one FILE at least */
    int positional = 0, last = -1;
    for (int i = 2; i < argc; i++) {
        bool takes_value = false;
        for (int k = 0; value_opts[k]; k++)
            if (strcmp(argv[i], value_opts[k]) == 0) takes_value = true;
        if (takes_value && i + 1 < argc) i++;
        else if (argv[i][0] != '-') positional++, last = i;
    }
    /* a source as the last one: the WITNESS is missing, not a FILE */
    const char *ext = last >= 0 ? gr_path_extension(argv[last]) : "";
    if (positional < 2 || strcmp(ext, "cu") == 0 || strcmp(ext, "ptx") == 0) last = -1;
    *second = last >= 0 ? argv[last] : NULL;
    int n = 0;
    for (int i = 0; i < argc; i++)
        if (i != last) rest[n++] = argv[i];
    return n;
}

const char *const search_value_options[] = {"--kernel", "--arch", "--compiler", "-I", "-D",
                                            "--json", "--sarif", "--backend", "--spec", "-o",
                                            "--detector", "--warp-model", "--time", "--runs",
                                            "--corpus", "--findings", "--jobs", "--seed",
                                            "--step-budget", "--oracle", "--reference",
                                            "--oracle-schedules", "--memory-limit", NULL};

int cmd_replay(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *backend = NULL, *target = NULL, *spec = NULL, *step_budget = NULL,
               *memory_limit = NULL;
    bool force = false;
    cli_report_options report = {0};
    cli_oracle_options oracle = {0};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 3;
    int nrest = search_take_positional(argc, argv, search_value_options, rest, &target);
    cli_source_options src = {0};
    const cli_opt_spec specs[] = {
        CLI_REPORT_OPT_SPECS(&report),
        {"--backend", CLI_VALUE, &backend, NULL}, {"--force", CLI_FLAG, NULL, &force},
        {"--spec", CLI_VALUE, &spec, NULL}, CLI_ORACLE_OPT_SPECS(&oracle),
        {"--step-budget", CLI_VALUE, &step_budget, NULL},
        {"--memory-limit", CLI_VALUE, &memory_limit, NULL},
        {NULL, CLI_FLAG, NULL, NULL}};
    if (!cli_parse("replay", nrest, rest, 2, &src, specs, &err)) {
        free(rest);
        return search_fail(&err);
    }
    free(rest);
    if (!target) {
        gr_fail(&err, GR_ERR_USAGE, "replay needs FILE and a WITNESS file or directory");
        return search_fail(&err);
    }
    char **files = NULL;
    int nfiles = 0;
    struct stat st;
    if (stat(target, &st) != 0) {
        gr_fail(&err, GR_ERR_IO, "%s: no such file or directory", target);
        return search_fail(&err);
    }
    char **genomes = NULL;
    int ngenomes = 0, skipped = 0;
    if (S_ISDIR(st.st_mode)) {
        list_json(target, &files, &nfiles);
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/findings", target);
        list_json(sub, &files, &nfiles);
        if (nfiles) qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
        list_genomes(target, &genomes, &ngenomes);
        if (ngenomes) qsort(genomes, (size_t)ngenomes, sizeof *genomes, cmp_str);
    } else if (is_genome_name(target)) {
        genomes = calloc(1, sizeof *genomes);
        if (genomes) genomes[ngenomes++] = strdup(target);
    } else {
        files = calloc(1, sizeof *files);
        if (files) files[nfiles++] = strdup(target);
    }
    search_session genome_session;
    bool have_genome_session = false;
    /* Each witness names its kernel: without --kernel, witnesses are replayed on the kernel
     * they name (one session per kernel; FILE is compiled once per kernel). */
    char **kernels = calloc((size_t)nfiles + 1, sizeof *kernels);
    search_session *sessions = calloc((size_t)nfiles + 1, sizeof *sessions);
    const char **session_keys = calloc((size_t)nfiles + 1, sizeof *session_keys);
    int nsessions = 0;
    search_session_options so = {spec, false, backend, NULL, NULL, 0, 0, false, false, false};
    uint64_t mb = 0;
    if ((step_budget &&
         !cli_parse_uint_flag("--step-budget", step_budget, 1, UINT64_MAX, &so.step_budget, &err)) ||
        (memory_limit &&
         !cli_parse_uint_flag("--memory-limit", memory_limit, 1, 0xffffffffu, &mb, &err))) {
        for (int i = 0; i < nfiles; i++) free(files[i]);
        free(files);
        for (int i = 0; i < ngenomes; i++) free(genomes[i]);
        free(genomes);
        return search_fail(&err);
    }
    so.memory_limit_mb = (uint32_t)mb;
    cli_oracle_kind oracle_kind = CLI_ORACLE_NONE;
    gr_seqcmp_options seqcmp;
    int code = -1;
    gr_report r;
    gr_report_init(&r);
    if (!cli_report_claim_stdout(&report, &err)) goto done;
    if (!kernels || !sessions || !session_keys) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < nfiles && !src.kernel; i++) {
        gr_witness peek;
        if (!gr_witness_load(&peek, files[i], NULL, true, &err)) goto done;
        kernels[i] = peek.kernel ? strdup(peek.kernel) : NULL;
        gr_witness_free(&peek);
    }
    r.command = "replay";
    r.file = gr_report_strdup(&r, src.file);
    r.linked_files = src.files + 1;
    r.nlinked_files = src.nfiles > 1 ? src.nfiles - 1 : 0;
    for (int i = 0; i < nfiles || (i == 0 && nfiles == 0 && ngenomes == 0); i++) {
        /* the session of this witness's kernel (all one session with --kernel) */
        const char *key = nfiles ? kernels[i] : NULL;
        search_session *s = NULL;
        for (int j = 0; j < nsessions && !s; j++)
            if ((!key && !session_keys[j]) || (key && session_keys[j] && strcmp(key, session_keys[j]) == 0))
                s = &sessions[j];
        if (!s) {
            cli_source_options one = src;
            if (key) one.kernel = key;
            s = &sessions[nsessions];
            if (!search_session_open(s, &one, &so, &err)) {
                if (key) gr_error_wrap(&err, "the witness %s names kernel %s", files[i], key);
                goto done;
            }
            session_keys[nsessions++] = key;
            if (!cli_oracle_parse(&oracle, s->loaded.source, src.file, &oracle_kind, &seqcmp, &err))
                goto done;
            oracle_kind = cli_oracle_default(&oracle, s->have_spec ? &s->spec : NULL, oracle_kind);
            if (!r.kernel) r.kernel = gr_report_strdup(&r, s->kernel->name);
        }
        if (nfiles == 0) break;
        uint64_t hash = gr_search_source_hash(&s->target);
        gr_witness w;
        if (!gr_witness_load(&w, files[i], &hash, force, &err)) goto done;
        const char *mine = s->kernel->qualified ? s->kernel->qualified : s->kernel->name;
        if (w.kernel && strcmp(w.kernel, mine) != 0 && strcmp(w.kernel, s->kernel->name) != 0 &&
            !force) {
            gr_fail_at(&err, GR_ERR_INPUT, files[i], 0, 0,
                       "the witness is for kernel %s, not %s (--force replays it anyway)",
                       w.kernel, mine);
            gr_witness_free(&w);
            goto done;
        }
        /* a nondeterministic backend (a GPU) gets a few tries before "not reproduced" */
        int tries = gr_runner_deterministic(s->runner) ? 1 : 3, got = 0, runs = 0;
        size_t first = r.nfindings;
        bool ok = true;
        while (ok && runs < tries && got == 0) {
            ok = search_report_witness(s, &r, &w, files[i], NULL, 0, &got, &err);
            runs++;
        }
        if (tries > 1)
            fprintf(stderr, "replay: %s: %d finding%s (%s in %d of %d runs)\n", files[i], got,
                    got == 1 ? "" : "s", got ? "reproduced" : "not reproduced", got ? 1 : 0, runs);
        else
            fprintf(stderr, "replay: %s: %d finding%s\n", files[i], got, got == 1 ? "" : "s");
        if (ok && oracle_kind != CLI_ORACLE_NONE) {
            /* the value oracle on the witness's input: manifests for its races */
            cli_oracle_outcome outcome;
            ok = cli_oracle_apply_from(oracle_kind, &seqcmp, s->loaded.module, s->kernel,
                                       s->have_spec ? &s->spec : NULL, &w.input, s->srcmap, &r,
                                       first, &outcome, &err);
            if (ok) fprintf(stderr, "replay: %s: %s\n", files[i], outcome.line);
            cli_oracle_outcome_free(&outcome);
        }
        gr_witness_free(&w);
        if (!ok) goto done;
    }
    if (ngenomes) {
        /* genomes decode under the spec the search used: --spec, or the inferred one */
        search_session_options gso = so;
        gso.need_spec = true;
        have_genome_session = true; /* closed at the end even when opening fails half way */
        if (!search_session_open(&genome_session, &src, &gso, &err)) goto done;
        if (!r.kernel) r.kernel = gr_report_strdup(&r, genome_session.kernel->name);
        if (genome_session.spec_inferred)
            fprintf(stderr, "replay: genomes decode under the spec inferred for kernel %s (pass the "
                            "--spec the search used if it had one)\n",
                    genome_session.kernel->name);
        if (!replay_genomes(&genome_session, &r, genomes, ngenomes, &skipped, &err)) goto done;
    }
    if (nfiles == 0 && ngenomes == 0) fprintf(stderr, "replay: %s: no witnesses\n", target);
    code = cli_report_emit(&r, &report,
                           nsessions ? sessions[0].srcmap
                           : have_genome_session ? genome_session.srcmap : NULL,
                           NULL, &err);
done:
    if (code < 0) code = search_fail(&err);
    cli_report_release_stdout();
    gr_report_free(&r);
    for (int j = 0; j < nsessions; j++) search_session_close(&sessions[j]);
    if (have_genome_session) search_session_close(&genome_session);
    for (int i = 0; i < ngenomes; i++) free(genomes[i]);
    free(genomes);
    free(sessions);
    free(session_keys);
    for (int i = 0; kernels && i < nfiles; i++) free(kernels[i]);
    free(kernels);
    for (int i = 0; i < nfiles; i++) free(files[i]);
    free(files);
    return code;
}
