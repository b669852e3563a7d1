/* Tests of cli/report: the model (merging, names, exit status), text diagnostics against golden
 * files (GR_UPDATE_GOLDEN=1 rewrites them), JSON and SARIF validated against their schemas,
 * fingerprints, suppressions, and findings built from backend records. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/report/report.h"
#include "cli/report/report_exec.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"
#include "cli/report/suppress.h"
#include "common/file.h"

#define DATA GR_SOURCE_DIR "/tests/report/data"
#define OUTDIR GR_BINARY_DIR "/tests/report/out"

static const char *reduce_line =
    "            partial[t] += partial[t + stride];   // mark: store";

/* A race between lines 28 and 28 of the reduction example, as check would report it. */
static gr_report_finding sample_race(void) {
    gr_report_finding f;
    memset(&f, 0, sizeof f);
    f.cls = GR_REPORT_RACE;
    f.severity = GR_SEVERITY_ERROR;
    f.kind = GR_REPORT_KIND_RAW;
    f.space = "shared";
    f.variable = "partial";
    f.element = 64;
    f.has_address = true;
    f.address = 0x10000000100ull;
    f.size = 4;
    f.primary = (gr_report_access){
        .file = "examples/reduce_missing_sync.cu", .line = 28, .column = 27,
        .line_text = reduce_line, .what = "read", .has_insn = true, .insn_id = 41,
        .ptx = "ld.shared.f32 %f2, [%r9+256];", .ptx_line = 63,
        .thread = {true, {0, 0, 0}, {0, 0, 0}}};
    f.secondary = (gr_report_access){
        .file = "examples/reduce_missing_sync.cu", .line = 28, .column = 24,
        .line_text = reduce_line, .what = "write", .has_insn = true, .insn_id = 44,
        .ptx = "st.shared.f32 [%r9], %f3;", .ptx_line = 66,
        .thread = {true, {0, 0, 0}, {64, 0, 0}}};
    f.has_secondary = true;
    f.relation = GR_RELATION_OTHER_WARP;
    f.synchronization = "no __syncthreads() between the two accesses of threads of one block";
    f.count = 3;
    return f;
}

static gr_report_finding sample_oob(void) {
    gr_report_finding f;
    memset(&f, 0, sizeof f);
    f.cls = GR_REPORT_OUT_OF_BOUNDS;
    f.severity = GR_SEVERITY_ERROR;
    f.space = "global";
    f.element = -1;
    f.has_address = true;
    f.address = 0x2000;
    f.size = 4;
    f.message = "read of 4 bytes at global address 0x2000 is outside every allocation";
    static const char *inl[] = {"scan_step at examples/scan.cu:40:5"}; /* outlives the returned finding */
    f.primary = (gr_report_access){
        .file = "examples/scan.cu", .line = 12, .column = 9, .line_text = "\tv = in[i + 1];",
        .what = "read", .has_insn = true, .insn_id = 7, .ptx = "ld.global.u32 %r3, [%rd4];",
        .function = "load_next", .inlined_at = inl, .ninlined = 1,
        .thread = {true, {1, 0, 0}, {31, 0, 0}}};
    return f;
}

static void sample_report(gr_report *r) {
    gr_report_init(r);
    r->tool_version = "0.1.0";
    r->command = "check";
    r->file = "examples/reduce_missing_sync.cu";
    r->kernel = "reduce_sum";
    gr_report_launch L = {true, {2, 1, 1}, {128, 1, 1}, 0, "rr:8", "sim", "fsm", "its"};
    gr_report_set_launch(r, &L);
    gr_error err = GR_ERROR_INIT;
    gr_report_finding race = sample_race();
    cr_assert(gr_report_add(r, &race, &err));
    gr_report_finding vol = sample_race();
    vol.kind = GR_REPORT_KIND_WAW;
    vol.is_volatile = true;
    vol.severity = GR_SEVERITY_WARNING;
    vol.primary.line = 30;
    vol.primary.column = 9;
    vol.primary.line_text = "        flag = 1;";
    vol.primary.what = "write";
    vol.secondary = vol.primary;
    vol.secondary.thread.thread.x = 5;
    vol.relation = GR_RELATION_SAME_WARP;
    vol.variable = "flag";
    vol.element = -1;
    vol.synchronization = "no __syncwarp() or warp collective between the two accesses";
    vol.manifests = "yes: out[0] differs from the sequential run";
    vol.witness = "findings/reduce_sum-1.json";
    vol.reproducer = "findings/reduce_sum-1.cu";
    vol.count = 1;
    cr_assert(gr_report_add(r, &vol, &err));
    gr_report_finding oob = sample_oob();
    cr_assert(gr_report_add(r, &oob, &err));
}

static char *render_text(const gr_report *r, bool color, gr_report_verbosity v) {
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_report_text_options o = {color, v, 0};
    gr_report_render_text(r, &o, &sb);
    return gr_strbuf_take(&sb);
}

static void compare_golden(const char *name, const char *actual) {
    char path[1024];
    snprintf(path, sizeof path, DATA "/golden/%s", name);
    gr_error err = GR_ERROR_INIT;
    if (getenv("GR_UPDATE_GOLDEN")) {
        cr_assert(gr_write_file_atomic(path, actual, strlen(actual), &err));
        return;
    }
    char *expected = gr_read_file(path, NULL, &err);
    cr_assert_not_null(expected, "missing golden file %s", path);
    cr_expect_str_eq(actual, expected, "%s differs; got:\n%s", name, actual);
    free(expected);
}

/* Writes `text` under OUTDIR and validates it against `schema`; 77 from the validator means
 * the jsonschema package is missing. */
static int run_validator(const char *schema, const char *name, const char *text) {
    mkdir(GR_BINARY_DIR "/tests", 0777);
    mkdir(GR_BINARY_DIR "/tests/report", 0777);
    mkdir(OUTDIR, 0777);
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, OUTDIR "/%s", name);
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_write_file_atomic(path, text, strlen(text), &err));
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/report/validate.py' '%s' '%s'", GR_SOURCE_DIR,
             schema, path);
    int rc = system(cmd);
    cr_assert(rc != -1);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void validate(const char *schema, const char *name, const char *text) {
    int status = run_validator(schema, name, text);
    if (status == 77) cr_skip_test("python3 jsonschema is not installed; %s not validated", name);
    cr_assert_eq(status, 0, "%s/%s does not validate against %s", OUTDIR, name, schema);
}

/* ---- model ----------------------------------------------------------------------------------- */

Test(model, identical_findings_merge_with_a_count) {
    gr_report r;
    gr_report_init(&r);
    gr_error err = GR_ERROR_INIT;
    for (int i = 0; i < 1000; i++) {
        gr_report_finding f = sample_race();
        f.count = 0; /* counts as one */
        f.primary.thread.thread.x = (uint32_t)i;  /* other threads, other addresses: same race */
        f.address += (uint64_t)i * 4;
        if (i % 2) { /* the same pair seen in the other order */
            gr_report_access t = f.primary;
            f.primary = f.secondary;
            f.secondary = t;
        }
        cr_assert(gr_report_add(&r, &f, &err));
    }
    cr_assert_eq(r.nfindings, 1);
    cr_assert_eq(r.findings[0].count, 1000);
    gr_report_finding other = sample_race();
    other.primary.line = 29;
    cr_assert(gr_report_add(&r, &other, &err));
    cr_assert_eq(r.nfindings, 2);
    gr_report_free(&r);
}

Test(model, names_and_words) {
    cr_assert_str_eq(gr_report_kind_words(GR_REPORT_KIND_WAR), "write after read");
    cr_assert_str_eq(gr_report_kind_name(GR_REPORT_KIND_RAW), "read-after-write");
    cr_assert_str_eq(gr_report_class_name(GR_REPORT_BARRIER_DIVERGENCE), "barrier-divergence");
    gr_report_class c;
    cr_assert(gr_report_class_parse("nondeterministic-output", &c));
    cr_assert_eq(c, GR_REPORT_NONDETERMINISTIC_OUTPUT);
    cr_assert_not(gr_report_class_parse("rase", &c));
    cr_assert_str_eq(gr_report_rule_id(GR_REPORT_RACE), "GR1001");
    cr_assert_str_eq(gr_report_rule_id(GR_REPORT_HANG), "GR1004");
    gr_report_dim3 shape = {64, 2, 1};
    gr_report_thread a = {true, {0, 0, 0}, {0, 0, 0}}, b = {true, {0, 0, 0}, {31, 0, 0}};
    cr_assert_eq(gr_report_relation_of(shape, &a, &b), GR_RELATION_SAME_WARP);
    b.thread.x = 32;
    cr_assert_eq(gr_report_relation_of(shape, &a, &b), GR_RELATION_OTHER_WARP);
    b.thread = (gr_report_dim3){0, 1, 0}; /* linear 64: warp 2 */
    cr_assert_eq(gr_report_relation_of(shape, &a, &b), GR_RELATION_OTHER_WARP);
    b.block.y = 1;
    cr_assert_eq(gr_report_relation_of(shape, &a, &b), GR_RELATION_OTHER_BLOCK);
}

Test(model, exit_status_and_fail_on) {
    gr_report r;
    gr_report_init(&r);
    gr_error err = GR_ERROR_INIT;
    gr_fail_on mode;
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_ANY), 0);
    gr_report_finding oob = sample_oob();
    cr_assert(gr_report_add(&r, &oob, &err));
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_ANY), 1);
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_RACE), 0);
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_NONE), 0);
    gr_report_finding race = sample_race();
    cr_assert(gr_report_add(&r, &race, &err));
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_RACE), 1);
    r.findings[1].suppressed = true;
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_RACE), 0);
    cr_assert(gr_fail_on_parse("race", &mode, &err));
    cr_assert_eq(mode, GR_FAIL_ON_RACE);
    /* the default, error: a warning is reported and does not fail; an error does */
    r.findings[0].severity = GR_SEVERITY_WARNING;
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_ERROR), 0);
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_ANY), 1);
    r.findings[1].suppressed = false;
    cr_assert_eq(gr_report_exit_status(&r, GR_FAIL_ON_ERROR), 1);
    cr_assert(gr_fail_on_parse("error", &mode, &err));
    cr_assert_eq(mode, GR_FAIL_ON_ERROR);
    cr_assert_not(gr_fail_on_parse("some", &mode, &err));
    cr_assert_eq(gr_error_exit_code(&err), 2);
    gr_error_clear(&err);
    gr_report_free(&r);
}

/* ---- text ------------------------------------------------------------------------------------ */

Test(text, golden_plain) {
    gr_report r;
    sample_report(&r);
    char *t = render_text(&r, false, GR_REPORT_NORMAL);
    compare_golden("sample.txt", t);
    cr_assert_null(strstr(t, "\033["), "no escape codes without color");
    free(t);
    gr_report_free(&r);
}

Test(text, golden_color) {
    gr_report r;
    sample_report(&r);
    char *t = render_text(&r, true, GR_REPORT_NORMAL);
    compare_golden("sample-color.txt", t);
    cr_assert_not_null(strstr(t, "\033[1;31merror:\033[0m"));
    free(t);
    gr_report_free(&r);
}

Test(text, golden_verbose) {
    gr_report r;
    sample_report(&r);
    char *t = render_text(&r, false, GR_REPORT_VERBOSE);
    compare_golden("sample-verbose.txt", t);
    cr_assert_not_null(strstr(t, "ld.shared.f32 %f2, [%r9+256];"));
    cr_assert_not_null(strstr(t, "inlined from scan_step at examples/scan.cu:40:5"));
    free(t);
    gr_report_free(&r);
}

Test(text, quiet_is_the_summary_only) {
    gr_report r;
    sample_report(&r);
    r.findings[2].suppressed = true;
    char *t = render_text(&r, false, GR_REPORT_QUIET);
    cr_assert_str_eq(t, "gpurace: 2 findings (2 race), 1 of them a warning, 1 suppressed in kernel reduce_sum\n");
    free(t);
    gr_report_free(&r);
}

Test(text, headline_and_caret) {
    gr_report r;
    sample_report(&r);
    char *t = render_text(&r, false, GR_REPORT_NORMAL);
    cr_assert_not_null(strstr(t, "examples/reduce_missing_sync.cu:28:27: error: data race (read "
                                 "after write, shared memory) on partial[64]\n"));
    /* the caret sits under column 27 */
    const char *caret = strstr(t, "       | ");
    cr_assert_not_null(caret);
    cr_assert_eq(caret[9 + 26], '^');
    /* the tab before column 9 is kept so the caret lines up under a tab-indented line */
    cr_assert_not_null(strstr(t, "       | \t       ^\n"));
    free(t);
    gr_report_free(&r);
}

Test(text, many_findings_are_capped) {
    gr_report r;
    gr_report_init(&r);
    gr_error err = GR_ERROR_INIT;
    for (int i = 0; i < 80; i++) {
        gr_report_finding f = sample_oob();
        f.primary.line = 100 + i;
        cr_assert(gr_report_add(&r, &f, &err));
    }
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_report_text_options o = {false, GR_REPORT_NORMAL, 10};
    gr_report_render_text(&r, &o, &sb);
    cr_assert_not_null(strstr(gr_strbuf_cstr(&sb), "... and 70 more findings not shown"));
    cr_assert_not_null(strstr(gr_strbuf_cstr(&sb), "gpurace: 80 findings (80 out-of-bounds)"));
    gr_strbuf_free(&sb);
    gr_report_free(&r);
}

/* ---- JSON and SARIF -------------------------------------------------------------------------- */

Test(json, validates_against_the_documented_schema) {
    gr_report r;
    sample_report(&r);
    r.findings[1].suppressed = true;
    static const char *const linked[] = {"helpers.cu", "lib/counters.cu"};
    r.linked_files = linked; /* a program of several files */
    r.nlinked_files = 2;
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_render_json(&r, &sb, &err));
    json_error_t je;
    json_t *doc = json_loads(gr_strbuf_cstr(&sb), 0, &je);
    cr_assert_not_null(doc, "%s", je.text);
    cr_assert_eq(json_integer_value(json_object_get(doc, "version")), 1);
    json_t *findings = json_object_get(doc, "findings");
    cr_assert_eq(json_array_size(findings), 2);
    json_t *f0 = json_array_get(findings, 0);
    cr_assert_str_eq(json_string_value(json_object_get(f0, "class")), "race");
    cr_assert_str_eq(json_string_value(json_object_get(f0, "kind")), "read-after-write");
    cr_assert_eq(json_integer_value(json_object_get(f0, "index")), 64);
    cr_assert_eq(json_array_size(json_object_get(f0, "locations")), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "summary"), "suppressed")), 1);
    json_t *lf = json_object_get(doc, "linked_files");
    cr_assert_eq(json_array_size(lf), 2);
    cr_assert_str_eq(json_string_value(json_array_get(lf, 1)), "lib/counters.cu");
    json_decref(doc);
    validate(GR_SOURCE_DIR "/docs/json-schema.json", "sample.json", gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    gr_report_free(&r);
}

Test(json, empty_report_validates) {
    gr_report r;
    gr_report_init(&r);
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_render_json(&r, &sb, &err));
    validate(GR_SOURCE_DIR "/docs/json-schema.json", "empty.json", gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    gr_report_free(&r);
}

Test(sarif, validates_against_sarif_2_1_0) {
    gr_report r;
    sample_report(&r);
    /* absolute paths under the base folder become %SRCROOT%-relative URIs */
    r.findings[0].primary.file = GR_SOURCE_DIR "/examples/reduce_missing_sync.cu";
    r.findings[0].secondary.file = GR_SOURCE_DIR "/./examples/reduce_missing_sync.cu";
    r.findings[2].primary.file = "/elsewhere/a b.cu";
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    gr_report_sarif_options o = {GR_SOURCE_DIR, "https://example.org/gpurace"};
    cr_assert(gr_report_render_sarif(&r, &o, &sb, &err));
    json_error_t je;
    json_t *doc = json_loads(gr_strbuf_cstr(&sb), 0, &je);
    cr_assert_not_null(doc, "%s", je.text);
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
    cr_assert_eq(json_array_size(rules), GR_REPORT_NCLASSES);
    json_t *results = json_object_get(run, "results");
    cr_assert_eq(json_array_size(results), 3);
    json_t *res0 = json_array_get(results, 0);
    cr_assert_str_eq(json_string_value(json_object_get(res0, "ruleId")), "GR1001");
    json_t *art = json_object_get(json_object_get(json_array_get(json_object_get(res0, "locations"), 0),
                                                  "physicalLocation"), "artifactLocation");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uri")), "examples/reduce_missing_sync.cu");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uriBaseId")), "%SRCROOT%");
    json_t *rel = json_array_get(json_object_get(res0, "relatedLocations"), 0);
    cr_assert_not_null(rel);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(rel,
                         "physicalLocation"), "artifactLocation"), "uri")),
                     "examples/reduce_missing_sync.cu");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(results, 1), "level")), "warning");
    json_t *art2 = json_object_get(json_object_get(json_array_get(json_object_get(
                       json_array_get(results, 2), "locations"), 0), "physicalLocation"),
                                   "artifactLocation");
    cr_assert_str_eq(json_string_value(json_object_get(art2, "uri")), "file:///elsewhere/a%20b.cu");
    cr_assert_null(json_object_get(art2, "uriBaseId"));
    json_decref(doc);
    validate(DATA "/sarif-schema-2.1.0.json", "sample.sarif", gr_strbuf_cstr(&sb));
    /* the validator can fail: a level SARIF does not know is rejected */
    char *broken = strdup(gr_strbuf_cstr(&sb));
    char *level = strstr(broken, "\"level\": \"warning\"");
    cr_assert_not_null(level);
    memcpy(level + 9, "\"fatal\"  ", 9);
    int status = run_validator(DATA "/sarif-schema-2.1.0.json", "broken.sarif", broken);
    cr_assert(status == 1 || status == 77, "an invalid level passed validation");
    free(broken);
    gr_strbuf_free(&sb);
    gr_report_free(&r);
}

/* UTF-8 paths stay UTF-8 in JSON and are percent-encoded in SARIF (RFC 3986: only unreserved
 * characters and '/' as they are), with %SRCROOT% given in run.originalUriBaseIds; text that is
 * not UTF-8 (a Latin-1 comment) becomes U+FFFD instead of being dropped. */
Test(sarif, utf8_paths_and_text_that_is_not_utf8) {
    gr_report r;
    sample_report(&r);
    const char *utf8 = GR_SOURCE_DIR "/d\xc3\xa9j\xc3\xa0 #1/r\xc3\xa9.cu"; /* déjà #1/ré.cu */
    r.findings[0].primary.file = utf8;
    r.findings[0].primary.line_text = "    x = 1; // caf\xe9 \xc3\xa9";
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_render_json(&r, &sb, &err));
    json_error_t je;
    json_t *doc = json_loads(gr_strbuf_cstr(&sb), 0, &je);
    cr_assert_not_null(doc, "%s", je.text);
    json_t *loc = json_array_get(json_object_get(json_array_get(json_object_get(doc, "findings"), 0),
                                                 "locations"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(loc, "file")), utf8);
    cr_assert_str_eq(json_string_value(json_object_get(loc, "source")),
                     "    x = 1; // caf\xef\xbf\xbd \xc3\xa9");
    json_decref(doc);
    validate(GR_SOURCE_DIR "/docs/json-schema.json", "utf8.json", gr_strbuf_cstr(&sb));

    gr_strbuf_reset(&sb);
    gr_report_sarif_options o = {GR_SOURCE_DIR, NULL};
    cr_assert(gr_report_render_sarif(&r, &o, &sb, &err));
    doc = json_loads(gr_strbuf_cstr(&sb), 0, &je);
    cr_assert_not_null(doc, "%s", je.text);
    json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *res0 = json_array_get(json_object_get(run, "results"), 0);
    json_t *pl = json_object_get(json_array_get(json_object_get(res0, "locations"), 0),
                                 "physicalLocation");
    json_t *art = json_object_get(pl, "artifactLocation");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uri")),
                     "d%C3%A9j%C3%A0%20%231/r%C3%A9.cu");
    cr_assert_str_eq(json_string_value(json_object_get(art, "uriBaseId")), "%SRCROOT%");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(json_object_get(pl, "region"),
                                                                       "snippet"), "text")),
                     "    x = 1; // caf\xef\xbf\xbd \xc3\xa9");
    const char *root = json_string_value(json_object_get(
        json_object_get(json_object_get(run, "originalUriBaseIds"), "%SRCROOT%"), "uri"));
    cr_assert_not_null(root);
    cr_assert(strncmp(root, "file:///", 8) == 0 && root[strlen(root) - 1] == '/', "%s", root);
    json_decref(doc);
    validate(DATA "/sarif-schema-2.1.0.json", "utf8.sarif", gr_strbuf_cstr(&sb));
    gr_strbuf_free(&sb);
    gr_report_free(&r);
}

Test(sarif, fingerprints_ignore_threads_addresses_and_lines) {
    gr_report_finding a = sample_race(), b = sample_race();
    b.primary.thread.thread.x = 99;
    b.secondary.thread.block.x = 1;
    b.address = 0x1234;
    b.primary.line += 10; /* code added above the race */
    b.secondary.line += 10;
    b.primary.line_text = "  \t  partial[t] += partial[t + stride];   // mark: store  ";
    b.primary.file = "/checkout/elsewhere/examples/reduce_missing_sync.cu";
    char fa[17], fb[17];
    gr_report_fingerprint(&a, fa);
    gr_report_fingerprint(&b, fb);
    cr_assert_str_eq(fa, fb);
    /* swapping the two accesses keeps it */
    gr_report_access t = b.primary;
    b.primary = b.secondary;
    b.secondary = t;
    gr_report_fingerprint(&b, fb);
    cr_assert_str_eq(fa, fb);
    /* another kind, another text or another class changes it */
    b = sample_race();
    b.kind = GR_REPORT_KIND_WAW;
    gr_report_fingerprint(&b, fb);
    cr_assert_str_neq(fa, fb);
    b = sample_race();
    b.secondary.line_text = "partial[t] = 0;";
    gr_report_fingerprint(&b, fb);
    cr_assert_str_neq(fa, fb);
    b = sample_race();
    b.cls = GR_REPORT_OUT_OF_BOUNDS;
    gr_report_fingerprint(&b, fb);
    cr_assert_str_neq(fa, fb);
    cr_assert_eq(strlen(fa), 16);
}

/* ---- suppressions ---------------------------------------------------------------------------- */

static gr_report_finding at_line(gr_report_class cls, const char *file, int line) {
    gr_report_finding f;
    memset(&f, 0, sizeof f);
    f.cls = cls;
    f.element = -1;
    f.primary.file = file;
    f.primary.line = line;
    f.primary.column = 5;
    return f;
}

Test(suppress, source_comments) {
    const char *src = DATA "/suppress.cu";
    gr_report r;
    gr_report_init(&r);
    r.kernel = "plain";
    gr_error err = GR_ERROR_INIT;
    gr_report_finding f;
    f = at_line(GR_REPORT_RACE, src, 4);          /* 0: no comment */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_RACE, src, 5);          /* 1: comment on its own line */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_OUT_OF_BOUNDS, src, 5); /* 2: wrong class for that comment */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_OUT_OF_BOUNDS, src, 7); /* 3: comment on the line above */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_RACE, src, 9);          /* 4: misspelt class: not applied */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_RACE, src, 4);          /* 5: secondary access on a commented line */
    f.primary.line = 3;
    f.has_secondary = true;
    f.secondary.file = src;
    f.secondary.line = 5;
    cr_assert(gr_report_add(&r, &f, &err));
    gr_strbuf warnings = GR_STRBUF_INIT;
    gr_suppress_options o = {NULL, true, NULL, NULL, &warnings};
    cr_assert_eq(gr_report_apply_suppressions(&r, &o), 3);
    cr_assert_not(r.findings[0].suppressed);
    cr_assert(r.findings[1].suppressed);
    cr_assert_str_eq(r.findings[1].suppressed_by, "comment at " DATA "/suppress.cu:5");
    cr_assert_not(r.findings[2].suppressed);
    cr_assert(r.findings[3].suppressed);
    cr_assert_not(r.findings[4].suppressed);
    cr_assert(r.findings[5].suppressed);
    cr_assert_not_null(strstr(gr_strbuf_cstr(&warnings), "suppress.cu:8: warning:"));
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_report_render_summary(&r, false, &sb);
    cr_assert_str_eq(gr_strbuf_cstr(&sb),
                     "gpurace: 3 findings (2 race, 1 out-of-bounds), 3 suppressed in kernel plain\n");
    gr_strbuf_free(&sb);
    gr_strbuf_free(&warnings);
    gr_report_free(&r);
}

Test(suppress, comment_above_the_kernel_declaration) {
    const char *src = DATA "/suppress.cu";
    gr_report r;
    gr_report_init(&r);
    r.kernel = "silenced";
    r.kernel_file = src;
    r.kernel_line = 13;
    gr_error err = GR_ERROR_INIT;
    gr_report_finding f = at_line(GR_REPORT_HANG, src, 15);
    cr_assert(gr_report_add(&r, &f, &err));
    gr_suppress_options o = {NULL, true, NULL, NULL, NULL};
    cr_assert_eq(gr_report_apply_suppressions(&r, &o), 1);
    /* the same finding in the other kernel stays */
    gr_report r2;
    gr_report_init(&r2);
    r2.kernel = "plain";
    r2.kernel_file = src;
    r2.kernel_line = 2;
    cr_assert(gr_report_add(&r2, &f, &err));
    cr_assert_eq(gr_report_apply_suppressions(&r2, &o), 0);
    /* without source comments enabled nothing is suppressed */
    gr_suppress_options off = {NULL, false, NULL, NULL, NULL};
    gr_report r3;
    gr_report_init(&r3);
    r3.kernel_file = src;
    r3.kernel_line = 13;
    cr_assert(gr_report_add(&r3, &f, &err));
    cr_assert_eq(gr_report_apply_suppressions(&r3, &off), 0);
    gr_report_free(&r);
    gr_report_free(&r2);
    gr_report_free(&r3);
}

Test(suppress, comment_syntax) {
    bool bad;
    cr_assert(gr_suppress_comment_covers("x = 1; // gpurace: ignore", GR_REPORT_HANG, &bad));
    cr_assert(gr_suppress_comment_covers("/* gpurace: ignore all */", GR_REPORT_RACE, &bad));
    cr_assert(gr_suppress_comment_covers("// gpurace: ignore race, out-of-bounds -- known",
                                         GR_REPORT_OUT_OF_BOUNDS, &bad));
    cr_assert_not(gr_suppress_comment_covers("// gpurace: ignore race", GR_REPORT_FAULT, &bad));
    cr_assert_not(bad);
    cr_assert_not(gr_suppress_comment_covers("// gpurace: ignore rase", GR_REPORT_RACE, &bad));
    cr_assert(bad);
    cr_assert_not(gr_suppress_comment_covers("// gpurace: ignored", GR_REPORT_RACE, &bad));
    cr_assert_not(gr_suppress_comment_covers("x = 1; // gpurace ignore", GR_REPORT_RACE, &bad));
    cr_assert_not(gr_suppress_comment_covers("s = \"gpurace: ignore\";", GR_REPORT_RACE, &bad));
}

Test(suppress, file_rules) {
    gr_suppressions *s = gr_suppressions_new();
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_suppressions_load(s, DATA "/good.supp", &err), "%s", err.message);
    cr_assert_eq(gr_suppressions_count(s), 4);
    gr_report r;
    gr_report_init(&r);
    r.kernel = "plain";
    const char *src = GR_SOURCE_DIR "/tests/report/data/suppress.cu";
    gr_report_finding f;
    f = at_line(GR_REPORT_RACE, src, 4); /* 0: race:suppress.cu:4 (path suffix) */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_RACE, src, 5); /* 1: no rule */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_HANG, "other.cu", 1); /* 2: class:hang */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_OUT_OF_BOUNDS, src, 77); /* 3: whole-file rule */
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_FAULT, "x.cu", 1); /* 4: kernel:other_kernel */
    f.kernel = "other_kernel";
    cr_assert(gr_report_add(&r, &f, &err));
    f = at_line(GR_REPORT_RACE, "notsuppress.cu", 4); /* 5: suffix must start at a '/' */
    cr_assert(gr_report_add(&r, &f, &err));
    gr_suppress_options o = {s, false, NULL, NULL, NULL};
    cr_assert_eq(gr_report_apply_suppressions(&r, &o), 4);
    cr_assert(r.findings[0].suppressed);
    cr_assert_str_eq(r.findings[0].suppressed_by, DATA "/good.supp:2");
    cr_assert_not(r.findings[1].suppressed);
    cr_assert(r.findings[2].suppressed);
    cr_assert(r.findings[3].suppressed);
    cr_assert(r.findings[4].suppressed);
    cr_assert_not(r.findings[5].suppressed);
    cr_assert_eq(gr_report_count(&r).suppressed, 4);
    gr_report_free(&r);
    gr_suppressions_free(s);
}

Test(suppress, bad_files_name_file_and_line) {
    gr_suppressions *s = gr_suppressions_new();
    gr_error err = GR_ERROR_INIT;
    cr_assert_not(gr_suppressions_load(s, DATA "/bad.supp", &err));
    cr_assert_str_eq(err.file, DATA "/bad.supp");
    cr_assert_eq(err.line, 4);
    cr_assert_not_null(strstr(err.message, "unknown finding class 'rase'"));
    cr_assert_eq(gr_error_exit_code(&err), 2);
    gr_error_clear(&err);
    const char *bad[] = {"race", "race:f.cu:0", "race:f.cu:12x", "class:nope", "race:", "race::3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_not(gr_suppressions_parse(s, "inline", bad[i], &err), "accepted '%s'", bad[i]);
        cr_assert_eq(err.line, 1);
        gr_error_clear(&err);
    }
    cr_assert_not(gr_suppressions_load(s, DATA "/no-such-file.supp", &err));
    gr_error_clear(&err);
    gr_suppressions_free(s);
}

/* ---- backend findings ------------------------------------------------------------------------ */

Test(exec, race_finding_from_a_backend_record) {
    gr_report r;
    gr_report_init(&r);
    gr_report_launch L = {true, {2, 1, 1}, {128, 1, 1}, 0, "rr:8", "sim", "fsm", "its"};
    gr_report_set_launch(&r, &L);
    gr_finding f;
    memset(&f, 0, sizeof f);
    f.cls = GR_FINDING_RACE;
    f.insn_id = 5;
    f.insn_id2 = 9;
    f.thread = (gr_exec_thread){{0, 0, 0}, {3, 0, 0}};
    f.thread2 = (gr_exec_thread){{0, 0, 0}, {67, 0, 0}};
    f.address = 0x1008;
    f.size = 4;
    f.space = PTX_SPACE_GLOBAL;
    snprintf(f.message, sizeof f.message, "%s race on global memory: %s (12 occurrences)",
             gr_race_kind_name(GR_RACE_WAR), gr_race_cause_text(GR_CAUSE_NO_BARRIER));
    gr_report_buffer bufs[] = {{"data", PTX_SPACE_GLOBAL, 0x1000, 64, 4}};
    gr_report_exec_context ctx = {NULL, NULL, bufs, 1, NULL};
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_add_exec_finding(&r, &ctx, &f, NULL, &err));
    cr_assert_eq(r.nfindings, 1);
    const gr_report_finding *g = &r.findings[0];
    cr_assert_eq(g->kind, GR_REPORT_KIND_WAR);
    cr_assert_eq(g->count, 12);
    cr_assert_eq(g->relation, GR_RELATION_OTHER_WARP);
    cr_assert_str_eq(g->variable, "data");
    cr_assert_eq(g->element, 2);
    cr_assert_str_eq(g->primary.what, "write");
    cr_assert_str_eq(g->secondary.what, "read");
    cr_assert_not_null(strstr(g->synchronization, "__syncthreads()"));
    char obj[64];
    cr_assert_str_eq(gr_report_object_text(g, obj, sizeof obj), "data[2]");

    /* the same race through the oracle's record, volatile: a warning */
    gr_race rc;
    memset(&rc, 0, sizeof rc);
    rc.kind = GR_RACE_WAW;
    rc.cause = GR_CAUSE_NO_WARP_SYNC;
    rc.flags = GR_RACE_VOLATILE;
    rc.count = 2;
    f.thread2.thread.x = 4;
    cr_assert(gr_report_add_exec_finding(&r, &ctx, &f, &rc, &err));
    const gr_report_finding *h = &r.findings[1];
    cr_assert_eq(h->severity, GR_SEVERITY_WARNING);
    cr_assert_eq(h->kind, GR_REPORT_KIND_WAW);
    cr_assert_eq(h->relation, GR_RELATION_SAME_WARP);
    gr_report_free(&r);
}

Test(exec, other_classes_keep_the_backend_message) {
    gr_report r;
    gr_report_init(&r);
    r.file = "k.ptx";
    gr_launch_result res;
    memset(&res, 0, sizeof res);
    gr_finding f[2];
    memset(f, 0, sizeof f);
    f[0].cls = GR_FINDING_HANG;
    f[0].insn_id = UINT32_MAX;
    f[0].insn_id2 = UINT32_MAX;
    snprintf(f[0].message, sizeof f[0].message, "no termination within the step budget");
    f[1] = f[0];
    f[1].cls = GR_FINDING_FAULT;
    snprintf(f[1].message, sizeof f[1].message, "trap executed");
    res.findings = f;
    res.nfindings = 2;
    res.findings_dropped = 5;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_add_launch_result(&r, NULL, &res, &err));
    cr_assert_eq(r.nfindings, 2);
    cr_assert_eq(r.dropped, 5);
    char *t = render_text(&r, false, GR_REPORT_NORMAL);
    cr_assert_not_null(strstr(t, "k.ptx: error: kernel does not terminate: no termination within "
                                 "the step budget\n"), "%s", t);
    cr_assert_not_null(strstr(t, "error: device fault: trap executed"));
    free(t);
    gr_report_free(&r);
}

/* `.loc 1 0 0` names no line (a load shared by unrolled iterations): the access is reported at
 * the next line the compiler names, never at the PTX text's line number. */
Test(exec, an_instruction_without_a_line_takes_the_next_one) {
    static const char *ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                             ".file 1 \"k.cu\"\n"
                             ".visible .entry k(.param .u64 p)\n{\n"
                             "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
                             "\t.loc 1 5 3\n\tld.param.u64 %rd1, [p];\n"
                             "\t.loc 1 0 0\n\tld.shared.u32 %r1, [%rd1];\n"
                             "\t.loc 1 7 9\n\tadd.s32 %r2, %r1, 1;\n"
                             "\tst.shared.u32 [%rd1], %r2;\n"
                             "\tret;\n}\n";
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    cr_assert(ptx_parse(ptx, strlen(ptx), "k.ptx", &m, &err), "%s", err.message);
    ptx_srcmap *sm = ptx_srcmap_new(m);
    cr_assert_not_null(sm);
    uint32_t load = UINT32_MAX, store = UINT32_MAX;
    for (uint32_t i = 0; i < m->ninsns; i++) {
        const ptx_insn *in = ptx_module_insn(m, i, NULL);
        if (in && in->op == PTX_OP_LD && in->space == PTX_SPACE_SHARED) load = i;
        if (in && in->op == PTX_OP_ST && in->space == PTX_SPACE_SHARED) store = i;
    }
    cr_assert(load != UINT32_MAX && store != UINT32_MAX);
    gr_report r;
    gr_report_init(&r);
    gr_report_launch L = {true, {1, 1, 1}, {64, 1, 1}, 0, "rr:8", "sim", "fsm", "its"};
    gr_report_set_launch(&r, &L);
    gr_finding f;
    memset(&f, 0, sizeof f);
    f.cls = GR_FINDING_RACE;
    f.insn_id = store;
    f.insn_id2 = load;
    f.thread = (gr_exec_thread){{0, 0, 0}, {1, 0, 0}};
    f.thread2 = (gr_exec_thread){{0, 0, 0}, {33, 0, 0}};
    f.space = PTX_SPACE_SHARED;
    snprintf(f.message, sizeof f.message, "%s race on shared memory: %s (1 occurrence)",
             gr_race_kind_name(GR_RACE_WAR), gr_race_cause_text(GR_CAUSE_NO_BARRIER));
    gr_report_exec_context ctx = {m, sm, NULL, 0, "k.cu"};
    cr_assert(gr_report_add_exec_finding(&r, &ctx, &f, NULL, &err));
    const gr_report_finding *g = &r.findings[0];
    cr_expect_eq(g->primary.line, 7);
    cr_expect_str_eq(g->secondary.file, "k.cu");
    cr_expect_eq(g->secondary.line, 7, "the load's line 0 becomes the next named line");
    gr_report_free(&r);
    ptx_srcmap_free(sm);
    ptx_module_free(m);
}
