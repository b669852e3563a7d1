/* arena.h — bump allocation for data that lives and dies together (one module's IR). */
#ifndef GR_COMMON_ARENA_H
#define GR_COMMON_ARENA_H

#include <stddef.h>

typedef struct gr_arena_block gr_arena_block;
typedef struct gr_arena {
    gr_arena_block *head;
    size_t total;  /* bytes handed out, for statistics */
} gr_arena;

#define GR_ARENA_INIT {NULL, 0}

/* Zeroed, 16-byte aligned memory, or NULL when out of memory. */
void *gr_arena_alloc(gr_arena *a, size_t size);
char *gr_arena_strndup(gr_arena *a, const char *s, size_t n);
char *gr_arena_strdup(gr_arena *a, const char *s);
void gr_arena_free(gr_arena *a);

#endif
