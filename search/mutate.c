/* mutate.c — custom mutator, crossover and the PTX constant dictionary (see mutate.h). */
#include "search/mutate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/generate.h"

static uint64_t next(uint64_t *s) {
    *s += 0x9e3779b97f4a7c15ull;
    return gr_mix64(*s);
}

static void dict_add(gr_dictionary *d, int64_t v) {
    if (v >= -1 && v <= 2) return;
    for (int i = 0; i < d->n; i++)
        if (d->values[i] == v) return;
    if (d->n < GR_DICT_MAX) d->values[d->n++] = v;
}

void gr_dictionary_from_ptx(const char *ptx, gr_dictionary *d) {
    d->n = 0;
    const char *p = ptx;
    while (p && *p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        /* instruction lines start with white space then a letter or '@' (predicated) */
        const char *s = p;
        while (s < p + len && (*s == ' ' || *s == '\t')) s++;
        bool insn = s < p + len && (isalpha((unsigned char)*s) || *s == '@') && s != p;
        if (insn) {
            for (const char *q = s; q < p + len; q++) {
                char prev = q > s ? q[-1] : ' ';
                bool start = (prev == ' ' || prev == ',' || prev == '\t' || prev == '[' || prev == '+');
                if (!start) continue;
                const char *r = q;
                bool neg = false;
                if (*r == '-') {
                    neg = true;
                    r++;
                }
                if (!isdigit((unsigned char)*r)) continue;
                char *end;
                int64_t v;
                if (r[0] == '0' && (r[1] == 'x' || r[1] == 'X'))
                    v = (int64_t)strtoull(r, &end, 16);
                else if (r[0] == '0' && (r[1] == 'f' || r[1] == 'd' || r[1] == 'F' || r[1] == 'D'))
                    continue; /* float bit patterns */
                else
                    v = (int64_t)strtoull(r, &end, 10);
                if (isalnum((unsigned char)*end) || *end == '_' || *end == '.') continue;
                dict_add(d, neg ? -v : v);
                q = end - 1;
            }
        }
        p = eol ? eol + 1 : NULL;
    }
}

/* Sets a scalar or a few elements of one buffer to a dictionary constant (or its neighbor). */
static size_t dict_mutate(const gr_codec *codec, const gr_dictionary *dict, uint8_t *data,
                          size_t size, size_t max_size, uint64_t *rng) {
    if (dict->n == 0) return 0;
    gr_input in;
    if (!gr_codec_decode(codec, data, size, &in, NULL)) return 0;
    int64_t v = dict->values[next(rng) % (uint64_t)dict->n];
    int tweak = (int)(next(rng) % 4);
    if (tweak == 1) v += 1;
    else if (tweak == 2) v -= 1;
    int targets = 0;
    for (int i = 0; i < in.nargs; i++)
        if (in.args[i].kind == GR_INPUT_SCALAR && !gr_elem_is_float(in.args[i].type)) targets++;
    for (int i = 0; i < in.nbuffers; i++)
        if (in.buffers[i].count && !gr_elem_is_float(in.buffers[i].type)) targets++;
    bool changed = false;
    if (targets) {
        int pick = (int)(next(rng) % (uint64_t)targets);
        for (int i = 0; i < in.nargs && !changed; i++)
            if (in.args[i].kind == GR_INPUT_SCALAR && !gr_elem_is_float(in.args[i].type) && pick-- == 0) {
                in.args[i].bits = gr_scalar_from_i64(in.args[i].type, v);
                changed = true;
            }
        for (int i = 0; i < in.nbuffers && !changed; i++) {
            gr_input_buffer *b = &in.buffers[i];
            if (!b->count || gr_elem_is_float(b->type) || pick-- != 0) continue;
            uint64_t reach = b->count < GR_CODEC_DIRECT_WORDS ? b->count : GR_CODEC_DIRECT_WORDS;
            int k = 1 + (int)(next(rng) % 3);
            int es = gr_elem_size(b->type);
            uint64_t bits = gr_scalar_from_i64(b->type, v);
            for (int j = 0; j < k; j++) {
                /* headers and keys sit at the front (`if (key[0] == MAGIC)`): favor it */
                unsigned where = (unsigned)(next(rng) % 4);
                uint64_t at = where == 0 ? 0 : where == 1 ? next(rng) % (reach < 8 ? reach : 8)
                                                          : next(rng) % reach;
                memcpy(b->data + at * (uint64_t)es, &bits, (size_t)es); /* little-endian */
            }
            changed = true;
        }
    }
    size_t result = 0;
    uint8_t *g = NULL;
    size_t gn = 0;
    bool exact;
    if (changed && gr_codec_encode(codec, &in, &g, &gn, &exact, NULL) && gn <= max_size) {
        memcpy(data, g, gn);
        result = gn;
    }
    free(g);
    gr_input_free(&in);
    return result;
}

size_t gr_search_mutate(const gr_codec *codec, const gr_dictionary *dict, uint8_t *data,
                        size_t size, size_t max_size, uint64_t seed, gr_raw_mutate_fn raw) {
    uint64_t rng = seed;
    unsigned choice = (unsigned)(next(&rng) % 100);
    if (choice < 20) {
        size_t n = dict_mutate(codec, dict, data, size, max_size, &rng);
        if (n) return n;
    } else if (choice < 35 && raw && size > 0) {
        size_t n = raw(data, size, max_size);
        if (n) return n;
    } else if (choice < 55) {
        int k = 2 + (int)(next(&rng) % 4);
        for (int i = 0; i < k; i++) size = gr_codec_mutate(codec, data, size, max_size, next(&rng));
        return size;
    }
    return gr_codec_mutate(codec, data, size, max_size, next(&rng));
}

size_t gr_search_crossover(const gr_codec *codec, const uint8_t *a, size_t na, const uint8_t *b,
                           size_t nb, uint8_t *out, size_t max_size, uint64_t seed) {
    size_t n = codec->genome_size < max_size ? codec->genome_size : max_size;
    uint64_t rng = seed;
    memset(out, 0, n);
    for (size_t i = 0; i < n && i < na; i++) out[i] = a[i];
    for (int f = 0; f < codec->nfields; f++) {
        const gr_codec_field *fd = &codec->fields[f];
        if (next(&rng) & 1) continue; /* keep a's */
        for (size_t i = fd->offset; i < fd->offset + fd->size && i < n; i++)
            out[i] = i < nb ? b[i] : 0;
    }
    return n;
}
