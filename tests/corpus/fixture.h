/* fixture.h — kernel signatures built by hand, so spec and codec tests need no compiler. */
#ifndef GR_TESTS_CORPUS_FIXTURE_H
#define GR_TESTS_CORPUS_FIXTURE_H

#include "corpus/codec.h"
#include "corpus/spec.h"

/* "float *a", "const int *idx", "int n", "struct:24 s" (a 24-byte struct by value). */
gr_kernel_sig *fixture_sig(const char *name, int nparams, const char *const *decls);
void fixture_sig_free(gr_kernel_sig *sig);

/* Parses `json` for the signature or fails the test with the error message. */
void fixture_spec(gr_spec *spec, const char *json, const gr_kernel_sig *sig);
/* Parses and returns the error message (caller frees), or NULL when it parsed. */
char *fixture_spec_error(const char *json, const gr_kernel_sig *sig);

/* Deterministic pseudo-random bytes. */
void fixture_random_bytes(uint64_t seed, uint8_t *out, size_t n);

#endif
