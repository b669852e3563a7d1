/* The FSM transition header compiles unchanged with NVRTC for the device. */
#include <criterion/criterion.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/fsm_rules.h"

static const char *kernel_src =
    "#include \"fsm_rules.h\"\n"
    "extern \"C\" __global__ void step(unsigned long long *shadow, const gr_fsm_access *acc,\n"
    "                                  const gr_fsm_ctx *ctx, unsigned *actions) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    gr_fsm_result r;\n"
    "    unsigned long long old = shadow[i], seen;\n"
    "    do {  /* lock-free CAS loop, as the GPU runtime will do it */\n"
    "        unsigned long long nw = gr_fsm_update(old, &acc[i], ctx, &r);\n"
    "        seen = atomicCAS(&shadow[i], old, nw);\n"
    "        if (seen == old) break;\n"
    "        old = seen;\n"
    "    } while (1);\n"
    "    actions[i] = r.action;\n"
    "}\n";

Test(nvrtc, fsm_rules_compile_for_device) {
    char path[1024];
    snprintf(path, sizeof path, "%s/oracle/fsm_rules.h", GR_SOURCE_DIR);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    static char header[1 << 16];
    size_t n = fread(header, 1, sizeof header - 1, f);
    fclose(f);
    header[n] = 0;
    const char *headers[] = {header};
    const char *names[] = {"fsm_rules.h"};
    nvrtcProgram prog;
    cr_assert_eq(nvrtcCreateProgram(&prog, kernel_src, "fsm_step.cu", 1, headers, names), NVRTC_SUCCESS);
    const char *opts[] = {"--std=c++17", "-default-device"};
    nvrtcResult res = nvrtcCompileProgram(prog, 2, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    char *log = calloc(log_size + 1, 1);
    nvrtcGetProgramLog(prog, log);
    cr_expect_eq(res, NVRTC_SUCCESS, "NVRTC failed: %s\n%s", nvrtcGetErrorString(res), log);
    size_t ptx_size = 0;
    if (res == NVRTC_SUCCESS) nvrtcGetPTXSize(prog, &ptx_size);
    cr_expect_gt(ptx_size, 100);
    free(log);
    nvrtcDestroyProgram(&prog);
}

/* The same header as host C: the action table is what the documentation says. */
Test(nvrtc, action_table_on_host) {
    cr_expect_eq(gr_fsm_action(GR_FSM_UNORD, GR_FSM_YES, GR_FSM_YES), GR_FSM_ACT_RACE);
    cr_expect_eq(gr_fsm_action(GR_FSM_ORD_ALL, GR_FSM_YES, GR_FSM_YES), GR_FSM_ACT_NONE);
    cr_expect_eq(gr_fsm_action(GR_FSM_ORD_UNKNOWN, GR_FSM_YES, GR_FSM_YES), GR_FSM_ACT_UNDECIDED);
    cr_expect_eq(gr_fsm_action(GR_FSM_UNORD, GR_FSM_MAYBE, GR_FSM_YES), GR_FSM_ACT_UNDECIDED);
    cr_expect_eq(gr_fsm_action(GR_FSM_UNORD, GR_FSM_NO, GR_FSM_YES), GR_FSM_ACT_NONE);
}
