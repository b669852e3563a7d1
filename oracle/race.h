/* race.h — race records, their deduplication, and sets of the places races were seen.
 *
 * A race signature is the unordered pair of static instruction ids plus the race kind; the
 * set keeps the first example of each signature (threads, address) and counts occurrences.
 * A granule set names 4-byte granules of memory (the FSM's unit): the shadow FSM records where
 * it reported a race or left an access undecided, and the happens-before detector confirming
 * that launch keeps access histories for those granules only. */
#ifndef GR_ORACLE_RACE_H
#define GR_ORACLE_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GR_INSTR_UNKNOWN UINT32_MAX

typedef enum gr_race_kind {
    GR_RACE_RAW = 0,       /* a read after an unordered write */
    GR_RACE_WAR,           /* a write after an unordered read */
    GR_RACE_WAW,           /* two unordered writes */
    GR_RACE_ATOMIC_PLAIN,  /* an atomic and a non-atomic access */
    GR_RACE_ATOMIC_SCOPE,  /* two atomics whose scopes do not both include both threads */
} gr_race_kind;

enum {
    GR_RACE_SCOPED = 1u << 0,    /* synchronization existed but its scope was too narrow */
    GR_RACE_VOLATILE = 1u << 1,  /* both accesses strong (volatile): severity warning */
    /* FSM only: the earlier access is one of several summarized in constant space, which
     * differ in kind (plain/atomic, read/write); the kind names one that may apply. */
    GR_RACE_KIND_INEXACT = 1u << 2,
};

/* Why the two accesses are unordered, in the detector's words. */
typedef enum gr_race_cause {
    GR_CAUSE_NO_SYNC_BLOCKS = 0, /* different blocks, no release/acquire between them */
    GR_CAUSE_NO_BARRIER,         /* same block, different warps, no barrier between */
    GR_CAUSE_NO_WARP_SYNC,       /* same warp, no __syncwarp/collective between (its model) */
    GR_CAUSE_SAME_STEP,          /* lockstep: two lanes in the same instruction */
    GR_CAUSE_SCOPE_ATOMIC,       /* atomics of block scope used by threads of different blocks */
    GR_CAUSE_SCOPE_FENCE,        /* block-scope fence/acquire/release between different blocks */
    GR_CAUSE_NO_ACQUIRE,         /* same block, release/acquire incomplete and no barrier */
} gr_race_cause;

typedef struct gr_race {
    uint8_t kind;   /* gr_race_kind */
    uint8_t cause;  /* gr_race_cause */
    uint8_t space;  /* gr_space */
    uint8_t flags;  /* GR_RACE_* */
    uint32_t block; /* block whose shared memory it is (shared space only) */
    uint64_t addr;  /* first conflicting byte (or word, for the FSM) */
    uint32_t first_thread, second_thread;  /* earlier access's thread, later access's thread */
    uint32_t first_instr, second_instr;    /* GR_INSTR_UNKNOWN where the detector lost it */
    uint64_t count;                        /* occurrences of this signature (in a set) */
} gr_race;

/* Called for every race occurrence, before deduplication (reports, search feedback). */
typedef void (*gr_race_fn)(void *user, const gr_race *race);

const char *gr_race_kind_name(gr_race_kind kind);
/* A sentence naming the missing or insufficient synchronization. */
const char *gr_race_cause_text(gr_race_cause cause);

/* Deduplicated set. Zero-initialize (GR_RACE_SET_INIT) before use. */
typedef struct gr_race_set {
    gr_race *races;   /* first example per signature, in discovery order */
    size_t count;
    size_t cap;
    uint32_t *slots;  /* open addressing: index+1 into races, 0 = empty */
    size_t nslots;
    uint64_t total;   /* all occurrences */
} gr_race_set;

#define GR_RACE_SET_INIT {NULL, 0, 0, NULL, 0, 0}

/* Adds one occurrence; returns false only when out of memory (the occurrence is counted in
 * `total` anyway). `*is_new` (may be NULL) says whether the signature was new. */
bool gr_race_set_add(gr_race_set *set, const gr_race *race, bool *is_new);
void gr_race_set_clear(gr_race_set *set);
void gr_race_set_free(gr_race_set *set);

/* A set of 4-byte granules: (space, block for shared memory, address / 4). `all` stands for
 * every granule (a detector that could not say where it was undecided). Zero-initialize
 * (GR_GRANULE_SET_INIT) before use. */
typedef struct gr_granule_set {
    uint64_t *slots; /* open addressing: key + 1, 0 = empty */
    size_t n, cap;
    bool all;
} gr_granule_set;

#define GR_GRANULE_SET_INIT {NULL, 0, 0, false}

/* Adds the granules bytes [addr, addr + size) touch; false only when out of memory.
 * `block` matters for shared memory only (each block has its own). */
bool gr_granule_set_add(gr_granule_set *set, uint8_t space, uint32_t block, uint64_t addr,
                        uint32_t size);
/* Whether the granule holding byte `addr` is in the set (always, once `all`). */
bool gr_granule_set_has(const gr_granule_set *set, uint8_t space, uint32_t block, uint64_t addr);
/* Empties the set (storage kept). */
void gr_granule_set_clear(gr_granule_set *set);
/* Bytes the set holds on the heap. */
size_t gr_granule_set_bytes(const gr_granule_set *set);
void gr_granule_set_free(gr_granule_set *set);

#endif
