/* signature.h — what a kernel looks like to its caller: name, parameters with names and C types,
 * static shared memory, entry attributes.
 *
 * PTX alone knows parameter sizes but not names or C types. Types come from the demangled name
 * (C++ kernels) or from the kernel's declaration in the source (extern "C" kernels, and names for
 * every kernel); when neither is available we say so with the PTX type ("b64 (param 0)"). */
#ifndef GR_JIT_SIGNATURE_H
#define GR_JIT_SIGNATURE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "jit/ptx/ptx_ir.h"

typedef enum gr_param_kind {
    GR_PARAM_SCALAR,  /* int, float, size_t, ... */
    GR_PARAM_POINTER, /* T*: a buffer */
    GR_PARAM_AGGREGATE, /* a struct or array passed by value (.b8 name[N]) */
} gr_param_kind;

/* One field of a struct passed by value, from the struct's declaration in the source. Members
 * of nested structs and lanes of vector types are fields of their own ("pos.x"); arrays are
 * left undescribed. */
typedef struct gr_struct_field {
    char *name;        /* "data", "pos.x" */
    char *c_type;      /* "float *", "int" */
    char *elem_type;   /* pointers: the pointee type ("float"), else NULL */
    uint32_t offset;   /* bytes from the struct's start */
    uint32_t size;
    bool is_pointer;
} gr_struct_field;

typedef struct gr_kernel_param {
    char *name;        /* from the source; "arg<N>" when unknown */
    char *c_type;      /* "const float *", "int"; NULL when unknown */
    char *elem_type;   /* pointee type for pointers ("float"), else NULL */
    gr_param_kind kind;
    int size;          /* bytes in the parameter space */
    int align;
    uint8_t ptx_type;  /* ptx_type of the .param (b8 for aggregates) */
    bool name_from_source;
    /* aggregates: the fields, when the declaration was found and its layout agrees with the
     * PTX parameter's size and alignment; otherwise NULL and `layout_note` says why */
    gr_struct_field *fields;
    int nfields;
    char *layout_note;
} gr_kernel_param;

/* A `__shared__ T name[A][B]...` array declared in the source with constant extents (numbers and
 * `#define NAME number` macros, + - * / and parentheses): its name and the extent of its last
 * dimension, the row a thread index runs along (`temp[pout][tid]` stays in a row of B). */
typedef struct gr_shared_decl {
    char *name;
    uint64_t row;      /* elements in the last dimension */
    uint64_t elements; /* in the whole array */
    int ndims;
} gr_shared_decl;

typedef struct gr_kernel_sig {
    const ptx_function *fn; /* the .entry in the module */
    char *ptx_name;         /* as in PTX (mangled for C++ kernels) */
    char *name;             /* unqualified name a user types for --kernel ("histogram") */
    char *qualified;        /* with namespaces and template arguments ("ns::scale<float>") */
    char *pretty;           /* demangled signature or "name(type, type)" */
    bool extern_c;          /* PTX name is not mangled */
    int source_line;        /* line of the declaration in the source, 0 if not found */
    gr_kernel_param *params;
    int nparams;
    uint64_t static_shared_bytes; /* module and function-scope .shared variables it can see */
    bool uses_dynamic_shared;     /* an .extern .shared array is declared in the module */
    /* multi-dimensional __shared__ arrays declared in the source (and its included files) */
    gr_shared_decl *shared_decls;
    int nshared_decls;
} gr_kernel_sig;

typedef struct gr_kernel_list {
    gr_kernel_sig *kernels;
    int count;
} gr_kernel_list;

/* Reads the signatures of every .entry in `m`. `source` (may be NULL) is the CUDA source the
 * module came from, used for parameter names and extern "C" types. */
bool gr_kernel_list_build(const ptx_module *m, const char *source, gr_kernel_list *out,
                          gr_error *err);
/* The same, also reading the texts of the files `source` includes (`included`, may hold NULLs)
 * for the declarations of kernels defined there. A definition's parameter names win over a
 * forward declaration's; a declaration in an included file has no source_line. */
bool gr_kernel_list_build_with(const ptx_module *m, const char *source,
                               const char *const *included, int nincluded, gr_kernel_list *out,
                               gr_error *err);
void gr_kernel_list_free(gr_kernel_list *list);

/* Picks the kernel named `name`: unqualified name, qualified name with template arguments
 * (white space ignored: "scale<float,4>" matches "scale<float, 4>"), pretty or PTX name. With name == NULL
 * the module must hold exactly one kernel; otherwise the error lists the choices. */
const gr_kernel_sig *gr_kernel_select(const gr_kernel_list *list, const char *name,
                                      gr_error *err);

/* The fields of aggregate parameter `p` from the declaration of its struct in `texts` (sources
 * with comments blanked; NULL entries skipped): sets p->fields / p->nfields, or p->layout_note
 * when the declaration is missing or disagrees with the PTX size or alignment. Fails only for
 * lack of memory. */
bool gr_struct_layout(const char *const *texts, int ntexts, gr_kernel_param *p, gr_error *err);
void gr_struct_fields_free(gr_struct_field *fields, int n);

/* The multi-dimensional `__shared__` arrays declared in `texts` (comment-free sources, NULL
 * entries skipped), appended to *out / *n. Fails only for lack of memory. */
bool gr_shared_decls_find(const char *const *texts, int ntexts, gr_shared_decl **out, int *n,
                          gr_error *err);
/* The declaration of PTX shared variable `ptx_name` ("_ZZ4scanE4temp" is scan's `temp`), or
 * NULL; when several arrays share the name, NULL unless they agree. */
const gr_shared_decl *gr_shared_decl_of(const gr_kernel_sig *sig, const char *ptx_name);

/* Itanium C++ demangling of a PTX symbol; NULL when `mangled` is not a mangled name.
 * The caller frees the result. */
char *gr_demangle(const char *mangled);

#endif
