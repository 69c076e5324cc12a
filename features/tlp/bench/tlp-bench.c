// SPDX-License-Identifier: GPL-2.0
/*
 * tlp-bench: short transactions over the emulated path of tlpnet.h, TLP off
 * and on, with tail losses of K segments of a 10-segment response (K = 1,
 * 2, 3, the whole flight) and a seeded random-loss arm in which each segment
 * is dropped once with probability 1/20, the same drop sets in every arm.
 * Transactions overlap (WORKERS at a time, each a fresh connection), and
 * each arm's counters come from the server namespace.
 *
 * Output, one line per arm, read by bench/report on the host:
 *   arm <variant> <tlp on|off> <loss> n=.. rto=.. mean=.. p50=.. p99=..
 *       probes=.. outsegs=.. share=..
 *
 * "tlp-bench demo" instead runs one transaction with the last 2 segments
 * lost, with and without TLP, and prints the time saved.
 */
#include "../guest-nodebug/tlpnet.h"

#define NSEG 10
#define TXNS 1000
#define WORKERS 8
#define RTT_MS 20
#define RANDOM_SEED 20130311u

struct bench {
	const char *loss;
	struct tlp_request (*rq)(unsigned int i);
	pthread_mutex_t lock;
	unsigned int next;
	unsigned int failed;
	double ms[TXNS];
};

static struct tlp_request tail_1(unsigned int i) { (void)i; return tlp_drop(NSEG, NSEG - 1, 1); }
static struct tlp_request tail_2(unsigned int i) { (void)i; return tlp_drop(NSEG, NSEG - 2, 2); }
static struct tlp_request tail_3(unsigned int i) { (void)i; return tlp_drop(NSEG, NSEG - 3, 3); }
static struct tlp_request flight(unsigned int i) { (void)i; return tlp_drop(NSEG, 0, NSEG); }

/* Transaction i's drop set depends on i and the seed only. */
static struct tlp_request random_5pct(unsigned int i)
{
	struct tlp_request rq = tlp_drop(NSEG, 0, 0);
	uint32_t x = RANDOM_SEED ^ (i * 2654435761u);
	unsigned int s;

	for (s = 0; s < NSEG; s++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (x % 20 == 0)
			rq.drop_mask |= 1ULL << s;
	}
	return rq;
}

static void *bench_worker(void *arg)
{
	struct bench *b = arg;
	unsigned int i;

	for (;;) {
		struct tlp_request rq;
		double t0, ms;
		bool ok;
		int fd;

		pthread_mutex_lock(&b->lock);
		i = b->next < TXNS ? b->next++ : TXNS;
		pthread_mutex_unlock(&b->lock);
		if (i == TXNS)
			return NULL;
		rq = b->rq(i);
		t0 = lab_now();
		fd = tlp_connect(AF_INET, NULL, 0);
		ok = fd >= 0 && write(fd, &rq, sizeof(rq)) == sizeof(rq) &&
		     tlp_read_response(fd);
		ms = (lab_now() - t0) * 1e3;
		if (fd >= 0)
			tlp_hangup(fd);
		pthread_mutex_lock(&b->lock);
		if (ok)
			b->ms[i] = ms;
		else
			b->failed++, b->ms[i] = -1;
		pthread_mutex_unlock(&b->lock);
	}
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void run_bench(const char *tlp, const char *loss,
		      struct tlp_request (*rq)(unsigned int))
{
	static struct bench b;
	struct tlp_counters before, d;
	pthread_t w[WORKERS];
	double sum = 0, *ok = b.ms;
	int i, n = 0;

	memset(&b, 0, sizeof(b));
	pthread_mutex_init(&b.lock, NULL);
	b.loss = loss;
	b.rq = rq;
	tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", strcmp(tlp, "on") ? "0" : "3");
	before = tlp_counters();
	for (i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, bench_worker, &b);
	for (i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	usleep(500000);
	d = tlp_delta(before, tlp_counters());
	for (i = 0; i < TXNS; i++)
		if (b.ms[i] >= 0)
			ok[n++] = b.ms[i], sum += b.ms[i];
	qsort(ok, n, sizeof(double), cmp_ms);
	printf("arm %s %s %s n=%d failed=%u rto=%ld mean=%.1f p50=%.1f p99=%.1f probes=%ld outsegs=%ld share=%.4f\n",
	       ktap_upstream() ? "upstream" : "ours", tlp, loss, n, b.failed,
	       d.timeouts, n ? sum / n : 0, n ? ok[n / 2] : 0,
	       n ? ok[(int)(0.99 * (n - 1))] : 0, d.probes, d.out,
	       d.out > 0 ? (double)d.probes / d.out : 0);
	fflush(stdout);
}

static double one_transaction(const char *early_retrans)
{
	struct tlp_request rq = tail_2(0);
	double t0, ms;
	int fd;

	tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", early_retrans);
	t0 = lab_now();
	fd = tlp_connect(AF_INET, NULL, 0);
	if (fd < 0 || write(fd, &rq, sizeof(rq)) != sizeof(rq) || !tlp_read_response(fd))
		ms = -1;
	else
		ms = (lab_now() - t0) * 1e3;
	if (fd >= 0)
		tlp_hangup(fd);
	return ms;
}

static int demo(void)
{
	struct tlp_counters c0, c1, c2;
	double on, off;

	c0 = tlp_counters();
	off = one_transaction("0");
	c1 = tlp_counters();
	on = one_transaction("3");
	c2 = tlp_counters();
	printf("path: RTT %d ms (netem on the router), response of %d segments, the last 2 dropped once\n",
	       RTT_MS, NSEG);
	printf("TLP off (tcp_early_retrans=0): %.1f ms, %ld RTO, %ld probes\n", off,
	       tlp_delta(c0, c1).timeouts, tlp_delta(c0, c1).probes);
	printf("TLP on  (tcp_early_retrans=3): %.1f ms, %ld RTO, %ld probes\n", on,
	       tlp_delta(c1, c2).timeouts, tlp_delta(c1, c2).probes);
	if (on > 0 && off > 0)
		printf("time saved by the probe: %.1f ms (%.0f%%)\n", off - on,
		       100 * (off - on) / off);
	/* What the demo shows: with TLP on, a probe went out for the tail. */
	if (on <= 0 || off <= 0 || tlp_delta(c1, c2).probes < 1) {
		printf("demo FAILED: %s\n", on <= 0 || off <= 0 ?
		       "a transaction did not complete" : "TLP on sent no probe");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *loss;
		struct tlp_request (*rq)(unsigned int i);
	} arms[] = {
		{ "tail1", tail_1 }, { "tail2", tail_2 }, { "tail3", tail_3 },
		{ "flight", flight }, { "random5", random_5pct },
	};
	unsigned int a;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tlp_net_setup(RTT_MS / 2)) {
		printf("setup failed\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "demo"))
		return demo();
	printf("# %d transactions per arm, %d at a time, RTT %d ms, %d-segment responses\n",
	       TXNS, WORKERS, RTT_MS, NSEG);
	for (a = 0; a < sizeof(arms) / sizeof(arms[0]); a++) {
		if (!ktap_upstream())
			run_bench("off", arms[a].loss, arms[a].rq);
		run_bench("on", arms[a].loss, arms[a].rq);
	}
	return 0;
}
