#include "oracle/race.h"

#include <stdlib.h>
#include <string.h>

#include "common/hash.h"

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
