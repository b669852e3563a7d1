/* gpurace — find data races in CUDA kernels. Entry point: dispatches to a subcommand. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"


typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
    const char *help;
} command;

static const char several_files_help[] =
    "Several FILEs are one program (FILE...): the first is the kernel's own file, the others are\n"
    "linked in. Each is compiled with relocatable device code and their PTX is linked, so a\n"
    "kernel can call __device__ functions and use __device__ variables of the other files:\n"
    "  gpurace check kernel.cu helpers.cu --kernel k --grid 4 --block 128\n";

static const char source_options_help[] =
    "  --kernel K           the kernel to use when FILE defines several\n"
    "  --source-faithful    compile with -G: every source-level access stays in the PTX,\n"
    "                       so races the optimizer would hide stay visible\n"
    "  --arch compute_XX    virtual architecture to compile for (default compute_90)\n"
    "  --compiler C         nvrtc, nvcc or auto (default: NVRTC unless FILE has host code)\n"
    "  -I DIR, -D NAME[=V]  include directories and macro definitions for the compiler\n";

static const command commands[] = {
    {"info", cmd_info, "gpurace info FILE... [--kernel K] [--spec]",
     "Lists the kernels FILE defines with their parameters (names and C types), static and\n"
     "dynamic shared memory, entry attributes and instruction counts. With --spec, prints the\n"
     "spec gpurace infers for the kernel (launch ranges, scalar ranges, buffer sizes) as JSON to\n"
     "edit and pass to fuzz with --spec F; the assumptions go to standard error.\n"},
    {"ptx", cmd_ptx, "gpurace ptx FILE... [--instrument] [--source-faithful] [-o OUT]",
     "Prints the PTX gpurace analyses, printed back from its IR. With --instrument, every\n"
     "global/shared/generic memory access, barrier, warp synchronization, fence, warp\n"
     "collective and thread exit carries a call to a gpurace hook; a summary of the hooks goes\n"
     "to standard error (--quiet leaves it out). -o writes to a file instead of stdout.\n"},
    {"check", cmd_check,
     "gpurace check FILE... [--kernel K] --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared BYTES]\n"
     "              [--arg NAME=VALUE]... [--schedule S] [--backend auto|sim]\n"
     "              [--detector auto|fsm|hb] [--warp-model its|lockstep] [--json F] [--sarif F]\n"
     "              [--spec F] [--oracle seqcmp|twopass|none] [--reference NAME]\n"
     "              [--oracle-schedules LIST] [--step-budget N] [--memory-limit MB]\n"
     "       gpurace check FILE... --spec F [--oracle ...] [--json F] [--sarif F]\n"
     "       gpurace check FILE... --input WITNESS [--force] [--step-budget N] [--json F] [--sarif F]",
     "Runs one launch of the kernel under the race detector and reports every finding (data\n"
     "race, barrier divergence, out-of-bounds access, hang, fault) with its source lines.\n"
     "--arg NAME=VALUE sets a scalar, or a buffer as buffer(TYPE,COUNT[,INIT]) with INIT one of\n"
     "zeros, ones, iota, random, const:V, values:a;b;c. --schedule picks the interleaving:\n"
     "rr[:Q], random:SEED[:Q], serial, pct:SEED[:DEPTH], reverse[:Q]; without it, rr:8, and a\n"
     "kernel with atomics, fences or strong accesses also runs under reverse:1, random:1 and\n"
     "pct:1:3 until one shows a race (all deterministic). --json F writes the\n"
     "findings as JSON ('-' for standard output). --input WITNESS runs the launch a witness\n"
     "recorded (as replay does), --force even when it was recorded for another version of FILE.\n"
     "--spec F makes the launch from a kernel spec when --grid/--block are absent. --oracle\n"
     "seqcmp compares the outputs of several schedules with a sequential reference (the spec's\n"
     "reference function, --reference NAME, or the serialized kernel) and says on every race\n"
     "whether it manifests; --oracle twopass reports value-witnessed conflicts between warps.\n"
     "--step-budget N: thread-instructions before the launch counts as not terminating (default\n"
     "200 million, or 20,000 per launched thread when that is more). A buffer given no length\n"
     "gets one element per thread (or per the largest integer argument), and out-of-bounds\n"
     "findings past such a buffer are warnings that say so.\n"
     "--memory-limit MB caps the happens-before detector (default 4096): --detector hb over it\n"
     "is an error (exit 2); the confirmation --detector auto runs after the FSM finds a race is\n"
     "skipped over it, and the FSM's findings are reported as not confirmed.\n"},
    {"fuzz", cmd_fuzz,
     "gpurace fuzz FILE... [--kernel K] [--spec F] [--backend auto|sim|gpu] [--time S] [--runs N]\n"
     "             [--corpus DIR] [--findings DIR] [--jobs N] [--seed N] [--stop-on-first]\n"
     "             [--seeds DIR] [--memory-limit MB] [--fail-on error|any|race|none]\n"
     "             [--json F] [--sarif F] [--oracle seqcmp|none] [--reference NAME]\n"
     "             [-- libFuzzer flags]",
     "Searches for the launches, inputs and schedules that expose races: libFuzzer evolves\n"
     "launches within the kernel's spec (inferred from its signature when --spec is absent; the\n"
     "assumptions are printed). Each new finding is minimized and saved as a witness and a .cu\n"
     "reproducer under --findings; the search goes on unless --stop-on-first. --time defaults to\n"
     "60 seconds. --oracle seqcmp adds manifests to saved findings, makes output divergence a\n"
     "search feature and saves nondeterministic output without a detected race as a finding.\n"
     "--jobs N workers share one corpus folder (each reloads the others' inputs); with --corpus\n"
     "and N > 1 it is merged at the end as libFuzzer -merge=1 does (inputs that add no feature\n"
     "are removed). The folder is libFuzzer's layout (a genome a file): build-fuzzer --seeds and\n"
     "fuzzing engines take it, and replay re-runs it.\n"
     "--seeds DIR (test amplification) starts from the launches gpurace run --record saved in\n"
     "DIR (or witnesses, or a corpus folder) and changes them within the spec derived from them\n"
     "(saved as FINDINGS/KERNEL.derived-spec.json; --spec replaces it). Each finding says what it\n"
     "depends on: a recorded launch or an input within the spec is an error, an input outside it\n"
     "a warning naming the assumption; --fail-on error (the default) fails on errors only.\n"},
    {"replay", cmd_replay,
     "gpurace replay FILE... WITNESS|DIR [--json F] [--sarif F] [--force] [--spec F]\n"
     "              [--oracle seqcmp|twopass|none] [--reference NAME] [--step-budget N]",
     "Re-runs saved witnesses (one file, or every witness of a findings folder) and reports what\n"
     "still reproduces: the regression mode for CI. --force runs a witness recorded for another\n"
     "version of the kernel. --oracle runs the value oracle on each witness's input (see check).\n"
     "Genome files (names without an extension: a corpus folder's entries, a fuzzing engine's\n"
     "crash-SHA1 files) are decoded under the spec (--spec: the one the search used; else the\n"
     "inferred one) and run too, each finding reported once.\n"},
    {"minimize", cmd_minimize, "gpurace minimize FILE... WITNESS [-o OUT]",
     "Shrinks a witness (fewer blocks and threads, smaller values, simplest schedule) while its\n"
     "finding still reproduces, and writes it to OUT (default WITNESS.min.json).\n"},
    {"run", cmd_run,
     "gpurace run [options] -- PROGRAM [ARGS]\n"
     "       gpurace run [options] FILE.cu... [-I DIR] [-D NAME[=V]] [-L DIR] [-l LIB] [-o OUT]\n"
     "                   [-- ARGS]\n"
     "       options: [--backend sim|gpu] [--kernel K]... [--launches N] [--step-budget N]\n"
     "                [--source FILE]... [--detector auto|fsm|hb] [--schedule S]\n"
     "                [--warp-model its|lockstep] [--record DIR]\n"
     "                [--findings DIR] [--progress SECONDS] [--json F] [--sarif F]\n"
     "                [--suppressions F] [--fail-on race|any|none] [--quiet] [--verbose]",
     "Runs an unmodified CUDA program on the CPU and checks every kernel launch it makes: the\n"
     "program starts with gpurace's CUDA runtime instead of NVIDIA's, each launch runs on the\n"
     "simulator under the race detector with the program's own launch configuration and data,\n"
     "and the program goes on as on a GPU (its standard output and error pass through; the\n"
     "report goes to standard error and the --json/--sarif files). The program must use the\n"
     "shared CUDA runtime (nvcc -cudart shared); with FILE.cu arguments gpurace builds it so\n"
     "(several files with -rdc=true: device code of the units that call one another is linked).\n"
     "Kernel code is the PTX nvcc embeds in the program, or the PTX of --source files.\n"
     "--kernel K checks only kernel K (repeatable; the others still run, unchecked); --launches N\n"
     "checks the first N launches; --step-budget N stops a launch after N thread-instructions\n"
     "(default 1000000000) with a hang finding. Each new finding is saved as a witness under\n"
     "--findings (default gpurace-findings) with the module's PTX, and the report says how to\n"
     "replay it. Exit status: 0 no finding, 1 findings, 2 usage or build error, 3 gpurace could\n"
     "not do its whole job (an unimplemented CUDA runtime function, a kernel without PTX, PTX\n"
     "the simulator does not run, the program killed by a signal); the program's own exit\n"
     "status is printed and put in the JSON report.\n"
     "--backend gpu runs the program on this machine's GPU at full size instead: gpurace stands\n"
     "between the program and the CUDA driver (any runtime, nvcc's default static one too),\n"
     "instruments each kernel's PTX when the program loads it, and runs the instrumented kernel\n"
     "in place of the original on the program's stream with its arguments (same results). A\n"
     "launch of more than 2^20 threads is checked in slices of its grid (a note says so). Kernels\n"
     "without PTX, or that gpurace cannot instrument, run as launched and are listed (exit 3).\n"},
    {"spec", cmd_spec, "gpurace spec derive DIR [--kernel K] [-o SPEC]",
     "Derives a kernel spec from the launches a program made (gpurace run --record DIR): launch\n"
     "shapes seen (varying only where the recordings vary or the kernel reads blockDim/gridDim),\n"
     "scalar values and ranges, buffer lengths as relations (len(x) == n, gridDim.x, n * n),\n"
     "indices into other buffers, permutations, sorted arrays, CSR graphs, constants. The spec is\n"
     "in the normal format (docs/spec.md) with a comment on each entry saying what was seen, to\n"
     "read and edit; the recorded launches fit it (except where a buffer's length varied with no\n"
     "relation: the longest is used). Without -o it goes to standard output.\n"
     "--kernel K picks the kernel when DIR holds several. gpurace fuzz FILE --seeds DIR derives\n"
     "the same spec itself when --spec is absent.\n"},
    {"build-fuzzer", cmd_build_fuzzer,
     "gpurace build-fuzzer FILE [--kernel K] [--spec F] [--seeds DIR] -o OUT",
     "Builds a standalone libFuzzer fuzz target for the kernel, for fuzzing engines that run C\n"
     "fuzz targets (ClusterFuzzLite, OSS-Fuzz, libFuzzer's own command line): OUT, plus\n"
     "OUT_seed_corpus.zip, OUT.dict and OUT.options. The target decodes libFuzzer's inputs as\n"
     "gpurace fuzz does (genomes under the spec, inferred when --spec is absent) and runs them on\n"
     "the simulator under the race detector; the kernel's PTX, source and spec are embedded, so\n"
     "it needs neither NVRTC nor the kernel file at run time. A finding is a crash: the target\n"
     "prints the diagnostic, writes the witness as gpurace-CLASS-SIGNATURE.json under libFuzzer's\n"
     "-artifact_prefix (where the crash file goes too) and aborts. --seeds DIR adds the genomes\n"
     "and witnesses of a corpus folder (gpurace fuzz --corpus) to the seed archive. With several\n"
     "kernels in FILE and no --kernel, one target per kernel: OUT_KERNEL. Compiles with $CC\n"
     "(default clang) and $CFLAGS, links with $CXX (default clang++), $CXXFLAGS and\n"
     "$LIB_FUZZING_ENGINE (default -fsanitize=fuzzer), against the libraries in\n"
     "lib/gpurace/fuzzer next to the gpurace executable (or $GPURACE_FUZZER_LIB).\n"},
    {"fix", cmd_fix,
     "gpurace fix FILE [WITNESS|DIR] [-o PATCH] [--sarif F] [--spec F] [--search N]\n"
     "            [--step-budget N] [--force] [--no-notes]",
     "Proposes synchronization repairs for the findings the witnesses show (a WITNESS file, or\n"
     "every witness of DIR; default gpurace-findings) and verifies each one: the patched source is\n"
     "compiled and every witness replayed under its own and five other schedules, together with N\n"
     "launches decoded from the spec (--search, default 8) and the genomes of a corpus DIR: the\n"
     "finding must be gone, no new finding may appear, and runs without findings must leave the\n"
     "same outputs. Repairs, cheapest first: widen a scope (atomicAdd_block -> atomicAdd,\n"
     "__threadfence_block -> __threadfence), make a read-modify-write atomic (x += v ->\n"
     "atomicAdd), __syncwarp() for lanes of one warp, __syncthreads() at a point every thread of\n"
     "the block reaches (never in code whose condition differs between threads), split a statement\n"
     "that reads a neighbour's element and writes its own, __threadfence() around a flag between\n"
     "blocks, and a barrier moved out of a divergent branch. The verified fixes are printed as one\n"
     "unified diff (standard output, or -o PATCH; apply with patch -p0); each finding's fix and\n"
     "its verification, or 'no verified fix' with the reason, go to standard error, with notes on\n"
     "barriers that look redundant over these inputs (--no-notes leaves them out). --sarif F\n"
     "attaches each verified fix to its result (fixes). Exit status 1 when the witnesses show\n"
     "findings (fixed or not: FILE is not changed), 0 when they show none.\n"},
    {"export", cmd_export, "gpurace export WITNESS -o repro.cu [--source FILE]...",
     "Writes a standalone CUDA program that embeds the kernel and the witness's inputs, launches\n"
     "it as recorded, prints an output digest, and with --repeat N reports whether outputs differ\n"
     "between runs. It compiles with nvcc as it is. The source is the file the witness names, or\n"
     "--source; for a witness of several files, every file it names, or --source once per file,\n"
     "the kernel's first (the program embeds it and says how to build it with the others:\n"
     "nvcc -rdc=true).\n"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void print_usage(FILE *out) {
    fprintf(out,
            "gpurace %s — find data races in CUDA kernels\n\n"
            "usage:\n",
            GPURACE_VERSION);
    for (int i = 0; i < NCOMMANDS; i++) fprintf(out, "  %s\n", commands[i].synopsis);
    fprintf(out,
            "  gpurace help COMMAND\n\n"
            "FILE is a .cu file (compiled with NVRTC, or nvcc when it has host code) or a .ptx file.\n"
            "%s"
            "Options that every command reading FILE takes:\n%s"
            "\nExit status: 0 no finding, 1 findings, 2 usage or input error, 3 internal error.\n",
            several_files_help, source_options_help);
}

bool cli_print_command_help(const char *name) {
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, name) != 0) continue;
        /* run takes a program, spec a folder: their options are all in their synopsis */
        bool file_options = strcmp(name, "run") != 0 && strcmp(name, "spec") != 0;
        bool several_files = file_options && strcmp(name, "export") != 0 && strcmp(name, "build-fuzzer") != 0;
        printf("usage: %s\n\n%s%s%s%s", commands[i].synopsis, commands[i].help,
               several_files ? "\n" : "", several_files ? several_files_help : "",
               file_options ? "\nOptions:\n" : "");
        if (file_options) fputs(source_options_help, stdout);
        return true;
    }
    return false;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("gpurace %s\n", GPURACE_VERSION);
        return 0;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            print_usage(stdout);
            return 0;
        }
        if (cli_print_command_help(argv[2])) return 0;
        fprintf(stderr, "gpurace: no command '%s' (see 'gpurace --help')\n", argv[2]);
        return 2;
    }
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, cmd) != 0) continue;
        for (int a = 2; a < argc; a++) {
            if (strcmp(argv[a], "--") == 0) break; /* what follows belongs to a program (run) */
            if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
                cli_print_command_help(cmd);
                return 0;
            }
        }
        return commands[i].run(argc, argv);
    }
    fprintf(stderr, "gpurace: unknown command '%s' (see 'gpurace --help')\n", cmd);
    return 2;
}
