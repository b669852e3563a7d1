/* args.h — command-line options shared by the subcommands. */
#ifndef GR_CLI_ARGS_H
#define GR_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "exec/backend.h"
#include "jit/compile/compile.h"

enum { CLI_MAX_LIST = 64 };

/* Options every command that reads a kernel file understands. */
typedef struct cli_source_options {
    const char *command;        /* the subcommand ("check"), for messages */
    const char *file;           /* the first FILE: the kernel's own file */
    /* Every FILE in order (files[0] == file). With several, each is compiled with relocatable
     * device code and their PTX is linked into one module (cli/load.h). */
    const char *files[CLI_MAX_LIST];
    int nfiles;
    const char *kernel;         /* --kernel K */
    gr_compile_options compile; /* --arch, --source-faithful, --compiler, -I, -D */
    const char *include_dirs[CLI_MAX_LIST];
    const char *defines[CLI_MAX_LIST];
} cli_source_options;

typedef enum cli_opt_arity { CLI_FLAG, CLI_VALUE } cli_opt_arity;

typedef struct cli_opt_spec {
    const char *name;     /* "--instrument" */
    cli_opt_arity arity;
    const char **value;   /* where a CLI_VALUE option stores its argument */
    bool *flag;           /* where a CLI_FLAG option stores true */
} cli_opt_spec;

/* Parses argv[first..] for command `command`: the source options plus the command's own
 * `specs` (terminated by a spec with name NULL). The positional arguments are the FILEs. */
bool cli_parse(const char *command, int argc, char **argv, int first, cli_source_options *src,
               const cli_opt_spec *specs, gr_error *err);

/* --detector auto|fsm|hb|none (none only where `allow_none`). auto, the default, is the FSM
 * with happens-before confirming its races and undecided accesses on the simulator
 * (gr_confirm_mode); fsm is the FSM alone. `detect` may be NULL when none is not allowed. */
bool cli_parse_detector(const char *text, bool allow_none, gr_detector_kind *kind,
                        gr_confirm_mode *confirm, bool *detect, gr_error *err);

/* Numeric option values, for every command: `text` must be a whole integer (decimal, or hex
 * with 0x) in min..max, else a usage error (exit status 2) that names `flag` and the range. `flag`
 * is what the user reads first: "--shared", or for an --arg value "--arg n (parameter n, int)". */
bool cli_parse_uint_flag(const char *flag, const char *text, uint64_t min, uint64_t max,
                         uint64_t *out, gr_error *err);
bool cli_parse_int_flag(const char *flag, const char *text, int64_t min, int64_t max,
                        int64_t *out, gr_error *err);
/* A floating-point value for a float (`bits` 32) or double (64): the whole text must be a number
 * (inf and nan spelled out are taken); a finite value beyond the type's range is an error. */
bool cli_parse_float_flag(const char *flag, const char *text, int bits, double *out,
                          gr_error *err);

#endif
