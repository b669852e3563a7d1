#include "common/arena.h"

#include <stdlib.h>
#include <string.h>

struct gr_arena_block {
    gr_arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void *gr_arena_alloc(gr_arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    gr_arena_block *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}

char *gr_arena_strndup(gr_arena *a, const char *s, size_t n) {
    char *p = gr_arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *gr_arena_strdup(gr_arena *a, const char *s) { return gr_arena_strndup(a, s, strlen(s)); }

void gr_arena_free(gr_arena *a) {
    gr_arena_block *b = a->head;
    while (b) {
        gr_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}
