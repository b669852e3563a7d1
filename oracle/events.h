/* events.h — the event model every backend (simulator, GPU runtime) emits for the detectors.
 *
 * Plain C structs a backend fills cheaply per access. A backend reports, in the order it
 * executes them:
 *   - every memory access (gr_access), with the static instruction id it came from;
 *   - barrier arrivals per thread, then one completion per barrier instance;
 *   - warp-level synchronizations (__syncwarp, shfl/vote/match/redux .sync) once, when they
 *     complete, with the mask of lanes that took part;
 *   - in the lockstep warp model, one "step" per instruction a group of converged lanes
 *     executes together, before that instruction's accesses;
 *   - fences, thread exits and the end of the kernel.
 * A thread that waits (at a barrier or warp sync) reports nothing until the completion event. */
#ifndef GR_ORACLE_EVENTS_H
#define GR_ORACLE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum gr_space {
    GR_SPACE_GLOBAL = 0,
    GR_SPACE_SHARED,  /* addresses are offsets into the block's own shared window */
    GR_SPACE_LOCAL,   /* private to a thread: never races, ignored by the detectors */
    GR_SPACE_CONST,   /* read-only: ignored */
    GR_SPACE_PARAM,   /* read-only: ignored */
} gr_space;

typedef enum gr_access_kind {
    GR_ACCESS_READ = 0,  /* ld (weak, or .volatile with GR_ACCESS_VOLATILE) */
    GR_ACCESS_WRITE,     /* st (weak, or .volatile) */
    GR_ACCESS_ATOMIC,    /* atom, red, ld/st .relaxed/.acquire/.release: see gr_atomic_op */
} gr_access_kind;

/* What an atomic does to memory: loads read, stores and reductions write, the rest read and
 * write (read-modify-write). */
typedef enum gr_atomic_op {
    GR_ATOM_LD = 0, GR_ATOM_ST, GR_ATOM_RED,
    GR_ATOM_ADD, GR_ATOM_EXCH, GR_ATOM_CAS, GR_ATOM_MIN, GR_ATOM_MAX,
    GR_ATOM_AND, GR_ATOM_OR, GR_ATOM_XOR, GR_ATOM_INC, GR_ATOM_DEC,
} gr_atomic_op;

/* Scopes, narrowest first. There is one device, so SYS orders like GPU. */
typedef enum gr_scope { GR_SCOPE_CTA = 0, GR_SCOPE_GPU, GR_SCOPE_SYS } gr_scope;

typedef enum gr_sem {
    GR_SEM_RELAXED = 0, GR_SEM_ACQUIRE, GR_SEM_RELEASE, GR_SEM_ACQ_REL,
    GR_SEM_SC,  /* fences only: fence.sc / membar */
} gr_sem;

enum {
    GR_ACCESS_VOLATILE = 1u << 0,  /* ld/st.volatile: strong (fences order it), not atomic */
};

/* One memory access by one thread. `size` is 1..16 bytes. For atomics `op`, `scope` and `sem`
 * are meaningful; volatile accesses behave like relaxed system-scope ones for ordering. */
typedef struct gr_access {
    uint64_t addr;
    uint32_t thread;  /* linear thread id in the grid: gr_thread_id() */
    uint32_t instr;   /* static instruction id (the backend's; maps to a source line) */
    uint8_t space;    /* gr_space */
    uint8_t kind;     /* gr_access_kind */
    uint8_t size;
    uint8_t op;       /* gr_atomic_op, atomics only */
    uint8_t scope;    /* gr_scope, atomics only */
    uint8_t sem;      /* gr_sem, atomics only */
    uint8_t flags;    /* GR_ACCESS_* */
} gr_access;

/* Launch geometry. Threads are numbered linearly: block-linear * threads_per_block +
 * thread-linear-in-block; warp = thread-in-block / warp_size, lane = thread-in-block % warp_size.
 * warp_size is 32 on hardware; tests may shrink it to build small warps. */
typedef struct gr_launch_geometry {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t warp_size;  /* 0 means 32 */
} gr_launch_geometry;

static inline uint32_t gr_geom_warp_size(const gr_launch_geometry *g) {
    return g->warp_size ? g->warp_size : 32u;
}
static inline uint32_t gr_geom_threads_per_block(const gr_launch_geometry *g) {
    return g->block[0] * g->block[1] * g->block[2];
}
static inline uint32_t gr_geom_blocks(const gr_launch_geometry *g) {
    return g->grid[0] * g->grid[1] * g->grid[2];
}
static inline uint32_t gr_geom_warps_per_block(const gr_launch_geometry *g) {
    uint32_t ws = gr_geom_warp_size(g);
    return (gr_geom_threads_per_block(g) + ws - 1) / ws;
}
static inline uint32_t gr_thread_id(const gr_launch_geometry *g, uint32_t block_linear,
                                    uint32_t thread_in_block) {
    return block_linear * gr_geom_threads_per_block(g) + thread_in_block;
}

/* Warp-level synchronizations that order the lanes of their mask. */
typedef enum gr_warp_sync_kind {
    GR_WARP_SYNCWARP = 0, GR_WARP_SHFL, GR_WARP_VOTE, GR_WARP_MATCH, GR_WARP_REDUX,
} gr_warp_sync_kind;

typedef enum gr_event_type {
    GR_EV_ACCESS = 0,
    GR_EV_BARRIER_ARRIVE,    /* one thread reaches bar.sync/bar.red (waits) or bar.arrive */
    GR_EV_BARRIER_COMPLETE,  /* the instance completes; waiters resume after this event */
    GR_EV_WARP_SYNC,         /* a warp sync/collective completed among `mask` */
    GR_EV_WARP_STEP,         /* lockstep: lanes of `mask` execute the next instruction together */
    GR_EV_FENCE,             /* fence/membar by one thread */
    GR_EV_THREAD_EXIT,
    GR_EV_KERNEL_END,        /* everything before is ordered before everything after */
} gr_event_type;

typedef struct gr_event {
    uint8_t type;  /* gr_event_type */
    union {
        gr_access access;
        struct {
            uint32_t thread;
            uint32_t barrier;   /* 0..15 */
            uint32_t expected;  /* thread count of the instruction; 0 = all threads of the block */
            bool waits;         /* bar.sync/bar.red: true; bar.arrive: false */
        } arrive;
        struct {
            uint32_t block;  /* linear block index */
            uint32_t barrier;
        } complete;
        struct {
            uint32_t block;
            uint32_t warp;  /* warp index within the block */
            uint32_t mask;  /* lanes that took part */
            uint8_t kind;   /* gr_warp_sync_kind (GR_EV_WARP_SYNC only) */
        } warp;
        struct {
            uint32_t thread;
            uint8_t scope;  /* gr_scope */
            uint8_t sem;    /* gr_sem: SC (membar, fence.sc) or ACQ_REL (fence.acq_rel) ... */
        } fence;
        struct {
            uint32_t thread;
        } exit;
    } u;
} gr_event;

/* Points a per-thread event (barrier arrival, fence, thread exit) at `thread`; false for any
 * other event type. Lets a lane group's event be replayed lane by lane. */
static inline bool gr_event_set_thread(gr_event *e, uint32_t thread) {
    switch ((gr_event_type)e->type) {
    case GR_EV_BARRIER_ARRIVE: e->u.arrive.thread = thread; return true;
    case GR_EV_FENCE: e->u.fence.thread = thread; return true;
    case GR_EV_THREAD_EXIT: e->u.exit.thread = thread; return true;
    default: return false;
    }
}

#endif
