/* inline_access.h — the common path of __gr_hook_access emitted as PTX at each access site.
 *
 * ptxas does not inline .func calls, so every instrumented access used to pay a real call.
 * For a plain (weak, non-atomic, non-volatile) global, shared or generic access, or a relaxed
 * device-scope atomic of 4 bytes, whose info word is a constant, the module pass (module.c)
 * replaces the hook call by inline PTX that finds the shadow word and decides, exactly as the
 * hook would, the cases gr_fsm_quick() decides and the joins that cannot report anything:
 *   - the word already holds this thread's same kind of access at the same epochs: nothing;
 *   - the word is empty: CAS it to the access alone;
 *   - the access is ordered after every member (same thread, or a barrier of a regular block
 *     it waited at) and covers them: CAS to the access alone; a read that does not cover
 *     (the members wrote) becomes the OLDW word gr_fsm_update_slow() builds for it;
 *   - a read by another thread of the members' block at their barrier and warp epochs, with
 *     no writer among them or an OLDW word (broadcast reads): the word's union with the read,
 *     a warp or block summary; when that equals the old word but for the latest member and
 *     instruction (a summary the read already belongs to), nothing; else CAS;
 *   - a read of another block's members or a grid summary, none of them a writer: a loose
 *     grid summary (nothing when only the latest member changes);
 *   - a device-scope atomic on a word whose members are all such atomics: the access alone
 *     (ordered, or same thread), a warp/block summary (this block, same epochs), a loose grid
 *     summary (other blocks);
 * and calls the hook, unchanged, for everything else (module .global variables, out of
 * bounds, words the rules must look at). A lost CAS decides again on the word that won (a
 * few times, then the hook). Accesses of 8 or 16 bytes check every granule and take only the
 * "nothing" cases inline (the thread's own word, or one summary the read belongs to).
 *
 * The code reads the launch parameters from __gr_rt (offsets from rt_abi.h) and builds shadow
 * words from the field masks of oracle/fsm_rules.h. Per function a prologue computes, once,
 * the thread's record pointer, its rep field, its index in the block, its block's first thread
 * and word, its warp's word and the shared shadow base; ptxas drops what a function does not
 * use. The exact conditions are in exec/gpu/README.md (Inlining); tests/gpu checks a C model of
 * the emitted decision against the host FSM. */
#ifndef GR_EXEC_GPU_INLINE_ACCESS_H
#define GR_EXEC_GPU_INLINE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "exec/gpu/gpu.h"

/* False when the FSM word or the thread record is laid out differently from what the emitted
 * PTX assumes (then the backend keeps the hook calls). */
bool gr_gpu_inline_supported(void);

/* Module-scope declarations the inline code needs besides the launch parameters, which
 * module.c declares for every instrumented module (after .address_size). */
void gr_gpu_inline_declare(gr_strbuf *out);

/* Register declarations, right after a function body's opening brace. */
void gr_gpu_inline_regs(gr_strbuf *out);

/* What the sites of a function read but never change (the thread's and block's ids, the
 * addresses of its record and of its block's and warp's words, the shared shadow, whether
 * the launch detects and models lockstep warps): computed in the prologue, and again at the
 * start of each out-of-line check (module.c), so that a loop whose checks are all out of line
 * holds no register for them. */
void gr_gpu_inline_context(gr_strbuf *out);

/* Per-function set-up, before the first instruction (after the entry hook in a kernel,
 * `kernel_entry`): the context, and in simple_sync modules the record's registers. Declared
 * after gr_gpu_inline_module below. */
struct gr_gpu_inline_module;
void gr_gpu_inline_prologue(gr_strbuf *out, const struct gr_gpu_inline_module *mod,
                            bool kernel_entry);

/* What every site of a module may assume (module.c decides, per module). */
typedef struct gr_gpu_inline_module {
    gr_gpu_cas_first cas_first; /* which plain global accesses of one granule try the CAS from
                                 * the empty word before they read the word */
    /* No hook of the module can set a block's IRREGULAR, PARTIAL, SPLIT or TAINT bits or a
     * warp's IRREGULAR bit: its only sync events are full waiting barriers (no thread count,
     * not in a header), exits and calls, and no access acquires (gr_gpu_sync_is_simple). Then
     * a barrier is the thread's own bookkeeping, inline (gr_gpu_inline_barrier), and an
     * access reads neither its block's word nor its warp's word. Only EXITED can be set in
     * the block's word there (an exit after accesses since the thread's last barrier). The
     * host FSM then stops ordering the block's accesses by barriers (undecided, never a
     * report), and a thread that passes a barrier the exited one never reached is in a
     * block whose divergence the exit fold reports; whether a site saw a sibling's exit was
     * always a matter of timing, so the sites take the word as 0 and the hooks read it.
     * The thread's record and barrier history live in registers too: module.c stores them before every call (hooks and the user's
     * functions, which read them) and before a function's `ret`, and loads them after every
     * call (gr_gpu_inline_flush_record / gr_gpu_inline_reload_record). */
    bool simple_sync;
} gr_gpu_inline_module;

/* One access hook call, `[@GUARD] call[.uni] __gr_hook_access, (ADDR, INFO, ID);`. */
typedef struct gr_gpu_access_call {
    char guard[64]; /* "%p" or "!%p" (without '@'), or "" */
    char addr[64];  /* a register */
    uint32_t info, id;
} gr_gpu_access_call;

/* Reads `line` (one statement) as such a call; false for anything else. */
bool gr_gpu_parse_access_call(const char *line, size_t len, gr_gpu_access_call *c);

/* When `line` (one statement, as module.c sees it) is an eligible
 * `[@p] call[.uni] __gr_hook_access, (ADDR, INFO, ID);`, appends its inline check (labels
 * numbered by `site`, the call kept as the slow path) and returns true; otherwise appends
 * nothing and returns false. */
bool gr_gpu_inline_access(gr_strbuf *out, const char *line, size_t len, uint32_t site,
                          const gr_gpu_inline_module *mod);

/* One sync hook call, `[@GUARD] call[.uni] __gr_hook_sync, (INFO, ID, ARG0, ARG1);`, whose
 * info and id are constants (the arguments may be registers). */
typedef struct gr_gpu_sync_call {
    char guard[64];
    uint32_t info, id;
} gr_gpu_sync_call;

/* Reads `line` (one statement) as such a call; false for anything else. */
bool gr_gpu_parse_sync_call(const char *line, size_t len, gr_gpu_sync_call *c);

/* Whether the instrumented module text `ptx` allows gr_gpu_inline_module.simple_sync: every
 * sync hook is a full waiting barrier outside headers, an exit, a call or an async-group event
 * (the hook ignores those), and no access hook has acquire semantics (only acquires set a
 * block's taint). A hook line it cannot read makes it false. */
bool gr_gpu_sync_is_simple(const char *ptx);

/* When `line` is a sync hook call of a full waiting barrier (bar.sync/barrier.sync without a
 * thread count, outside headers) and `mod->simple_sync`, appends the hook's effect as PTX
 * (the thread's epochs and its barrier history; the call under the lockstep warp model) and
 * returns true; otherwise appends nothing and returns false. */
bool gr_gpu_inline_barrier(gr_strbuf *out, const char *line, size_t len, uint32_t site,
                           const gr_gpu_inline_module *mod);

/* The runtime's entry and exit for simple_sync modules, whose record stays in registers:
 * `__gr_hook_enter_regs(user_calls)` writes nothing per thread but what the record's stores
 * leave out (wep under the lockstep model; the latest user call when `user_calls`), and
 * `__gr_hook_exit(bar, trace, last)` takes the record's registers instead of reading memory. */
#define GR_GPU_HOOK_ENTER_REGS_NAME "__gr_hook_enter_regs"
#define GR_GPU_HOOK_EXIT_NAME "__gr_hook_exit"

/* Whether some hook of the instrumented module text lies in a header function
 * (GR_HOOK_IN_LIBRARY): its reports name the latest call from the user's code. */
bool gr_gpu_has_library_hooks(const char *ptx);

/* When `line` is the exit hook call and `mod->simple_sync`, appends the call of
 * __gr_hook_exit with the record's registers (no store before it) and returns true;
 * otherwise appends nothing and returns false. */
bool gr_gpu_inline_exit(gr_strbuf *out, const char *line, size_t len,
                        const gr_gpu_inline_module *mod);


/* simple_sync modules: the thread's record and barrier history from their registers to memory
 * (before a call or a function's return), and back (after a call, which may have changed
 * them: a hook, or a function that passed barriers). */
void gr_gpu_inline_flush_record(gr_strbuf *out);
void gr_gpu_inline_reload_record(gr_strbuf *out);

#endif
