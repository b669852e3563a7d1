/* gpurace export WITNESS -o repro.cu [--source FILE] [--kernel-expr EXPR] [--force]
 *
 * Writes a standalone CUDA program that replays the witness on a GPU (corpus/export.h). The
 * kernel source comes from --source, or from the reproducer's neighbor: the witness does not
 * embed it, so the default is the file named like the witness with `.cu` next to it only when
 * that is a reproducer already; otherwise --source is required. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/search_cli.h"
#include "common/file.h"
#include "corpus/export.h"

int cmd_export(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *witness = NULL, *out = NULL, *source = NULL, *symbol = NULL;
    bool force = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--source") == 0 || strcmp(a, "--kernel-expr") == 0) &&
            i + 1 < argc) {
            const char **slot = a[1] == 'o' ? &out : a[2] == 's' ? &source : &symbol;
            *slot = argv[++i];
        } else if (strcmp(a, "--force") == 0) {
            force = true;
        } else if (a[0] == '-' || witness) {
            gr_fail(&err, GR_ERR_USAGE, "export: unexpected argument '%s'", a);
            return search_fail(&err);
        } else {
            witness = a;
        }
    }
    if (!witness || !out || !source) {
        gr_fail(&err, GR_ERR_USAGE, "usage: gpurace export WITNESS -o repro.cu --source FILE.cu");
        return search_fail(&err);
    }
    gr_witness w;
    memset(&w, 0, sizeof w);
    char *text = NULL;
    gr_strbuf cu = GR_STRBUF_INIT;
    int code = 2;
    text = gr_read_file(source, NULL, &err);
    if (!text || !gr_witness_load(&w, witness, NULL, force, &err)) goto done;
    const char *name = strrchr(source, '/');
    name = name ? name + 1 : source;
    if (!gr_export_reproducer(&w, text, name, symbol, force, &cu, &err)) goto done;
    if (!gr_write_file_atomic(out, cu.data, cu.len, &err)) goto done;
    fprintf(stderr, "export: wrote %s (build: nvcc -o repro %s)\n", out, out);
    code = 0;
done:
    if (code) code = search_fail(&err);
    gr_strbuf_free(&cu);
    free(text);
    gr_witness_free(&w);
    return code;
}
