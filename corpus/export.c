#include "corpus/export.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/hash.h"

static const char *c_type_of(gr_elem_type t) {
    static const char *const names[GR_ELEM_COUNT] = {
        "signed char", "short", "int", "long long", "unsigned char", "unsigned short",
        "unsigned int", "unsigned long long", "__half", "float", "double"};
    return t < GR_ELEM_COUNT ? names[t] : "unsigned char";
}

/* A name from the witness inside a // comment: one line, printable. */
static void comment_text(gr_strbuf *out, const char *s) {
    for (; s && *s; s++) gr_strbuf_putc(out, (*s >= 32 && *s < 127) ? *s : '?');
}

/* A name from the witness inside a C string literal. */
static void string_text(gr_strbuf *out, const char *s) {
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') gr_strbuf_putc(out, '\\');
        gr_strbuf_putc(out, (*s >= 32 && *s < 127) ? *s : '?');
    }
}

static void byte_array(gr_strbuf *out, const char *name, const uint8_t *data, uint64_t n) {
    gr_strbuf_appendf(out, "alignas(16) static unsigned char %s[%" PRIu64 "] = {", name, n ? n : 1);
    for (uint64_t i = 0; i < n; i++) {
        if (i % 24 == 0) gr_strbuf_append(out, "\n   ");
        gr_strbuf_appendf(out, " 0x%02x,", data[i]);
    }
    gr_strbuf_append(out, n ? "\n};\n" : "0};\n");
}

/* The kernel symbol goes into code: allow what C++ names and template arguments use. */
static bool safe_symbol(const char *s) {
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("_:<>, *&", *s)))
            return false;
    return true;
}

bool gr_export_reproducer(const gr_witness *w, const char *source, const char *source_name,
                          const char *symbol, bool force, gr_strbuf *out, gr_error *err) {
    const gr_input *in = &w->input;
    if (!symbol) symbol = w->kernel;
    if (!safe_symbol(symbol))
        return gr_fail(err, GR_ERR_INPUT, "'%s' is not a kernel name a reproducer can call", symbol ? symbol : "");
    uint64_t hash = gr_hash64(source, strlen(source));
    if (hash != w->source_hash && !force)
        return gr_fail(err, GR_ERR_INPUT,
                       "the witness is for a different kernel source (hash %016" PRIx64 ", %s has %016" PRIx64
                       "); use --force to export anyway",
                       w->source_hash, source_name ? source_name : "the source", hash);
    for (int i = 0; i < in->nargs; i++)
        if (in->args[i].kind == GR_INPUT_BUFFER && (in->args[i].buffer < 0 || in->args[i].buffer >= in->nbuffers))
            return gr_fail(err, GR_ERR_INPUT, "argument %d names no buffer", i);

    gr_strbuf_append(out, "// Reproducer written by gpurace");
    if (w->tool_version) {
        gr_strbuf_append(out, " ");
        comment_text(out, w->tool_version);
    }
    gr_strbuf_append(out, " from a witness.\n// Kernel: ");
    comment_text(out, w->kernel);
    if (source_name) {
        gr_strbuf_append(out, " in ");
        comment_text(out, source_name);
    }
    gr_strbuf_appendf(out, " (source hash %016" PRIx64 ")\n", w->source_hash);
    for (int i = 0; i < w->nfindings; i++) {
        const gr_witness_finding *f = &w->findings[i];
        gr_strbuf_append(out, "// Finding: ");
        comment_text(out, f->cls);
        if (f->kind) {
            gr_strbuf_append(out, " ");
            comment_text(out, f->kind);
        }
        for (int k = 0; k < f->naccesses; k++)
            if (f->accesses[k].file) {
                gr_strbuf_append(out, k ? ", " : " at ");
                comment_text(out, f->accesses[k].file);
                gr_strbuf_appendf(out, ":%d", f->accesses[k].line);
            }
        gr_strbuf_append(out, "\n");
    }
    gr_strbuf_appendf(out,
                      "// Launch: grid (%u, %u, %u), block (%u, %u, %u), %u bytes of dynamic shared memory.\n"
                      "// The witness ran under the %s schedule (seed %" PRIu64 ") of the %s backend; a GPU\n"
                      "// picks its own interleaving, so run it several times: ./repro --repeat 100\n"
                      "// Build: nvcc -o repro repro.cu\n\n",
                      in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1], in->block[2],
                      in->shared_bytes, gr_input_sched_name(in->schedule.kind), in->schedule.seed,
                      w->backend ? w->backend : "sim");
    gr_strbuf_append(out,
                     "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
                     "#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n\n"
                     "// ---- the kernel source, as it was ----\n#define main gpurace_original_main\n");
    gr_strbuf_append(out, source);
    if (source[0] && source[strlen(source) - 1] != '\n') gr_strbuf_putc(out, '\n');
    gr_strbuf_append(out, "#undef main\n// ---- end of the kernel source ----\n\nnamespace gpurace_repro {\n");

    for (int b = 0; b < in->nbuffers; b++) {
        const gr_input_buffer *buf = &in->buffers[b];
        gr_strbuf_append(out, "// ");
        comment_text(out, buf->name);
        gr_strbuf_appendf(out, ": %" PRIu64 " x %s%s\n", buf->count, c_type_of(buf->type),
                          buf->output ? " (output)" : "");
        char name[32];
        snprintf(name, sizeof name, "buffer%d", b);
        byte_array(out, name, buf->data, buf->bytes);
    }
    for (int i = 0; i < in->nargs; i++) {
        const gr_input_arg *a = &in->args[i];
        char name[32];
        snprintf(name, sizeof name, "arg%d", i);
        gr_strbuf_append(out, "// argument ");
        gr_strbuf_appendf(out, "%d", i);
        if (a->name) {
            gr_strbuf_append(out, " (");
            comment_text(out, a->name);
            gr_strbuf_append(out, ")");
        }
        if (a->kind == GR_INPUT_SCALAR) {
            uint8_t bytes[8];
            memcpy(bytes, &a->bits, 8);
            gr_strbuf_appendf(out, ": %s\n", c_type_of(a->type));
            byte_array(out, name, bytes, (uint64_t)gr_elem_size(a->type));
        } else if (a->kind == GR_INPUT_BYTES) {
            gr_strbuf_appendf(out, ": %u bytes by value", a->nbytes);
            for (int k = 0; k < a->nptrs; k++)
                gr_strbuf_appendf(out, "%s buffer %d at byte %u", k ? "," : "; pointers:", a->ptrs[k].buffer,
                                  a->ptrs[k].at);
            gr_strbuf_putc(out, '\n');
            byte_array(out, name, a->bytes, a->nbytes);
        } else {
            gr_strbuf_appendf(out, ": buffer %d", a->buffer);
            if (a->offset) gr_strbuf_appendf(out, " at byte %" PRIu64, a->offset);
            gr_strbuf_putc(out, '\n');
        }
    }
    gr_strbuf_appendf(out, "const int nbuffers = %d;\n", in->nbuffers);
    gr_strbuf_append(out, "unsigned char *const initial[] = {");
    for (int b = 0; b < in->nbuffers; b++) gr_strbuf_appendf(out, "buffer%d, ", b);
    gr_strbuf_append(out, "nullptr};\nconst size_t bytes[] = {");
    for (int b = 0; b < in->nbuffers; b++) gr_strbuf_appendf(out, "%" PRIu64 "u, ", in->buffers[b].bytes);
    gr_strbuf_append(out, "0};\nconst bool output[] = {");
    for (int b = 0; b < in->nbuffers; b++) gr_strbuf_appendf(out, "%s, ", in->buffers[b].output ? "true" : "false");
    gr_strbuf_append(out, "false};\nconst char *const names[] = {");
    for (int b = 0; b < in->nbuffers; b++) {
        gr_strbuf_append(out, "\"");
        string_text(out, in->buffers[b].name);
        gr_strbuf_append(out, "\", ");
    }
    gr_strbuf_append(out,
                     "nullptr};\n\n"
                     "uint64_t digest(const unsigned char *p, size_t n) {\n"
                     "    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64\n"
                     "    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;\n"
                     "    return h;\n}\n\n"
                     "void check(cudaError_t e, const char *what) {\n"
                     "    if (e == cudaSuccess) return;\n"
                     "    std::fprintf(stderr, \"repro: %s: %s\\n\", what, cudaGetErrorString(e));\n"
                     "    std::exit(2);\n}\n}  // namespace gpurace_repro\n\n");

    gr_strbuf_append(out,
                     "int main(int argc, char **argv) {\n"
                     "    using namespace gpurace_repro;\n"
                     "    int repeat = 1;\n"
                     "    for (int i = 1; i < argc; i++) {\n"
                     "        if (std::strcmp(argv[i], \"--repeat\") == 0 && i + 1 < argc) repeat = std::atoi(argv[++i]);\n"
                     "        else { std::fprintf(stderr, \"usage: %s [--repeat N]\\n\", argv[0]); return 2; }\n"
                     "    }\n"
                     "    if (repeat < 1) repeat = 1;\n"
                     "    void *device[nbuffers + 1] = {nullptr};\n"
                     "    unsigned char *host[nbuffers + 1] = {nullptr};\n"
                     "    uint64_t first[nbuffers + 1] = {0};\n"
                     "    for (int b = 0; b < nbuffers; b++) {\n"
                     "        check(cudaMalloc(&device[b], bytes[b] ? bytes[b] : 1), \"cudaMalloc\");\n"
                     "        host[b] = static_cast<unsigned char *>(std::malloc(bytes[b] ? bytes[b] : 1));\n"
                     "        if (!host[b]) { std::fprintf(stderr, \"repro: out of memory\\n\"); return 2; }\n"
                     "    }\n");
    /* a struct's pointer fields: the device addresses of their buffers, in its bytes */
    for (int i = 0; i < in->nargs; i++)
        for (int k = 0; in->args[i].kind == GR_INPUT_BYTES && k < in->args[i].nptrs; k++)
            gr_strbuf_appendf(out, "    std::memcpy(arg%d + %u, &device[%d], sizeof(void *));\n", i,
                              in->args[i].ptrs[k].at, in->args[i].ptrs[k].buffer);
    /* pointers into one allocation of the program: one buffer, each pointer at its offset */
    for (int i = 0; i < in->nargs; i++)
        if (in->args[i].kind == GR_INPUT_BUFFER && in->args[i].offset)
            gr_strbuf_appendf(out, "    void *pointer%d = static_cast<unsigned char *>(device[%d]) + %" PRIu64 "u;\n", i,
                              in->args[i].buffer, in->args[i].offset);
    gr_strbuf_appendf(out, "    void *args[%d] = {", in->nargs ? in->nargs : 1);
    for (int i = 0; i < in->nargs; i++) {
        const gr_input_arg *a = &in->args[i];
        if (a->kind == GR_INPUT_BUFFER && a->offset) gr_strbuf_appendf(out, "&pointer%d, ", i);
        else if (a->kind == GR_INPUT_BUFFER) gr_strbuf_appendf(out, "&device[%d], ", a->buffer);
        else gr_strbuf_appendf(out, "arg%d, ", i);
    }
    if (!in->nargs) gr_strbuf_append(out, "nullptr");
    gr_strbuf_appendf(out,
                      "};\n"
                      "    int differing_runs = 0;\n"
                      "    for (int run = 0; run < repeat; run++) {\n"
                      "        for (int b = 0; b < nbuffers; b++)\n"
                      "            check(cudaMemcpy(device[b], initial[b], bytes[b], cudaMemcpyHostToDevice), \"copy in\");\n"
                      "        check(cudaLaunchKernel((const void *)&%s, dim3(%uu, %uu, %uu),\n"
                      "                               dim3(%uu, %uu, %uu), args, %uu, 0), \"launch\");\n"
                      "        check(cudaDeviceSynchronize(), \"kernel\");\n"
                      "        bool differs = false;\n"
                      "        for (int b = 0; b < nbuffers; b++) {\n"
                      "            if (!output[b]) continue;\n"
                      "            check(cudaMemcpy(host[b], device[b], bytes[b], cudaMemcpyDeviceToHost), \"copy out\");\n"
                      "            uint64_t d = digest(host[b], bytes[b]);\n"
                      "            if (run == 0) {\n"
                      "                first[b] = d;\n"
                      "                std::printf(\"%%s: digest %%016llx\\n\", names[b], (unsigned long long)d);\n"
                      "            } else if (d != first[b]) {\n"
                      "                if (!differs && differing_runs < 3)\n"
                      "                    std::printf(\"run %%d: %%s: digest %%016llx differs\\n\", run + 1, names[b], (unsigned long long)d);\n"
                      "                differs = true;\n"
                      "            }\n"
                      "        }\n"
                      "        differing_runs += differs;\n"
                      "    }\n"
                      "    if (repeat > 1) {\n"
                      "        if (differing_runs) std::printf(\"outputs differ between runs: %%d of %%d runs differ from the first\\n\", differing_runs, repeat);\n"
                      "        else std::printf(\"outputs identical in %%d runs\\n\", repeat);\n"
                      "    }\n"
                      "    for (int b = 0; b < nbuffers; b++) {\n"
                      "        cudaFree(device[b]);\n"
                      "        std::free(host[b]);\n"
                      "    }\n"
                      "    return differing_runs ? 1 : 0;\n"
                      "}\n",
                      symbol, in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1], in->block[2],
                      in->shared_bytes);
    if (out->oom) return gr_fail(err, GR_ERR_NOMEM, "out of memory writing the reproducer");
    return true;
}
