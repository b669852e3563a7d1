/* libFuzzer target for the PTX parser: any input must parse or fail cleanly (no crash, leak,
 * hang or undefined behaviour), and whatever parses must print to PTX that parses back to an
 * equal module. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strbuf.h"
#include "jit/ptx/ptx_parse.h"
#include "jit/ptx/ptx_print.h"
#include "jit/ptx/ptx_srcmap.h"

/* The compiled patterns are reused across inputs (the fuzz driver is single-threaded). */
static ptx_parser *parser;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!parser) {
        gr_error err = GR_ERROR_INIT;
        parser = ptx_parser_new(&err);
        if (!parser) abort();
    }
    ptx_module *m = NULL;
    gr_error err = GR_ERROR_INIT;
    if (!ptx_parser_parse(parser, (const char *)data, size, "fuzz.ptx", &m, &err)) {
        if (err.status != GR_ERR_INPUT) abort(); /* only input errors are expected */
        if (err.line < 0) abort();
        gr_error_clear(&err);
        return 0;
    }
    gr_strbuf sb = GR_STRBUF_INIT;
    if (!ptx_print(m, &sb)) abort();
    ptx_module *m2 = NULL;
    if (!ptx_parser_parse(parser, sb.data ? sb.data : "", sb.len, "printed.ptx", &m2, &err)) {
        fprintf(stderr, "printed PTX does not parse: line %d: %s\n%s\n", err.line, err.message,
                gr_strbuf_cstr(&sb));
        abort();
    }
    char why[256];
    if (!ptx_module_equal(m, m2, why, sizeof why)) {
        fprintf(stderr, "round trip differs: %s\n%s\n", why, gr_strbuf_cstr(&sb));
        abort();
    }
    /* the source map must cope with whatever .loc/.file/.section text came in */
    ptx_srcmap *sm = ptx_srcmap_new(m);
    if (sm) {
        for (uint32_t i = 0; i < m->ninsns && i < 64; i++) {
            ptx_srcloc frames[8];
            (void)ptx_srcmap_inline_chain(sm, i, frames, 8);
        }
        ptx_srcmap_free(sm);
    }
    gr_strbuf_free(&sb);
    ptx_module_free(m);
    ptx_module_free(m2);
    return 0;
}
