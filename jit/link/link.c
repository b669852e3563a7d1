#include "jit/link/link.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvJitLink.h>

#include "common/strbuf.h"

#define DEFAULT_SM_ARCH "sm_90"

static const char *link_result_name(nvJitLinkResult r) {
    switch (r) {
    case NVJITLINK_SUCCESS: return "success";
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "unrecognized option";
    case NVJITLINK_ERROR_MISSING_ARCH: return "missing -arch";
    case NVJITLINK_ERROR_INVALID_INPUT: return "invalid input";
    case NVJITLINK_ERROR_PTX_COMPILE: return "PTX compilation failed";
    case NVJITLINK_ERROR_NVVM_COMPILE: return "NVVM compilation failed";
    case NVJITLINK_ERROR_INTERNAL: return "internal error";
    case NVJITLINK_ERROR_THREADPOOL: return "thread pool error";
    case NVJITLINK_ERROR_UNRECOGNIZED_INPUT: return "unrecognized input";
    case NVJITLINK_ERROR_FINALIZE: return "finalizer error";
    case NVJITLINK_ERROR_NULL_INPUT: return "null input";
    case NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS: return "incompatible options";
    case NVJITLINK_ERROR_INCORRECT_INPUT_TYPE: return "incorrect input type";
    case NVJITLINK_ERROR_ARCH_MISMATCH: return "architecture mismatch";
    case NVJITLINK_ERROR_OUTDATED_LIBRARY: return "outdated library";
    case NVJITLINK_ERROR_MISSING_FATBIN: return "missing fatbin";
    case NVJITLINK_ERROR_UNRECOGNIZED_ARCH: return "unrecognized -arch value";
    case NVJITLINK_ERROR_UNSUPPORTED_ARCH: return "unsupported -arch value";
    case NVJITLINK_ERROR_LTO_NOT_ENABLED: return "requires -lto";
    }
    return "unknown nvJitLink error";
}

/* The linker's error log, or NULL when it has none. */
static char *error_log(nvJitLinkHandle handle) {
    size_t size = 0;
    if (nvJitLinkGetErrorLogSize(handle, &size) != NVJITLINK_SUCCESS || size <= 1) return NULL;
    char *log = malloc(size);
    if (log && nvJitLinkGetErrorLog(handle, log) != NVJITLINK_SUCCESS) {
        free(log);
        return NULL;
    }
    return log;
}

/* The first "ptx input, line N" of a ptxas log (the line in the PTX module), or 0. */
static int first_error_line(const char *log) {
    const char *hit = log ? strstr(log, "ptx input, line ") : NULL;
    return hit ? atoi(hit + strlen("ptx input, line ")) : 0;
}

/* Records a linker failure with its log as the detail; `module` names the input being added,
 * or is NULL when the failure is not about one module. Bad PTX is an input error; a refused
 * option or architecture is a usage error; anything else is internal. */
static bool fail_link(gr_error *err, nvJitLinkHandle handle, nvJitLinkResult r, const char *what,
                      const char *module) {
    gr_status status = GR_ERR_INTERNAL;
    if (r == NVJITLINK_ERROR_PTX_COMPILE || r == NVJITLINK_ERROR_INVALID_INPUT ||
        r == NVJITLINK_ERROR_UNRECOGNIZED_INPUT || r == NVJITLINK_ERROR_FINALIZE ||
        r == NVJITLINK_ERROR_ARCH_MISMATCH || r == NVJITLINK_ERROR_INCORRECT_INPUT_TYPE)
        status = GR_ERR_INPUT;
    else if (r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION || r == NVJITLINK_ERROR_MISSING_ARCH ||
             r == NVJITLINK_ERROR_UNRECOGNIZED_ARCH || r == NVJITLINK_ERROR_UNSUPPORTED_ARCH)
        status = GR_ERR_USAGE;
    char *log = handle ? error_log(handle) : NULL;
    int line = module ? first_error_line(log) : 0;
    gr_fail_at(err, status, module, line, 0, "nvJitLink: %s: %s", what, link_result_name(r));
    if (log) gr_error_set_detail(err, log);
    free(log);
    return false;
}

bool gr_link_ptx(const gr_link_input *inputs, int n_inputs, const char *sm_arch, void **cubin,
                 size_t *cubin_len, gr_error *err) {
    gr_link_options opt = {.sm_arch = sm_arch};
    return gr_link_ptx_with(inputs, n_inputs, &opt, cubin, cubin_len, err);
}

bool gr_link_ptx_with(const gr_link_input *inputs, int n_inputs, const gr_link_options *opt,
                      void **cubin, size_t *cubin_len, gr_error *err) {
    *cubin = NULL;
    *cubin_len = 0;
    if (!inputs || n_inputs <= 0) return gr_fail(err, GR_ERR_INTERNAL, "nothing to link");

    const char *sm_arch = opt ? opt->sm_arch : NULL;
    gr_strbuf arch_option = GR_STRBUF_INIT;
    gr_strbuf_appendf(&arch_option, "-arch=%s", sm_arch && sm_arch[0] ? sm_arch : DEFAULT_SM_ARCH);
    if (arch_option.oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory");
    char regs_option[32];
    snprintf(regs_option, sizeof regs_option, "-maxrregcount=%u", opt ? opt->max_registers : 0);
    const char *options[] = {arch_option.data, regs_option};
    uint32_t noptions = opt && opt->max_registers ? 2 : 1;

    nvJitLinkHandle handle = NULL;
    nvJitLinkResult r = nvJitLinkCreate(&handle, noptions, options);
    if (r != NVJITLINK_SUCCESS) {
        fail_link(err, handle, r, arch_option.data, NULL);
        if (handle) nvJitLinkDestroy(&handle);
        gr_strbuf_free(&arch_option);
        return false;
    }
    gr_strbuf_free(&arch_option);

    bool ok = true;
    for (int i = 0; ok && i < n_inputs; i++) {
        const char *name = inputs[i].name ? inputs[i].name : "module.ptx";
        /* The PTX assembler reads text up to a NUL; hand it a terminated copy. */
        size_t len = inputs[i].ptx_len;
        while (len > 0 && inputs[i].ptx[len - 1] == '\0') len--;
        char *text = malloc(len + 1);
        if (!text) {
            ok = gr_fail(err, GR_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(text, inputs[i].ptx, len);
        text[len] = '\0';
        r = nvJitLinkAddData(handle, NVJITLINK_INPUT_PTX, text, len + 1, name);
        free(text);
        if (r != NVJITLINK_SUCCESS) {
            gr_strbuf what = GR_STRBUF_INIT;
            gr_strbuf_appendf(&what, "cannot add %s", name);
            ok = fail_link(err, handle, r, gr_strbuf_cstr(&what), name);
            gr_strbuf_free(&what);
        }
    }
    if (ok && (r = nvJitLinkComplete(handle)) != NVJITLINK_SUCCESS)
        ok = fail_link(err, handle, r, "linking failed", NULL);
    if (ok) {
        size_t size = 0;
        r = nvJitLinkGetLinkedCubinSize(handle, &size);
        void *data = r == NVJITLINK_SUCCESS && size > 0 ? malloc(size) : NULL;
        if (!data) {
            ok = r == NVJITLINK_SUCCESS ? gr_fail(err, GR_ERR_NOMEM, "out of memory")
                                        : fail_link(err, handle, r, "no cubin", NULL);
        } else if ((r = nvJitLinkGetLinkedCubin(handle, data)) != NVJITLINK_SUCCESS) {
            free(data);
            ok = fail_link(err, handle, r, "cannot fetch the cubin", NULL);
        } else {
            *cubin = data;
            *cubin_len = size;
        }
    }
    nvJitLinkDestroy(&handle);
    return ok;
}

/* ---- register counts -------------------------------------------------------------------------
 * A cubin is a 64-bit little-endian ELF. Its `.nv.info` section holds per-function attributes
 * as records {format u8, attribute u8, size u16, payload}; a sized record (format 4) of
 * attribute 0x2f (REGCOUNT) carries {symbol index u32, registers u32}. The linker writes a
 * kernel's count with its callees' included. */

#define ELF_SHT_SYMTAB 2u
#define NVINFO_FORMAT_SIZED 4u
#define NVINFO_ATTR_REGCOUNT 0x2fu

static uint64_t read_le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

typedef struct elf_section {
    uint32_t name, type, link;
    uint64_t offset, size;
} elf_section;

static bool elf_section_at(const uint8_t *d, size_t len, uint64_t shoff, uint16_t shentsize,
                           uint16_t i, elf_section *s) {
    uint64_t at = shoff + (uint64_t)i * shentsize;
    if (shentsize < 64 || at > len || len - at < 64) return false;
    const uint8_t *h = d + at;
    s->name = (uint32_t)read_le(h, 4);
    s->type = (uint32_t)read_le(h + 4, 4);
    s->offset = read_le(h + 24, 8);
    s->size = read_le(h + 32, 8);
    s->link = (uint32_t)read_le(h + 40, 4);
    return s->offset <= len && s->size <= len - s->offset;
}

/* The NUL-terminated string at `off` of a string table, or NULL when it runs off the table. */
static const char *elf_string(const uint8_t *d, const elf_section *tab, uint64_t off) {
    if (off >= tab->size) return NULL;
    const char *s = (const char *)d + tab->offset + off;
    return memchr(s, '\0', tab->size - off) ? s : NULL;
}

unsigned gr_cubin_registers(const void *cubin, size_t len, const char *function) {
    const uint8_t *d = cubin;
    if (!d || !function || len < 64 || memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
        return 0;
    uint64_t shoff = read_le(d + 0x28, 8);
    uint16_t shentsize = (uint16_t)read_le(d + 0x3a, 2), shnum = (uint16_t)read_le(d + 0x3c, 2),
             shstrndx = (uint16_t)read_le(d + 0x3e, 2);
    elf_section names, symtab = {0}, strtab;
    if (!elf_section_at(d, len, shoff, shentsize, shstrndx, &names)) return 0;
    bool have_symtab = false;
    for (uint16_t i = 0; i < shnum && !have_symtab; i++)
        have_symtab = elf_section_at(d, len, shoff, shentsize, i, &symtab) &&
                      symtab.type == ELF_SHT_SYMTAB;
    if (!have_symtab || symtab.link >= shnum ||
        !elf_section_at(d, len, shoff, shentsize, (uint16_t)symtab.link, &strtab))
        return 0;
    for (uint16_t i = 0; i < shnum; i++) {
        elf_section info;
        if (!elf_section_at(d, len, shoff, shentsize, i, &info)) continue;
        const char *name = elf_string(d, &names, info.name);
        if (!name || strcmp(name, ".nv.info") != 0) continue;
        const uint8_t *p = d + info.offset, *end = p + info.size;
        while (end - p >= 4) {
            uint8_t format = p[0], attr = p[1];
            uint16_t size = (uint16_t)read_le(p + 2, 2);
            if (format != NVINFO_FORMAT_SIZED) { /* other formats: 2- or 4-byte records */
                p += format == 1 ? 2 : 4;
                continue;
            }
            if ((size_t)(end - p - 4) < size) break;
            if (attr == NVINFO_ATTR_REGCOUNT && size >= 8) {
                uint64_t sym = read_le(p + 4, 4);
                uint64_t at = symtab.offset + sym * 24;
                if (sym * 24 + 24 <= symtab.size) {
                    const char *sname = elf_string(d, &strtab, read_le(d + at, 4));
                    if (sname && strcmp(sname, function) == 0) return (unsigned)read_le(p + 8, 4);
                }
            }
            p += 4 + size;
        }
    }
    return 0;
}
