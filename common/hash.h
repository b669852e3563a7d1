/* hash.h — FNV-1a, 64-bit: content hashes (cubin cache, witnesses) and race signatures. */
#ifndef GR_COMMON_HASH_H
#define GR_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GR_FNV_OFFSET 0xcbf29ce484222325ULL
#define GR_FNV_PRIME 0x100000001b3ULL

static inline uint64_t gr_hash_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= GR_FNV_PRIME;
    }
    return h;
}

static inline uint64_t gr_hash64(const void *data, size_t n) {
    return gr_hash_bytes(GR_FNV_OFFSET, data, n);
}

#endif
