/* hints.h — what a quiet run should still tell the user.
 *
 * The optimizer deletes stores to shared memory that nothing reads, and with them the races
 * they would have had: a kernel can race as written and be quiet as compiled. When a run of an
 * optimized build found no race, cli_optimizer_hint() compiles the file again as written (-G)
 * and names the source lines whose shared-memory writes only the -G build keeps, so the user
 * knows that `--source-faithful` checks more. One extra compile, no extra launch. */
#ifndef GR_CLI_HINTS_H
#define GR_CLI_HINTS_H

#include <stdbool.h>

#include "cli/args.h"
#include "cli/load.h"
#include "common/strbuf.h"

/* Appends a note to `out` (nothing when there is nothing to say, for a .ptx input, for a build
 * that is already source-faithful, or when the -G compile fails). `kernel` may be NULL (every
 * kernel of the file). */
void cli_optimizer_hint(const cli_source_options *src, const cli_loaded *loaded,
                        const char *kernel, gr_strbuf *out);

#endif
