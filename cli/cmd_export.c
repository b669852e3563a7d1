/* gpurace export WITNESS -o repro.cu [--source FILE] [--kernel-expr EXPR] [--force]
 *
 * Writes a standalone CUDA program that replays the witness on a GPU (corpus/export.h). The
 * kernel source is the file the witness names (kernel.file, as the saving command was given
 * it), or --source; either must have the source hash the witness records, unless --force. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/search_cli.h"
#include "common/file.h"
#include "common/hash.h"
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
    if (!witness || !out) {
        gr_fail(&err, GR_ERR_USAGE, "usage: gpurace export WITNESS -o repro.cu [--source FILE.cu]");
        return search_fail(&err);
    }
    gr_witness w;
    memset(&w, 0, sizeof w);
    char *text = NULL;
    gr_strbuf cu = GR_STRBUF_INIT;
    int code = 2;
    if (!gr_witness_load(&w, witness, NULL, force, &err)) goto done;
    /* the witness names the source it was saved for: the default, checked against its hash */
    if (!source) source = w.source_file;
    if (!source) {
        gr_fail(&err, GR_ERR_USAGE, "%s does not name its kernel source: give it with --source FILE.cu",
                witness);
        goto done;
    }
    text = gr_read_file(source, NULL, &err);
    if (!text) {
        if (source == w.source_file)
            gr_error_wrap(&err, "the source the witness names (give another with --source)");
        goto done;
    }
    if (gr_hash64(text, strlen(text)) != w.source_hash && !force) {
        gr_fail(&err, GR_ERR_INPUT, "%s is not the source %s was saved for (its hash differs): "
                "--force exports it anyway", source, witness);
        goto done;
    }
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
