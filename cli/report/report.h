/* report.h — what gpurace found, in a form people and CI act on.
 *
 * A report is a list of findings about one kernel file. `check`, `fuzz` and `replay` fill it
 * (directly, or from backend findings with gr_report_add_exec_finding), apply suppressions
 * (cli/report/suppress.h), and hand it to one or more renderers:
 *
 *   text   compiler-style diagnostics with source lines and carets (gr_report_render_text)
 *   JSON   the versioned document described in docs/reports.md (gr_report_render_json)
 *   SARIF  2.1.0 for code scanning (gr_report_render_sarif)
 *
 * Identical findings (same signature: class, kind, both instructions/source positions, object)
 * merge into one entry with an occurrence count, so a race hit by a million thread pairs is
 * one diagnostic, not a million lines.
 *
 * Ownership: every string in the report lives in its arena; gr_report_add copies what it is
 * given, so callers may pass stack buffers. */
#ifndef GR_CLI_REPORT_H
#define GR_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/error.h"
#include "common/strbuf.h"

typedef enum gr_report_class {
    GR_REPORT_RACE = 0,
    GR_REPORT_BARRIER_DIVERGENCE,
    GR_REPORT_OUT_OF_BOUNDS,
    GR_REPORT_HANG,
    GR_REPORT_FAULT,
    GR_REPORT_NONDETERMINISTIC_OUTPUT,
    GR_REPORT_NCLASSES
} gr_report_class;

typedef enum gr_report_severity { GR_SEVERITY_ERROR = 0, GR_SEVERITY_WARNING } gr_report_severity;

/* Race kinds, in the order of oracle/race.h's gr_race_kind plus NONE for other classes. */
typedef enum gr_report_race_kind {
    GR_REPORT_KIND_NONE = 0,
    GR_REPORT_KIND_RAW,          /* read after write */
    GR_REPORT_KIND_WAR,          /* write after read */
    GR_REPORT_KIND_WAW,          /* write after write */
    GR_REPORT_KIND_ATOMIC_PLAIN, /* atomic vs plain access */
    GR_REPORT_KIND_ATOMIC_SCOPE, /* atomics of too narrow a scope */
} gr_report_race_kind;

/* How the two threads of a race relate: this says which synchronization could order them. */
typedef enum gr_report_relation {
    GR_RELATION_UNKNOWN = 0,
    GR_RELATION_SAME_THREAD,
    GR_RELATION_SAME_WARP,
    GR_RELATION_OTHER_WARP,  /* another warp of the same block */
    GR_RELATION_OTHER_BLOCK,
} gr_report_relation;

typedef struct gr_report_dim3 {
    uint32_t x, y, z;
} gr_report_dim3;

typedef struct gr_report_thread {
    bool known;
    gr_report_dim3 block, thread; /* blockIdx, threadIdx */
} gr_report_thread;

/* One source position of a finding. Every field is optional (NULL / 0 when unknown). */
typedef struct gr_report_access {
    const char *file;      /* as the compiler named it (relative or absolute) */
    int line, column;      /* 1-based; 0 unknown */
    const char *line_text; /* the source line, without newline */
    const char *what;      /* "read", "write", "atomic", or NULL */
    bool has_insn;
    uint32_t insn_id;      /* PTX instruction id (stable within one compiled module) */
    const char *ptx;       /* the PTX instruction as text ("ld.shared.f32 %f1, [%r4];") */
    uint32_t ptx_line;     /* line in the PTX text, 0 unknown */
    const char *function;  /* inlined function name, when known */
    const char **inlined_at; /* callers, innermost first: "file:line:col" or "fn at file:line" */
    int ninlined;
    gr_report_thread thread;
} gr_report_access;

typedef struct gr_report_launch {
    bool known;
    gr_report_dim3 grid, block;
    uint32_t shared_bytes;   /* dynamic shared memory */
    const char *schedule;    /* "rr:8", "random:42", ... or NULL */
    const char *backend;     /* "sim", "gpu" or NULL */
    const char *detector;    /* "fsm", "hb" or NULL */
    const char *warp_model;  /* "its", "lockstep" or NULL */
} gr_report_launch;

/* One edit of a verified repair (gpurace fix): `nremove` lines from `line` replaced by `text`
 * (whole lines; nremove 0 inserts before `line`). */
typedef struct gr_report_fix_edit {
    int line;
    int nremove;
    const char *text;
} gr_report_fix_edit;

typedef struct gr_report_finding {
    gr_report_class cls;
    gr_report_severity severity;
    gr_report_race_kind kind;   /* races only */
    bool is_volatile;           /* both accesses volatile (severity warning) */
    bool scoped;                /* synchronization existed but its scope was too narrow */
    const char *space;          /* "global", "shared", ... or NULL */
    const char *variable;       /* buffer or variable name, or NULL */
    int64_t element;            /* element index into `variable`, -1 unknown */
    bool has_address;
    uint64_t address;
    uint32_t size;              /* bytes accessed, 0 unknown */
    const char *message;        /* one line of detail (the backend's words), or NULL */
    gr_report_access primary;   /* the access/instruction the finding is about */
    gr_report_access secondary; /* races: the other (earlier) access; else file == NULL */
    bool has_secondary;
    gr_report_relation relation;
    const char *synchronization; /* what was missing or too narrow, in plain words */
    const char *manifests;       /* "yes (out[3]: 7 vs 9)", "no difference in 5 runs", or NULL */
    const char *differences;     /* the oracle's differing elements, one per line (values, last
                                  * writers with source lines), or NULL */
    const char *witness;         /* witness path, or NULL */
    const char *reproducer;      /* reproducer .cu path, or NULL */
    const char *kernel;          /* kernel name (defaults to the report's) */
    uint64_t count;              /* occurrences; 0 counts as 1 when added */
    /* The launch that showed this finding, rendered instead of the report's (launch.known
     * false: the report's launch applies). */
    gr_report_launch launch;
    /* Replays of the saved witness: `reproduced` of `replays` runs showed the finding again
     * (replays 0: not replayed). A finding that did not reproduce is still reported. */
    int replays, reproduced;
    const char *note;            /* one line the user must read: e.g. why it was not saved */
    /* What the finding depends on (an amplified search, a search under an inferred spec):
     * "recorded" (a launch the program's own tests make), "spec" (an input within the spec the
     * tests do not make), "outside-spec" (an input the spec does not allow: a warning), or
     * "inferred-spec" (a spec gpurace guessed); NULL when not said. `input_note` says it in
     * words: which recorded launch, which spec, the assumption the input needed. */
    const char *input;
    const char *input_note;
    /* Set by suppression (cli/report/suppress.h); suppressed findings are not rendered. */
    bool suppressed;
    const char *suppressed_by;   /* "source comment at f.cu:12", "suppressions.txt:3" */
    /* Reports that span many launches (gpurace run): which of the program's launches showed the
     * finding first (its `launch` above). */
    uint64_t program_launch;     /* the program's n-th kernel launch (1-based), 0 unknown */
    uint64_t kernel_call;        /* the n-th launch of this finding's kernel, 0 unknown */
    /* A verified repair (gpurace fix) of the primary access's file: SARIF `fixes`. NULL: none. */
    const char *fix_description;
    const gr_report_fix_edit *fix_edits; /* in the report's arena */
    int nfix_edits;
} gr_report_finding;

typedef struct gr_report {
    gr_arena arena;          /* all strings and inlined-at arrays */
    const char *tool_version; /* "0.1.0"; NULL leaves it out */
    const char *command;      /* "check", "fuzz", "replay" */
    const char *file;         /* the kernel file the user named */
    /* A program of several files: the files linked with `file`, in order (borrowed). */
    const char *const *linked_files;
    int nlinked_files;
    const char *kernel;       /* the kernel's name */
    const char *kernel_file;  /* where the kernel is declared (for kernel-level suppressions) */
    int kernel_line;          /* line of the declaration, 0 unknown */
    gr_report_launch launch;
    gr_report_finding *findings;
    size_t nfindings, cap;
    uint64_t dropped;         /* findings the backend dropped over its limit */
    /* Why the run could not do its whole job (interrupted, workers dead, findings that could
     * not be saved), in words; NULL when it did. Rendered in every format. */
    const char *problem;
} gr_report;

void gr_report_init(gr_report *r);
void gr_report_free(gr_report *r);
/* A copy of `s` in the report's arena (NULL for NULL, or when out of memory). */
const char *gr_report_strdup(gr_report *r, const char *s);
/* Sets the launch (strings copied). */
void gr_report_set_launch(gr_report *r, const gr_report_launch *launch);

/* Adds a finding (deep copy). If an unsuppressed finding with the same signature exists, its
 * count grows instead and that entry is returned. NULL only when out of memory. */
gr_report_finding *gr_report_add(gr_report *r, const gr_report_finding *f, gr_error *err);

/* The signature that decides merging: class, kind, both source positions (unordered for
 * races), both instruction ids, object and space. Threads and addresses are not part of it. */
uint64_t gr_report_signature(const gr_report_finding *f);

/* ---- names --------------------------------------------------------------------------------------- */

const char *gr_report_class_name(gr_report_class c);        /* "race", "out-of-bounds", ... */
bool gr_report_class_parse(const char *name, gr_report_class *out);
const char *gr_report_class_title(gr_report_class c);       /* "data race", "out-of-bounds access" */
const char *gr_report_kind_name(gr_report_race_kind k);     /* "read-after-write" (JSON) */
const char *gr_report_kind_words(gr_report_race_kind k);    /* "read after write" (text) */
const char *gr_report_relation_name(gr_report_relation r);  /* "other-warp" (JSON) */
const char *gr_report_relation_words(gr_report_relation r); /* "in different warps of the same block" */
const char *gr_report_severity_name(gr_report_severity s);  /* "error", "warning" */
/* "data[3]", "data", or "0x1000 (global)"; writes into buf and returns it; "" when unknown. */
const char *gr_report_object_text(const gr_report_finding *f, char *buf, size_t n);
/* Relation of two threads of one launch with the given block shape (warps of 32 lanes). */
gr_report_relation gr_report_relation_of(gr_report_dim3 block_shape, const gr_report_thread *a,
                                         const gr_report_thread *b);

/* Counts of unsuppressed findings (entries, not occurrences) and of suppressed ones. */
typedef struct gr_report_counts {
    size_t total;
    size_t by_class[GR_REPORT_NCLASSES];
    size_t suppressed;
    size_t errors, warnings;     /* unsuppressed entries by severity */
    uint64_t occurrences;
} gr_report_counts;
gr_report_counts gr_report_count(const gr_report *r);

/* ---- renderers ---------------------------------------------------------------------------------- */

typedef enum gr_report_verbosity {
    GR_REPORT_QUIET = -1,  /* the summary line only */
    GR_REPORT_NORMAL = 0,
    GR_REPORT_VERBOSE = 1, /* plus PTX instruction text and inlined-at chains */
} gr_report_verbosity;

typedef struct gr_report_text_options {
    bool color;            /* the caller decides: a terminal and NO_COLOR unset */
    gr_report_verbosity verbosity;
    size_t max_findings;   /* show at most this many (0: 50); the rest are counted */
} gr_report_text_options;

/* Diagnostics then a one-line summary, appended to `out`. */
void gr_report_render_text(const gr_report *r, const gr_report_text_options *o, gr_strbuf *out);
/* Just the summary line ("gpurace: 2 findings (1 race, 1 hang), 1 suppressed\n"). */
void gr_report_render_summary(const gr_report *r, bool color, gr_strbuf *out);

/* The JSON document (docs/reports.md); false only when out of memory. */
bool gr_report_render_json(const gr_report *r, gr_strbuf *out, gr_error *err);

typedef struct gr_report_sarif_options {
    /* Source paths are made relative to this folder and given uriBaseId %SRCROOT% (usually the
     * repository root; NULL: the current directory). Paths outside it stay absolute file URIs. */
    const char *base_dir;
    const char *information_uri; /* the tool's home page; NULL leaves it out */
} gr_report_sarif_options;

bool gr_report_render_sarif(const gr_report *r, const gr_report_sarif_options *o, gr_strbuf *out,
                            gr_error *err);
/* The SARIF ruleId of a class ("GR1001" for races) and its short name ("data-race"). */
const char *gr_report_rule_id(gr_report_class c);
const char *gr_report_rule_name(gr_report_class c);
/* partialFingerprints value: hash of rule, race kind and the unordered pair of (file name
 * without folders, whitespace-trimmed source line text) of both accesses; independent of
 * threads, addresses, line numbers, checkout folder and run. 16 hex digits. */
void gr_report_fingerprint(const gr_report_finding *f, char out[17]);

/* Writes `text` to `path` ("-": standard output) atomically. */
bool gr_report_write(const char *path, const gr_strbuf *text, gr_error *err);

/* ---- exit status ------------------------------------------------------------------------------- */

typedef enum gr_fail_on {
    GR_FAIL_ON_ERROR = 0, /* every unsuppressed finding of severity error fails (the default):
                           * warnings (volatile races, findings that need an assumption) are
                           * reported and do not fail */
    GR_FAIL_ON_ANY,       /* every unsuppressed finding fails, warnings too */
    GR_FAIL_ON_RACE,      /* only races fail (errors and warnings) */
    GR_FAIL_ON_NONE,      /* findings never fail; errors still do */
} gr_fail_on;

/* "error", "any", "race", "none" (the --fail-on values); usage error otherwise. */
bool gr_fail_on_parse(const char *text, gr_fail_on *out, gr_error *err);
/* 0 or 1 per the command-line contract and `mode` (errors are the caller's: 2 or 3). */
int gr_report_exit_status(const gr_report *r, gr_fail_on mode);

#endif
