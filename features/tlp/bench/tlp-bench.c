// SPDX-License-Identifier: GPL-2.0
/*
 * tlp-bench: TLP on the emulated path of tlpnet.h, one transaction at a
 * time, on traffic where the probe helps and on traffic where it can hurt.
 *
 * Arms (each at RTT 10, 50 and 200 ms unless said):
 *   tail2     a fresh connection, a 10-segment response, the last 2 lost once
 *   random5   a fresh connection, a 10-segment response, each segment lost
 *             once with probability 1/20 (seeded: the same drop sets in
 *             every arm and every boot)
 *   keepalive one connection, 48 request/response rounds of 1, 2, 3 and 11
 *             segments with 60 ms between rounds, no loss, the client in
 *             pingpong mode: past quick-ACK it delays its ACK of a lone
 *             segment, which is where a probe can be needless (IPv6 too at
 *             RTT 10 ms)
 *   jitter    random5 and keepalive with each packet's one-way delay spread
 *             by +-5 ms (uniform), so packets reorder (RTT 50 ms)
 *   nots      tail2 with TCP timestamps off (RTT 50 ms)
 *   fq        tail2, random5 and keepalive with the server's qdisc fq,
 *             which paces (RTT 10 ms): a probe may find its original
 *             still queued in the host
 *   rtt1      tail2, random5 and keepalive at RTT 1 ms, where the PTO's
 *             2 ms term is as long as its 2 * SRTT
 *   slowack   keepalive against a receiver that ACKs at once except a
 *             lone segment, whose ACK it sends 100-200 ms late (the router
 *             holds it, tlp-ackhold.h), with 250 ms between rounds: the
 *             peer a one-segment allowance is for, which a Linux receiver
 *             cannot play (it delays at most max(SRTT, 40 ms)); RTT 10
 *             (IPv4 and IPv6) and 50 ms
 *
 * Ours runs every arm in four passes, in this order: on (tcp_early_retrans
 * 3, the default), "trust" (on, with tcp_tlp_trust_probe_sack 1), "ackdelay"
 * (on, with tcp_tlp_peer_ack_delay 1; both extensions are off by default)
 * and TLP off (0). 6.12 runs on and
 * off, so that on both kernels "on" starts an arm right after the
 * previous arm's off pass, and the off passes, the same code on both,
 * show how far two kernels' medians drift apart with nothing different.
 * (In one boot of each, tail2/rtt1 with 100 transactions had 29 RTOs
 * when run first and 46 (ours) or 34 (6.12) right after an off pass.)
 * tcp_metrics are not saved, so no arm starts
 * from what an earlier one taught the server. Counters come from the
 * server namespace, over the whole arm: a transaction "hit an RTO" when
 * TCPTimeouts grew across it; DSACKs (TCPDSACKRecv) count segments the
 * receiver got twice: needless probes and spurious retransmissions.
 *
 * For runs by hand, e.g. make run CMD='TLP_BENCH_ARMS=tail2/rtt1
 * /lab/bench/tlp/tlp-bench' (make bench leaves them unset):
 *   TLP_BENCH_ARMS    arm names, comma-separated
 *   TLP_BENCH_PASSES  off, on, trust, ackdelay, comma-separated, run in the order
 *                     given (a pass may repeat; bench/report refuses
 *                     such output)
 *   TLP_BENCH_TXNS    fresh connections per loss arm, 1-200
 *
 * Output, one line per arm and pass, read by bench/report on the host:
 *   arm <ours|upstream> <off|on|trust|ackdelay> <arm>/rtt<ms>[/...] n=..
 *       failed=.. rto_txns=.. p50=.. p90=.. probes=.. dsacks=.. retrans=..
 *       outsegs=.. cuts=.. undos=.. [held=.. (slowack: ACKs the router held)]
 *   cuts: cwnd reductions short of an RTO (TCPSackRecovery, TCPRenoRecovery,
 *   TCPLossProbeRecovery); undos: those undone as needless (TCPDSACKUndo,
 *   TCPFullUndo, TCPPartialUndo, TCPLossUndo), over the arm
 *
 * "tlp-bench demo" instead runs one transaction with the last 2 segments
 * lost, with and without TLP, and prints the time saved. "tlp-bench
 * ackload N" runs N fresh 10-segment transactions without loss at RTT
 * 10 ms, the ACKs whose cost bench/ack-cost counts through QEMU's gdb stub.
 */
#include "../guest-nodebug/tlpnet.h"
#include "../guest-nodebug/tlp-ackhold.h"

#define NSEG 10
#define TXNS 20			/* per fresh-connection arm, by default */
#define TXNS_MAX 200
#define KA_ROUNDS 48
#define KA_THINK_US 60000
#define SLOW_THINK_US 250000	/* past the longest hold: no request carries the ACK */
#define SLOW_HOLD_MIN_MS 100
#define SLOW_HOLD_MAX_MS 200
#define DEMO_RTT_MS 20
#define RANDOM_SEED 20130311u

static struct tlp_request tail_2(unsigned int i)
{
	(void)i;
	return tlp_drop(NSEG, NSEG - 2, 2);
}

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

struct arm {
	const char *name;
	int rtt_us, jitter_ms;
	int family;
	bool no_timestamps;
	struct tlp_request (*rq)(unsigned int i);	/* NULL: keep-alive */
	bool fq;		/* the server's qdisc is fq */
	bool slow_ack;		/* keep-alive: the 100-200 ms receiver */
};

static const struct arm arms[] = {
	{ "tail2/rtt1", 1000, 0, AF_INET, false, tail_2, false, false },
	{ "random5/rtt1", 1000, 0, AF_INET, false, random_5pct, false, false },
	{ "keepalive/rtt1", 1000, 0, AF_INET, false, NULL, false, false },
	{ "tail2/rtt10", 10000, 0, AF_INET, false, tail_2, false, false },
	{ "random5/rtt10", 10000, 0, AF_INET, false, random_5pct, false, false },
	{ "keepalive/rtt10", 10000, 0, AF_INET, false, NULL, false, false },
	{ "keepalive6/rtt10", 10000, 0, AF_INET6, false, NULL, false, false },
	{ "tail2/rtt10/fq", 10000, 0, AF_INET, false, tail_2, true, false },
	{ "random5/rtt10/fq", 10000, 0, AF_INET, false, random_5pct, true, false },
	{ "keepalive/rtt10/fq", 10000, 0, AF_INET, false, NULL, true, false },
	{ "keepalive/rtt10/slowack", 10000, 0, AF_INET, false, NULL, false, true },
	{ "keepalive6/rtt10/slowack", 10000, 0, AF_INET6, false, NULL, false, true },
	{ "tail2/rtt50", 50000, 0, AF_INET, false, tail_2, false, false },
	{ "random5/rtt50", 50000, 0, AF_INET, false, random_5pct, false, false },
	{ "keepalive/rtt50", 50000, 0, AF_INET, false, NULL, false, false },
	{ "random5/rtt50/jitter5", 50000, 5, AF_INET, false, random_5pct, false, false },
	{ "keepalive/rtt50/jitter5", 50000, 5, AF_INET, false, NULL, false, false },
	{ "keepalive/rtt50/slowack", 50000, 0, AF_INET, false, NULL, false, true },
	{ "tail2/rtt50/nots", 50000, 0, AF_INET, true, tail_2, false, false },
	{ "tail2/rtt200", 200000, 0, AF_INET, false, tail_2, false, false },
	{ "random5/rtt200", 200000, 0, AF_INET, false, random_5pct, false, false },
	{ "keepalive/rtt200", 200000, 0, AF_INET, false, NULL, false, false },
};

struct result {
	int n, failed, rto_txns;
	struct tlp_hold_stats hold;	/* slowack; held -1 if the hold failed */
	struct tlp_counters d;		/* summed over the arm */
	double ms[KA_ROUNDS > TXNS_MAX ? KA_ROUNDS : TXNS_MAX];
};

static void add_counters(struct tlp_counters *sum, const struct tlp_counters *d)
{
	sum->probes += d->probes;
	sum->timeouts += d->timeouts;
	sum->dsacks += d->dsacks;
	sum->retrans += d->retrans;
	sum->out += d->out;
	sum->cuts += d->cuts;
	sum->undos += d->undos;
}

/*
 * Counters over the whole arm, up to a settling time after the last
 * transaction: a transaction's own window ends at its last byte and
 * misses what its hangup brings (a late DSACK).
 */
static void run_fresh(const struct arm *a, unsigned int txns, struct result *r)
{
	struct tlp_counters before = tlp_counters(), d;
	unsigned int i;

	for (i = 0; i < txns; i++) {
		struct tlp_txn t = tlp_transact(a->family, NULL, a->rq(i));

		if (!t.ok) {
			r->failed++;
			continue;
		}
		r->ms[r->n++] = t.ms;
		r->rto_txns += t.d.timeouts > 0;
	}
	usleep(4 * a->rtt_us + 300000);
	d = tlp_delta(before, tlp_counters());
	add_counters(&r->d, &d);
}

/*
 * Rounds on one connection; each round is timed from the request to the
 * last byte of the response, and the counters are taken over the whole
 * connection, its close included, after a settling time in which a late
 * probe would still fire.
 */
static void run_keepalive(const struct arm *a, struct result *r)
{
	static const uint32_t sizes[] = { 1, 2, 3, 11 };
	bool (*round)(int fd, struct tlp_request rq) =
		a->slow_ack ? tlp_round_quickack : tlp_round_pingpong;
	struct tlp_counters before = tlp_counters(), d;
	int fd, i;

	if (a->slow_ack && tlp_hold_start(SLOW_HOLD_MIN_MS, SLOW_HOLD_MAX_MS)) {
		r->failed = KA_ROUNDS;
		r->hold.held = -1;
		return;
	}
	fd = tlp_connect(a->family, NULL, 0);
	for (i = 0; fd >= 0 && i < KA_ROUNDS; i++) {
		double t0 = lab_now();

		if (!round(fd, tlp_drop(sizes[i % 4], 0, 0)))
			break;
		r->ms[r->n++] = (lab_now() - t0) * 1e3;
		usleep(a->slow_ack ? SLOW_THINK_US : KA_THINK_US);
	}
	r->failed = KA_ROUNDS - r->n;
	if (fd >= 0)
		tlp_hangup(fd);
	usleep(4 * a->rtt_us + 300000);
	if (a->slow_ack)
		r->hold = tlp_hold_stop();
	d = tlp_delta(before, tlp_counters());
	/*
	 * A probe or RTO may fire after the next round has begun, so rounds
	 * are not told apart: rto_txns counts the connection's RTOs.
	 */
	r->rto_txns = d.timeouts > 0 ? d.timeouts : 0;
	add_counters(&r->d, &d);
}

static double percentile(struct result *r, double p)
{
	if (!r->n)
		return 0;
	qsort(r->ms, r->n, sizeof(double), tlp_cmp_double);
	return r->ms[(int)(p * (r->n - 1) + 0.5)];
}

/*
 * A pass: the server's TLP settings for one run of an arm. The extensions'
 * sysctls exist on ours only; "off" and "on" leave them at 0, the default.
 */
struct pass {
	const char *name;
	const char *early_retrans;
	const char *trust_probe_sack;
	const char *peer_ack_delay;
};

static const struct pass passes[] = {
	{ "off", "0", "0", "0" },
	{ "on", "3", "0", "0" },
	{ "trust", "3", "1", "0" },
	{ "ackdelay", "3", "0", "1" },
};

#define TRUST_SYSCTL "net/ipv4/tcp_tlp_trust_probe_sack"
#define ACK_DELAY_SYSCTL "net/ipv4/tcp_tlp_peer_ack_delay"

/* The sysctl of ours' a pass turns on, or NULL: 6.12 can run it. */
static const char *pass_extension(const struct pass *p)
{
	if (strcmp(p->trust_probe_sack, "0"))
		return TRUST_SYSCTL;
	return strcmp(p->peer_ack_delay, "0") ? ACK_DELAY_SYSCTL : NULL;
}

static bool set_pass(const struct pass *p)
{
	if (tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", p->early_retrans))
		return false;
	return ktap_upstream() ||
	       (!tlp_sysctl(ns_srv, TRUST_SYSCTL, p->trust_probe_sack) &&
		!tlp_sysctl(ns_srv, ACK_DELAY_SYSCTL, p->peer_ack_delay));
}

/* Each of the one-segment responses' ACKs is a lone segment's. */
static bool hold_acted(const struct arm *a, const struct tlp_hold_stats *st)
{
	if (tlp_hold_acted(st, KA_ROUNDS / 4))
		return true;
	if (st->held < 0)
		printf("tlp-bench: %s: the router's ACK hold failed\n", a->name);
	else
		printf("tlp-bench: %s: the router held %ld ACKs and replaced %ld, fewer than the %d one-segment rounds\n",
		       a->name, st->held, st->superseded, KA_ROUNDS / 4);
	return false;
}

static bool run_arm(const struct arm *a, const struct pass *p, unsigned int txns)
{
	const char *ts = a->no_timestamps ? "0" : "1";
	struct result r = { 0 };

	if (!set_pass(p) ||
	    tlp_sysctl(ns_srv, "net/ipv4/tcp_timestamps", ts) ||
	    tlp_sysctl(ns_cli, "net/ipv4/tcp_timestamps", ts) ||
	    tlp_set_path_us(a->rtt_us / 2, a->jitter_ms) ||
	    tlp_server_fq(a->fq)) {
		printf("tlp-bench: %s: cannot set the pass '%s' or the path\n", a->name, p->name);
		return false;
	}
	if (a->rq)
		run_fresh(a, txns, &r);
	else
		run_keepalive(a, &r);
	printf("arm %s %s %s n=%d failed=%d rto_txns=%d p50=%.1f p90=%.1f probes=%ld dsacks=%ld retrans=%ld outsegs=%ld cuts=%ld undos=%ld",
	       ktap_upstream() ? "upstream" : "ours", p->name, a->name, r.n, r.failed,
	       r.rto_txns, percentile(&r, 0.5), percentile(&r, 0.9), r.d.probes,
	       r.d.dsacks, r.d.retrans, r.d.out, r.d.cuts, r.d.undos);
	printf(a->slow_ack ? " held=%ld\n" : "\n", r.hold.held);
	if (a->slow_ack && !hold_acted(a, &r.hold))
		return false;
	if (!set_pass(&passes[1])) {
		printf("tlp-bench: %s: cannot restore the default pass\n", a->name);
		return false;
	}
	return true;
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
	       DEMO_RTT_MS, NSEG);
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

/*
 * A number of transactions given by the user (what: where), 1 to max,
 * digits only; false after saying what is wrong.
 */
static bool parse_count(const char *what, const char *s, long max, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || *n < 1 || *n > max) {
		printf("tlp-bench: %s: '%s' is not a number of transactions (1-%ld)\n",
		       what, s, max);
		return false;
	}
	return true;
}

/*
 * ACKs for bench/ack-cost: it attaches when "ackload ready" is printed and
 * kills the guest once it has counted enough, so N only has to outlast it.
 */
static int ackload(const char *arg)
{
	struct tlp_request rq = tlp_drop(NSEG, 0, 0);
	long n, i, done = 0;

	if (!parse_count("ackload", arg, 1000000, &n))
		return 2;
	if (tlp_set_delay(5))
		return 1;
	printf("tlp-bench: ackload ready\n");
	for (i = 0; i < n; i++)
		done += tlp_transact(AF_INET, NULL, rq).ok;
	printf("tlp-bench: ackload done, %ld of %ld transactions\n", done, n);
	return done == n ? 0 : 1;
}

#define N_ARMS (sizeof(arms) / sizeof(arms[0]))
#define N_PASSES (sizeof(passes) / sizeof(passes[0]))

/* What one run measures: TLP_BENCH_ARMS, _PASSES and _TXNS, or the defaults. */
struct selection {
	bool arm[N_ARMS];
	const struct pass *pass[8];	/* a pass may repeat */
	unsigned int npass, txns;
};

static int arm_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_ARMS; i++)
		if (!strcmp(arms[i].name, name))
			return i;
	printf("tlp-bench: TLP_BENCH_ARMS: no arm '%s' (known:", name);
	for (i = 0; i < N_ARMS; i++)
		printf(" %s", arms[i].name);
	printf(")\n");
	return -1;
}

static const struct pass *pass_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_PASSES; i++)
		if (!strcmp(passes[i].name, name))
			break;
	if (i == N_PASSES)
		printf("tlp-bench: TLP_BENCH_PASSES: no pass '%s' (known: off on trust ackdelay)\n", name);
	else if (ktap_upstream() && pass_extension(&passes[i]))
		printf("tlp-bench: TLP_BENCH_PASSES: '%s' needs ours' %s\n", name,
		       pass_extension(&passes[i]));
	else
		return &passes[i];
	return NULL;
}

/*
 * Split the comma-separated list of variable var into words[], at most max,
 * in buf. An empty word or a list too long for buf is an error: either
 * would otherwise run something other than what was asked for.
 */
static int split_list(const char *var, const char *list, char *buf, size_t len,
		      char **words, int max)
{
	char *rest = buf, *w;
	int n = 0;

	if (strlen(list) >= len) {
		printf("tlp-bench: %s: longer than %zu characters\n", var, len - 1);
		return -1;
	}
	strcpy(buf, list);
	while ((w = strsep(&rest, ","))) {
		if (!*w) {
			printf("tlp-bench: %s: empty name in '%s'\n", var, list);
			return -1;
		}
		if (n == max) {
			printf("tlp-bench: %s: more than %d names in '%s'\n", var, max, list);
			return -1;
		}
		words[n++] = w;
	}
	return n;
}

static bool select_arms(struct selection *sel, const char *list)
{
	char buf[512], *words[N_ARMS * 2];
	int n = split_list("TLP_BENCH_ARMS", list, buf, sizeof(buf), words, N_ARMS * 2);
	int i, a;

	for (i = 0; i < n; i++) {
		a = arm_named(words[i]);
		if (a < 0)
			return false;
		sel->arm[a] = true;
	}
	return n > 0;
}

static bool select_passes(struct selection *sel, const char *list)
{
	char buf[64], *words[sizeof(sel->pass) / sizeof(sel->pass[0])];
	int n = split_list("TLP_BENCH_PASSES", list, buf, sizeof(buf), words,
			   sizeof(words) / sizeof(words[0]));
	int i;

	for (i = 0; i < n; i++) {
		sel->pass[i] = pass_named(words[i]);
		if (!sel->pass[i])
			return false;
	}
	sel->npass = n > 0 ? n : 0;
	return n > 0;
}

/* Fill sel from the environment; false, after saying what is wrong, on a bad value. */
static bool select_from_env(struct selection *sel)
{
	const char *arms_env = getenv("TLP_BENCH_ARMS");
	const char *passes_env = getenv("TLP_BENCH_PASSES");
	const char *txns_env = getenv("TLP_BENCH_TXNS");
	unsigned int i;
	long n;

	for (i = 0; i < N_ARMS; i++)
		sel->arm[i] = !arms_env;
	if (arms_env && !select_arms(sel, arms_env))
		return false;
	if (!select_passes(sel, passes_env ? passes_env :
			   ktap_upstream() ? "on,off" : "on,trust,ackdelay,off"))
		return false;
	if (txns_env && !parse_count("TLP_BENCH_TXNS", txns_env, TXNS_MAX, &n))
		return false;
	sel->txns = txns_env ? n : TXNS;
	return true;
}

int main(int argc, char **argv)
{
	struct selection sel = { 0 };
	unsigned int a, p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tlp_net_setup(DEMO_RTT_MS / 2)) {
		printf("setup failed\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "demo"))
		return demo();
	if (argc > 2 && !strcmp(argv[1], "ackload"))
		return ackload(argv[2]);
	if (!select_from_env(&sel))
		return 2;
	/*
	 * Every connection starts cold: a connection that ends after an RTO
	 * saves its reordering degree and ssthresh in tcp_metrics, and every
	 * later one to the same peer starts from them, so an arm would
	 * depend on the arms before it (which differ: only ours runs the
	 * extensions' passes).
	 */
	if (tlp_sysctl(ns_srv, "net/ipv4/tcp_no_metrics_save", "1") ||
	    tlp_sysctl(ns_cli, "net/ipv4/tcp_no_metrics_save", "1")) {
		printf("tlp-bench: cannot set tcp_no_metrics_save\n");
		return 1;
	}
	printf("# one transaction at a time: %u fresh connections per loss arm, %d keep-alive rounds\n",
	       sel.txns, KA_ROUNDS);
	for (a = 0; a < N_ARMS; a++)
		for (p = 0; sel.arm[a] && p < sel.npass; p++)
			if (!run_arm(&arms[a], sel.pass[p], sel.txns))
				return 1;
	return 0;
}
