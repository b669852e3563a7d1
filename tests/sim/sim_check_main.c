/* sim_check_main.c — a stand-alone `check` (argv as for `gpurace check ...`, without the
 * "gpurace" word) for scripts that run the kernel suite on the simulator before cli/ links
 * cmd_check into gpurace. */
int cmd_check(int argc, char **argv);

int main(int argc, char **argv) { return cmd_check(argc, argv); }
