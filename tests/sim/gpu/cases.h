/* cases.h — launch cases shared by the simulator side (sim_dump.c) and the GPU side
 * (gpu_dump.cu) of the simulator-vs-GPU comparison. Plain C that also compiles as C++.
 *
 * A case line:  FILE KERNEL grid=X[,Y[,Z]] block=X[,Y[,Z]] [shared=N] ARG...
 * with the kernel's arguments in parameter order, each one of
 *   i32:V  u32:V  i64:V  f32:V  f64:V                      scalars
 *   buffer(TYPE,COUNT[,INIT])                              a buffer (its address is passed)
 * TYPE: i8 u8 i16 u16 int unsigned i64 u64 half float double;
 * INIT: zeros (default), ones, iota, random, mod:K (random % K), const:V, values:a;b;c. */
#ifndef GR_TESTS_SIM_GPU_CASES_H
#define GR_TESTS_SIM_GPU_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CASE_MAX_ARGS = 16 };

typedef struct case_arg {
    int is_buffer;
    char type[16];   /* buffer element type or scalar kind (i32, f32, ...) */
    int elem;        /* bytes per element (buffers) or scalar size */
    uint64_t count;
    uint8_t *data;   /* buffer contents, or the scalar's bytes */
} case_arg;

typedef struct launch_case {
    char file[256], kernel[128];
    unsigned grid[3], block[3], shared;
    case_arg args[CASE_MAX_ARGS];
    int nargs;
} launch_case;

static int case_type_size(const char *t, int *is_float) {
    static const struct { const char *n; int s; int f; } types[] = {
        {"i8", 1, 0},  {"u8", 1, 0},       {"i16", 2, 0}, {"u16", 2, 0},
        {"int", 4, 0}, {"unsigned", 4, 0}, {"i64", 8, 0}, {"u64", 8, 0},
        {"half", 2, 1}, {"float", 4, 1},   {"double", 8, 1}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].n) == 0) {
            *is_float = types[i].f;
            return types[i].s;
        }
    return 0;
}

static void case_put(uint8_t *p, int elem, int is_float, double fv, uint64_t iv) {
    if (is_float && elem == 8) {
        memcpy(p, &fv, 8);
    } else if (is_float && elem == 4) {
        float f = (float)fv;
        memcpy(p, &f, 4);
    } else if (is_float) {
        /* half from small exact values only (iota, ones, const) */
        float f = (float)fv;
        uint32_t u;
        memcpy(&u, &f, 4);
        int e = (int)((u >> 23) & 0xff) - 127 + 15;
        uint16_t h = (uint16_t)((u >> 16) & 0x8000);
        if (f != 0.0f && e > 0 && e < 31) h = (uint16_t)(h | (e << 10) | ((u >> 13) & 0x3ff));
        memcpy(p, &h, 2);
    } else {
        memcpy(p, &iv, (size_t)elem); /* little-endian */
    }
}

static int case_fill(case_arg *a, const char *init, uint64_t seed) {
    int is_float = 0;
    case_type_size(a->type, &is_float);
    for (uint64_t i = 0; i < a->count; i++) {
        uint8_t *p = a->data + i * (uint64_t)a->elem;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = seed ^ (seed >> 29);
        if (strcmp(init, "zeros") == 0) case_put(p, a->elem, is_float, 0, 0);
        else if (strcmp(init, "ones") == 0) case_put(p, a->elem, is_float, 1, 1);
        else if (strcmp(init, "iota") == 0) case_put(p, a->elem, is_float, (double)i, i);
        else if (strcmp(init, "random") == 0)
            case_put(p, a->elem, is_float, (double)(r >> 11) / 9007199254740992.0 * 20.0 - 10.0, r);
        else if (strncmp(init, "mod:", 4) == 0)
            case_put(p, a->elem, is_float, (double)(r % strtoull(init + 4, NULL, 10)),
                     r % strtoull(init + 4, NULL, 10));
        else if (strncmp(init, "const:", 6) == 0)
            case_put(p, a->elem, is_float, strtod(init + 6, NULL), (uint64_t)strtoll(init + 6, NULL, 0));
        else if (strncmp(init, "values:", 7) == 0) {
            const char *v = init + 7;
            for (uint64_t k = 0; k < i && v; k++) {
                v = strchr(v, ';');
                if (v) v++;
            }
            if (v && *v) case_put(p, a->elem, is_float, strtod(v, NULL), (uint64_t)strtoll(v, NULL, 0));
            else case_put(p, a->elem, is_float, 0, 0);
        } else return 0;
    }
    return 1;
}

static void case_dims(const char *s, unsigned d[3]) {
    d[0] = d[1] = d[2] = 1;
    sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]);
}

/* Parses one case line (seeded per case index for `random`); 0 on a malformed line. */
static int case_parse(char *line, int index, launch_case *c) {
    memset(c, 0, sizeof *c);
    char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
    if (!tok || tok[0] == '#') return 0;
    snprintf(c->file, sizeof c->file, "%s", tok);
    tok = strtok_r(NULL, " \t\n", &save);
    if (!tok) return 0;
    snprintf(c->kernel, sizeof c->kernel, "%s", tok);
    c->grid[0] = c->grid[1] = c->grid[2] = 1;
    c->block[0] = c->block[1] = c->block[2] = 1;
    while ((tok = strtok_r(NULL, " \t\n", &save))) {
        if (strncmp(tok, "grid=", 5) == 0) { case_dims(tok + 5, c->grid); continue; }
        if (strncmp(tok, "block=", 6) == 0) { case_dims(tok + 6, c->block); continue; }
        if (strncmp(tok, "shared=", 7) == 0) { c->shared = (unsigned)strtoul(tok + 7, NULL, 10); continue; }
        if (c->nargs == CASE_MAX_ARGS) return 0;
        case_arg *a = &c->args[c->nargs++];
        if (strncmp(tok, "buffer(", 7) == 0) {
            char body[256], init[200] = "zeros";
            snprintf(body, sizeof body, "%s", tok + 7);
            char *close = strrchr(body, ')');
            if (!close) return 0;
            *close = '\0';
            char *c1 = strchr(body, ','), *c2;
            if (!c1) return 0;
            *c1 = '\0';
            c2 = strchr(c1 + 1, ',');
            if (c2) {
                *c2 = '\0';
                snprintf(init, sizeof init, "%s", c2 + 1);
            }
            int f;
            a->is_buffer = 1;
            snprintf(a->type, sizeof a->type, "%.15s", body);
            a->elem = case_type_size(body, &f);
            a->count = strtoull(c1 + 1, NULL, 10);
            if (!a->elem) return 0;
            a->data = (uint8_t *)calloc((size_t)(a->count * (uint64_t)a->elem) + 1, 1);
            if (!a->data || !case_fill(a, init, 0x1234567ull + (uint64_t)index * 977 + (uint64_t)c->nargs))
                return 0;
        } else {
            char *colon = strchr(tok, ':');
            if (!colon) return 0;
            *colon = '\0';
            snprintf(a->type, sizeof a->type, "%.15s", tok);
            a->data = (uint8_t *)calloc(8, 1);
            if (!a->data) return 0;
            const char *v = colon + 1;
            if (strcmp(tok, "f32") == 0) { float x = (float)strtod(v, NULL); memcpy(a->data, &x, 4); a->elem = 4; }
            else if (strcmp(tok, "f64") == 0) { double x = strtod(v, NULL); memcpy(a->data, &x, 8); a->elem = 8; }
            else if (strcmp(tok, "i64") == 0) { long long x = strtoll(v, NULL, 0); memcpy(a->data, &x, 8); a->elem = 8; }
            else { long long x = strtoll(v, NULL, 0); memcpy(a->data, &x, 4); a->elem = 4; }
        }
    }
    return 1;
}

static void case_free(launch_case *c) {
    for (int i = 0; i < c->nargs; i++) free(c->args[i].data);
    memset(c, 0, sizeof *c);
}

/* One output line per buffer: "CASE MODE ARG TYPE COUNT hex" */
static void case_dump(FILE *out, int index, const char *mode, int arg, const case_arg *a) {
    fprintf(out, "%d %s %d %s %llu ", index, mode, arg, a->type, (unsigned long long)a->count);
    size_t n = (size_t)(a->count * (uint64_t)a->elem);
    for (size_t i = 0; i < n; i++) fprintf(out, "%02x", a->data[i]);
    fprintf(out, "\n");
}

#endif
