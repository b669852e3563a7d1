/* gpurace export WITNESS -o repro.cu [--source FILE]... [--kernel-expr EXPR] [--force]
 *
 * Writes a standalone CUDA program that replays the witness on a GPU (corpus/export.h). The
 * kernel source is the file the witness names (kernel.file, as the saving command was given
 * it), or --source; together they must have the source hash the witness records, unless
 * --force. A witness of a program of several files needs each of them: the files it names
 * (kernel.file, kernel.linked_files), or --source once per file, the kernel's first, in the
 * order the saving command had them; the reproducer embeds the first and says how to build it
 * with the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/search_cli.h"
#include "common/file.h"
#include "common/hash.h"
#include "corpus/export.h"

enum { EXPORT_MAX_SOURCES = 64 };

int cmd_export(int argc, char **argv) {
    gr_error err = GR_ERROR_INIT;
    const char *witness = NULL, *out = NULL, *source = NULL, *symbol = NULL;
    const char *sources[EXPORT_MAX_SOURCES];
    char *texts[EXPORT_MAX_SOURCES] = {0};
    int nsources = 0;
    bool force = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--source") == 0 && i + 1 < argc) {
            if (nsources == EXPORT_MAX_SOURCES) {
                gr_fail(&err, GR_ERR_USAGE, "export: too many --source options");
                return search_fail(&err);
            }
            sources[nsources++] = argv[++i];
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--kernel-expr") == 0) && i + 1 < argc) {
            const char **slot = a[1] == 'o' ? &out : &symbol;
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
    gr_strbuf cu = GR_STRBUF_INIT;
    int code = 2;
    if (!gr_witness_load(&w, witness, NULL, force, &err)) goto done;
    /* the witness names the source it was saved for: the default, checked against its hash */
    if (nsources == 0 && w.source_file) {
        sources[nsources++] = w.source_file;
        /* a program of several files: every file the witness was saved with, in order */
        for (int i = 0; i < w.nlinked_files && nsources < EXPORT_MAX_SOURCES; i++)
            sources[nsources++] = w.linked_files[i];
    }
    if (nsources == 0) {
        gr_fail(&err, GR_ERR_USAGE, "%s does not name its kernel source: give it with --source FILE.cu",
                witness);
        goto done;
    }
    source = sources[0];
    for (int i = 0; i < nsources; i++)
        if (!(texts[i] = gr_read_file(sources[i], NULL, &err))) {
            if (sources[0] == w.source_file)
                gr_error_wrap(&err, "a source the witness names (give them with --source)");
            goto done;
        }
    if (gr_source_hash_texts(texts[0], (const char *const *)texts + 1, nsources - 1) !=
            w.source_hash && !force) {
        gr_fail(&err, GR_ERR_INPUT, "%s %s not the source%s %s was saved for (the hash differs; "
                "a witness of several files needs each, the kernel's first: --source FILE "
                "--source OTHER.cu): --force exports it anyway",
                nsources > 1 ? "these files" : source, nsources > 1 ? "are" : "is",
                nsources > 1 ? "s" : "", witness);
        goto done;
    }
    if (nsources > 1) {
        gr_strbuf_append(&cu, "// The kernel calls code of other files: build with\n//   nvcc -rdc=true -o repro ");
        const char *base = strrchr(out, '/');
        gr_strbuf_append(&cu, base ? base + 1 : out);
        for (int i = 1; i < nsources; i++) gr_strbuf_appendf(&cu, " %s", sources[i]);
        gr_strbuf_append(&cu, "\n");
    }
    const char *name = strrchr(source, '/');
    name = name ? name + 1 : source;
    /* the hash was checked above over every file; the embedded one alone cannot match it */
    if (!gr_export_reproducer(&w, texts[0], name, symbol, force || nsources > 1, &cu, &err))
        goto done;
    if (!gr_write_file_atomic(out, cu.data, cu.len, &err)) goto done;
    fprintf(stderr, "export: wrote %s (build: nvcc%s -o repro %s", out,
            nsources > 1 ? " -rdc=true" : "", out);
    for (int i = 1; i < nsources; i++) fprintf(stderr, " %s", sources[i]);
    fprintf(stderr, ")\n");
    code = 0;
done:
    if (code) code = search_fail(&err);
    gr_strbuf_free(&cu);
    for (int i = 0; i < nsources; i++) free(texts[i]);
    gr_witness_free(&w);
    return code;
}
