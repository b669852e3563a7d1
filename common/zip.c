/* zip.c — stored ZIP archives (see zip.h). Layout per the PKWARE APPNOTE: a local header and
 * the bytes of each file, then the central directory, then its end record; little endian. */
#include "common/zip.h"

#include <string.h>

#include "common/file.h"

uint32_t gr_crc32(const void *data, size_t n) {
    const unsigned char *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put16(gr_strbuf *b, uint32_t v) {
    char c[2] = {(char)(v & 0xff), (char)((v >> 8) & 0xff)};
    gr_strbuf_append_n(b, c, 2);
}

static void put32(gr_strbuf *b, uint32_t v) {
    put16(b, v & 0xffff);
    put16(b, v >> 16);
}

enum { ZIP_DOS_DATE_1980 = 0x21 }; /* 1980-01-01: archives stay byte-identical run to run */

bool gr_zip_add(gr_zip *z, const char *name, const void *content, size_t n, gr_error *err) {
    size_t name_len = strlen(name);
    if (name_len == 0 || name_len > 255)
        return gr_fail(err, GR_ERR_USAGE, "zip entry name '%s' is empty or too long", name);
    if (n > 0x7fffffffu || z->data.len + n + name_len + 30 > 0x7fffffffu || z->nentries >= 0xffff)
        return gr_fail(err, GR_ERR_UNSUPPORTED, "the seed archive would be over 2 GiB or 65535 files");
    uint32_t crc = gr_crc32(content, n);
    uint32_t offset = (uint32_t)z->data.len;
    put32(&z->data, 0x04034b50u);
    put16(&z->data, 20); /* version needed: 2.0 */
    put16(&z->data, 0);  /* flags */
    put16(&z->data, 0);  /* method: stored */
    put16(&z->data, 0);  /* time */
    put16(&z->data, ZIP_DOS_DATE_1980);
    put32(&z->data, crc);
    put32(&z->data, (uint32_t)n);
    put32(&z->data, (uint32_t)n);
    put16(&z->data, (uint32_t)name_len);
    put16(&z->data, 0); /* extra field */
    gr_strbuf_append_n(&z->data, name, name_len);
    if (n) gr_strbuf_append_n(&z->data, content, n);

    put32(&z->central, 0x02014b50u);
    put16(&z->central, 0x0314); /* made by: Unix, 2.0 */
    put16(&z->central, 20);
    put16(&z->central, 0);
    put16(&z->central, 0);
    put16(&z->central, 0);
    put16(&z->central, ZIP_DOS_DATE_1980);
    put32(&z->central, crc);
    put32(&z->central, (uint32_t)n);
    put32(&z->central, (uint32_t)n);
    put16(&z->central, (uint32_t)name_len);
    put16(&z->central, 0);             /* extra */
    put16(&z->central, 0);             /* comment */
    put16(&z->central, 0);             /* disk */
    put16(&z->central, 0);             /* internal attributes */
    put32(&z->central, 0100644u << 16); /* external: a regular file, rw-r--r-- */
    put32(&z->central, offset);
    gr_strbuf_append_n(&z->central, name, name_len);
    z->nentries++;
    if (z->data.oom || z->central.oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    return true;
}

bool gr_zip_write(gr_zip *z, const char *path, gr_error *err) {
    gr_strbuf out = GR_STRBUF_INIT;
    if (z->data.len) gr_strbuf_append_n(&out, z->data.data, z->data.len);
    if (z->central.len) gr_strbuf_append_n(&out, z->central.data, z->central.len);
    put32(&out, 0x06054b50u);
    put16(&out, 0);
    put16(&out, 0);
    put16(&out, z->nentries);
    put16(&out, z->nentries);
    put32(&out, (uint32_t)z->central.len);
    put32(&out, (uint32_t)z->data.len);
    put16(&out, 0); /* comment */
    bool ok = !out.oom || gr_fail(err, GR_ERR_NOMEM, "out of memory");
    ok = ok && gr_write_file_atomic(path, out.data, out.len, err);
    gr_strbuf_free(&out);
    return ok;
}

void gr_zip_free(gr_zip *z) {
    gr_strbuf_free(&z->data);
    gr_strbuf_free(&z->central);
    z->nentries = 0;
}
