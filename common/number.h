/* number.h — integers from text, whole text and range checked.
 *
 * Every numeric command-line value (flags, --arg values, schedule genes) goes through these, so
 * a value out of range is an error the caller words, never a silent wrap or truncation. Accepted:
 * decimal digits or 0x-prefixed hexadecimal, an optional sign ('-' only where a negative value
 * can be in range), nothing else (no white space, no suffix). */
#ifndef GR_COMMON_NUMBER_H
#define GR_COMMON_NUMBER_H

#include <stdint.h>

typedef enum gr_number_status {
    GR_NUMBER_OK = 0,
    GR_NUMBER_SYNTAX, /* not an integer at all */
    GR_NUMBER_RANGE,  /* an integer outside min..max (including past 64 bits) */
} gr_number_status;

gr_number_status gr_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);
gr_number_status gr_parse_i64(const char *text, int64_t min, int64_t max, int64_t *out);

#endif
