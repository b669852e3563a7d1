/* config.c — what `gpurace run` asked for, read from the program's environment
 * (exec/cudart/channel.h names the variables). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/cudart/channel.h"
#include "exec/cudart/cudart_internal.h"

/* Per-launch budget when the parent gives none: real programs' launches are larger than the
 * search's, so more than the backend's default. */
#define DEFAULT_STEP_BUDGET 1000000000ull
/* --record caps per kernel when the parent gives none: enough distinct launches to derive a spec
 * from, without a long test suite filling the disk. */
#define DEFAULT_RECORD_MAX 64ull
#define DEFAULT_RECORD_BYTES (64ull << 20)

static char *dup_env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? strdup(v) : NULL;
}

/* Splits `text` at newlines into a fresh list (empty lines are skipped). */
static bool split_lines(const char *text, char ***out, int *n) {
    *out = NULL;
    *n = 0;
    if (!text) return true;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len) {
            char **grown = realloc(*out, (size_t)(*n + 1) * sizeof *grown);
            if (!grown) return false;
            *out = grown;
            if (!((*out)[*n] = strndup(p, len))) return false;
            (*n)++;
        }
        p += len + (nl ? 1 : 0);
    }
    return true;
}

static bool parse_u64(const char *name, uint64_t *out, gr_error *err) {
    const char *v = getenv(name);
    if (!v || !*v) return true;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end) return gr_fail(err, GR_ERR_USAGE, "%s=%s is not a number", name, v);
    *out = x;
    return true;
}

bool cr_config_read(cr_config *c, gr_error *err) {
    memset(c, 0, sizeof *c);
    c->run_dir = dup_env(GR_RUN_ENV_DIR);
    c->findings_dir = dup_env(GR_RUN_ENV_FINDINGS);
    if (!c->findings_dir && c->run_dir) c->findings_dir = strdup(c->run_dir);
    c->step_budget = DEFAULT_STEP_BUDGET;
    c->record_dir = dup_env(GR_RUN_ENV_RECORD);
    c->record_max = DEFAULT_RECORD_MAX;
    c->record_bytes = DEFAULT_RECORD_BYTES;
    c->detector = GR_DETECTOR_FSM;
    c->confirm = GR_CONFIRM_AUTO;
    c->warp_model = GR_WARP_ITS;
    if (!split_lines(getenv(GR_RUN_ENV_KERNELS), &c->kernels, &c->nkernels) ||
        !split_lines(getenv(GR_RUN_ENV_SOURCES), &c->sources, &c->nsources))
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    if (!parse_u64(GR_RUN_ENV_LAUNCHES, &c->max_checked, err) ||
        !parse_u64(GR_RUN_ENV_STEP_BUDGET, &c->step_budget, err) ||
        !parse_u64(GR_RUN_ENV_RECORD_MAX, &c->record_max, err) ||
        !parse_u64(GR_RUN_ENV_RECORD_BYTES, &c->record_bytes, err))
        return false;
    const char *d = getenv(GR_RUN_ENV_DETECTOR);
    if (d && *d) {
        if (strcmp(d, "fsm") == 0) c->confirm = GR_CONFIRM_OFF;
        else if (strcmp(d, "hb") == 0) c->detector = GR_DETECTOR_HB;
        else if (strcmp(d, "auto") != 0)
            return gr_fail(err, GR_ERR_USAGE, "%s=%s: expected auto, fsm or hb", GR_RUN_ENV_DETECTOR, d);
    }
    const char *w = getenv(GR_RUN_ENV_WARP_MODEL);
    if (w && *w) {
        if (strcmp(w, "lockstep") == 0) c->warp_model = GR_WARP_LOCKSTEP;
        else if (strcmp(w, "its") != 0)
            return gr_fail(err, GR_ERR_USAGE, "%s=%s: expected its or lockstep", GR_RUN_ENV_WARP_MODEL, w);
    }
    const char *s = getenv(GR_RUN_ENV_SCHEDULE);
    if (s && *s && !gr_schedule_parse(s, &c->schedule, err)) return false;
    return true;
}

void cr_config_free(cr_config *c) {
    free(c->run_dir);
    free(c->findings_dir);
    free(c->record_dir);
    for (int i = 0; i < c->nkernels; i++) free(c->kernels[i]);
    free(c->kernels);
    for (int i = 0; i < c->nsources; i++) free(c->sources[i]);
    free(c->sources);
    memset(c, 0, sizeof *c);
}
