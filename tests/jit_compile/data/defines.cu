// Needs -I data/include (for the quoted-less header) and -D DEFINED_VALUE=...
#include <gr_test_value.h>
#ifndef DEFINED_VALUE
#error "DEFINED_VALUE is not defined"
#endif
extern "C" __global__ void store_values(int *p) {
    p[0] = HEADER_VALUE;
    p[1] = DEFINED_VALUE;
}
