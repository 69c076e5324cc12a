/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arb-fair.h - was a master passed over while it waited? Answered from the
 * arbitrators' trace events, not from timing: i2c_arb:i2c_arb_claim, one
 * per claim when it is released, gives its start, its end (won or given
 * up), its release and its longest gap between two looks at the claim
 * lines, in microseconds of the monotonic clock all arbitrators share.
 *
 * What the driver aims at (its header comment): while a master waits, no
 * other master acquires the bus twice in a row, provided the waiter
 * looked at the lines at least every wait-retry-us minus the slew (so it
 * claims before the master that just released stops passing the turn),
 * looked more often than any other master's transfer lasted (so it saw
 * every claim that took its turn), and never backed off (released its own
 * claim while waiting). The check counts, for every claim meeting those
 * conditions, the acquisitions by one master that followed its own
 * acquisition, released after the claim started, while the claim waited.
 * Claims not meeting them are counted by reason, not judged: nothing is
 * promised to a master that was not running when it should have looked.
 * With two masters this is first come, first served (the other acquires
 * at most once per wait). Under TCG looks come late and a double pass is
 * rare but seen, so arb-stress reports the count, and how often one other
 * master acquired the bus during a wait as a histogram.
 */
#ifndef ARB_FAIR_H
#define ARB_FAIR_H

/* arb-lib.h first: it asks for _GNU_SOURCE. */
#include "arb-lib.h"

#define ARB_TRACE_EVENT		LAB_TRACEFS "/events/i2c_arb/i2c_arb_claim/enable"
#define ARB_TRACE_BUF_KB	"8192"	/* per CPU: 100,000 events need ~7 MB in all */
#define ARB_CLAIMS_MAX		131072	/* arb-stress traces 100,002 */
/* The binding's defaults, which the overlays use. */
#define ARB_SLEW_US		10
#define ARB_RETRY_US		3000
#define ARB_PASSED_HIST		8

struct arb_claim {
	int master;			/* index in the run's bus[] */
	unsigned long long start, end, released, gap;
	unsigned int backoffs;
	int ret;
};

struct arb_fairness {
	long claims;			/* traced on the run's buses */
	long checked;			/* claims that met the conditions */
	long back_to_back;		/* checked claims passed twice in a row */
	long slow;			/* not checked: looked less often */
	long blind;			/* not checked: may have missed a claim */
	long backed_off;		/* not checked: released its claim */
	long passed[ARB_PASSED_HIST];	/* claims by most acquisitions of one other */
};

static struct arb_claim arb_claims[ARB_CLAIMS_MAX];
static struct arb_claim arb_acqs[ARB_CLAIMS_MAX];

/*
 * Clear the trace and record the claims; false where there is no event.
 * tracefs clears a buffer on an open with O_TRUNC.
 */
static inline bool arb_trace_begin(void)
{
	lab_tracefs();
	if (access(ARB_TRACE_EVENT, W_OK))
		return false;
	lab_write(LAB_TRACEFS "/buffer_size_kb", ARB_TRACE_BUF_KB);
	return !lab_write_flags(LAB_TRACEFS "/trace", "", O_TRUNC) &&
	       !lab_write(ARB_TRACE_EVENT, "1");
}

static inline void arb_trace_end(void)
{
	lab_write(ARB_TRACE_EVENT, "0");
}

/* One event line into @c; false if it is not a claim on one of @bus. */
static inline bool arb_trace_parse(const char *line, const int *bus,
				   int masters, struct arb_claim *c)
{
	const char *p = strstr(line, "i2c_arb_claim: i2c-");
	int nr, m;

	if (!p || sscanf(p, "i2c_arb_claim: i2c-%d start=%llu end=%llu released=%llu look_gap=%llu backoffs=%u ret=%d",
			 &nr, &c->start, &c->end, &c->released, &c->gap,
			 &c->backoffs, &c->ret) != 7)
		return false;
	for (m = 0; m < masters; m++)
		if (bus[m] == nr)
			break;
	c->master = m;
	return m < masters;
}

struct arb_trace_reader {
	const int *bus;
	int masters;
	long n;
};

static inline bool arb_trace_line(const char *line, void *arg)
{
	struct arb_trace_reader *r = arg;

	r->n += arb_trace_parse(line, r->bus, r->masters, &arb_claims[r->n]);
	return r->n < ARB_CLAIMS_MAX;
}

/* The claims traced on @bus, in arb_claims[]; their number. */
static inline long arb_trace_read(const int *bus, int masters)
{
	struct arb_trace_reader r = { bus, masters, 0 };

	lab_trace_each(arb_trace_line, &r);
	return r.n;
}

static inline int arb_by_end(const void *a, const void *b)
{
	const struct arb_claim *x = a, *y = b;

	return x->end < y->end ? -1 : x->end > y->end;
}

/* The won claims of arb_claims[], by the time they were won; their number. */
static inline long arb_acquisitions(long n)
{
	long i, k = 0;

	for (i = 0; i < n; i++)
		if (!arb_claims[i].ret)
			arb_acqs[k++] = arb_claims[i];
	qsort(arb_acqs, k, sizeof(arb_acqs[0]), arb_by_end);
	return k;
}

/* The first acquisition won after @t. */
static inline long arb_first_after(long k, unsigned long long t)
{
	long lo = 0, hi = k;

	while (lo < hi) {
		long mid = (lo + hi) / 2;

		if (arb_acqs[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What the acquisitions during one claim's wait tell about it. */
struct arb_wait {
	bool blind;		/* it looked less often than one of them lasted */
	bool back_to_back;	/* one master acquired twice in a row */
	int passed;		/* most acquisitions by one other master */
};

/*
 * The acquisitions by others that overlapped @c's wait: from the last one
 * won before it started, if released after, to the last one won before it
 * ended.
 */
static inline struct arb_wait arb_wait_of(const struct arb_claim *c, long k)
{
	struct arb_wait w = { false, false, 0 };
	int count[ARB_MAX] = { 0 };
	long j = arb_first_after(k, c->start);

	if (j > 0 && arb_acqs[j - 1].released > c->start)
		j--;
	for (; j < k && arb_acqs[j].end < c->end; j++) {
		const struct arb_claim *a = &arb_acqs[j];

		if (a->master == c->master)
			continue;
		w.blind |= c->gap >= a->released - a->end;
		if (a->end > c->start && ++count[a->master] > w.passed)
			w.passed = count[a->master];
		w.back_to_back |= j > 0 && a->end > c->start &&
				  arb_acqs[j - 1].master == a->master &&
				  arb_acqs[j - 1].released > c->start;
	}
	return w;
}

/* Judge every claim traced, by the conditions of the guarantee. */
static inline void arb_fairness(long n, struct arb_fairness *f)
{
	long i, k = arb_acquisitions(n);

	memset(f, 0, sizeof(*f));
	f->claims = n;
	for (i = 0; i < n; i++) {
		const struct arb_claim *c = &arb_claims[i];
		struct arb_wait w = arb_wait_of(c, k);

		f->passed[w.passed < ARB_PASSED_HIST ? w.passed : ARB_PASSED_HIST - 1]++;
		if (c->backoffs)
			f->backed_off++;
		else if (c->gap >= ARB_RETRY_US - ARB_SLEW_US)
			f->slow++;
		else if (w.blind)
			f->blind++;
		else {
			f->checked++;
			f->back_to_back += w.back_to_back;
		}
	}
}

static inline void arb_fairness_diag(const char *what, const struct arb_fairness *f)
{
	const long *p = f->passed;

	ktap_diag("%s: %ld claims traced, %ld checked, %ld passed twice in a row by one master; not checked: %ld looked less often than every %d us, %ld may have missed a transfer, %ld backed off",
		  what, f->claims, f->checked, f->back_to_back, f->slow,
		  ARB_RETRY_US - ARB_SLEW_US, f->blind, f->backed_off);
	ktap_diag("%s: claims by the most acquisitions of one other master during the wait: 0: %ld, 1: %ld, 2: %ld, 3: %ld, 4: %ld, 5: %ld, 6: %ld, 7+: %ld",
		  what, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}

/*
 * A claim given up is explained, and nothing the protocol could have done
 * better, when its arbitrator was not running when it should have looked
 * (its own longest gap between looks, which covers all of its wait but
 * planned back-offs, is more than wait-retry-us) or when a vCPU stalled
 * ARB_STALL_EXPLAINS_MS or more during its wait (a holder stalled in its
 * transfer keeps the bus, a waiter stalled at a release misses it).
 */
static inline double arb_stall_during(const struct arb_claim *c)
{
	double from = c->start / 1e6, to = c->end / 1e6, worst = 0;
	int i;

	for (i = 0; i < arb_nstalls; i++)
		if (arb_stalls[i].at >= from && arb_stalls[i].at - arb_stalls[i].ms / 1e3 <= to &&
		    arb_stalls[i].ms > worst)
			worst = arb_stalls[i].ms;
	return worst;
}

static inline bool arb_claim_explained(const struct arb_claim *c)
{
	return c->gap > ARB_RETRY_US || arb_stall_during(c) >= ARB_STALL_EXPLAINS_MS;
}

/*
 * What happened while a claim that gave up waited: every traced claim that
 * overlapped it, in the order they started, with times in ms from its
 * start, and the vCPU stalls of the window. A failed claim is rare and the
 * run too long to repeat: its story is printed where it happened.
 */
#define ARB_STORY_LINES		64

static inline int arb_by_start(const void *a, const void *b)
{
	const struct arb_claim *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static inline void arb_claim_story(const struct arb_claim *c, long n)
{
	double t0 = c->start / 1e3;
	int lines = 0, i;
	long j;

	ktap_diag("claim of master %c gave up (%d), %s: waited %.1f ms, longest gap between looks %llu us, %u back-offs; overlapping claims (ms from its start):",
		  'A' + c->master, c->ret, arb_claim_explained(c) ? "explained" : "unexplained",
		  (c->end - c->start) / 1e3, c->gap, c->backoffs);
	for (j = 0; j < n && lines < ARB_STORY_LINES; j++) {
		const struct arb_claim *o = &arb_acqs[j];

		if (o->released < c->start || o->start > c->end)
			continue;
		ktap_diag("  %c start %+8.3f won %+8.3f released %+8.3f gap %5llu us back-offs %u ret %d",
			  'A' + o->master, o->start / 1e3 - t0, o->end / 1e3 - t0,
			  o->released / 1e3 - t0, o->gap, o->backoffs, o->ret);
		lines++;
	}
	for (i = 0; i < arb_nstalls; i++)
		if (arb_stalls[i].at * 1e3 >= t0 - 10 && arb_stalls[i].at * 1e3 <= c->end / 1e3 + 10)
			ktap_diag("  vCPU stall of %.1f ms ending at %+8.3f", arb_stalls[i].ms,
				  arb_stalls[i].at * 1e3 - t0);
}

/*
 * Judge every claim of arb_claims[] that gave up; tell the story of the
 * first @most unexplained ones (or of the first one, if all are explained).
 * Returns how many nothing explains.
 */
static inline long arb_failures_judged(long n, int most)
{
	long i, failed = 0, by_gap = 0, by_stall = 0, unexplained = 0;
	const struct arb_claim *first = NULL;

	memcpy(arb_acqs, arb_claims, n * sizeof(arb_claims[0]));
	qsort(arb_acqs, n, sizeof(arb_acqs[0]), arb_by_start);
	for (i = 0; i < n; i++) {
		const struct arb_claim *c = &arb_claims[i];

		if (!c->ret)
			continue;
		first = first ? first : c;
		failed++;
		if (!arb_claim_explained(c)) {
			if (unexplained++ < most)
				arb_claim_story(c, n);
		} else if (c->gap > ARB_RETRY_US) {
			by_gap++;
		} else {
			by_stall++;
		}
	}
	if (first && !unexplained && most)
		arb_claim_story(first, n);
	ktap_diag("%ld claims given up: %ld while their arbitrator did not look for over %d us, %ld during a vCPU stall of %d ms or more, %ld unexplained",
		  failed, by_gap, ARB_RETRY_US, by_stall, ARB_STALL_EXPLAINS_MS, unexplained);
	return unexplained;
}

#endif /* ARB_FAIR_H */
