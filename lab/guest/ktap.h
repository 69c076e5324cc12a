/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - KTAP output for the lab's guest test programs.
 *
 * A guest test program is one static binary that runs a suite: it prints a
 * KTAP subtest document on stdout (Documentation/dev-tools/ktap.rst) and
 * the lab's lab-run-tests nests it under the run's top-level plan and
 * closes it with the suite's result, "ok <n> <file name>":
 *
 *	KTAP version 1
 *	# Subtest: <file name of the program>
 *	# <the suite's title, when it differs>
 *	1..<cases>
 *	ok 1 <case name, a sentence>
 *	# <diagnostics of case 2>
 *	not ok 2 <case name>
 *
 * Tests of this project's extensions (behaviour upstream does not have) are
 * declared with ktap_extension(): on VARIANT=upstream they are reported as
 * skipped with that reason instead of run.
 *
 * A suite is a table of cases run by ktap_run(): each case has an id
 * (lower case, '-' between words) and reports its results itself, so that
 * one case can be run again alone: make test SUITE=<program>.<id> (a glob
 * too) sets LAB_CASE=<id> for the program, which reports the other cases
 * skipped.
 */
#ifndef LAB_KTAP_H
#define LAB_KTAP_H

#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ktap_case_nr;
static int ktap_failed;

/* glibc's basename of argv[0]; declared here whatever _GNU_SOURCE says. */
extern char *program_invocation_short_name;

/*
 * The subtest is named after the program's file: the runner's result line
 * and the host's list of expected suites use that name, and a KTAP parser
 * fails a subtest whose result names another.
 */
static inline void ktap_begin(const char *suite, int cases)
{
	const char *name = program_invocation_short_name;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n# Subtest: %s\n", name);
	if (strcmp(suite, name))
		printf("# %s\n", suite);
	printf("1..%d\n", cases);
}

/* Diagnostics belong to the case reported next. */
static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static inline bool ktap_result(bool pass, const char *name)
{
	printf("%s %d %s\n", pass ? "ok" : "not ok", ++ktap_case_nr, name);
	if (!pass)
		ktap_failed++;
	return pass;
}

static inline void ktap_skip(const char *name, const char *reason)
{
	printf("ok %d %s # SKIP %s\n", ++ktap_case_nr, name, reason);
}

/* Which kernel this is: "ours" or "upstream" (from the lab's /init). */
static inline bool ktap_upstream(void)
{
	const char *v = getenv("LAB_VARIANT");

	return v && !strcmp(v, "upstream");
}

/*
 * A case that tests an extension of ours. Returns true when it should run;
 * on the upstream kernel reports it skipped and returns false.
 */
static inline bool ktap_extension(const char *name)
{
	if (!ktap_upstream())
		return true;
	ktap_skip(name, "extension of this project, absent upstream");
	return false;
}

/* Exit status for main(): the runner also checks it. */
static inline int ktap_end(void)
{
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

/*
 * One case of a suite: @run reports @results results through
 * ktap_result(), ktap_skip() or ktap_extension(). Written
 * KTAP_CASE("id", fn), or KTAP_CASE_N("id", fn, n) for a case of n results
 * (cases that share state, run and rerun together).
 */
struct ktap_case {
	const char *id;
	void (*run)(void);
	int results;
};

#define KTAP_CASE(id, fn) { (id), (fn), 1 }
#define KTAP_CASE_N(id, fn, n) { (id), (fn), (n) }

static inline int ktap_case_results(const struct ktap_case *c)
{
	return c->results > 0 ? c->results : 1;
}

/* The number of results @n cases report: the suite's plan. */
static inline int ktap_plan(const struct ktap_case *cases, int n)
{
	int i, plan = 0;

	for (i = 0; i < n; i++)
		plan += ktap_case_results(&cases[i]);
	return plan;
}

/* Does LAB_CASE (a glob; unset or empty: every case) select case @id? */
static inline bool ktap_case_selected(const char *id)
{
	const char *want = getenv("LAB_CASE");

	return !want || !*want || !fnmatch(want, id, 0);
}

/*
 * Run @n cases as the suite @suite after ktap_begin(): each selected case
 * in order, the others reported skipped. A case that reports fewer
 * results than it declares gets failed results for the rest, so the plan
 * holds and the gap is seen; one that reports more breaks the plan, which
 * fails the suite. Returns ktap_end().
 */
static inline int ktap_run_cases(const struct ktap_case *cases, int n)
{
	int i, k, want, before, selected = 0;

	for (i = 0; i < n; i++) {
		want = ktap_case_results(&cases[i]);
		if (!ktap_case_selected(cases[i].id)) {
			for (k = 0; k < want; k++)
				ktap_skip(cases[i].id, "not selected (LAB_CASE)");
			continue;
		}
		selected++;
		before = ktap_case_nr;
		cases[i].run();
		if (ktap_case_nr - before > want)
			ktap_diag("case %s reported %d results, declared %d", cases[i].id,
				  ktap_case_nr - before, want);
		while (ktap_case_nr - before < want)
			ktap_result(false, cases[i].id);
	}
	/* A mistyped case id must not give a green run of skips. */
	if (!selected) {
		ktap_diag("LAB_CASE=%s matches no case of this suite", getenv("LAB_CASE"));
		ktap_failed++;
	}
	return ktap_end();
}

/* ktap_begin() with the plan of @cases, then ktap_run_cases(). */
static inline int ktap_run(const char *suite, const struct ktap_case *cases, int n)
{
	ktap_begin(suite, ktap_plan(cases, n));
	return ktap_run_cases(cases, n);
}

/*
 * The suite could not be set up (@why): every case of @cases fails, after
 * ktap_begin(). Returns ktap_end().
 */
static inline int ktap_fail_cases(const struct ktap_case *cases, int n, const char *why)
{
	int i, k;

	ktap_diag("%s", why);
	for (i = 0; i < n; i++)
		for (k = 0; k < ktap_case_results(&cases[i]); k++)
			ktap_result(false, cases[i].id);
	return ktap_end();
}

#define KTAP_CASES(table) (table), (int)(sizeof(table) / sizeof((table)[0]))

#endif /* LAB_KTAP_H */
