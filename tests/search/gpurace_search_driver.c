/* A gpurace binary with only the search subcommands, so these tests do not depend on how the
 * main binary wires its commands. */
#include <stdio.h>
#include <string.h>

int cmd_fuzz(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_minimize(int argc, char **argv);
int cmd_export(int argc, char **argv);

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (strcmp(argv[1], "fuzz") == 0) return cmd_fuzz(argc, argv);
    if (strcmp(argv[1], "replay") == 0) return cmd_replay(argc, argv);
    if (strcmp(argv[1], "minimize") == 0) return cmd_minimize(argc, argv);
    if (strcmp(argv[1], "export") == 0) return cmd_export(argc, argv);
    fprintf(stderr, "unknown command %s\n", argv[1]);
    return 2;
}
