#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(gr_strbuf *sb, size_t extra) {
    if (sb->oom) return false;
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap) return true;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need) cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->oom = true;
        return false;
    }
    sb->data = p;
    sb->cap = cap;
    return true;
}

void gr_strbuf_append_n(gr_strbuf *sb, const char *s, size_t n) {
    if (!reserve(sb, n)) return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void gr_strbuf_append(gr_strbuf *sb, const char *s) { gr_strbuf_append_n(sb, s, strlen(s)); }

void gr_strbuf_putc(gr_strbuf *sb, char c) { gr_strbuf_append_n(sb, &c, 1); }

void gr_strbuf_appendf(gr_strbuf *sb, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        gr_strbuf_append_n(sb, small, (size_t)n);
        return;
    }
    if (!reserve(sb, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

const char *gr_strbuf_cstr(const gr_strbuf *sb) { return sb->data ? sb->data : ""; }

char *gr_strbuf_take(gr_strbuf *sb) {
    char *s = sb->data ? sb->data : strdup("");
    *sb = (gr_strbuf)GR_STRBUF_INIT;
    return s;
}

void gr_strbuf_reset(gr_strbuf *sb) {
    sb->len = 0;
    if (sb->data) sb->data[0] = '\0';
}

void gr_strbuf_free(gr_strbuf *sb) {
    free(sb->data);
    *sb = (gr_strbuf)GR_STRBUF_INIT;
}
