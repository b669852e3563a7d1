/* interrupt.h — Ctrl-C and termination requests as a flag the commands poll.
 *
 * A signal must never cost the user what was already found: SIGINT, SIGTERM and SIGHUP set a
 * flag instead of ending the process, so a command can stop its workers, remove its temporary
 * folders, and still print its summary and write its reports (exit status 1 when something was
 * found, 3 otherwise: the run did not do its whole job). A second signal while the first is
 * being handled ends the process at once with status 3. */
#ifndef GR_CLI_INTERRUPT_H
#define GR_CLI_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handlers (once per process); returns the flag they set. */
const volatile sig_atomic_t *cli_interrupt_install(void);
/* The signal number that arrived first, or 0. */
int cli_interrupted(void);

#endif
