/* strbuf.h — a growable, always NUL-terminated string. */
#ifndef GR_COMMON_STRBUF_H
#define GR_COMMON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gr_strbuf {
    char *data;  /* NUL-terminated once anything was appended; NULL when empty and unused */
    size_t len;
    size_t cap;
    bool oom;    /* an append failed: the content is truncated; check before trusting it */
} gr_strbuf;

#define GR_STRBUF_INIT {NULL, 0, 0, false}

void gr_strbuf_append(gr_strbuf *sb, const char *s);
void gr_strbuf_append_n(gr_strbuf *sb, const char *s, size_t n);
void gr_strbuf_appendf(gr_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gr_strbuf_putc(gr_strbuf *sb, char c);
/* Returns the text ("" when empty); stays owned by the buffer. */
const char *gr_strbuf_cstr(const gr_strbuf *sb);
/* Hands the heap string to the caller (never NULL unless out of memory) and resets the buffer. */
char *gr_strbuf_take(gr_strbuf *sb);
void gr_strbuf_reset(gr_strbuf *sb);
void gr_strbuf_free(gr_strbuf *sb);

#endif
