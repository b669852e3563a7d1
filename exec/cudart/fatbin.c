/* fatbin.c — reading nvcc fat binaries (layout in exec/cudart/README.md). */
#include "exec/cudart/fatbin.h"

#include <inttypes.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Entry kinds and flags as nvcc writes them. */
enum {
    ENTRY_PTX = 1,
    ENTRY_CUBIN = 2,
    FLAG_LZ4 = 0x2000,  /* --compress-mode=speed */
    FLAG_ZSTD = 0x8000, /* the default of CUDA 12.8 and later */
    FATBIN_HEADER_BYTES = 16,
    ENTRY_HEADER_MIN = 64,
    /* A fat binary larger than this is taken as a corrupt header, not allocated. */
    FATBIN_MAX_BYTES = 1u << 30,
    PTX_MAX_BYTES = 1u << 30,
};

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* A NUL-terminated copy of header bytes [off, off+len) when they lie inside the header. */
static char *header_string(const uint8_t *h, uint32_t hsize, uint32_t off, uint32_t len) {
    if (off == 0 || len == 0 || off >= hsize || len > hsize - off) return NULL;
    size_t n = strnlen((const char *)h + off, len);
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, h + off, n);
    s[n] = '\0';
    /* nvcc pads option strings with spaces */
    while (n > 0 && s[n - 1] == ' ') s[--n] = '\0';
    char *start = s;
    while (*start == ' ') start++;
    if (start != s) memmove(s, start, strlen(start) + 1);
    if (!*s) {
        free(s);
        return NULL;
    }
    return s;
}

/* The entry's payload as PTX text: decompressed when its flags say so. */
static bool payload_text(const uint8_t *payload, uint64_t psize, uint64_t flags, uint32_t csize,
                         uint64_t dsize, char **text, size_t *len, gr_error *err) {
    const char *how = (flags & FLAG_ZSTD) ? "zstd" : (flags & FLAG_LZ4) ? "LZ4" : NULL;
    if (how) {
        if (dsize == 0 || dsize > PTX_MAX_BYTES || csize == 0 || csize > psize)
            return gr_fail(err, GR_ERR_INPUT,
                           "a %s-compressed PTX entry of the fat binary has implausible sizes "
                           "(%" PRIu32 " compressed, %" PRIu64 " decompressed)",
                           how, csize, dsize);
    } else if (psize > PTX_MAX_BYTES) {
        return gr_fail(err, GR_ERR_INPUT, "a PTX entry of the fat binary is implausibly large");
    }
    uint64_t n = how ? dsize : psize;
    char *out = malloc(n + 1);
    if (!out) return gr_fail(err, GR_ERR_NOMEM, "out of memory reading the fat binary");
    if (flags & FLAG_ZSTD) {
        size_t got = ZSTD_decompress(out, n, payload, csize);
        if (ZSTD_isError(got) || got != n) {
            free(out);
            return gr_fail(err, GR_ERR_INPUT, "cannot decompress a zstd PTX entry of the fat binary: %s",
                           ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
        }
    } else if (flags & FLAG_LZ4) {
        if (n > INT32_MAX || csize > INT32_MAX) {
            free(out);
            return gr_fail(err, GR_ERR_INPUT, "an LZ4 PTX entry of the fat binary is too large");
        }
        int got = LZ4_decompress_safe((const char *)payload, out, (int)csize, (int)n);
        if (got < 0 || (uint64_t)got != n) {
            free(out);
            return gr_fail(err, GR_ERR_INPUT, "cannot decompress an LZ4 PTX entry of the fat binary");
        }
    } else {
        memcpy(out, payload, n);
    }
    out[n] = '\0';
    *len = strlen(out); /* entries are padded with NULs */
    *text = out;
    return true;
}

bool gr_fatbin_parse(const void *data, size_t max, gr_fatbin *out, gr_error *err) {
    const uint8_t *p = data;
    if (!p || max < FATBIN_HEADER_BYTES) return gr_fail(err, GR_ERR_INPUT, "the fat binary is empty");
    if (rd32(p) != GR_FATBIN_MAGIC)
        return gr_fail(err, GR_ERR_INPUT, "not an nvcc fat binary (magic 0x%08" PRIx32 ")", rd32(p));
    uint16_t hsize = rd16(p + 6);
    uint64_t size = rd64(p + 8);
    if (hsize < FATBIN_HEADER_BYTES || size > FATBIN_MAX_BYTES || hsize + size > max)
        return gr_fail(err, GR_ERR_INPUT, "the fat binary's header gives an impossible size (%" PRIu64 ")",
                       size);
    const uint8_t *e = p + hsize, *end = p + hsize + size;
    while (e < end) {
        if ((size_t)(end - e) < ENTRY_HEADER_MIN)
            return gr_fail(err, GR_ERR_INPUT, "a fat binary entry is cut short");
        uint16_t kind = rd16(e);
        uint32_t ehs = rd32(e + 4);
        uint64_t psize = rd64(e + 8);
        if (ehs < ENTRY_HEADER_MIN || ehs > (size_t)(end - e) || psize > (size_t)(end - e) - ehs)
            return gr_fail(err, GR_ERR_INPUT, "a fat binary entry has an impossible size");
        if (kind == ENTRY_CUBIN) {
            out->ncubins++;
            out->cubin_arch = rd32(e + 28);
        } else if (kind == ENTRY_PTX) {
            gr_fatbin_ptx x = {0};
            uint32_t csize = rd32(e + 16), optdesc = rd32(e + 20);
            x.isa_minor = rd16(e + 24);
            x.isa_major = rd16(e + 26);
            x.arch = rd32(e + 28);
            uint64_t flags = rd64(e + 40), dsize = rd64(e + 56);
            if (!payload_text(e + ehs, psize, flags, csize, dsize, &x.text, &x.len, err)) return false;
            x.unit = header_string(e, ehs, rd32(e + 32), rd32(e + 36));
            if (optdesc && optdesc <= ehs - 8)
                x.options = header_string(e, ehs, rd32(e + optdesc), rd32(e + optdesc + 4));
            gr_fatbin_ptx *n = realloc(out->ptx, (size_t)(out->nptx + 1) * sizeof *n);
            if (!n) {
                free(x.text), free(x.unit), free(x.options);
                return gr_fail(err, GR_ERR_NOMEM, "out of memory reading the fat binary");
            }
            out->ptx = n;
            out->ptx[out->nptx++] = x;
        }
        e += ehs + psize;
    }
    return true;
}

/* The wrapper nvcc emits next to each fat binary (__fatBinC_Wrapper_t). */
typedef struct fatbin_wrapper {
    int magic;
    int version;
    const void *data;
    void *filename_or_fatbins;
} fatbin_wrapper;

bool gr_fatbin_wrapper_images(const void *wrapper, const void **images, int cap, int *n,
                              gr_error *err) {
    const fatbin_wrapper *w = wrapper;
    *n = 0;
    if (!w || w->magic != GR_FATBIN_WRAPPER_MAGIC)
        return gr_fail(err, GR_ERR_INPUT, "__cudaRegisterFatBinary got something that is not nvcc's fat binary wrapper");
    if (w->version == 1) {
        if (cap > 0) images[(*n)++] = w->data;
        return true;
    }
    if (w->version != 2)
        return gr_fail(err, GR_ERR_UNSUPPORTED, "fat binary wrapper version %d is not supported", w->version);
    /* -rdc=true: the device-linked image holds SASS only; each unit's image holds its PTX */
    const void *const *units = w->filename_or_fatbins;
    for (int i = 0; units && units[i]; i++) {
        if (*n == cap) return gr_fail(err, GR_ERR_UNSUPPORTED, "more than %d linked translation units", cap);
        images[(*n)++] = units[i];
    }
    if (*n == 0 && cap > 0) images[(*n)++] = w->data;
    return true;
}

const gr_fatbin_ptx *gr_fatbin_pick_ptx(const gr_fatbin *fb, uint32_t device_arch) {
    const gr_fatbin_ptx *best = NULL, *lowest = NULL;
    for (int i = 0; i < fb->nptx; i++) {
        const gr_fatbin_ptx *x = &fb->ptx[i];
        if (!lowest || x->arch < lowest->arch) lowest = x;
        if (x->arch <= device_arch && (!best || x->arch > best->arch)) best = x;
    }
    return best ? best : lowest;
}

void gr_fatbin_free(gr_fatbin *fb) {
    for (int i = 0; i < fb->nptx; i++) {
        free(fb->ptx[i].text);
        free(fb->ptx[i].unit);
        free(fb->ptx[i].options);
    }
    free(fb->ptx);
    memset(fb, 0, sizeof *fb);
}
