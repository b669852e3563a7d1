#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/hash.h"
#include "corpus/corpus_dir.h"
#include "corpus/witness.h"
#include "fixture.h"

static const char *const w_decls[] = {"float *out", "const __half *h", "const double *d", "unsigned long long big",
                                      "float alpha", "struct:6 cfg", "const signed char *c", "int n"};

static const char w_spec[] =
    "{\"launch\": {\"grid\": 3, \"block\": [64, 2], \"shared\": 100},\n"
    " \"params\": {\"out\": {\"length\": 77, \"output\": true, \"generator\": {\"kind\": \"uniform\", \"min\": -1e30, \"max\": 1e30}},\n"
    "   \"h\": {\"length\": 9, \"generator\": {\"kind\": \"uniform\", \"min\": -100, \"max\": 100}},\n"
    "   \"d\": {\"length\": 300},\n"
    "   \"big\": {\"value\": 9223372036854775807},\n"
    "   \"alpha\": {\"range\": [-3, 3]},\n"
    "   \"c\": {\"length\": 5, \"generator\": {\"kind\": \"uniform\", \"min\": -128, \"max\": 127}},\n"
    "   \"n\": {\"value\": -7}}}";

static const char source[] = "__global__ void w(float *out) { out[threadIdx.x] = 1; }";

/* A witness with every kind of field filled, its input decoded from `seed`'s genome. */
static void make_witness(gr_witness *w, uint64_t seed) {
    gr_kernel_sig *sig = fixture_sig("w", 8, w_decls);
    gr_spec spec;
    fixture_spec(&spec, w_spec, sig);
    gr_codec codec;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_codec_init(&codec, &spec, &err));
    uint8_t genome[8192];
    fixture_random_bytes(seed, genome, sizeof genome);
    memset(w, 0, sizeof *w);
    cr_assert(gr_codec_decode(&codec, genome, sizeof genome, &w->input, &err), "%s", err.message);
    /* values JSON numbers cannot carry: bit patterns must survive anyway */
    w->input.args[3].bits = 0xfedcba9876543210ULL; /* u64 above INT64_MAX */
    w->input.args[4].bits = 0x7fc00001;            /* a NaN with payload */
    float neg_zero = -0.0f;
    memcpy(w->input.buffers[0].data, &neg_zero, 4);
    w->input.schedule = (gr_input_schedule){GR_INPUT_SCHED_PCT, UINT64_MAX - 5, 17, 3};
    w->tool_version = strdup("0.1.0");
    w->source_hash = gr_hash64(source, strlen(source));
    w->kernel = strdup("w");
    w->ncompile_options = 2;
    w->compile_options = calloc(2, sizeof(char *));
    w->compile_options[0] = strdup("-arch=sm_80");
    w->compile_options[1] = strdup("-lineinfo");
    w->backend = strdup("sim");
    w->nfindings = 2;
    w->findings = calloc(2, sizeof *w->findings);
    gr_witness_finding *f = &w->findings[0];
    f->cls = strdup("race");
    f->kind = strdup("write-write");
    f->space = strdup("global");
    f->signature = 0x8000000000000001ULL;
    f->has_address = true;
    f->address = 0x7f0000001000ULL;
    f->message = strdup("two threads write out[0]");
    f->naccesses = 2;
    f->accesses[0] = (gr_witness_access){strdup("w.cu"), 1, strdup("write"), 12, {0, 0, 0}, {0, 0, 0}};
    f->accesses[1] = (gr_witness_access){strdup("w.cu"), 1, strdup("write"), 12, {2, 0, 0}, {63, 1, 0}};
    w->findings[1].cls = strdup("barrier-divergence");
    w->findings[1].signature = 7;
    w->nverdicts = 1;
    w->verdicts = calloc(1, sizeof *w->verdicts);
    w->verdicts[0] = (gr_witness_verdict){strdup("seqcmp"), strdup("differs"), strdup("out[0]: 1 vs 2")};
    gr_codec_free(&codec);
    gr_spec_free(&spec);
    fixture_sig_free(sig);
}

static char *temp_path(const char *name) {
    char *p = malloc(512);
    snprintf(p, 512, "%s/corpus_witness_%ld_%s.json", GR_BINARY_DIR, (long)getpid(), name);
    return p;
}

Test(witness, save_load_round_trip_is_bit_exact) {
    for (uint64_t seed = 1; seed <= 20; seed++) {
        gr_witness w, back;
        make_witness(&w, seed);
        char *path = temp_path("rt");
        gr_error err = GR_ERROR_INIT;
        cr_assert(gr_witness_save(&w, path, &err), "%s", err.message);
        uint64_t hash = gr_hash64(source, strlen(source));
        cr_assert(gr_witness_load(&back, path, &hash, false, &err), "%s", err.message);
        cr_assert(gr_input_equal(&w.input, &back.input), "input differs after the round trip");
        for (int b = 0; b < w.input.nbuffers; b++)
            cr_assert(memcmp(w.input.buffers[b].data, back.input.buffers[b].data, w.input.buffers[b].bytes) == 0);
        cr_assert_eq(back.input.args[3].bits, 0xfedcba9876543210ULL);
        cr_assert_eq(back.input.args[4].bits, 0x7fc00001);
        cr_assert_str_eq(back.input.args[7].name, "n");
        cr_assert_eq(back.input.args[5].nbytes, 6);
        cr_assert_eq(back.input.schedule.seed, UINT64_MAX - 5);
        cr_assert_eq(back.source_hash, w.source_hash);
        cr_assert_str_eq(back.kernel, "w");
        cr_assert_str_eq(back.compile_options[1], "-lineinfo");
        cr_assert_str_eq(back.backend, "sim");
        cr_assert_eq(back.nfindings, 2);
        cr_assert_str_eq(back.findings[0].kind, "write-write");
        cr_assert_eq(back.findings[0].signature, 0x8000000000000001ULL);
        cr_assert_eq(back.findings[0].address, 0x7f0000001000ULL);
        cr_assert_eq(back.findings[0].accesses[1].thread[0], 63);
        cr_assert_eq(back.findings[0].accesses[1].block[0], 2);
        cr_assert_eq(back.findings[0].accesses[0].instr, 12);
        cr_assert_eq(back.findings[1].naccesses, 0);
        cr_assert_not(back.findings[1].has_address);
        cr_assert_str_eq(back.verdicts[0].detail, "out[0]: 1 vs 2");
        /* saving what was loaded gives the same file */
        gr_strbuf a = GR_STRBUF_INIT, b = GR_STRBUF_INIT;
        cr_assert(gr_witness_to_json(&w, &a, &err) && gr_witness_to_json(&back, &b, &err));
        cr_assert_str_eq(gr_strbuf_cstr(&a), gr_strbuf_cstr(&b));
        gr_strbuf_free(&a);
        gr_strbuf_free(&b);
        remove(path);
        free(path);
        gr_witness_free(&w);
        gr_witness_free(&back);
    }
}

Test(witness, refuses_another_kernel_unless_forced) {
    gr_witness w, back;
    make_witness(&w, 3);
    char *path = temp_path("hash");
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_save(&w, path, &err));
    uint64_t other = 0x1234;
    cr_assert_not(gr_witness_load(&back, path, &other, false, &err));
    cr_assert_eq(err.status, GR_ERR_INPUT);
    cr_assert(strstr(err.message, "kernel.source_hash: the witness is for a different kernel source"), "%s", err.message);
    cr_assert(strstr(err.message, "this source 0000000000001234"), "%s", err.message);
    gr_error_clear(&err);
    cr_assert(gr_witness_load(&back, path, &other, true, &err), "%s", err.message);
    gr_witness_free(&back);
    remove(path);
    free(path);
    gr_witness_free(&w);
}

/* Edits one field of a valid witness and expects `message` from the loader. */
static void expect_rejected(const char *pointer_key, json_t *(*edit)(json_t *root), const char *message) {
    gr_witness w, back;
    make_witness(&w, 9);
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_to_json(&w, &sb, &err));
    json_t *root = json_loads(gr_strbuf_cstr(&sb), 0, NULL);
    cr_assert(root);
    edit(root);
    char *text = json_dumps(root, 0);
    cr_assert_not(gr_witness_parse(&back, text, "w.json", NULL, false, &err), "%s: accepted", pointer_key);
    cr_assert_eq(err.status, GR_ERR_INPUT);
    cr_assert_str_eq(err.message, message, "%s", pointer_key);
    cr_assert_str_eq(err.file, "w.json");
    gr_error_clear(&err);
    free(text);
    json_decref(root);
    gr_strbuf_free(&sb);
    gr_witness_free(&w);
}

static json_t *bad_format(json_t *r) { json_object_set_new(r, "format", json_string("other")); return r; }
static json_t *bad_version(json_t *r) { json_object_set_new(r, "version", json_integer(9)); return r; }
static json_t *unknown_key(json_t *r) { json_object_set_new(json_object_get(r, "launch"), "warps", json_integer(1)); return r; }
static json_t *big_block(json_t *r) {
    json_object_set_new(json_object_get(r, "launch"), "block", json_pack("[iii]", 64, 64, 1));
    return r;
}
static json_t *short_buffer(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "buffers"), 0), "base64", json_string("AAAA"));
    return r;
}
static json_t *bad_base64(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "buffers"), 1), "base64", json_string("!!!!"));
    return r;
}
static json_t *wrong_bytes(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "buffers"), 2), "bytes", json_integer(5));
    return r;
}
static json_t *value_mismatch(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "arguments"), 7), "value", json_integer(8));
    return r;
}
static json_t *bits_too_wide(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "arguments"), 7), "bits", json_string("0x100000000"));
    return r;
}
static json_t *bad_sched(json_t *r) { json_object_set_new(json_object_get(r, "schedule"), "kind", json_string("fifo")); return r; }
static json_t *bad_class(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "findings"), 1), "class", json_string("bug"));
    return r;
}
static json_t *buffer_twice(json_t *r) {
    json_object_set_new(json_array_get(json_object_get(r, "arguments"), 1), "buffer", json_integer(0));
    return r;
}
static json_t *bad_hash(json_t *r) {
    json_object_set_new(json_object_get(r, "kernel"), "source_hash", json_string("xyz"));
    return r;
}
static json_t *no_findings(json_t *r) { json_object_del(r, "findings"); return r; }

Test(witness, every_field_is_validated_with_its_path) {
    expect_rejected("format", bad_format, "format: 'other' is not \"gpurace-witness\"");
    expect_rejected("version", bad_version, "version: this gpurace reads witness versions 1 to 2, not 9");
    expect_rejected("unknown", unknown_key, "launch.warps: unknown key");
    expect_rejected("block", big_block, "launch.block: more than 1024 threads");
    expect_rejected("short", short_buffer, "buffers[0].base64: decodes to 3 bytes, expected 308");
    expect_rejected("base64", bad_base64, "buffers[1].base64: not valid base64");
    expect_rejected("bytes", wrong_bytes, "buffers[2].bytes: 5 bytes for 300 elements of f64");
    expect_rejected("value", value_mismatch, "arguments[7].value: does not match the bits 0x00000000fffffff9");
    expect_rejected("bits", bits_too_wide, "arguments[7].bits: more bits than a i32 holds");
    expect_rejected("sched", bad_sched, "schedule.kind: unknown schedule 'fifo' (round-robin, random, serialized, pct, reverse)");
    expect_rejected("class", bad_class, "findings[1].class: unknown class 'bug' (race, barrier-divergence, out-of-bounds, hang, fault)");
    expect_rejected("twice", buffer_twice, "arguments[1].buffer: buffers[0] belongs to argument 0");
    expect_rejected("hash", bad_hash, "kernel.source_hash: 'xyz' is not 16 hexadecimal digits");
    expect_rejected("findings", no_findings, "findings: missing");
}

/* Version 2: pointer arguments into one allocation share its buffer, each at its offset. */
Test(witness, pointers_into_one_allocation_share_a_buffer) {
    gr_witness w;
    make_witness(&w, 3);
    gr_input *in = &w.input;
    /* argument 2 (d, f64) moves into buffer 0 (out, f32: 77 elements, 308 bytes) at byte 8 */
    int gone = in->args[2].buffer;
    cr_assert_eq(gone, 2);
    gr_input_buffer dropped = in->buffers[gone];
    free(dropped.name);
    free(dropped.data);
    memmove(&in->buffers[gone], &in->buffers[gone + 1], (size_t)(in->nbuffers - gone - 1) * sizeof *in->buffers);
    in->nbuffers--;
    for (int i = 0; i < in->nargs; i++)
        if (in->args[i].kind == GR_INPUT_BUFFER && in->args[i].buffer > gone) in->args[i].buffer--;
    in->args[2].buffer = 0;
    in->args[2].offset = 8;
    in->args[2].type = GR_ELEM_F64;
    cr_assert(gr_input_has_aliases(in));
    gr_strbuf text = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_to_json(&w, &text, &err), "%s", err.message);
    cr_assert(strstr(gr_strbuf_cstr(&text), "\"version\": 2"), "written as version 2:\n%s", gr_strbuf_cstr(&text));
    gr_witness back;
    cr_assert(gr_witness_parse(&back, gr_strbuf_cstr(&text), "w.json", NULL, false, &err), "%s", err.message);
    cr_assert(gr_input_equal(in, &back.input));
    cr_assert_eq(back.input.args[2].offset, 8);
    cr_assert_eq(back.input.args[2].type, GR_ELEM_F64);
    /* what each pointer sees: d views 300 bytes of out's 308 as 37 doubles */
    gr_input views;
    cr_assert(gr_input_views(&back.input, &views));
    cr_assert_eq(views.nbuffers, 4);
    const gr_input_buffer *d = &views.buffers[views.args[2].buffer];
    cr_assert_eq(d->type, GR_ELEM_F64);
    cr_assert_eq(d->count, 37);
    cr_assert(memcmp(d->data, in->buffers[0].data + 8, 37 * 8) == 0);
    cr_assert_not(gr_input_has_aliases(&views));
    /* a version 1 witness cannot say it */
    char *v1 = strdup(gr_strbuf_cstr(&text));
    char *ver = strstr(v1, "\"version\": 2");
    ver[11] = '1';
    gr_witness old;
    cr_assert_not(gr_witness_parse(&old, v1, "w.json", NULL, false, &err));
    cr_assert(strstr(err.message, "arguments[2]"), "%s", err.message);
    gr_error_clear(&err);
    free(v1);
    gr_input_free(&views);
    gr_witness_free(&back);
    gr_witness_free(&w);
    gr_strbuf_free(&text);
}

/* The optional "input" object: where the input came from. */
Test(witness, origin_round_trips) {
    gr_witness w, back;
    make_witness(&w, 4);
    w.origin.kind = strdup("outside-spec");
    w.origin.seed = strdup("seeds/k/launch-1.json");
    w.origin.assumption = strdup("needs idx to repeat a value");
    gr_strbuf text = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_to_json(&w, &text, &err));
    cr_assert(strstr(gr_strbuf_cstr(&text), "\"version\": 1"), "no aliases: version 1");
    cr_assert(gr_witness_parse(&back, gr_strbuf_cstr(&text), "w.json", NULL, false, &err), "%s", err.message);
    cr_assert_str_eq(back.origin.kind, "outside-spec");
    cr_assert_str_eq(back.origin.seed, "seeds/k/launch-1.json");
    cr_assert_str_eq(back.origin.assumption, "needs idx to repeat a value");
    cr_assert_null(back.origin.spec);
    char *bad = strdup(gr_strbuf_cstr(&text));
    char *o = strstr(bad, "outside-spec");
    memcpy(o, "outside-abcd", 12);
    gr_witness_free(&back);
    cr_assert_not(gr_witness_parse(&back, bad, "w.json", NULL, false, &err));
    cr_assert(strstr(err.message, "input.origin"), "%s", err.message);
    gr_error_clear(&err);
    free(bad);
    gr_witness_free(&w);
    gr_strbuf_free(&text);
}

/* A program of several files: kernel.file and kernel.linked_files survive a round trip, in
 * order; linked files without the kernel's file, or that are not names, are refused. */
static json_t *linked_without_file(json_t *r) {
    json_t *k = json_object_get(r, "kernel");
    json_object_del(k, "file");
    json_object_set_new(k, "linked_files", json_pack("[s]", "helpers.cu"));
    return r;
}
static json_t *linked_not_names(json_t *r) {
    json_t *k = json_object_get(r, "kernel");
    json_object_set_new(k, "file", json_string("w.cu"));
    json_object_set_new(k, "linked_files", json_pack("[si]", "helpers.cu", 3));
    return r;
}
static json_t *linked_empty(json_t *r) {
    json_t *k = json_object_get(r, "kernel");
    json_object_set_new(k, "file", json_string("w.cu"));
    json_object_set_new(k, "linked_files", json_array());
    return r;
}

Test(witness, linked_files_keep_their_order) {
    gr_witness w, back;
    make_witness(&w, 3);
    w.source_file = strdup("w.cu");
    w.nlinked_files = 2;
    w.linked_files = calloc(2, sizeof *w.linked_files);
    w.linked_files[0] = strdup("helpers.cu");
    w.linked_files[1] = strdup("lib/counters.cu");
    gr_strbuf sb = GR_STRBUF_INIT;
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_witness_to_json(&w, &sb, &err), "%s", err.message);
    cr_assert(gr_witness_parse(&back, gr_strbuf_cstr(&sb), "w.json", NULL, false, &err), "%s", err.message);
    cr_assert_str_eq(back.source_file, "w.cu");
    cr_assert_eq(back.nlinked_files, 2);
    cr_assert_str_eq(back.linked_files[0], "helpers.cu");
    cr_assert_str_eq(back.linked_files[1], "lib/counters.cu");
    gr_strbuf_free(&sb);
    gr_witness_free(&back);
    gr_witness_free(&w);
    expect_rejected("linked without file", linked_without_file,
                    "kernel.linked_files: needs kernel.file, the file they are linked with");
    expect_rejected("linked not names", linked_not_names, "kernel.linked_files[1]: expected a file name");
    expect_rejected("linked empty", linked_empty, "kernel.linked_files: expected an array of 1 to 63 file names");
}

Test(witness, base64_round_trips_every_length) {
    uint8_t data[64];
    for (int i = 0; i < 64; i++) data[i] = (uint8_t)(i * 37 + 11);
    for (size_t n = 0; n <= 64; n++) {
        char *text = gr_base64_encode(data, n);
        cr_assert(text);
        cr_assert_eq(strlen(text), 4 * ((n + 2) / 3));
        uint8_t *back;
        size_t m;
        cr_assert(gr_base64_decode(text, strlen(text), &back, &m));
        cr_assert_eq(m, n);
        cr_assert(n == 0 || memcmp(back, data, n) == 0);
        free(back);
        free(text);
    }
    char *t = gr_base64_encode((const uint8_t *)"gpurace", 7);
    cr_assert_str_eq(t, "Z3B1cmFjZQ==");
    free(t);
    uint8_t *out;
    size_t n;
    cr_assert_not(gr_base64_decode("Z3B", 3, &out, &n));
    cr_assert_not(gr_base64_decode("Z=B1", 4, &out, &n));
    cr_assert_not(gr_base64_decode("Z3B*", 4, &out, &n));
}

Test(witness, corpus_directories_hold_genomes_and_findings) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/corpus_dir_test_%ld", GR_BINARY_DIR, (long)getpid());
    gr_error err = GR_ERROR_INIT;
    char *p1, *p2, *p3;
    cr_assert(gr_corpus_save_genome(dir, (const uint8_t *)"abc", 3, &p1, &err), "%s", err.message);
    cr_assert(gr_corpus_save_genome(dir, (const uint8_t *)"abd", 3, &p2, &err));
    cr_assert(gr_corpus_save_genome(dir, (const uint8_t *)"abc", 3, &p3, &err));
    cr_assert_str_eq(p1, p3, "a genome's name is its content hash");
    cr_assert_str_neq(p1, p2);
    gr_witness w, back;
    make_witness(&w, 4);
    char *wp;
    cr_assert(gr_corpus_save_witness(dir, &w, &wp, &err), "%s", err.message);
    cr_assert(strstr(wp, "/findings/race-8000000000000001.json"), "%s", wp);
    gr_corpus_listing l;
    cr_assert(gr_corpus_list(dir, &l, &err), "%s", err.message);
    cr_assert_eq(l.ngenomes, 2);
    cr_assert_eq(l.nwitnesses, 1);
    cr_assert_str_eq(l.witnesses[0], wp);
    cr_assert(strcmp(l.genomes[0], l.genomes[1]) < 0, "sorted");
    size_t n;
    char *bytes = gr_read_file(p2, &n, &err);
    cr_assert(bytes && n == 3 && memcmp(bytes, "abd", 3) == 0);
    free(bytes);
    cr_assert(gr_witness_load(&back, wp, NULL, false, &err), "%s", err.message);
    cr_assert(gr_input_equal(&w.input, &back.input));
    gr_witness_free(&back);
    for (int i = 0; i < l.ngenomes; i++) remove(l.genomes[i]);
    remove(wp);
    char findings[600];
    snprintf(findings, sizeof findings, "%s/findings", dir);
    rmdir(findings);
    rmdir(dir);
    gr_corpus_listing_free(&l);
    cr_assert_not(gr_corpus_list(dir, &l, &err), "a missing directory is an error");
    cr_assert_eq(err.status, GR_ERR_IO);
    gr_error_clear(&err);
    free(p1);
    free(p2);
    free(p3);
    free(wp);
    gr_witness_free(&w);
}

Test(witness, inputs_are_checked_against_the_signature) {
    gr_witness w;
    make_witness(&w, 11);
    gr_kernel_sig *sig = fixture_sig("w", 8, w_decls);
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_input_check_signature(&w.input, sig, &err), "%s", err.message);
    static const char *const other[] = {"float *out", "const __half *h", "const double *d", "unsigned long long big",
                                        "double alpha", "struct:6 cfg", "const signed char *c", "int n"};
    gr_kernel_sig *sig2 = fixture_sig("w", 8, other);
    cr_assert_not(gr_input_check_signature(&w.input, sig2, &err));
    cr_assert_str_eq(err.message, "arguments[4] (alpha): a f32 (4 bytes), the parameter has 8 bytes");
    gr_error_clear(&err);
    sig->nparams = 7;
    cr_assert_not(gr_input_check_signature(&w.input, sig, &err));
    cr_assert_str_eq(err.message, "the input has 8 arguments; kernel w takes 7");
    gr_error_clear(&err);
    sig->nparams = 8;
    /* the bytes each argument puts in the parameter space */
    uint64_t addr[4] = {0x1000, 0x2000, 0x3000, 0x4000};
    uint8_t out[64];
    cr_assert_eq(gr_input_arg_bytes(&w.input, 0, addr, out, sizeof out), 8);
    uint64_t a0;
    memcpy(&a0, out, 8);
    cr_assert_eq(a0, addr[w.input.args[0].buffer]);
    cr_assert_eq(gr_input_arg_bytes(&w.input, 7, addr, out, sizeof out), 4);
    int32_t n;
    memcpy(&n, out, 4);
    cr_assert_eq(n, -7);
    cr_assert_eq(gr_input_arg_bytes(&w.input, 5, addr, out, sizeof out), 6);
    cr_assert_eq(gr_input_arg_bytes(&w.input, 5, addr, out, 4), 0, "too small a buffer");
    cr_assert_eq(gr_input_arg_bytes(&w.input, 8, addr, out, sizeof out), 0);
    fixture_sig_free(sig2);
    fixture_sig_free(sig);
    gr_witness_free(&w);
}
