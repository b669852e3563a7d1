#include "oracle/race.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "oracle/events.h"

const char *gr_race_kind_name(gr_race_kind kind) {
    switch (kind) {
    case GR_RACE_RAW: return "read-after-write";
    case GR_RACE_WAR: return "write-after-read";
    case GR_RACE_WAW: return "write-after-write";
    case GR_RACE_ATOMIC_PLAIN: return "atomic-vs-plain";
    case GR_RACE_ATOMIC_SCOPE: return "atomic-scope";
    }
    return "unknown";
}

const char *gr_race_cause_text(gr_race_cause cause) {
    switch (cause) {
    case GR_CAUSE_NO_SYNC_BLOCKS:
        return "threads of different blocks with no release/acquire synchronization between them";
    case GR_CAUSE_NO_BARRIER: return "threads of one block with no barrier between the accesses";
    case GR_CAUSE_NO_WARP_SYNC:
        return "lanes of one warp with no __syncwarp or warp collective between the accesses";
    case GR_CAUSE_SAME_STEP: return "two lanes of one warp access the same bytes in the same instruction";
    case GR_CAUSE_SCOPE_ATOMIC: return "atomics of block scope used by threads of different blocks";
    case GR_CAUSE_SCOPE_FENCE:
        return "fence or acquire/release of block scope between threads of different blocks";
    case GR_CAUSE_NO_ACQUIRE:
        return "release without a matching acquire (or acquire without release) and no barrier";
    }
    return "unknown";
}

static uint64_t signature_hash(uint32_t a, uint32_t b, uint8_t kind) {
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t h = gr_hash_bytes(GR_FNV_OFFSET, &lo, sizeof lo);
    h = gr_hash_bytes(h, &hi, sizeof hi);
    return gr_hash_bytes(h, &kind, 1);
}

static bool same_signature(const gr_race *x, const gr_race *y) {
    if (x->kind != y->kind) return false;
    return (x->first_instr == y->first_instr && x->second_instr == y->second_instr) ||
           (x->first_instr == y->second_instr && x->second_instr == y->first_instr);
}

static bool rehash(gr_race_set *set, size_t nslots) {
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < set->count; i++) {
        const gr_race *r = &set->races[i];
        size_t s = signature_hash(r->first_instr, r->second_instr, r->kind) & (nslots - 1);
        while (slots[s]) s = (s + 1) & (nslots - 1);
        slots[s] = (uint32_t)(i + 1);
    }
    free(set->slots);
    set->slots = slots;
    set->nslots = nslots;
    return true;
}

bool gr_race_set_add(gr_race_set *set, const gr_race *race, bool *is_new) {
    if (is_new) *is_new = false;
    set->total++;
    if (set->nslots == 0 && !rehash(set, 64)) return false;
    size_t mask = set->nslots - 1;
    size_t s = signature_hash(race->first_instr, race->second_instr, race->kind) & mask;
    while (set->slots[s]) {
        gr_race *r = &set->races[set->slots[s] - 1];
        if (same_signature(r, race)) {
            r->count++;
            return true;
        }
        s = (s + 1) & mask;
    }
    if (set->count == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        gr_race *grown = realloc(set->races, cap * sizeof *grown);
        if (!grown) return false;
        set->races = grown;
        set->cap = cap;
    }
    set->races[set->count] = *race;
    set->races[set->count].count = 1;
    set->count++;
    set->slots[s] = (uint32_t)set->count;
    if (is_new) *is_new = true;
    if (set->count * 2 > set->nslots) return rehash(set, set->nslots * 2);
    return true;
}

void gr_race_set_clear(gr_race_set *set) {
    set->count = 0;
    set->total = 0;
    if (set->slots) memset(set->slots, 0, set->nslots * sizeof *set->slots);
}

void gr_race_set_free(gr_race_set *set) {
    free(set->races);
    free(set->slots);
    memset(set, 0, sizeof *set);
}

/* ---- granule sets ---- */

/* Shared granules carry their block (< 2^24) above the word index (< 2^30: the shared window
 * is 4 GiB); global ones are the address's word index, below bit 62. */
static uint64_t granule_key(uint8_t space, uint32_t block, uint64_t addr) {
    if (space == GR_SPACE_SHARED)
        return 1ull << 63 | (uint64_t)block << 30 | ((addr >> 2) & ((1ull << 30) - 1));
    return addr >> 2;
}

static size_t granule_slot(uint64_t key, size_t cap) {
    uint64_t x = key * 0x9e3779b97f4a7c15ull;
    return (size_t)(x ^ (x >> 29)) & (cap - 1);
}

static bool granule_insert(uint64_t *slots, size_t cap, uint64_t key) {
    size_t s = granule_slot(key, cap);
    while (slots[s]) {
        if (slots[s] == key + 1) return false;
        s = (s + 1) & (cap - 1);
    }
    slots[s] = key + 1;
    return true;
}

bool gr_granule_set_add(gr_granule_set *set, uint8_t space, uint32_t block, uint64_t addr,
                        uint32_t size) {
    if (set->all) return true;
    uint64_t first = addr >> 2, last = (addr + (size ? size : 1) - 1) >> 2;
    for (uint64_t w = first; w <= last; w++) {
        if ((set->n + 1) * 2 > set->cap) {
            size_t cap = set->cap ? set->cap * 2 : 64;
            uint64_t *slots = calloc(cap, sizeof *slots);
            if (!slots) return false;
            for (size_t i = 0; i < set->cap; i++)
                if (set->slots[i]) granule_insert(slots, cap, set->slots[i] - 1);
            free(set->slots);
            set->slots = slots;
            set->cap = cap;
        }
        if (granule_insert(set->slots, set->cap, granule_key(space, block, w << 2))) set->n++;
    }
    return true;
}

bool gr_granule_set_has(const gr_granule_set *set, uint8_t space, uint32_t block, uint64_t addr) {
    if (set->all) return true;
    if (!set->cap) return false;
    uint64_t key = granule_key(space, block, addr);
    size_t s = granule_slot(key, set->cap);
    while (set->slots[s]) {
        if (set->slots[s] == key + 1) return true;
        s = (s + 1) & (set->cap - 1);
    }
    return false;
}

void gr_granule_set_clear(gr_granule_set *set) {
    if (set->cap) memset(set->slots, 0, set->cap * sizeof *set->slots);
    set->n = 0;
    set->all = false;
}

size_t gr_granule_set_bytes(const gr_granule_set *set) { return set->cap * sizeof *set->slots; }

void gr_granule_set_free(gr_granule_set *set) {
    free(set->slots);
    memset(set, 0, sizeof *set);
}
