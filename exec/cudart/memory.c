/* memory.c — the program's device memory: one table of allocations in address order.
 *
 * cudaMalloc memory gets addresses of its own from the simulator's global window (no host
 * page is there, so a host dereference of a device pointer faults as it does with a GPU) and
 * heap bytes behind them. Memory both sides address by one pointer (pinned, managed, mapped,
 * registered host memory, and module variables, which __managed__ needs) is identity-mapped:
 * its device address is its host address; it gets pages of its own followed by an inaccessible
 * guard page, so a kernel running off its end is an out-of-bounds finding, not a write into
 * a neighbour. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec/cudart/cudart_internal.h"

/* CR_MEM_DEVICE addresses: the simulator's global window, far below host mappings. */
#define DEVICE_BASE 0x100000000000ull
#define DEVICE_GAP 4096ull  /* between device allocations, so overruns land in no allocation */
#define DEVICE_ALIGN 512ull /* cudaMalloc's alignment */

void cr_memory_init(cr_memory *m) {
    memset(m, 0, sizeof *m);
    m->next_device = DEVICE_BASE;
}

static int position(const cr_memory *m, uint64_t a) {
    int lo = 0, hi = m->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->allocs[mid].addr < a) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static bool overlaps(const cr_memory *m, uint64_t a, uint64_t size) {
    int at = position(m, a);
    uint64_t end = a + (size ? size : 1);
    if (at < m->n && m->allocs[at].addr < end) return true;
    if (at > 0) {
        const cr_alloc *prev = &m->allocs[at - 1];
        if (prev->addr + (prev->size ? prev->size : 1) > a) return true;
    }
    return false;
}

static int insert(cr_memory *m, const cr_alloc *a) {
    if (m->n == m->cap) {
        int cap = m->cap ? m->cap * 2 : 64;
        cr_alloc *grown = realloc(m->allocs, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        m->allocs = grown;
        m->cap = cap;
    }
    int at = position(m, a->addr);
    memmove(&m->allocs[at + 1], &m->allocs[at], (size_t)(m->n - at) * sizeof *m->allocs);
    m->allocs[at] = *a;
    m->n++;
    return at;
}

static size_t page_size(void) {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

int cr_memory_new(cr_memory *m, cr_mem_kind kind, uint64_t size, unsigned flags, int module) {
    cr_alloc a = {0};
    a.size = size;
    a.kind = kind;
    a.flags = flags;
    a.module = module;
    if (size > (1ull << 40)) return -1;
    if (kind == CR_MEM_DEVICE) {
        a.host = calloc(size ? size : 1, 1);
        if (!a.host) return -1;
        a.addr = m->next_device;
        m->next_device = (a.addr + size + DEVICE_GAP + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;
        m->device_bytes += size;
    } else {
        size_t page = page_size();
        size_t bytes = ((size ? size : 1) + page - 1) / page * page;
        a.mapped = bytes + page;
        void *mem = mmap(NULL, a.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) return -1;
        mprotect((uint8_t *)mem + bytes, page, PROT_NONE);
        a.host = mem;
        a.addr = (uint64_t)(uintptr_t)mem;
        if (overlaps(m, a.addr, a.mapped)) { /* cannot happen with fresh pages; be safe */
            munmap(mem, a.mapped);
            return -1;
        }
    }
    int at = insert(m, &a);
    if (at < 0) {
        if (a.mapped) munmap(a.host, a.mapped);
        else free(a.host);
        if (kind == CR_MEM_DEVICE) m->device_bytes -= size;
    }
    return at;
}

int cr_memory_register(cr_memory *m, void *host, uint64_t size, unsigned flags) {
    uint64_t a = (uint64_t)(uintptr_t)host;
    if (!host || size == 0 || overlaps(m, a, size)) return -1;
    cr_alloc rec = {a, size, host, 0, CR_MEM_REGISTERED, flags, -1};
    return insert(m, &rec);
}

cr_alloc *cr_memory_find(cr_memory *m, uint64_t a) {
    int at = position(m, a + 1) - 1; /* the last allocation starting at or below a */
    if (at < 0) return NULL;
    cr_alloc *x = &m->allocs[at];
    return a >= x->addr && a < x->addr + (x->size ? x->size : 1) ? x : NULL;
}

cr_alloc *cr_memory_at(cr_memory *m, uint64_t a) {
    int at = position(m, a);
    return at < m->n && m->allocs[at].addr == a ? &m->allocs[at] : NULL;
}

uint8_t *cr_memory_bytes(cr_memory *m, uint64_t a, uint64_t n) {
    cr_alloc *x = cr_memory_find(m, a);
    if (!x || n > x->size || a - x->addr > x->size - n) return NULL;
    return x->host + (a - x->addr);
}

static void release(cr_alloc *a) {
    if (a->kind == CR_MEM_REGISTERED) return;
    if (a->mapped) munmap(a->host, a->mapped);
    else free(a->host);
}

void cr_memory_remove(cr_memory *m, uint64_t a) {
    int at = position(m, a);
    if (at >= m->n || m->allocs[at].addr != a) return;
    if (m->allocs[at].kind == CR_MEM_DEVICE) m->device_bytes -= m->allocs[at].size;
    release(&m->allocs[at]);
    memmove(&m->allocs[at], &m->allocs[at + 1], (size_t)(m->n - at - 1) * sizeof *m->allocs);
    m->n--;
}

void cr_memory_free(cr_memory *m) {
    for (int i = 0; i < m->n; i++) release(&m->allocs[i]);
    free(m->allocs);
    cr_memory_init(m);
}
