/* commands.h — one entry point per subcommand; each returns the process exit status. */
#ifndef GR_CLI_COMMANDS_H
#define GR_CLI_COMMANDS_H

#include <stdbool.h>

int cmd_info(int argc, char **argv);
int cmd_ptx(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_spec(int argc, char **argv);
int cmd_build_fuzzer(int argc, char **argv);
int cmd_fix(int argc, char **argv);

/* Prints the help of one subcommand; false when there is no such command. */
bool cli_print_command_help(const char *command);

#endif
