/* readonly.c — address provenance of instrumented PTX (see readonly.h). */
#include "exec/gpu/readonly.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/instrument/hook_abi.h"

#define PARAM_BITS 0xffffffffull
#define NOT_GLOBAL (1ull << 62) /* shared or local address */
#define UNKNOWN (1ull << 63)    /* may point anywhere */
#define MAX_INSN_OPERANDS 16

typedef struct line_ref {
    const char *s; /* first non-blank character */
    size_t len;    /* up to the end of the line, without the newline */
} line_ref;

typedef struct reg_entry {
    char name[48];
    uint64_t mask;
} reg_entry;

typedef struct reg_table {
    reg_entry *regs;
    size_t count, cap;
} reg_table;

typedef struct name_list {
    char (*names)[128];
    size_t count, cap;
} name_list;

typedef struct analysis {
    line_ref *lines;
    size_t nlines;
    name_list shared_syms;
    reg_table regs;
    gr_ro_result *out;
    size_t hooks_cap, kernels_cap;
    bool module_killed;
    bool oom;
} analysis;

static bool is_name_char(char c) {
    return c == '_' || c == '$' || c == '%' || c == '.' || (c >= '0' && c <= '9') ||
           (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool starts_with(const char *s, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && strncmp(s, prefix, n) == 0;
}

static bool names_add(analysis *a, name_list *l, const char *s, size_t n) {
    if (n >= sizeof l->names[0]) return true;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        void *p = realloc(l->names, cap * sizeof l->names[0]);
        if (!p) return !(a->oom = true);
        l->names = p;
        l->cap = cap;
    }
    memcpy(l->names[l->count], s, n);
    l->names[l->count][n] = '\0';
    l->count++;
    return true;
}

static bool names_has(const name_list *l, const char *s, size_t n) {
    for (size_t i = 0; i < l->count; i++)
        if (strlen(l->names[i]) == n && strncmp(l->names[i], s, n) == 0) return true;
    return false;
}

static reg_entry *reg_find(reg_table *t, const char *s, size_t n) {
    if (n >= sizeof t->regs[0].name) return NULL;
    for (size_t i = 0; i < t->count; i++)
        if (strncmp(t->regs[i].name, s, n) == 0 && t->regs[i].name[n] == '\0') return &t->regs[i];
    return NULL;
}

/* ORs bits into a register's mask; true when it changed. */
static bool reg_or(analysis *a, const char *s, size_t n, uint64_t bits) {
    reg_entry *r = reg_find(&a->regs, s, n);
    if (!r) {
        if (n >= sizeof r->name) return false;
        reg_table *t = &a->regs;
        if (t->count == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 64;
            void *p = realloc(t->regs, cap * sizeof *t->regs);
            if (!p) {
                a->oom = true;
                return false;
            }
            t->regs = p;
            t->cap = cap;
        }
        r = &t->regs[t->count++];
        memcpy(r->name, s, n);
        r->name[n] = '\0';
        r->mask = 0;
    }
    uint64_t before = r->mask;
    r->mask |= bits;
    return r->mask != before;
}

/* Register or symbol tokens of an operand text: calls fn for each. */
typedef struct token {
    const char *s;
    size_t n;
} token;

static size_t tokens_of(const char *s, size_t len, token *out, size_t max) {
    size_t k = 0;
    for (size_t i = 0; i < len && k < max;) {
        char c = s[i];
        if (c == '%' || c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            size_t j = i;
            while (j < len && is_name_char(s[j])) j++;
            out[k].s = s + i;
            out[k].n = j - i;
            k++;
            i = j;
        } else if (c >= '0' && c <= '9') {
            while (i < len && is_name_char(s[i])) i++; /* a number (0x1f, 1.5, 0f3f800000) */
        } else {
            i++;
        }
    }
    return k;
}

/* The provenance of one source token of function `fname` (entry or not). */
static uint64_t token_mask(analysis *a, const token *t, const char *fname, bool is_entry,
                           bool param_load) {
    if (t->s[0] == '%') {
        if ((t->n == 3 && strncmp(t->s, "%SP", 3) == 0) || (t->n == 4 && strncmp(t->s, "%SPL", 4) == 0))
            return NOT_GLOBAL;
        reg_entry *r = reg_find(&a->regs, t->s, t->n);
        return r ? r->mask : 0; /* special registers (%tid.x, ...) carry no address */
    }
    if (names_has(&a->shared_syms, t->s, t->n)) return NOT_GLOBAL;
    if (starts_with(t->s, t->n, "__local_depot")) return NOT_GLOBAL;
    if (param_load && is_entry) {
        size_t fl = strlen(fname);
        if (t->n > fl + 7 && strncmp(t->s, fname, fl) == 0 && strncmp(t->s + fl, "_param_", 7) == 0) {
            unsigned idx = 0;
            for (size_t i = fl + 7; i < t->n; i++) {
                if (t->s[i] < '0' || t->s[i] > '9') return UNKNOWN;
                idx = idx * 10u + (unsigned)(t->s[i] - '0');
                if (idx > 31u) return UNKNOWN;
            }
            return 1ull << idx;
        }
    }
    return UNKNOWN; /* a global variable, a .func parameter, a call's return value */
}

/* Opcodes that define no register. */
static bool defines_nothing(const char *op, size_t n) {
    static const char *const none[] = {"st",   "red",   "bra",      "call",    "ret",     "exit",
                                       "bar",  "barrier", "membar", "fence",   "prefetch", "trap",
                                       "cp",   "nanosleep", "discard", "brkpt", "pmevent", "stmatrix",
                                       "cp.async", "multimem", "tensormap", "griddepcontrol"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        size_t k = strlen(none[i]);
        if (n >= k && strncmp(op, none[i], k) == 0 && (n == k || op[k] == '.')) return true;
    }
    return false;
}

static bool is_64bit_type(const char *op, size_t n) {
    for (size_t i = 0; i + 4 <= n; i++)
        if (op[i] == '.' && (op[i + 1] == 'u' || op[i + 1] == 's' || op[i + 1] == 'b' ||
                             op[i + 1] == 'f') &&
            op[i + 2] == '6' && op[i + 3] == '4')
            return true;
    return false;
}

/* Splits an instruction line: guard skipped, opcode, operand text up to ';'. False for
 * directives, labels, braces and blank lines. */
static bool split_insn(const line_ref *l, const char **op, size_t *op_len, const char **ops,
                       size_t *ops_len) {
    const char *s = l->s, *end = l->s + l->len;
    if (s >= end || *s == '.' || *s == '{' || *s == '}' || *s == '/' || end[-1] == ':') return false;
    if (*s == '@') {
        while (s < end && *s != ' ' && *s != '\t') s++;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
    }
    *op = s;
    while (s < end && *s != ' ' && *s != '\t' && *s != ';') s++;
    *op_len = (size_t)(s - *op);
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    const char *semi = memchr(s, ';', (size_t)(end - s));
    *ops = s;
    *ops_len = semi ? (size_t)(semi - s) : (size_t)(end - s);
    return *op_len > 0;
}

/* The first operand's length (up to a top-level comma). */
static size_t first_operand_len(const char *s, size_t len) {
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '{' || s[i] == '[' || s[i] == '(') depth++;
        else if (s[i] == '}' || s[i] == ']' || s[i] == ')') depth--;
        else if (s[i] == ',' && depth == 0) return i;
    }
    return len;
}

/* What the destination of one instruction may derive from, or false when it defines nothing
 * (of interest); *dest and *dest_len: the destination operand text. */
static bool insn_effect(analysis *a, const line_ref *l, const char *fname, bool is_entry,
                        const char **dest, size_t *dest_len, uint64_t *mask) {
    const char *op, *ops;
    size_t op_len, ops_len;
    if (!split_insn(l, &op, &op_len, &ops, &ops_len) || defines_nothing(op, op_len)) return false;
    size_t first = first_operand_len(ops, ops_len);
    *dest = ops;
    *dest_len = first;
    const char *src = first < ops_len ? ops + first + 1 : ops + ops_len;
    size_t src_len = first < ops_len ? ops_len - first - 1 : 0;
    bool is_ld = starts_with(op, op_len, "ld.") || starts_with(op, op_len, "ldu.");
    bool is_atom = starts_with(op, op_len, "atom.");
    if (is_ld && starts_with(op, op_len, "ld.param")) {
        token t[MAX_INSN_OPERANDS];
        size_t k = tokens_of(src, src_len, t, MAX_INSN_OPERANDS);
        *mask = k ? token_mask(a, &t[0], fname, is_entry, true) : UNKNOWN;
        /* A 32-bit (or narrower) parameter is an integer, never a pointer: an offset. */
        if (!is_64bit_type(op, op_len) && !(*mask & UNKNOWN)) *mask = 0;
        return true;
    }
    if (is_ld || is_atom) {
        /* A loaded 64-bit value may be a pointer; narrower ones are at most offsets. */
        *mask = is_64bit_type(op, op_len) ? UNKNOWN : 0;
        return true;
    }
    uint64_t m = 0;
    token t[MAX_INSN_OPERANDS];
    size_t k = tokens_of(src, src_len, t, MAX_INSN_OPERANDS);
    if (k == MAX_INSN_OPERANDS) m |= UNKNOWN;
    for (size_t i = 0; i < k; i++) m |= token_mask(a, &t[i], fname, is_entry, false);
    if (starts_with(op, op_len, "cvta.shared") || starts_with(op, op_len, "cvta.local") ||
        starts_with(op, op_len, "cvta.to.shared") || starts_with(op, op_len, "cvta.to.local"))
        m = (m & ~(UNKNOWN | PARAM_BITS)) | NOT_GLOBAL;
    *mask = m;
    return true;
}

/* The first occurrence of `needle` within s[0, len), or NULL. */
static const char *find_in(const char *s, size_t len, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (s[i] == needle[0] && strncmp(s + i, needle, n) == 0) return s + i;
    return NULL;
}

static bool is_gr_addr(const char *s, size_t n) {
    return n == 8 && strncmp(s, "%gr_addr", 8) == 0;
}

static void record_defs(analysis *a, const char *dest, size_t dest_len, uint64_t mask, bool *changed) {
    token t[MAX_INSN_OPERANDS];
    size_t k = tokens_of(dest, dest_len, t, MAX_INSN_OPERANDS);
    for (size_t i = 0; i < k; i++) {
        if (t[i].s[0] != '%' || is_gr_addr(t[i].s, t[i].n)) continue;
        if (reg_or(a, t[i].s, t[i].n, mask)) *changed = true;
    }
}

static bool add_hook(analysis *a, uint32_t line, uint32_t mask) {
    gr_ro_result *r = a->out;
    if (r->nhooks == a->hooks_cap) {
        size_t cap = a->hooks_cap ? a->hooks_cap * 2 : 64;
        void *p = realloc(r->hooks, cap * sizeof *r->hooks);
        if (!p) return !(a->oom = true);
        r->hooks = p;
        a->hooks_cap = cap;
    }
    r->hooks[r->nhooks++] = (gr_ro_hook){line, mask};
    return true;
}

/* One function body, lines [from, to). */
static void analyze_function(analysis *a, size_t from, size_t to, const char *fname, bool is_entry) {
    a->regs.count = 0;
    for (int round = 0, changed = 1; changed && round < 64; round++) {
        bool ch = false;
        for (size_t i = from; i < to && !a->oom; i++) {
            const char *dest;
            size_t dest_len;
            uint64_t mask;
            if (insn_effect(a, &a->lines[i], fname, is_entry, &dest, &dest_len, &mask))
                record_defs(a, dest, dest_len, mask, &ch);
        }
        changed = ch;
        if (round == 63 && ch) a->module_killed = true; /* did not settle: give up */
    }
    uint32_t first_hook = a->out->nhooks;
    uint64_t written = 0, gr_addr = UNKNOWN;
    bool killed = false;
    for (size_t i = from; i < to && !a->oom; i++) {
        const line_ref *l = &a->lines[i];
        const char *dest;
        size_t dest_len;
        uint64_t mask;
        if (insn_effect(a, l, fname, is_entry, &dest, &dest_len, &mask)) {
            token t[2];
            if (tokens_of(dest, dest_len, t, 2) == 1 && is_gr_addr(t[0].s, t[0].n)) gr_addr = mask;
            continue;
        }
        const char *hook = find_in(l->s, l->len, GR_HOOK_ACCESS_NAME);
        const char *open = hook ? memchr(hook, '(', (size_t)(l->s + l->len - hook)) : NULL;
        if (!open) continue;
        size_t rest = (size_t)(l->s + l->len - open - 1);
        token t[1];
        size_t alen = first_operand_len(open + 1, rest);
        if (tokens_of(open + 1, alen, t, 1) != 1) {
            killed = true;
            continue;
        }
        uint64_t m = is_gr_addr(t[0].s, t[0].n) ? gr_addr : token_mask(a, &t[0], fname, is_entry, false);
        uint32_t info = alen < rest ? (uint32_t)strtoul(open + 1 + alen + 1, NULL, 0) : 0u;
        uint32_t space = GR_HOOK_ACCESS_SPACE(info);
        if (space == GR_HOOK_SPACE_SHARED || space == GR_HOOK_SPACE_SHARED_CLUSTER) continue;
        if (info & GR_HOOK_ACCESS_WRITE) {
            if ((m & UNKNOWN) || m == 0) killed = true;
            written |= m & PARAM_BITS;
        } else if (!(info & GR_HOOK_ACCESS_ATOMIC) && GR_HOOK_ACCESS_SEM(info) == GR_HOOK_SEM_WEAK &&
                   !(m & (UNKNOWN | NOT_GLOBAL)) && (m & PARAM_BITS)) {
            add_hook(a, (uint32_t)i, (uint32_t)(m & PARAM_BITS));
        }
    }
    if (!is_entry) {
        if (killed) a->module_killed = true;
        a->out->nhooks = first_hook;
        return;
    }
    /* Keep the reads of never-written parameters. */
    uint32_t kept = first_hook, candidates = 0;
    for (uint32_t h = first_hook; h < a->out->nhooks; h++) {
        if (killed || (a->out->hooks[h].mask & written)) continue;
        candidates |= a->out->hooks[h].mask;
        a->out->hooks[kept++] = a->out->hooks[h];
    }
    a->out->nhooks = kept;
    gr_ro_result *r = a->out;
    if (r->nkernels == a->kernels_cap) {
        size_t cap = a->kernels_cap ? a->kernels_cap * 2 : 8;
        void *p = realloc(r->kernels, cap * sizeof *r->kernels);
        if (!p) {
            a->oom = true;
            return;
        }
        r->kernels = p;
        a->kernels_cap = cap;
    }
    gr_ro_kernel *k = &r->kernels[r->nkernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", fname);
    k->candidates = candidates;
}

/* `[.visible|.weak] (.entry|.func) [(ret)] NAME` starting at line i: the name and kind, and in
 * *last the line the name is on (printed PTX puts a .func's return parameters on lines of
 * their own: `.func (`, `.param .b32 func_retval0`, `) name(`); false for other lines. */
static bool function_name(const line_ref *lines, size_t nlines, size_t i, char *name, size_t n,
                          bool *is_entry, size_t *last) {
    const line_ref *l = &lines[i];
    const char *s = l->s, *end = l->s + l->len;
    *last = i;
    if (starts_with(s, l->len, ".extern")) return false;
    for (;;) {
        if (starts_with(s, (size_t)(end - s), ".visible ")) s += 9;
        else if (starts_with(s, (size_t)(end - s), ".weak ")) s += 6;
        else break;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
    }
    if (starts_with(s, (size_t)(end - s), ".entry ")) *is_entry = true, s += 7;
    else if (starts_with(s, (size_t)(end - s), ".func ")) *is_entry = false, s += 6;
    else return false;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (s < end && *s == '(') { /* return parameters */
        const char *close = memchr(s, ')', (size_t)(end - s));
        for (size_t j = i + 1; !close && j < nlines && j <= i + 16; j++) {
            close = memchr(lines[j].s, ')', lines[j].len);
            if (close) {
                *last = j;
                end = lines[j].s + lines[j].len;
            }
        }
        if (!close) return false;
        s = close + 1;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
    }
    size_t k = 0;
    while (s + k < end && is_name_char(s[k]) && s[k] != '%') k++;
    if (k == 0 || k >= n) return false;
    memcpy(name, s, k);
    name[k] = '\0';
    return true;
}

bool gr_ro_analyze(const char *ptx, gr_ro_result *out, gr_error *err) {
    memset(out, 0, sizeof *out);
    analysis a;
    memset(&a, 0, sizeof a);
    a.out = out;
    size_t cap = 0;
    for (const char *p = ptx; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        const char *s = p;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
        size_t len = (size_t)(end - s);
        while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        if (a.nlines == cap) {
            cap = cap ? cap * 2 : 1024;
            void *q = realloc(a.lines, cap * sizeof *a.lines);
            if (!q) {
                a.oom = true;
                break;
            }
            a.lines = q;
        }
        a.lines[a.nlines++] = (line_ref){s, len};
        if (starts_with(s, len, ".shared") || starts_with(s, len, ".extern .shared")) {
            /* the declared name: the last word before '[' or ';' */
            const char *stop = s + len;
            const char *br = memchr(s, '[', len);
            if (br) stop = br;
            else if (len && s[len - 1] == ';') stop = s + len - 1;
            const char *b = stop;
            while (b > s && is_name_char(b[-1])) b--;
            if (b < stop) names_add(&a, &a.shared_syms, b, (size_t)(stop - b));
        }
        p = nl ? nl + 1 : end;
    }
    char fname[128];
    bool is_entry = false, pending = false;
    for (size_t i = 0; i < a.nlines && !a.oom; i++) {
        const line_ref *l = &a.lines[i];
        size_t last;
        if (!pending && function_name(a.lines, a.nlines, i, fname, sizeof fname, &is_entry, &last)) {
            pending = true;
            i = last;
            continue;
        }
        if (pending && l->len == 1 && l->s[0] == '{') {
            int depth = 0;
            size_t j = i;
            for (; j < a.nlines; j++) {
                if (a.lines[j].len == 1 && a.lines[j].s[0] == '{') depth++;
                if (a.lines[j].len == 1 && a.lines[j].s[0] == '}' && --depth == 0) break;
            }
            analyze_function(&a, i + 1, j, fname, is_entry);
            i = j;
            pending = false;
        } else if (pending && l->len && l->s[l->len - 1] == ';' && l->s[0] != '.') {
            pending = false; /* a declaration */
        }
    }
    if (a.module_killed) {
        out->nhooks = 0;
        for (uint32_t k = 0; k < out->nkernels; k++) out->kernels[k].candidates = 0;
    }
    free(a.lines);
    free(a.regs.regs);
    free(a.shared_syms.names);
    if (a.oom) {
        gr_ro_result_free(out);
        return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    }
    return true;
}

void gr_ro_result_free(gr_ro_result *r) {
    free(r->hooks);
    free(r->kernels);
    memset(r, 0, sizeof *r);
}
