/* libFuzzer target: the genome codec is total. Any bytes decode, under each of a few fixed
 * specs, to a launch input that satisfies its spec (checked by gr_spec_check_launch, written
 * independently of the decoder); encoding that input and decoding again gives it back whenever
 * the encoder says it is exact (and always for the spec built to be exactly encodable); a
 * structure-aware mutation of the bytes decodes to a valid input too. Any violation aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/codec.h"
#include "corpus/spec.h"

typedef struct fixed_spec {
    const char *name;
    int nparams;
    const char *params[8][3]; /* name, C type, pointee (NULL for scalars) */
    const char *json;         /* NULL: the spec inferred from the signature */
    bool always_exact;
} fixed_spec;

static const fixed_spec specs[] = {
    {"inferred", 4, {{"out", "float *", "float"}, {"idx", "const int *", "int"}, {"n", "int", NULL}, {"a", "double", NULL}},
     NULL, false},
    {"exact", 8,
     {{"in", "const float *", "float"}, {"out", "short *", "short"}, {"n", "int", NULL}, {"perm", "const int *", "int"},
      {"row", "const int *", "int"}, {"col", "const int *", "int"}, {"m", "unsigned int", NULL}, {"h", "const __half *", "__half"}},
     "{\"launch\": {\"grid\": {\"range\": [1, 8], \"prefer\": [2]}, \"block\": [{\"choices\": [32, 64, 96]}, {\"range\": [1, 3]}],\n"
     "            \"shared\": {\"range\": [0, \"blockDim.x * 8\"], \"prefer\": [\"blockDim.x * 4\"]}},\n"
     " \"params\": {\"n\": {\"range\": [0, 200], \"prefer\": [\"blockDim.x\", 0, 33]},\n"
     "   \"in\": {\"length\": \"n\", \"generator\": {\"kind\": \"uniform\", \"min\": -4, \"max\": 4}},\n"
     "   \"out\": {\"length\": \"min(n, 150)\", \"output\": true, \"generator\": {\"kind\": \"index_into\", \"buffer\": \"in\"}},\n"
     "   \"perm\": {\"length\": \"n\", \"generator\": \"permutation\"},\n"
     "   \"m\": {\"choices\": [0, 3, 7]},\n"
     "   \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\", \"nodes\": {\"range\": [1, 20]},\n"
     "            \"edges\": {\"range\": [0, \"200\"]}, \"self_loops\": true}},\n"
     "   \"h\": {\"length\": 40, \"generator\": {\"kind\": \"sorted\", \"min\": -2, \"max\": 2}}}}",
     true},
    {"constrained", 7,
     {{"a", "int *", "int"}, {"b", "const long long *", "long long"}, {"n", "int", NULL}, {"k", "int", NULL},
      {"row", "const unsigned int *", "unsigned int"}, {"col", "const unsigned short *", "unsigned short"}, {"e", "int", NULL}},
     "{\"launch\": {\"grid\": {\"range\": [1, 4]}, \"block\": {\"x\": {\"range\": [1, 512]}, \"y\": {\"choices\": [1, 2]}}},\n"
     " \"params\": {\"n\": {\"range\": [0, \"threads\"]}, \"k\": {\"range\": [1, \"max(1, n)\"]},\n"
     "   \"a\": {\"length\": \"n + k\", \"generator\": {\"kind\": \"unique\", \"min\": \"-n\", \"max\": \"2 * n + k\"}},\n"
     "   \"b\": {\"length\": \"k * 3\", \"generator\": {\"kind\": \"index_into\", \"length\": \"len(a)\"}},\n"
     "   \"e\": \"len(col)\",\n"
     "   \"row\": {\"generator\": {\"kind\": \"csr_graph\", \"neighbors\": \"col\", \"nodes\": \"k\", \"edges\": \"n\",\n"
     "            \"directed\": false, \"duplicates\": false}}},\n"
     " \"preconditions\": [\"n % 3 != 1\", \"k <= n || n == 0\"]}",
     false},
};

enum { NSPECS = sizeof specs / sizeof specs[0] };

typedef struct loaded {
    gr_kernel_sig sig;
    gr_kernel_param params[8];
    gr_spec spec;
    gr_codec codec;
} loaded;

static loaded *state;

static void die(const char *spec, const char *what, const gr_error *err) {
    fprintf(stderr, "fuzz_corpus_codec: spec '%s': %s%s%s\n", spec, what, err && err->message ? ": " : "",
            err && err->message ? err->message : "");
    abort();
}

static void load_all(void) {
    state = calloc(NSPECS, sizeof *state);
    if (!state) abort();
    for (int s = 0; s < NSPECS; s++) {
        loaded *l = &state[s];
        for (int i = 0; i < specs[s].nparams; i++) {
            gr_kernel_param *p = &l->params[i];
            p->name = (char *)specs[s].params[i][0];
            p->c_type = (char *)specs[s].params[i][1];
            p->elem_type = (char *)specs[s].params[i][2];
            p->kind = p->elem_type ? GR_PARAM_POINTER : GR_PARAM_SCALAR;
            gr_elem_type t = GR_ELEM_U64;
            if (!p->elem_type && !gr_elem_parse(p->c_type, &t)) abort();
            p->size = gr_elem_size(t);
            p->ptx_type = PTX_TYPE_B64;
        }
        l->sig.name = (char *)specs[s].name;
        l->sig.ptx_name = (char *)specs[s].name;
        l->sig.params = l->params;
        l->sig.nparams = specs[s].nparams;
        gr_error err = GR_ERROR_INIT;
        bool ok = specs[s].json ? gr_spec_parse(&l->spec, specs[s].json, specs[s].name, &l->sig, &err)
                                : gr_spec_infer(&l->spec, &l->sig, &err);
        if (!ok || !gr_codec_init(&l->codec, &l->spec, &err)) die(specs[s].name, "does not load", &err);
    }
}

static void check_one(int s, const uint8_t *data, size_t size) {
    loaded *l = &state[s];
    const char *name = specs[s].name;
    gr_error err = GR_ERROR_INIT;
    gr_input in, back;
    if (!gr_codec_decode(&l->codec, data, size, &in, &err)) die(name, "decoding failed", &err);
    if (!gr_spec_check_launch(&l->spec, &in, &err)) die(name, "decoded input breaks its spec", &err);
    if (!specs[s].json) { /* inferred buffers are large: decoding is the point, keep runs fast */
        gr_input_free(&in);
        return;
    }
    uint8_t *genome;
    size_t n;
    bool exact;
    if (!gr_codec_encode(&l->codec, &in, &genome, &n, &exact, &err)) die(name, "encoding failed", &err);
    if (specs[s].always_exact && !exact) die(name, "encoding is not exact", NULL);
    if (n != gr_codec_genome_size(&l->codec)) die(name, "encoded genome has the wrong size", NULL);
    if (!gr_codec_decode(&l->codec, genome, n, &back, &err)) die(name, "re-decoding failed", &err);
    if (exact && !gr_input_equal(&in, &back)) die(name, "decode(encode(x)) != x", NULL);
    if (!gr_spec_check_launch(&l->spec, &back, &err)) die(name, "re-decoded input breaks its spec", &err);
    gr_input_free(&back);
    /* a structure-aware mutation of the re-encoded genome still decodes to a valid input */
    uint64_t seed = size ? data[0] * 0x9e3779b97f4a7c15ULL + size : 1;
    n = gr_codec_mutate(&l->codec, genome, n, n, seed);
    if (!gr_codec_decode(&l->codec, genome, n, &back, &err)) die(name, "decoding a mutation failed", &err);
    if (!gr_spec_check_launch(&l->spec, &back, &err)) die(name, "mutated input breaks its spec", &err);
    gr_input_free(&back);
    free(genome);
    gr_input_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!state) load_all();
    /* Inferred buffers hold up to 4 x 65536 elements, which makes that spec 10-100 times slower
     * than the others: it sees one input in four, so the search keeps its pace. */
    for (int s = 0; s < NSPECS; s++)
        if (specs[s].json || size == 0 || data[size - 1] % 4 == 0) check_one(s, data, size);
    return 0;
}
