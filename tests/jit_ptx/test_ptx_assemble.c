/* Printed PTX is accepted by the assembler: every sample parses, prints, and ptxas (sm_90)
 * compiles the printed text. Built only when the CUDA toolkit's ptxas is found. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "common/strbuf.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"

#define DATA GR_SOURCE_DIR "/tests/jit_ptx/data"

Test(ptx_assemble, printed_samples_assemble_for_sm_90) {
    DIR *d = opendir(DATA);
    cr_assert_not_null(d);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".ptx")) continue;
        char path[1024], out[1024], cmd[3072];
        snprintf(path, sizeof path, "%s/%s", DATA, de->d_name);
        snprintf(out, sizeof out, "%s/tests/jit_ptx/printed_%s", GR_BINARY_DIR, de->d_name);
        gr_error err = GR_ERROR_INIT;
        size_t len;
        char *text = gr_read_file(path, &len, &err);
        cr_assert_not_null(text);
        ptx_module *m = NULL;
        cr_assert(ptx_parse(text, len, de->d_name, &m, &err), "%s: %s", de->d_name, err.message);
        gr_strbuf sb = GR_STRBUF_INIT;
        cr_assert(ptx_print(m, &sb));
        cr_assert(gr_write_file_atomic(out, sb.data, sb.len, &err), "%s", err.message);
        snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s' -o /dev/null", GR_PTXAS, out);
        int rc = system(cmd);
        cr_assert_eq(rc, 0, "ptxas rejected the printed %s (kept at %s)", de->d_name, out);
        gr_strbuf_free(&sb);
        ptx_module_free(m);
        free(text);
        files++;
    }
    closedir(d);
    cr_assert_geq(files, 16);
}
