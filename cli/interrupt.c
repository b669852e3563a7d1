/* interrupt.c — the signal flag (see interrupt.h). Process-global by nature: a signal handler
 * has no context argument. */
#include "cli/interrupt.h"

#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig) {
    if (g_interrupted) {
        static const char msg[] = "\ngpurace: interrupted again: stopping now\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
            /* nothing more can be done in a signal handler */
        }
        _exit(3);
    }
    g_interrupted = sig;
}

const volatile sig_atomic_t *cli_interrupt_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    return &g_interrupted;
}

int cli_interrupted(void) { return (int)g_interrupted; }
