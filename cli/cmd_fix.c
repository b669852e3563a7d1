/* gpurace fix FILE [WITNESS|DIR] [-o PATCH] [--sarif F] [--spec F] [--search N] [--force]
 *             [--step-budget N] [--no-notes]
 *
 * Proposes synchronization repairs for the findings the witnesses show and proves each one
 * (repair/repair.h): the patched kernel is compiled and every input run again under several
 * schedules. The verified fixes come out as one unified diff (standard output, or -o PATCH) that
 * `patch -p0` applies; what was fixed, how it was verified, and why a finding has no verified
 * fix go to standard error. --sarif attaches each verified fix to its result (`fixes`). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "cli/report/report_exec.h"
#include "cli/report_opts.h"
#include "cli/search_cli.h"
#include "common/file.h"
#include "corpus/corpus_dir.h"
#include "repair/repair.h"

/* Extra launches (searched, corpus) stay small and must finish within a short budget: each
 * one runs under six schedules for every candidate. */
enum { FIX_MAX_THREADS_SEARCHED = 1024, FIX_SCREEN_STEPS = 2000000 };

static int cmp_path(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's *.json files and those of DIR/findings, sorted. */
static bool list_witnesses(const char *dir, char ***out, int *n) {
    const char *subs[2] = {"", "/findings"};
    for (int k = 0; k < 2; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", dir, subs[k]);
        DIR *d = opendir(path);
        if (!d) continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
                continue;
            char **nl = realloc(*out, (size_t)(*n + 1) * sizeof *nl);
            if (!nl) {
                closedir(d);
                return false;
            }
            *out = nl;
            size_t m = strlen(path) + len + 2;
            if (!((*out)[*n] = malloc(m))) {
                closedir(d);
                return false;
            }
            snprintf((*out)[*n], m, "%s/%s", path, e->d_name);
            (*n)++;
        }
        closedir(d);
    }
    if (*n) qsort(*out, (size_t)*n, sizeof **out, cmp_path);
    return true;
}

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Attaches each verified outcome to the report findings on its lines. */
static void attach_fixes(gr_report *r, const gr_fix_report *rep) {
    for (size_t i = 0; i < r->nfindings; i++) {
        gr_report_finding *f = &r->findings[i];
        int a = f->primary.line, b = f->has_secondary ? f->secondary.line : 0;
        if (b && b < a) {
            int t = a;
            a = b, b = t;
        }
        for (int k = 0; k < rep->noutcomes; k++) {
            const gr_fix_outcome *o = &rep->outcomes[k];
            if (!o->verified || o->original_edits.nedits == 0 ||
                strcmp(o->finding.key.cls, gr_report_class_name(f->cls)) != 0 ||
                o->finding.key.line_a != a || o->finding.key.line_b != b)
                continue;
            gr_report_fix_edit *edits =
                gr_arena_alloc(&r->arena, (size_t)o->original_edits.nedits * sizeof *edits);
            if (!edits) return;
            for (int e = 0; e < o->original_edits.nedits; e++)
                edits[e] = (gr_report_fix_edit){o->original_edits.edits[e].line,
                                                o->original_edits.edits[e].nremove,
                                                gr_report_strdup(r, o->original_edits.edits[e].text)};
            f->fix_description = gr_report_strdup(r, o->description);
            f->fix_edits = edits;
            f->nfix_edits = o->original_edits.nedits;
            break;
        }
    }
}

static void print_outcomes(const char *file, const gr_fix_report *rep) {
    for (int k = 0; k < rep->noutcomes; k++) {
        const gr_fix_outcome *o = &rep->outcomes[k];
        const gr_fix_key *key = &o->finding.key;
        char where[160];
        if (key->line_b && key->line_b != key->line_a)
            snprintf(where, sizeof where, "%s:%d: %s between lines %d and %d", file, key->line_a,
                     key->cls, key->line_a, key->line_b);
        else
            snprintf(where, sizeof where, "%s:%d: %s at line %d", file, key->line_a, key->cls,
                     key->line_a);
        if (o->verified)
            fprintf(stderr, "%s: fix (%s): %s\n  = %s\n", where, gr_fix_kind_name(o->kind),
                    o->description, o->detail);
        else
            fprintf(stderr, "%s: no verified fix: %s\n", where, o->detail);
    }
    for (int k = 0; k < rep->nnotes; k++)
        fprintf(stderr, "%s:%d: note: %s\n", file, rep->notes[k].line, rep->notes[k].text);
}

/* Does the original kernel run `in` to its end? A launch that hangs or faults (a spin lock
 * whose lock word starts taken) says nothing about a fix and costs a whole step budget in every
 * run of every candidate: searched launches must finish. */
static bool finishes(gr_runner *screen, const gr_input *in) {
    gr_error err = GR_ERROR_INIT;
    gr_launch_result res;
    if (!screen || !gr_runner_run(screen, in, &res, &err)) {
        gr_error_clear(&err);
        return false;
    }
    bool ok = res.status != GR_EXEC_HANG && res.status != GR_EXEC_TRAP;
    for (int i = 0; i < res.nfindings; i++)
        if (res.findings[i].cls == GR_FINDING_HANG || res.findings[i].cls == GR_FINDING_FAULT)
            ok = false;
    gr_launch_result_free(&res);
    return ok;
}

/* A genome file's name: its content hash in hex (16 digits from gpurace, 40 from libFuzzer). */
static bool genome_name(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n != 16 && n != 40) return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789abcdef", base[i])) return false;
    return true;
}

enum { FIX_MAX_GENOMES = 32 };

/* Appends the decoded genomes of corpus folder `dir` (at most FIX_MAX_GENOMES) to *inputs,
 * which grows past `reserved` entries as needed. */
static bool add_corpus_genomes(search_session *s, gr_runner *screen, const char *dir,
                               gr_input **inputs, int *n, int *added, uint64_t reserved,
                               gr_error *err) {
    gr_corpus_listing l;
    if (!gr_corpus_list(dir, &l, err)) return false;
    bool ok = true;
    for (int i = 0; ok && i < l.ngenomes && *added < FIX_MAX_GENOMES; i++) {
        if (!genome_name(l.genomes[i])) continue;
        size_t size = 0;
        uint8_t *genome = (uint8_t *)gr_read_file(l.genomes[i], &size, err);
        if (!genome) {
            ok = false;
            break;
        }
        gr_error derr = GR_ERROR_INIT;
        gr_input in;
        if (gr_codec_decode(&s->codec, genome, size, &in, &derr)) {
            if (gr_input_threads(&in) > FIX_MAX_THREADS_SEARCHED || !finishes(screen, &in)) {
                gr_input_free(&in);
            } else {
                gr_input *bigger = realloc(*inputs, ((size_t)*n + reserved + 1) * sizeof *bigger);
                if (!bigger) {
                    gr_input_free(&in);
                    ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
                } else {
                    *inputs = bigger;
                    (*inputs)[(*n)++] = in;
                    (*added)++;
                }
            }
        }
        gr_error_clear(&derr);
        free(genome);
    }
    gr_corpus_listing_free(&l);
    return ok;
}

int cmd_fix(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *target = NULL, *out_path = NULL, *spec = NULL, *search = NULL,
               *step_budget = NULL, *backend = NULL;
    bool force = false, no_notes = false;
    cli_report_options report = {0};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return 3;
    static const char *const value_opts[] = {"--kernel", "--arch",   "--compiler",    "-I",
                                             "-D",       "--sarif",  "--spec",        "-o",
                                             "--search", "--backend", "--step-budget", NULL};
    int nrest = search_take_positional(argc, argv, value_opts, rest, &target);
    cli_source_options src = {0};
    const cli_opt_spec specs[] = {{"-o", CLI_VALUE, &out_path, NULL},
                                  {"--sarif", CLI_VALUE, &report.sarif, NULL},
                                  {"--spec", CLI_VALUE, &spec, NULL},
                                  {"--search", CLI_VALUE, &search, NULL},
                                  {"--step-budget", CLI_VALUE, &step_budget, NULL},
                                  {"--backend", CLI_VALUE, &backend, NULL},
                                  {"--force", CLI_FLAG, NULL, &force},
                                  {"--no-notes", CLI_FLAG, NULL, &no_notes},
                                  {NULL, CLI_FLAG, NULL, NULL}};
    bool parsed = cli_parse("fix", nrest, rest, 2, &src, specs, &err);
    free(rest);
    if (!parsed) return search_fail(&err);
    if (backend && strcmp(backend, "sim") != 0) {
        gr_fail(&err, GR_ERR_USAGE,
                "fix verifies on the simulator only (--backend sim): a proof must replay the "
                "same interleavings every time");
        return search_fail(&err);
    }
    uint64_t nsearch = 8, budget = 0;
    if ((search && !cli_parse_uint_flag("--search", search, 0, 64, &nsearch, &err)) ||
        (step_budget &&
         !cli_parse_uint_flag("--step-budget", step_budget, 1, UINT64_MAX, &budget, &err)))
        return search_fail(&err);
    if (!target) {
        struct stat st;
        if (stat("gpurace-findings", &st) == 0 && S_ISDIR(st.st_mode)) target = "gpurace-findings";
        else {
            gr_fail(&err, GR_ERR_USAGE,
                    "fix needs witnesses: name a WITNESS file or a DIR of them (gpurace fuzz "
                    "FILE saves them under gpurace-findings)");
            return search_fail(&err);
        }
    }
    if (strcmp(gr_path_extension(src.file), "ptx") == 0) {
        gr_fail(&err, GR_ERR_USAGE, "fix edits CUDA source: FILE must be a .cu file, not PTX");
        return search_fail(&err);
    }

    char **files = NULL;
    int nfiles = 0, code = -1, ninputs = 0;
    gr_input *inputs = NULL;
    gr_report r;
    gr_report_init(&r);
    gr_fix_report rep;
    memset(&rep, 0, sizeof rep);
    search_session s;
    bool session = false;
    gr_runner *screen = NULL;
    gr_strbuf diff = {0};
    struct stat st;
    if (stat(target, &st) != 0) {
        gr_fail(&err, GR_ERR_IO, "%s: no such file or directory", target);
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        if (!list_witnesses(target, &files, &nfiles)) {
            gr_fail(&err, GR_ERR_NOMEM, "out of memory");
            goto done;
        }
    } else if ((files = calloc(1, sizeof *files)) && (files[0] = strdup(target))) {
        nfiles = 1;
    }
    if (nfiles == 0) {
        gr_fail(&err, GR_ERR_INPUT, "%s: no witnesses to repair from", target);
        goto done;
    }
    /* the kernel: --kernel, else the one the first witness names */
    gr_witness first;
    if (!gr_witness_load(&first, files[0], NULL, true, &err)) goto done;
    char *kernel_name = !src.kernel && first.kernel ? strdup(first.kernel) : NULL;
    gr_witness_free(&first);
    if (kernel_name) src.kernel = kernel_name;
    search_session_options so = {spec, true, "sim", NULL, NULL, budget, 0, false, false, false};
    bool opened = search_session_open(&s, &src, &so, &err);
    session = true;
    if (!opened) goto done_kernel;
    if (!s.loaded.source) {
        gr_fail(&err, GR_ERR_USAGE, "fix needs the kernel's CUDA source");
        goto done_kernel;
    }
    inputs = calloc((size_t)nfiles + nsearch + 1, sizeof *inputs);
    if (!inputs) {
        gr_fail(&err, GR_ERR_NOMEM, "out of memory");
        goto done_kernel;
    }
    r.command = "fix";
    r.file = gr_report_strdup(&r, src.file);
    r.kernel = gr_report_strdup(&r, s.kernel->name);
    uint64_t hash = gr_search_source_hash(&s.target);
    const char *mine = s.kernel->qualified ? s.kernel->qualified : s.kernel->name;
    for (int i = 0; i < nfiles; i++) {
        gr_witness w;
        if (!gr_witness_load(&w, files[i], &hash, force, &err)) goto done_kernel;
        if (w.kernel && strcmp(w.kernel, mine) != 0 && strcmp(w.kernel, s.kernel->name) != 0) {
            fprintf(stderr, "fix: %s: skipped: it is for kernel %s, not %s\n", files[i], w.kernel,
                    mine);
            gr_witness_free(&w);
            continue;
        }
        /* the original's findings on this input, as replay reports them */
        bool ok = search_report_witness(&s, &r, &w, files[i], NULL, 0, NULL, &err) &&
                  gr_input_copy(&inputs[ninputs], &w.input);
        gr_witness_free(&w);
        if (!ok) goto done_kernel;
        ninputs++;
    }
    int ntargets = ninputs, ngenomes = 0;
    /* a corpus folder's genomes (gpurace fuzz --corpus, libFuzzer): race-free inputs whose
     * outputs a fix must keep */
    /* extra launches are screened on a short step budget: one that spins costs little here */
    gr_runner_options screen_opt = s.run_opt;
    screen_opt.step_budget = FIX_SCREEN_STEPS;
    gr_error serr = GR_ERROR_INIT;
    screen = gr_runner_new(s.loaded.module, s.kernel, &screen_opt, &serr);
    gr_error_clear(&serr);
    if (S_ISDIR(st.st_mode) && s.have_codec &&
        !add_corpus_genomes(&s, screen, target, &inputs, &ninputs, &ngenomes, nfiles + nsearch,
                            &err))
        goto done_kernel;
    /* a short bounded search: launches decoded from the spec, to verify on beyond the corpus */
    uint64_t seed = 0x6770726163656669ull; /* fixed: the same proof every time */
    for (uint64_t i = 0; s.have_codec && i < nsearch; i++) {
        size_t size = gr_codec_genome_size(&s.codec);
        uint8_t *genome = malloc(size ? size : 1);
        if (!genome) break;
        for (size_t b = 0; b < size; b++) genome[b] = (uint8_t)splitmix(&seed);
        gr_error derr = GR_ERROR_INIT;
        gr_input in;
        if (gr_codec_decode(&s.codec, genome, size, &in, &derr)) {
            if (gr_input_threads(&in) <= FIX_MAX_THREADS_SEARCHED && finishes(screen, &in))
                inputs[ninputs++] = in;
            else gr_input_free(&in);
        }
        gr_error_clear(&derr);
        free(genome);
    }
    if (ntargets == 0) {
        gr_fail(&err, GR_ERR_INPUT, "%s: no witness for kernel %s", target, mine);
        goto done_kernel;
    }
    gr_verify_config vc = {src.file, &src.compile, s.kernel->ptx_name, inputs, ninputs,
                           s.run_opt, 5, ntargets};
    vc.run.open_backend = NULL; /* a proof runs on the simulator itself */
    gr_repair_options ro = {16, !no_notes};
    fprintf(stderr,
            "fix: %d witness input%s, %d corpus input%s and %d searched launch%s, 6 schedules "
            "each\n",
            ntargets, ntargets == 1 ? "" : "s", ngenomes, ngenomes == 1 ? "" : "s",
            ninputs - ntargets - ngenomes, ninputs - ntargets - ngenomes == 1 ? "" : "es");
    if (!gr_repair(&vc, s.loaded.source, &ro, &rep, &err)) goto done_kernel;
    print_outcomes(src.file, &rep);
    int fixed = 0;
    for (int k = 0; k < rep.noutcomes; k++) fixed += rep.outcomes[k].verified;
    if (!gr_unified_diff(s.loaded.source, rep.fixed_text, src.file, &diff, &err)) goto done_kernel;
    if (out_path) {
        if (!gr_report_write(out_path, &diff, &err)) goto done_kernel;
    } else {
        fputs(gr_strbuf_cstr(&diff), stdout);
        fflush(stdout);
    }
    attach_fixes(&r, &rep);
    if (report.sarif) {
        gr_strbuf sarif = {0};
        gr_report_sarif_options sopt;
        memset(&sopt, 0, sizeof sopt);
        bool ok = gr_report_render_sarif(&r, &sopt, &sarif, &err) &&
                  gr_report_write(report.sarif, &sarif, &err);
        gr_strbuf_free(&sarif);
        if (!ok) goto done_kernel;
    }
    fprintf(stderr, "gpurace fix: %d finding%s, %d with a verified fix%s\n", rep.noutcomes,
            rep.noutcomes == 1 ? "" : "s", fixed,
            fixed ? (out_path ? " (the patch is in the -o file)" : " (the patch is on standard output)")
                  : "");
    /* findings were seen: the file still has them until the patch is applied */
    code = rep.noutcomes > 0 ? 1 : 0;
done_kernel:
    free(kernel_name);
done:
    if (code < 0) code = search_fail(&err);
    gr_strbuf_free(&diff);
    gr_fix_report_free(&rep);
    for (int i = 0; i < ninputs; i++) gr_input_free(&inputs[i]);
    free(inputs);
    gr_runner_free(screen);
    if (session) search_session_close(&s);
    gr_report_free(&r);
    for (int i = 0; i < nfiles; i++) free(files[i]);
    free(files);
    return code;
}
