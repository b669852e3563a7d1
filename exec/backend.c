/* backend.c — the backend-independent parts of exec/: dispatch through the ops table,
 * schedule spelling, result release, names. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/backend.h"
#include "common/number.h"

bool gr_backend_load(gr_backend *b, const ptx_module *m, gr_error *err) {
    return b->ops->load(b, m, err);
}
bool gr_backend_alloc(gr_backend *b, size_t size, uint64_t *addr, gr_error *err) {
    return b->ops->alloc(b, size, addr, err);
}
bool gr_backend_write(gr_backend *b, uint64_t addr, const void *src, size_t size, gr_error *err) {
    return b->ops->write(b, addr, src, size, err);
}
bool gr_backend_read(gr_backend *b, uint64_t addr, void *dst, size_t size, gr_error *err) {
    return b->ops->read(b, addr, dst, size, err);
}
bool gr_backend_launch(gr_backend *b, const gr_launch *launch, gr_launch_result *out,
                       gr_error *err) {
    return b->ops->launch(b, launch, out, err);
}
void gr_backend_free(gr_backend *b) {
    if (b) b->ops->free(b);
}

void gr_launch_result_free(gr_launch_result *r) {
    if (!r) return;
    free(r->findings);
    free(r->block_hits);
    free(r->block_first_insn);
    free(r->cmp_closest);
    free(r->cmp_insn);
    free(r->printf_output);
    memset(r, 0, sizeof *r);
}

const char *gr_exec_status_name(gr_exec_status s) {
    switch (s) {
    case GR_EXEC_OK: return "ok";
    case GR_EXEC_OUT_OF_BOUNDS: return "out-of-bounds";
    case GR_EXEC_BARRIER_DIVERGENCE: return "barrier-divergence";
    case GR_EXEC_HANG: return "hang";
    case GR_EXEC_TRAP: return "trap";
    }
    return "?";
}

const char *gr_finding_class_name(gr_finding_class c) {
    switch (c) {
    case GR_FINDING_RACE: return "race";
    case GR_FINDING_BARRIER_DIVERGENCE: return "barrier-divergence";
    case GR_FINDING_OUT_OF_BOUNDS: return "out-of-bounds";
    case GR_FINDING_HANG: return "hang";
    case GR_FINDING_FAULT: return "fault";
    }
    return "?";
}

/* The numbers after a schedule's name: up to two ':'-separated unsigned integers (decimal or
 * 0x hex), each within its own maximum, so that rr:99999999999 is refused rather than wrapped
 * to a 32-bit quantum. */
typedef struct schedule_field {
    const char *name; /* "quantum", "seed", "depth" */
    uint64_t max;
} schedule_field;

static bool parse_schedule_numbers(const char *whole, const char *p, const schedule_field *fields,
                                   int max, uint64_t *vals, int *count, gr_error *err) {
    *count = 0;
    while (*p == ':') {
        p++;
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char digits[32];
        if (*count == max || n == 0) return false;
        if (n >= sizeof digits) { /* a long run of digits is out of range, anything else bad */
            if (strspn(p, "0123456789") < n) return false;
            return gr_fail(err, GR_ERR_USAGE,
                           "bad schedule '%s': the %s is out of range (0..%" PRIu64 ")", whole,
                           fields[*count].name, fields[*count].max);
        }
        memcpy(digits, p, n);
        digits[n] = '\0';
        switch (gr_parse_u64(digits, 0, fields[*count].max, &vals[*count])) {
        case GR_NUMBER_OK: break;
        case GR_NUMBER_RANGE:
            return gr_fail(err, GR_ERR_USAGE,
                           "bad schedule '%s': the %s %s is out of range (0..%" PRIu64 ")", whole,
                           fields[*count].name, digits, fields[*count].max);
        case GR_NUMBER_SYNTAX: return false;
        }
        (*count)++;
        p += n;
    }
    return *p == '\0';
}

bool gr_schedule_parse(const char *text, gr_schedule *out, gr_error *err) {
    static const struct {
        const char *name;
        gr_schedule_kind kind;
    } names[] = {{"rr", GR_SCHED_ROUND_ROBIN},   {"round-robin", GR_SCHED_ROUND_ROBIN},
                 {"random", GR_SCHED_RANDOM},    {"serial", GR_SCHED_SERIALIZED},
                 {"serialized", GR_SCHED_SERIALIZED}, {"pct", GR_SCHED_PCT},
                 {"reverse", GR_SCHED_REVERSE}};
    static const schedule_field quantum[] = {{"quantum", UINT32_MAX}};
    static const schedule_field seed_quantum[] = {{"seed", UINT64_MAX}, {"quantum", UINT32_MAX}};
    static const schedule_field seed_depth[] = {{"seed", UINT64_MAX}, {"depth", UINT32_MAX}};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (strncmp(text, names[i].name, n) != 0 || (text[n] != '\0' && text[n] != ':')) continue;
        gr_schedule_kind kind = names[i].kind;
        const schedule_field *fields = kind == GR_SCHED_RANDOM ? seed_quantum
                                       : kind == GR_SCHED_PCT  ? seed_depth
                                                               : quantum;
        int max = kind == GR_SCHED_SERIALIZED                       ? 0
                  : kind == GR_SCHED_RANDOM || kind == GR_SCHED_PCT ? 2
                                                                    : 1;
        uint64_t v[2] = {0, 0};
        int count;
        if (!parse_schedule_numbers(text, text + n, fields, max, v, &count, err)) {
            if (gr_error_failed(err)) return false;
            break;
        }
        out->kind = kind;
        switch (kind) {
        case GR_SCHED_ROUND_ROBIN:
        case GR_SCHED_REVERSE: out->quantum = (uint32_t)v[0]; break;
        case GR_SCHED_RANDOM:
            out->seed = v[0];
            out->quantum = (uint32_t)v[1];
            break;
        case GR_SCHED_PCT:
            out->seed = v[0];
            out->depth = (uint32_t)v[1];
            break;
        case GR_SCHED_SERIALIZED: break;
        }
        return true;
    }
    return gr_fail(err, GR_ERR_USAGE,
                   "bad schedule '%s' (expected rr[:Q], random:SEED[:Q], serial, pct:SEED[:DEPTH] "
                   "or reverse[:Q])",
                   text);
}

void gr_schedule_format(const gr_schedule *s, char *buf, size_t n) {
    uint32_t q = s->quantum ? s->quantum : 8;
    switch (s->kind) {
    case GR_SCHED_ROUND_ROBIN: snprintf(buf, n, "rr:%" PRIu32, q); return;
    case GR_SCHED_RANDOM: snprintf(buf, n, "random:%" PRIu64 ":%" PRIu32, s->seed, q); return;
    case GR_SCHED_SERIALIZED: snprintf(buf, n, "serial"); return;
    case GR_SCHED_PCT:
        snprintf(buf, n, "pct:%" PRIu64 ":%" PRIu32, s->seed, s->depth ? s->depth : 3);
        return;
    case GR_SCHED_REVERSE: snprintf(buf, n, "reverse:%" PRIu32, q); return;
    }
    snprintf(buf, n, "?");
}
