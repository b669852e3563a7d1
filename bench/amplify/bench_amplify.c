/* bench_amplify — searching from a program's own launches versus from a kernel's signature, on
 * the kernels of tests/amplify (each program's test passes; the races its kernel has are marked
 * `// mark:` in its source):
 *
 *   seeds     gpurace run --record, then gpurace fuzz FILE --seeds DIR (the spec derived from
 *             the recorded launches)
 *   inferred  gpurace fuzz FILE (the spec inferred from the signature)
 *
 * For each: the time to the first true race (a finding on the marked lines; "-" when none within
 * the budget), the findings reported, the false alarms among them (findings elsewhere: errors,
 * and warnings in parentheses), and executions per second. Medians over RUNS searches with
 * seeds 1..RUNS, each of SECONDS. Usage: bench_amplify [SECONDS] [RUNS] (default 15, 3).
 * Figures go to standard output. */
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench_clock.h"
#include "corpus/witness.h"

#define GPURACE GR_BINARY_DIR "/gpurace"
#define SOURCES GR_SOURCE_DIR "/tests/amplify/programs/"

enum { MAX_MARKS = 16, MAX_RUNS = 15 };

typedef struct marks {
    int line[MAX_MARKS];
    int n;
} marks;

/* Lines of the source that carry `// mark:`: the kernel's real races. */
static marks read_marks(const char *path) {
    marks m = {{0}, 0};
    FILE *f = fopen(path, "r");
    char buf[1024];
    for (int line = 1; f && fgets(buf, sizeof buf, f); line++)
        if (strstr(buf, "// mark:") && m.n < MAX_MARKS) m.line[m.n++] = line;
    if (f) fclose(f);
    return m;
}

static bool marked(const marks *m, int line) {
    for (int i = 0; i < m->n; i++)
        if (m->line[i] == line) return true;
    return false;
}

typedef struct outcome {
    double first_race;   /* seconds; < 0: none */
    int findings, false_errors, false_warnings;
    double execs_per_s;
} outcome;

/* Whether every access of the witness's first finding is on a marked line. */
static bool witness_is_real(const char *path, const marks *m) {
    gr_witness w;
    gr_error err = GR_ERROR_INIT;
    if (!gr_witness_load(&w, path, NULL, false, &err)) {
        gr_error_clear(&err);
        return false;
    }
    bool real = w.nfindings > 0 && w.findings[0].naccesses > 0;
    for (int k = 0; real && k < w.findings[0].naccesses; k++) real = marked(m, w.findings[0].accesses[k].line);
    gr_witness_free(&w);
    return real;
}

/* One search; its standard error is read as it comes, so each new finding gets its time. */
static bool search(const char *dir, const char *program, const char *seeds, int seconds, int seed, const marks *m,
                   outcome *o) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && rm -rf fz report.json && exec %s fuzz %s%s.cu %s%s --time %d --seed %d --findings fz "
             "--json report.json --quiet 2>&1 >/dev/null",
             dir, GPURACE, SOURCES, program, seeds ? "--seeds " : "", seeds ? seeds : "", seconds, seed);
    double t0 = gr_bench_now();
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    memset(o, 0, sizeof *o);
    o->first_race = -1;
    char line[4096];
    while (fgets(line, sizeof line, p)) {
        double t = gr_bench_now() - t0;
        double rate;
        unsigned long long execs;
        if (sscanf(line, "fuzz: %llu executions in %*fs (%lf/s)", &execs, &rate) == 2) o->execs_per_s = rate;
        char *arrow = strstr(line, "-> ");
        if (strncmp(line, "fuzz: new ", 10) != 0 || !arrow || o->first_race >= 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, arrow + 3);
        path[strcspn(path, "\n")] = '\0';
        if (witness_is_real(path, m)) o->first_race = t;
    }
    int rc = pclose(p);
    char report[2048];
    snprintf(report, sizeof report, "%s/report.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(report, 0, &je);
    json_t *fs = json_object_get(doc, "findings");
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f) {
        o->findings++;
        json_t *locs = json_object_get(f, "locations");
        bool real = json_array_size(locs) > 0;
        size_t k;
        json_t *loc;
        json_array_foreach(locs, k, loc) real = real && marked(m, (int)json_integer_value(json_object_get(loc, "line")));
        if (real) continue;
        if (strcmp(json_string_value(json_object_get(f, "severity")), "warning") == 0) o->false_warnings++;
        else o->false_errors++;
    }
    json_decref(doc);
    bool ok = doc != NULL && WIFEXITED(rc) && WEXITSTATUS(rc) <= 1;
    if (!ok) fprintf(stderr, "bench_amplify: `%s` failed (status %d)\n", cmd, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    return ok;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void row(const char *program, const char *mode, const outcome *o, int runs) {
    double first[MAX_RUNS], rate[MAX_RUNS];
    int found = 0, nf[MAX_RUNS], fe[MAX_RUNS], fw[MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        if (o[i].first_race >= 0) first[found++] = o[i].first_race;
        rate[i] = o[i].execs_per_s;
        nf[i] = o[i].findings;
        fe[i] = o[i].false_errors;
        fw[i] = o[i].false_warnings;
    }
    qsort(nf, (size_t)runs, sizeof *nf, cmp_int);
    qsort(fe, (size_t)runs, sizeof *fe, cmp_int);
    qsort(fw, (size_t)runs, sizeof *fw, cmp_int);
    char t[32];
    if (found * 2 > runs) snprintf(t, sizeof t, "%.1f s", gr_bench_median(first, found));
    else snprintf(t, sizeof t, "- (%d/%d)", found, runs);
    char alarms[32];
    snprintf(alarms, sizeof alarms, "%d (%d)", fe[runs / 2], fw[runs / 2]);
    printf("| %-12s | %-8s | %-12s | %8d | %12s | %8.0f |\n", program, mode, t, nf[runs / 2], alarms,
           gr_bench_median(rate, runs));
    fflush(stdout);
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 15, runs = argc > 2 ? atoi(argv[2]) : 3;
    if (seconds < 1 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: bench_amplify [SECONDS] [RUNS 1..%d]\n", MAX_RUNS);
        return 2;
    }
    static const char *const programs[] = {"scatter_perm", "fixed_lu", "csr_push", "tile_sums"};
    char dir[] = "/tmp/gr_bench_amplify_XXXXXX";
    if (!mkdtemp(dir)) return 3;
    printf("bench_amplify: %d s per search, median of %d (seeds 1..%d)\n\n", seconds, runs, runs);
    printf("| kernel       | from     | first race   | findings | false alarms | execs/s  |\n");
    printf("|--------------|----------|--------------|----------|--------------|----------|\n");
    bool ok = true;
    for (size_t p = 0; ok && p < sizeof programs / sizeof programs[0]; p++) {
        char src[1024], cmd[4096];
        snprintf(src, sizeof src, SOURCES "%s.cu", programs[p]);
        marks m = read_marks(src);
        snprintf(cmd, sizeof cmd, "cd '%s' && rm -rf seeds && %s run --quiet --record seeds -- %s/%s >/dev/null 2>&1", dir,
                 GPURACE, GR_BENCH_PROGRAMS, programs[p]);
        if (system(cmd) != 0) {
            fprintf(stderr, "bench_amplify: recording %s failed\n", programs[p]);
            ok = false;
            break;
        }
        outcome seeded[MAX_RUNS], inferred[MAX_RUNS];
        for (int r = 0; ok && r < runs; r++) ok = search(dir, programs[p], "seeds", seconds, r + 1, &m, &seeded[r]);
        for (int r = 0; ok && r < runs; r++) ok = search(dir, programs[p], NULL, seconds, r + 1, &m, &inferred[r]);
        if (!ok) break;
        row(programs[p], "seeds", seeded, runs);
        row(programs[p], "inferred", inferred, runs);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) ok = false;
    printf("\nfirst race: time to the first finding on the lines marked `// mark:` (the kernel's real races)\n"
           "false alarms: findings on other lines, errors (warnings in parentheses)\n");
    return ok ? 0 : 3;
}
