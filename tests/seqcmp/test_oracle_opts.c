/* cli/oracle_opts.c: option validation, and the oracles' results in a report (manifests lines on
 * races, a nondeterministic-output finding, two-pass conflicts as race findings). */
#include <criterion/criterion.h>
#include <string.h>

#include "cli/oracle_opts.h"
#include "tests/seqcmp/sqt.h"

Test(oracle_opts, parse) {
    gr_error err = GR_ERROR_INIT;
    cli_oracle_kind kind;
    gr_seqcmp_options sq;
    cli_oracle_options o = {0};
    cr_assert(cli_oracle_parse(&o, NULL, NULL, &kind, &sq, &err));
    cr_assert_eq(kind, CLI_ORACLE_NONE);
    o.reference = "ref";
    cr_assert(cli_oracle_parse(&o, "src", "f.cu", &kind, &sq, &err));
    cr_assert_eq(kind, CLI_ORACLE_SEQCMP, "--reference alone picks seqcmp");
    cr_assert_str_eq(sq.reference, "ref");
    o.oracle = "twopass";
    cr_assert_not(cli_oracle_parse(&o, NULL, NULL, &kind, &sq, &err));
    cr_assert_str_eq(err.message, "--reference needs --oracle seqcmp");
    gr_error_clear(&err);
    o = (cli_oracle_options){"bogus", NULL, NULL};
    cr_assert_not(cli_oracle_parse(&o, NULL, NULL, &kind, &sq, &err));
    cr_assert_eq(err.status, GR_ERR_USAGE);
    cr_assert_str_eq(err.message, "--oracle must be seqcmp, twopass or none, not 'bogus'");
    gr_error_clear(&err);
    o = (cli_oracle_options){"seqcmp", NULL, "rr:1,reverse,random:3"};
    cr_assert(cli_oracle_parse(&o, NULL, NULL, &kind, &sq, &err));
    cr_assert_eq(sq.nschedules, 3);
    cr_assert_eq(sq.schedules[1].kind, GR_SCHED_REVERSE);
    cr_assert_eq(sq.schedules[2].kind, GR_SCHED_RANDOM);
    cr_assert_eq(sq.schedules[2].seed, 3);
    o.schedules = "rr:1,nonsense";
    cr_assert_not(cli_oracle_parse(&o, NULL, NULL, &kind, &sq, &err));
    cr_assert(strstr(err.message, "--oracle-schedules"), "%s", err.message);
    gr_error_clear(&err);
}

Test(oracle_opts, seqcmp_manifests_on_races) {
    sqt t;
    sqt_open(&t, "examples/histogram_race.cu", NULL);
    sqt_input(&t, 2, 64, 0, "data=buffer(int,128,random) bins=buffer(int,16) n=128");
    gr_report rep;
    gr_report_init(&rep);
    gr_report_finding race;
    memset(&race, 0, sizeof race);
    race.cls = GR_REPORT_RACE;
    race.kind = GR_REPORT_KIND_WAW;
    race.message = "a race the detector found";
    gr_error err = GR_ERROR_INIT;
    cr_assert(gr_report_add(&rep, &race, &err));
    cli_oracle_options o = {"seqcmp", NULL, NULL};
    cli_oracle_kind kind;
    gr_seqcmp_options sq;
    cr_assert(cli_oracle_parse(&o, t.source, t.path, &kind, &sq, &err));
    cli_oracle_outcome out;
    cr_assert(cli_oracle_apply(kind, &sq, t.m, t.sig, NULL, &t.in, NULL, &rep, &out, &err));
    cr_assert_eq(rep.nfindings, 1, "a race explains the difference: no extra finding");
    cr_assert(rep.findings[0].manifests);
    cr_assert(strncmp(rep.findings[0].manifests, "yes (bins[", 10) == 0, "%s",
              rep.findings[0].manifests);
    cr_assert(strncmp(out.line, "manifests: yes (bins[", 21) == 0, "%s", out.line);
    cli_oracle_outcome_free(&out);
    gr_report_free(&rep);
    sqt_close(&t);
}

Test(oracle_opts, nondeterministic_output_finding) {
    sqt t;
    sqt_open(&t, "tests/seqcmp/kernels/float_atomic_sum.cu", NULL);
    sqt_input(&t, 1, 256, 0, "in=buffer(float,256) out=buffer(float,1) n=256");
    float *in = (float *)t.in.buffers[0].data;
    for (int i = 0; i < 256; i++)
        in[i] = (i % 7 == 0) ? 1.0e6f + (float)i : 0.013f * (float)(i % 13) + 0.001f;
    gr_report rep;
    gr_report_init(&rep);
    gr_error err = GR_ERROR_INIT;
    cli_oracle_options o = {"seqcmp", NULL, NULL};
    cli_oracle_kind kind;
    gr_seqcmp_options sq;
    cr_assert(cli_oracle_parse(&o, t.source, t.path, &kind, &sq, &err));
    cli_oracle_outcome out;
    cr_assert(cli_oracle_apply(kind, &sq, t.m, t.sig, NULL, &t.in, NULL, &rep, &out, &err));
    cr_assert_eq(rep.nfindings, 1);
    const gr_report_finding *f = &rep.findings[0];
    cr_assert_eq(f->cls, GR_REPORT_NONDETERMINISTIC_OUTPUT);
    cr_assert_str_eq(f->variable, "out");
    cr_assert_eq(f->element, 0);
    /* the class's title says "nondeterministic output without a detected race" */
    cr_assert(strncmp(f->message, "out[0] is ", 10) == 0, "%s", f->message);
    cr_assert_str_eq(gr_report_class_title(f->cls),
                     "nondeterministic output without a detected race");
    cr_assert(f->differences && strstr(f->differences, "last written by"), "%s",
              f->differences ? f->differences : "(none)");
    cr_assert(f->primary.has_insn);
    cr_assert(strstr(out.line, "(nondeterministic output without a detected race)"), "%s",
              out.line);
    cli_oracle_outcome_free(&out);
    gr_report_free(&rep);
    sqt_close(&t);
}

Test(oracle_opts, twopass_conflicts_as_races) {
    sqt t;
    sqt_open(&t, "tests/seqcmp/kernels/tp_rw_shared.cu", NULL);
    sqt_input(&t, 1, 64, 0, "in=buffer(int,64,iota) out=buffer(int,64)");
    gr_report rep;
    gr_report_init(&rep);
    gr_error err = GR_ERROR_INIT;
    cli_oracle_options o = {"twopass", NULL, NULL};
    cli_oracle_kind kind;
    gr_seqcmp_options sq;
    cr_assert(cli_oracle_parse(&o, t.source, t.path, &kind, &sq, &err));
    cr_assert_eq(kind, CLI_ORACLE_TWOPASS);
    cli_oracle_outcome out;
    cr_assert(cli_oracle_apply(kind, &sq, t.m, t.sig, NULL, &t.in, NULL, &rep, &out, &err));
    cr_assert_str_eq(out.line, "twopass: 1 value-witnessed conflict");
    cr_assert_eq(rep.nfindings, 1);
    const gr_report_finding *f = &rep.findings[0];
    cr_assert_eq(f->cls, GR_REPORT_RACE);
    cr_assert_eq(f->kind, GR_REPORT_KIND_RAW);
    cr_assert_str_eq(f->space, "shared");
    cr_assert_eq(f->primary.thread.thread.x, 32, "warp 1 read");
    cr_assert_eq(f->secondary.thread.thread.x, 0, "warp 0 wrote");
    cr_assert_eq(f->relation, GR_RELATION_OTHER_WARP);
    cli_oracle_outcome_free(&out);
    gr_report_free(&rep);
    sqt_close(&t);
}
