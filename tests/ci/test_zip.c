/* common/zip: the stored ZIP archives of build-fuzzer's seed corpus, read back field by field
 * as an unzip reads them (end record -> central directory -> local header -> bytes). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "common/zip.h"

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }

Test(zip, crc32_matches_the_standard_check_value) {
    cr_assert_eq(gr_crc32("123456789", 9), 0xcbf43926u);
    cr_assert_eq(gr_crc32("", 0), 0u);
}

Test(zip, entries_read_back_through_the_central_directory) {
    gr_zip z = GR_ZIP_INIT;
    gr_error err = GR_ERROR_INIT;
    const uint8_t genome[5] = {0, 1, 2, 0xff, 0x7f};
    cr_assert(gr_zip_add(&z, "e3cbc10d9a564825", genome, sizeof genome, &err));
    cr_assert(gr_zip_add(&z, "empty", "", 0, &err));
    char path[] = "/tmp/gr-test-zip-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert(gr_zip_write(&z, path, &err), "%s", err.message ? err.message : "");
    gr_zip_free(&z);
    size_t len = 0;
    uint8_t *a = (uint8_t *)gr_read_file_kind(path, GR_FILE_DATA, &len, &err);
    unlink(path);
    cr_assert_not_null(a);
    cr_assert_geq(len, 22);
    const uint8_t *end = a + len - 22;
    cr_assert_eq(rd32(end), 0x06054b50u);
    cr_assert_eq(rd16(end + 10), 2); /* entries */
    const uint8_t *cd = a + rd32(end + 16);
    const char *names[2] = {"e3cbc10d9a564825", "empty"};
    const uint8_t *data[2] = {genome, (const uint8_t *)""};
    uint32_t sizes[2] = {sizeof genome, 0};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(rd32(cd), 0x02014b50u);
        cr_assert_eq(rd16(cd + 10), 0); /* stored */
        uint32_t crc = rd32(cd + 16), size = rd32(cd + 24), name_len = rd16(cd + 28);
        cr_assert_eq(size, sizes[i]);
        cr_assert_eq(crc, gr_crc32(data[i], sizes[i]));
        cr_assert_eq(name_len, strlen(names[i]));
        cr_assert(memcmp(cd + 46, names[i], name_len) == 0);
        const uint8_t *local = a + rd32(cd + 42);
        cr_assert_eq(rd32(local), 0x04034b50u);
        cr_assert_eq(rd32(local + 14), crc);
        const uint8_t *bytes = local + 30 + rd16(local + 26) + rd16(local + 28);
        cr_assert(memcmp(bytes, data[i], size) == 0);
        cd += 46 + name_len + rd16(cd + 30) + rd16(cd + 32);
    }
    free(a);
}

Test(zip, a_name_that_cannot_be_stored_is_an_error) {
    gr_zip z = GR_ZIP_INIT;
    gr_error err = GR_ERROR_INIT;
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cr_assert_not(gr_zip_add(&z, long_name, "x", 1, &err));
    cr_assert_not_null(err.message);
    gr_error_clear(&err);
    cr_assert_not(gr_zip_add(&z, "", "x", 1, &err));
    gr_error_clear(&err);
    gr_zip_free(&z);
}
