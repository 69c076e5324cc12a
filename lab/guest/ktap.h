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
 */
#ifndef LAB_KTAP_H
#define LAB_KTAP_H

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

#endif /* LAB_KTAP_H */
