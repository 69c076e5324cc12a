// SPDX-License-Identifier: GPL-2.0
/*
 * tlp-tail: tail loss probe on an emulated path (see tlpnet.h), timed.
 *
 * Most transactions are a fresh connection asking for a 10-segment response
 * whose last K segments the router drops once each; the keep-alive, repair
 * and needless-probe cases keep one connection for several rounds. Counters
 * are read from the server namespace around each transaction. Parity cases
 * hold on the unpatched kernel too; "[extension]" cases test what only ours
 * does, each with its sysctl set to 1. peer-ack-delay and fast-probe-sack
 * have a negative control that runs the same with the sysctl 0 (the
 * default) and requires the extension's effect to be absent; the others
 * (rarely-rto-*, keepalive*-ack-delay, keepalive-slow-ack-delay) are bounds
 * that 6.12's behaviour also meets, so they guard against harm, not show
 * the effect.
 */
#include "tlpnet.h"
#include "tlp-ackhold.h"
#include "lab-stall.h"

#define NSEG 10

static struct tlp_request tail_loss(uint32_t k)
{
	return tlp_drop(NSEG, NSEG - k, k);
}

static void set_tlp(const char *early_retrans)
{
	tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", early_retrans);
}

/* Our sysctls do not exist upstream: there the write fails, harmlessly. */
static void set_ours(const char *name, const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), "net/ipv4/%s", name);
	if (tlp_sysctl(ns_srv, path, value) && !ktap_upstream())
		ktap_diag("cannot set %s", path);
}

static double base_ms[4];	/* no-loss median per RTT index */
static const int rtts[] = { 20, 50, 100 };

static void case_clock(void)
{
	ktap_result(tlp_clock_is_tsc(),
		    "the guest clock is the TSC, so RTT samples are not quantised to jiffies");
}

static void case_no_loss(void)
{
	struct tlp_arm a;

	tlp_run_arm(&a, 20, AF_INET, NULL, tail_loss(0));
	tlp_report("no loss", &a);
	base_ms[0] = tlp_pct(&a, 0.5);
	ktap_result(a.n == 20 && a.probes == 0 && a.timeouts == 0,
		    "without loss a 10-segment response sends no probe and takes no RTO (IPv4, RTT 20 ms)");
}

/* The arms case_faster_than_off() compares, kept from the cases that ran them. */
static struct tlp_arm off_arm, on_arm;

static void run_off_arm(struct tlp_arm *a, int family)
{
	set_tlp("0");
	tlp_run_arm(a, 10, family, NULL, tail_loss(2));
	set_tlp("3");
	tlp_report("tcp_early_retrans=0, K=2", a);
}

static void case_off_costs_rto(int family, const char *name)
{
	struct tlp_arm a;

	run_off_arm(&a, family);
	if (family == AF_INET)
		off_arm = a;
	ktap_result(a.n == 10 && a.with_rto == a.n && a.probes == 0, name);
}

static void run_on_arm(struct tlp_arm *a, int family, uint32_t k)
{
	tlp_run_arm(a, 20, family, NULL, tail_loss(k));
	tlp_report("TLP on", a);
}

static void case_one_probe(int family, uint32_t k, const char *name)
{
	struct tlp_arm a;

	run_on_arm(&a, family, k);
	if (family == AF_INET && k == 2)
		on_arm = a;
	ktap_result(a.n == 20 && a.with_one_probe == a.n, name);
}

static void case_off_costs_rto_ipv4(void)
{
	case_off_costs_rto(AF_INET,
			   "tcp_early_retrans=0: losing the last 2 segments costs an RTO every time (IPv4, RTT 20 ms)");
}

static void case_off_costs_rto_ipv6(void)
{
	case_off_costs_rto(AF_INET6,
			   "tcp_early_retrans=0: losing the last 2 segments costs an RTO every time (IPv6, RTT 20 ms)");
}

static void case_one_probe_k2_ipv4(void)
{
	case_one_probe(AF_INET, 2,
		       "TLP on: losing the last 2 segments sends exactly one probe per transaction (IPv4, RTT 20 ms)");
}

static void case_one_probe_k3_ipv6(void)
{
	case_one_probe(AF_INET6, 3,
		       "TLP on: losing the last 3 segments sends exactly one probe per transaction (IPv6, RTT 20 ms)");
}

/* Run alone (LAB_CASE), it measures the two arms itself. */
static void case_faster_than_off(void)
{
	double on, off;

	if (!off_arm.n)
		run_off_arm(&off_arm, AF_INET);
	if (!on_arm.n)
		run_on_arm(&on_arm, AF_INET, 2);
	on = tlp_pct(&on_arm, 0.5);
	off = tlp_pct(&off_arm, 0.5);

	ktap_diag("p50 TLP on %.1f ms, off %.1f ms (ratio %.2f)", on, off,
		  off > 0 ? on / off : 0);
	ktap_result(on_arm.n && off_arm.n && on < 0.7 * off,
		    "TLP on: the median transaction with 2 lost tail segments takes under 70% of TLP off's (IPv4, RTT 20 ms)");
}

/* One lost tail segment at the defaults, kept for case_single_measured(). */
static struct tlp_arm capped_arm;

static void run_capped_arm(struct tlp_arm *a)
{
	tlp_run_arm(a, 10, AF_INET, NULL, tail_loss(1));
	tlp_report("K=1, fixed ACK-delay allowance", a);
}

/* With one segment out the PTO (2 SRTT + 200 ms) exceeds the RTO. */
static void case_single_capped(void)
{
	struct tlp_arm *a = &capped_arm;

	run_capped_arm(a);
	ktap_result(a->n == 10 && a->with_rto == 0 && a->with_one_probe == a->n,
		    "one segment outstanding: the probe is capped at the RTO and replaces it (IPv4, RTT 20 ms)");
}

/*
 * initcwnd 4 towards 10.0.1.3 leaves 6 segments queued behind the flight.
 * If the probe is the 5th segment (new data), dropping the first copy of
 * that segment as well leaves the sender blind until the RTO, while a lost
 * flight alone is repaired through the probe's SACK.
 */
static void case_new_data_probe(void)
{
	struct tlp_arm flight, flight_and_next;

	tlp_run_arm(&flight, 6, AF_INET, "10.0.1.3", tlp_drop(NSEG, 0, 4));
	tlp_report("initcwnd 4, flight of 4 lost", &flight);
	tlp_run_arm(&flight_and_next, 6, AF_INET, "10.0.1.3", tlp_drop(NSEG, 0, 5));
	tlp_report("initcwnd 4, flight and 5th segment lost", &flight_and_next);
	ktap_result(flight.n == 6 && flight.with_rto == 0 &&
		    flight.with_one_probe == flight.n &&
		    flight_and_next.n == 6 && flight_and_next.with_rto == flight_and_next.n,
		    "data queued behind a lost flight: the probe is the next new segment (IPv4, initcwnd 4)");
}

/*
 * The tail split of tcp_send_loss_probe(): when the last skb holds several
 * segments, the probe is its last segment alone, cut off with
 * tcp_fragment(), not the whole skb sent again. Every other case has s0
 * send one MSS per skb (gso_max_segs 1); here it sends GSO packets, and
 * tcp_min_tso_segs 4 makes an 8-segment response two skbs of four. The
 * router drops the tail skb whole, once; two rules in front of the drop
 * count the bytes of that copy (more than one MTU, or the split path was
 * not taken) and of every later packet carrying its marker: exactly one,
 * the probe, within one MTU. A probe of the whole skb would be one packet
 * of four segments' bytes; a probe of its first segment leaves the marker
 * to a later retransmission of several. RTOs are shown, not asserted: the
 * repair after the probe is not this case's subject (the rarely-rto cases
 * bound it). An RTO after a correct probe comes in about 1 transaction of
 * 5 to 12, on 6.12 as on ours (one boot each, 2026-12-07: IPv4 1 and 2,
 * IPv6 1 and 1 of 5; 2026-12-08, ours: 5 of 60). A likely cause, from the
 * code: tcp_rack_advance() ignores the SACK of a retransmission whose RTT
 * is below min_rtt (the original may be what arrived); a fresh connection
 * has few RTT samples, so the probe's is often a new minimum, RACK marks
 * nothing lost and the RTO repairs. With tcp_tlp_trust_probe_sack 1, which
 * has RACK time a SACKed probe's segment from its first copy's send time
 * (tcp_tlp_probe_first_xmit()), 0 of 60 in the same boot, alternating with
 * 0 (Fisher two-sided p 0.057: consistent with that cause, not proof of
 * it). The same over IPv6 (ip6tables), whose sockets reach
 * tcp_send_loss_probe() through their own transmit path.
 */
#define SPLIT_RUNS	5
/* Marker 01 of the drop rules; tlp_drop_rules() gives marker n connmark bit 1 << n. */
#define SPLIT_MARK	"-m string --algo bm --string TLP-DROP-ONCE-01 -m connmark"
#define SPLIT_SEEN	"--mark 0x2/0x2"
#define PATH_MTU	1500	/* the veths' */
#define RTR_IPT(f)	((f) == AF_INET ?					\
			 "/usr/sbin/ip netns exec rtr /usr/sbin/iptables-legacy" :	\
			 "/usr/sbin/ip netns exec rtr /usr/sbin/ip6tables-legacy")

/*
 * The counting rules, in front of marker 01's drop: rule 1 counts the
 * first copy (its connmark bit not yet set), rule 2 every later one. No
 * target: a packet goes on to the drop rules as before.
 */
static int split_rules_add(int family)
{
	return lab_sh(NULL, 0, "%s -I TLPDROP 1 %s ! %s && %s -I TLPDROP 2 %s %s",
		      RTR_IPT(family), SPLIT_MARK, SPLIT_SEEN, RTR_IPT(family), SPLIT_MARK,
		      SPLIT_SEEN);
}

/* Each rule deleted on its own: one missing must not keep the other. */
static void split_rules_del(int family)
{
	lab_sh(NULL, 0, "%s -D TLPDROP %s ! %s", RTR_IPT(family), SPLIT_MARK, SPLIT_SEEN);
	lab_sh(NULL, 0, "%s -D TLPDROP %s %s", RTR_IPT(family), SPLIT_MARK, SPLIT_SEEN);
}

/* The packets and bytes rule @n of chain TLPDROP counted since it was zeroed. */
static bool split_count(int family, int n, long *pkts, long *bytes)
{
	char out[512], *line;
	int rc = lab_sh(out, sizeof(out), "%s -n -v -x -L TLPDROP %d", RTR_IPT(family), n);

	for (line = out; !rc && line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%ld %ld", pkts, bytes) == 2)
			return true;
	ktap_diag("no counters in the listing of TLPDROP rule %d: \"%s\"", n, out);
	return false;
}

static bool split_run(int family, int i)
{
	long first_p = -1, first_b = -1, again_p = -1, again_b = -1;
	int rc = lab_sh(NULL, 0, "%s -Z TLPDROP", RTR_IPT(family));
	struct tlp_txn t;
	bool counted;

	t = tlp_transact(family, NULL, tlp_drop(8, 7, 1));
	counted = !rc && split_count(family, 1, &first_p, &first_b) &&
		  split_count(family, 2, &again_p, &again_b);
	ktap_diag("run %d: %s, %ld probe(s), %ld RTO(s); tail skb dropped: %ld packet(s), %ld bytes; its marker sent again: %ld packet(s), %ld bytes",
		  i, t.ok ? "answered" : "no answer", t.d.probes, t.d.timeouts, first_p, first_b,
		  again_p, again_b);
	return counted && t.ok && t.d.probes == 1 && first_p == 1 &&
	       first_b > PATH_MTU && again_p == 1 && again_b <= PATH_MTU;
}

static void case_tail_split(int family)
{
	char old[16] = "2";
	int i, good = 0;
	bool set;

	tlp_sysctl_read(ns_srv, "net/ipv4/tcp_min_tso_segs", old, sizeof(old));
	set = !tlp_sysctl(ns_srv, "net/ipv4/tcp_min_tso_segs", "4") &&
	      !lab_sh(NULL, 0, "/usr/sbin/ip -n srv link set s0 gso_max_segs 64") &&
	      !split_rules_add(family);
	for (i = 0; set && i < SPLIT_RUNS; i++)
		good += split_run(family, i);
	split_rules_del(family);
	lab_sh(NULL, 0, "/usr/sbin/ip -n srv link set s0 gso_max_segs 1");
	tlp_sysctl(ns_srv, "net/ipv4/tcp_min_tso_segs", old);
	ktap_result(set && good == SPLIT_RUNS, family == AF_INET ?
		    "a lost tail skb of several segments is probed with its last segment alone (IPv4, GSO)" :
		    "a lost tail skb of several segments is probed with its last segment alone (IPv6, GSO)");
}

static void case_tail_split_ipv4(void)
{
	case_tail_split(AF_INET);
}

static void case_tail_split_ipv6(void)
{
	case_tail_split(AF_INET6);
}

static double base_at(int ri)
{
	struct tlp_arm a;

	if (!base_ms[ri]) {
		tlp_run_arm(&a, 5, AF_INET, NULL, tail_loss(0));
		base_ms[ri] = tlp_pct(&a, 0.5);
	}
	return base_ms[ri];
}

/*
 * With 8 transactions at a time, upstream fell back to an RTO in up to 42%
 * of the transactions losing 2 or 3 tail segments (RACK ignores the probe's
 * SACK as ambiguous); one at a time, as here, in about 1 in 30. So this
 * bound does not tell the extension from 6.12: case_fast_probe_sack() does,
 * with its negative control. How long the repair took is the benchmark's to
 * show: under TCG the probe's round trips are not a protocol bound.
 */
static void case_rarely_rto(int ri)
{
	static const char *const names[] = {
		"[extension] tcp_tlp_trust_probe_sack 1: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 20 ms)",
		"[extension] tcp_tlp_trust_probe_sack 1: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 50 ms)",
		"[extension] tcp_tlp_trust_probe_sack 1: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 100 ms)",
	};
	int rtt = rtts[ri], n = ri == 2 ? 6 : 10, family, k, total = 0, rtos = 0;
	bool complete = true;
	struct tlp_arm a;

	if (!ktap_extension(names[ri]))
		return;
	set_ours("tcp_tlp_trust_probe_sack", "1");
	tlp_set_delay(rtt / 2);
	ktap_diag("RTT %d ms: no-loss p50 %.1f ms", rtt, base_at(ri));
	for (family = AF_INET; family; family = family == AF_INET ? AF_INET6 : 0) {
		for (k = 2; k <= 3; k++) {
			tlp_run_arm(&a, n, family, NULL, tail_loss(k));
			ktap_diag("%s K=%d:", family == AF_INET ? "IPv4" : "IPv6", k);
			tlp_report("  arm", &a);
			complete &= a.n == n;
			total += a.n;
			rtos += a.with_rto;
		}
	}
	tlp_set_delay(10);
	set_ours("tcp_tlp_trust_probe_sack", "0");
	ktap_diag("%d of %d transactions fell back to an RTO", rtos, total);
	ktap_result(complete && 10 * rtos <= total, names[ri]);
}

/*
 * on: the extension's case. !on: its negative control, the same arm with
 * tcp_tlp_peer_ack_delay 0 must not get under the 60% bound.
 */
static void case_single_measured(bool on)
{
	const char *name = on ?
		"[extension] tcp_tlp_peer_ack_delay 1: one lost tail segment costs under 60% of the extra time the fixed allowance costs, and no RTO (IPv4, RTT 20 ms)" :
		"[extension] negative control: with tcp_tlp_peer_ack_delay 0 the same arm costs at least 60% of the fixed allowance's extra time (IPv4, RTT 20 ms)";
	double capped, extra;
	struct tlp_arm a;

	if (!ktap_extension(name))
		return;
	/* Run alone (LAB_CASE), it measures its references itself. */
	if (!capped_arm.n)
		run_capped_arm(&capped_arm);
	capped = tlp_pct(&capped_arm, 0.5) - base_at(0);
	set_ours("tcp_tlp_peer_ack_delay", on ? "1" : "0");
	tlp_run_arm(&a, 10, AF_INET, NULL, tail_loss(1));
	set_ours("tcp_tlp_peer_ack_delay", "0");
	tlp_report(on ? "K=1, measured ACK delay" : "K=1, sysctl 0", &a);
	extra = tlp_pct(&a, 0.5) - base_at(0);
	ktap_diag("extra over no loss: p50 %.1f ms, fixed allowance %.1f ms", extra, capped);
	ktap_result(a.n == 10 && a.with_rto == 0 && a.with_one_probe == a.n &&
		    capped > 0 && (extra < 0.6 * capped) == on, name);
}

/*
 * A needless probe: the ACKs of a 2-segment response are held 150 ms on the
 * way back (a delay spike, SRTT 10 ms), so the probe fires although nothing
 * was lost, and the DSACK of its copy comes back. It must not count as a
 * repaired loss (no cwnd cut) on either kernel; ours counts it in TcpExt
 * TCPLossProbeSpurious. Quick-ACK stays on: the receiver is a plain Linux one.
 */
static void case_needless_probe(void)
{
	const char *name = "a probe made needless by a late ACK is not a repaired loss: 1 probe, 1 DSACK, TCPLossProbeRecovery 0, no RTO; ours counts it in TCPLossProbeSpurious (IPv4, RTT 10 ms)";
	struct tlp_request warm = tlp_drop(NSEG, 0, 0), two = tlp_drop(2, 0, 0);
	struct tlp_counters before, d;
	int fd;
	bool ok;

	tlp_set_delay(5);
	fd = tlp_connect(AF_INET, NULL, 0);
	ok = fd >= 0 && tlp_round(fd, warm) && tlp_round(fd, warm);
	usleep(100000);
	before = tlp_counters();
	if (ok) {
		ok = !tlp_set_dir_delay("r1", 150) && tlp_round(fd, two);
		usleep(400000);
	}
	d = tlp_delta(before, tlp_counters());
	tlp_set_dir_delay("r1", 5);
	if (fd >= 0)
		tlp_hangup(fd);
	tlp_set_delay(10);
	ktap_diag("probes %ld dsacks %ld spurious %ld recovery %ld timeouts %ld",
		  d.probes, d.dsacks, d.spurious_probes, d.probe_recovery, d.timeouts);
	ktap_result(ok && d.probes == 1 && d.dsacks == 1 && d.probe_recovery == 0 &&
		    d.timeouts == 0 && (ktap_upstream() || d.spurious_probes == 1),
		    name);
}

/*
 * Keep-alive traffic past quick-ACK against a Linux receiver with its
 * default delayed ACK: rounds of 1, 2, 3 and 11 segments, each followed by
 * 60 ms of think time. Nothing is lost: any probe, DSACK or retransmission
 * is a needless one. With the defaults both kernels send none on a path
 * without jitter.
 *
 * The client stays in pingpong mode (tlp_round_pingpong()), so a lone
 * last segment waits for its 40 ms delayed ACK: the case where a PTO
 * without the delayed-ACK allowance (2 SRTT + 2 ms = 22 ms) probes
 * needlessly. Without it the client ACKed on reading, and a kernel with
 * that allowance gone passed this case.
 *
 * The guest's path has jitter: under QEMU TCG the host may not run a vCPU
 * for tens of ms. With two or more segments out the PTO is 2 * SRTT + 2 ms
 * (22 ms at RTT 10 ms); the receiver ACKs a pair at once, so a probe needs
 * that ACK about 12 ms late, which only a stall of the guest gives. A
 * SCHED_FIFO thread per CPU notes the longest gap of each round; a round
 * with a needless probe, DSACK, retransmission or RTO and no stall of
 * KA_STALL_MS or more is a failure of the kernel's TLP.
 */
#define KA_ROUNDS	48
#define KA_STALL_MS	10.0
/* More stalled rounds than this, and "no needless round" says too little. */
#define KA_STALLED_MAX	(KA_ROUNDS / 2)

struct ka_run {
	int done;		/* rounds completed */
	int stalled;		/* rounds with a stall of KA_STALL_MS or more */
	int explained;		/* needless rounds that had such a stall */
	int unexplained;	/* needless rounds that had none */
	double worst_ms;	/* the longest stall seen */
	struct tlp_counters d;	/* over all rounds */
};

/* The keep-alive and fast-probe-SACK cases' watchers. */
static struct lab_stall ka_stall;

static bool ka_needless(const struct tlp_counters *d)
{
	return d->probes || d->dsacks || d->spurious_probes > 0 || d->retrans || d->timeouts;
}

static void ka_add(struct tlp_counters *sum, const struct tlp_counters *d)
{
	sum->probes += d->probes;
	sum->dsacks += d->dsacks;
	sum->spurious_probes += d->spurious_probes > 0 ? d->spurious_probes : 0;
	sum->retrans += d->retrans;
	sum->timeouts += d->timeouts;
}

/* How the client ACKs, and how long it thinks between rounds. */
struct ka_peer {
	bool (*round)(int fd, struct tlp_request rq);
	int think_us;
};

/* A Linux client past quick-ACK: a lone segment waits for its 40 ms timer. */
static const struct ka_peer ka_linux = { tlp_round_pingpong, 60000 };
/*
 * The client ACKs at once and the router holds a lone segment's ACK
 * KA_HOLD_MIN_MS-KA_HOLD_MAX_MS (tlp-ackhold.h); the next request, which
 * would carry the ACK, comes after the longest hold. 180, not 200: in the
 * first round SRTT is the handshake's 10 ms and 6.12's PTO is capped at
 * the RTO, 10 + 200 ms, which a 200 ms hold plus the path would reach
 * (bench/tlp-bench's slowack arms go to 200 ms and show what happens).
 */
#define KA_HOLD_MIN_MS	100
#define KA_HOLD_MAX_MS	180
static const struct ka_peer ka_slow = { tlp_round_quickack, 250000 };

static void keepalive(int family, const struct ka_peer *peer, struct ka_run *r)
{
	static const uint32_t sizes[] = { 1, 2, 3, 11 };
	struct tlp_counters before, d;
	int fd = tlp_connect(family, NULL, 0), i;
	double ms;

	memset(r, 0, sizeof(*r));
	lab_stall_start(&ka_stall, NULL);
	for (i = 0; fd >= 0 && i < KA_ROUNDS; i++) {
		before = tlp_counters();
		lab_stall_take(&ka_stall);
		if (!peer->round(fd, tlp_drop(sizes[i % 4], 0, 0)))
			break;
		r->done++;
		usleep(peer->think_us);
		d = tlp_delta(before, tlp_counters());
		ms = lab_stall_take(&ka_stall);
		r->worst_ms = ms > r->worst_ms ? ms : r->worst_ms;
		r->stalled += ms >= KA_STALL_MS;
		if (ka_needless(&d)) {
			r->explained += ms >= KA_STALL_MS;
			r->unexplained += ms < KA_STALL_MS;
			ktap_diag("round %d (%u segments): probes %ld dsacks %ld retrans %ld timeouts %ld, longest stall %.1f ms",
				  i, sizes[i % 4], d.probes, d.dsacks, d.retrans, d.timeouts, ms);
		}
		ka_add(&r->d, &d);
	}
	lab_stall_stop(&ka_stall);
	if (fd >= 0)
		tlp_hangup(fd);
}

static void ka_report(const char *what, const struct ka_run *r)
{
	ktap_diag("%s: %d of %d rounds, probes %ld dsacks %ld spurious %ld retrans %ld timeouts %ld; %d rounds stalled %.0f ms or more (longest %.1f ms), needless rounds %d with such a stall, %d without",
		  what, r->done, KA_ROUNDS, r->d.probes, r->d.dsacks, r->d.spurious_probes,
		  r->d.retrans, r->d.timeouts, r->stalled, KA_STALL_MS, r->worst_ms,
		  r->explained, r->unexplained);
}

/* Every round done, no needless round without a stall, few rounds stalled. */
static bool ka_clean(const struct ka_run *r)
{
	return r->done == KA_ROUNDS && r->unexplained == 0 && r->stalled <= KA_STALLED_MAX;
}

static bool keepalive_clean(const char *what, int family, const struct ka_peer *peer)
{
	struct ka_run r;

	keepalive(family, peer, &r);
	ka_report(what, &r);
	return ka_clean(&r);
}

static void case_keepalive(void)
{
	bool ok;

	tlp_set_delay(5);
	ok = keepalive_clean("IPv4, defaults", AF_INET, &ka_linux);
	tlp_set_delay(10);
	ktap_result(ok, "keep-alive: 48 rounds of 1, 2, 3 and 11 segments past quick-ACK, Linux delayed ACK, no loss: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv4, RTT 10 ms)");
}

/*
 * The same over IPv6, whose sockets take the same TLP path through
 * tcp_v6_rcv() and its own timers' set-up: a lone segment's PTO must
 * allow for the peer's delayed ACK there too.
 */
static void case_keepalive6(void)
{
	bool ok;

	tlp_set_delay(5);
	ok = keepalive_clean("IPv6, defaults", AF_INET6, &ka_linux);
	tlp_set_delay(10);
	ktap_result(ok, "keep-alive over IPv6: 48 rounds of 1, 2, 3 and 11 segments past quick-ACK, Linux delayed ACK, no loss: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (RTT 10 ms)");
}

/*
 * The measured allowance on the same keep-alive rounds. Only ACKs of a
 * single segment are sampled and their largest delay is kept, so the pairs
 * the client ACKs at once cannot talk the allowance below its delayed ACK:
 * the lone last segment of a round waits for that ACK, not for a probe.
 * The decaying estimate this replaced probed needlessly in 2 of 4 runs
 * here (1 and 2 needless rounds of 48).
 */
static void case_keepalive_measured(int family)
{
	const char *name = family == AF_INET ?
		"[extension] tcp_tlp_peer_ack_delay 1 on the same keep-alive rounds: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv4, RTT 10 ms)" :
		"[extension] tcp_tlp_peer_ack_delay 1 on the same keep-alive rounds: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv6, RTT 10 ms)";
	bool ok;

	if (!ktap_extension(name))
		return;
	tlp_set_delay(5);
	set_ours("tcp_tlp_peer_ack_delay", "1");
	ok = keepalive_clean(family == AF_INET ? "IPv4, tcp_tlp_peer_ack_delay 1" :
			     "IPv6, tcp_tlp_peer_ack_delay 1", family, &ka_linux);
	set_ours("tcp_tlp_peer_ack_delay", "0");
	tlp_set_delay(10);
	ktap_result(ok, name);
}

static void case_keepalive_measured_ipv4(void)
{
	case_keepalive_measured(AF_INET);
}

static void case_keepalive_measured_ipv6(void)
{
	case_keepalive_measured(AF_INET6);
}

/*
 * Keep-alive rounds against a receiver that ACKs a lone segment 100-180 ms
 * late (the router holds the ACK, tlp-ackhold.h), as stacks with a 200 ms
 * delayed-ACK timer do; a Linux receiver delays at most max(SRTT, 40 ms).
 * With one segment out 6.12 allows rto_min (200 ms) on top of 2 * SRTT, so
 * a lone segment's ACK does not draw a probe. The hold must act: each of
 * the 12 one-segment responses' ACK is a lone segment's, so at least 12
 * ACKs are held, or replaced (a probe's DSACK replaces the ACK it holds).
 * tcp_metrics are not saved meanwhile, so that the held RTTs do not seed
 * the next cases' connections.
 */
static bool keepalive_slow(const char *what, int family, struct ka_run *r,
			   struct tlp_hold_stats *st)
{
	memset(r, 0, sizeof(*r));
	memset(st, 0, sizeof(*st));
	if (tlp_sysctl(ns_srv, "net/ipv4/tcp_no_metrics_save", "1") ||
	    tlp_hold_start(KA_HOLD_MIN_MS, KA_HOLD_MAX_MS))
		return false;
	keepalive(family, &ka_slow, r);
	*st = tlp_hold_stop();
	tlp_sysctl(ns_srv, "net/ipv4/tcp_no_metrics_save", "0");
	ka_report(what, r);
	ktap_diag("%s: the router held %ld ACKs for %.1f-%.1f ms and dropped %ld held ones for a later segment (at least %d wanted together), let %ld through at once",
		  what, st->held, st->held_min_ms, st->held_max_ms, st->superseded,
		  KA_ROUNDS / 4, st->passed);
	return r->done == KA_ROUNDS && tlp_hold_acted(st, KA_ROUNDS / 4);
}

static void case_keepalive_slow(int family)
{
	const char *name = family == AF_INET ?
		"keep-alive against a receiver that ACKs a lone segment 100-180 ms late: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv4, RTT 10 ms)" :
		"keep-alive against a receiver that ACKs a lone segment 100-180 ms late: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv6, RTT 10 ms)";
	struct tlp_hold_stats st;
	struct ka_run r;
	bool ok;

	tlp_set_delay(5);
	ok = keepalive_slow(family == AF_INET ? "IPv4, slow receiver, defaults" :
			    "IPv6, slow receiver, defaults", family, &r, &st);
	tlp_set_delay(10);
	ktap_result(ok && ka_clean(&r) && st.held >= KA_ROUNDS / 4, name);
}

static void case_keepalive_slow_ipv4(void)
{
	case_keepalive_slow(AF_INET);
}

static void case_keepalive_slow_ipv6(void)
{
	case_keepalive_slow(AF_INET6);
}

/*
 * The control: rto_min 20 ms on the server's route lowers both the
 * one-segment allowance and the RTO's floor to 20 ms, on both kernels, and
 * the same receiver then draws needless probes, which its DSACKs report,
 * in at least the 12 one-segment rounds and with no stall to explain them.
 * So the holds are long enough to matter, and what keeps the cases above
 * clean is the 200 ms that rto_min gives the PTO (and the RTO that caps
 * it). Here a probe's DSACK replaces most held ACKs.
 */
static void case_keepalive_slow_control(void)
{
	struct tlp_hold_stats st;
	struct ka_run r = { 0 };
	bool ok;

	tlp_set_delay(5);
	ok = !lab_sh(NULL, 0, "/usr/sbin/ip -n srv route change default via 10.0.2.2 rto_min 20ms") &&
	     keepalive_slow("IPv4, slow receiver, rto_min 20 ms", AF_INET, &r, &st);
	ok &= !lab_sh(NULL, 0, "/usr/sbin/ip -n srv route change default via 10.0.2.2");
	tlp_set_delay(10);
	ktap_result(ok && r.unexplained >= KA_ROUNDS / 4 && r.d.probes >= KA_ROUNDS / 4 &&
		    r.d.dsacks >= KA_ROUNDS / 4,
		    "control: with rto_min 20 ms on the server's route, the same receiver draws a needless probe, with its DSACK, in at least 12 rounds without a stall (IPv4, RTT 10 ms)");
}

/*
 * The measured allowance against the same receiver: until a lone segment's
 * ACK has been sampled it allows rto_min, and after, a quarter and 2 ms
 * over the largest sample of 100-180 ms (127-200 ms), while the held
 * samples also raise SRTT and so the PTO's 2 * SRTT. This fails if the
 * extension allows less than the hold minus 2 * SRTT; it cannot tell a
 * working extension from one that is ignored, which the K=1 cases do.
 */
static void case_keepalive_slow_measured(void)
{
	const char *name = "[extension] tcp_tlp_peer_ack_delay 1 against a receiver that ACKs a lone segment 100-180 ms late: no probe, DSACK, retransmission or RTO in any round the guest was not stalled 10 ms or more (IPv4, RTT 10 ms)";
	struct tlp_hold_stats st;
	struct ka_run r;
	bool ok;

	if (!ktap_extension(name))
		return;
	tlp_set_delay(5);
	set_ours("tcp_tlp_peer_ack_delay", "1");
	ok = keepalive_slow("IPv4, slow receiver, tcp_tlp_peer_ack_delay 1", AF_INET, &r, &st);
	set_ours("tcp_tlp_peer_ack_delay", "0");
	tlp_set_delay(10);
	ktap_result(ok && ka_clean(&r) && st.held >= KA_ROUNDS / 4, name);
}

/*
 * The probe repairs the one lost segment (the last of 10); the next round's
 * ACK, beyond the probe, ends the episode. 6.12's response: cwnd cut to
 * ssthresh at once and the connection back in Open, as TCP_INFO of the
 * server socket shows in the third round's response.
 */
static void case_repaired_single_loss(void)
{
	struct tlp_request lose = tlp_drop(NSEG, NSEG - 1, 1), one = tlp_drop(1, 0, 0);
	struct tlp_request info = tlp_drop(2, 0, 0);
	struct tlp_counters before = tlp_counters(), d;
	struct tcp_info ti = { 0 };
	int fd = tlp_connect(AF_INET, NULL, 0);
	bool ok;

	info.flags = TLP_RQ_INFO;
	ok = fd >= 0 && tlp_round(fd, lose) && tlp_round(fd, one) &&
	     write(fd, &info, sizeof(info)) == sizeof(info) &&
	     tlp_read_response_head(fd, &ti, sizeof(ti));
	d = tlp_delta(before, tlp_counters());
	if (fd >= 0)
		tlp_hangup(fd);
	ktap_diag("probes %ld recovery %ld timeouts %ld; server ca_state %u cwnd %u ssthresh %u",
		  d.probes, d.probe_recovery, d.timeouts, ti.tcpi_ca_state,
		  ti.tcpi_snd_cwnd, ti.tcpi_snd_ssthresh);
	ktap_result(ok && d.probes == 1 && d.probe_recovery == 1 && d.timeouts == 0 &&
		    ti.tcpi_ca_state == 0 && ti.tcpi_snd_ssthresh < 0x7fffffff &&
		    ti.tcpi_snd_cwnd == ti.tcpi_snd_ssthresh,
		    "a probe that repaired one lost segment: TCPLossProbeRecovery 1, CA state Open, cwnd == ssthresh (TCP_INFO), no RTO (IPv4, RTT 20 ms)");
}

/*
 * The probe's SACK comes back 20% faster than min_rtt: the ACK path's delay
 * drops from 50 to 30 ms once the first segments have arrived (RTT 100 ms,
 * the last 2 of 10 segments lost). RACK takes a retransmission's SACK
 * faster than min_rtt for the original's and ignores it, so 6.12 (and ours
 * with tcp_tlp_trust_probe_sack 0) waits for the RTO every time; with it
 * on, RACK dates the SACK from the last segment's first copy, marks the
 * segment before it lost, and no RTO follows.
 *
 * A vCPU stall can only make the SACK later, and a late enough one is no
 * longer faster than min_rtt. With 10 ms of margin (40 ms ACK path), one CI
 * run saw 6.12 skip the RTO in one transaction of four, and stalls of 10 to
 * 13 ms are common under TCG; so the margin is 20 ms, a transaction that
 * behaved otherwise during a stall of FPS_STALL_MS or more is reported and
 * not counted, and three of the four must count.
 */
#define FPS_STALL_MS	20.0

static void case_fast_probe_sack(bool on)
{
	const char *name = on ?
		"[extension] tcp_tlp_trust_probe_sack 1: a probe SACK 20% faster than min_rtt starts fast recovery, no RTO (IPv4, RTT 100 ms)" :
		"tcp_tlp_trust_probe_sack 0 (6.12): a probe SACK 20% faster than min_rtt is ignored as ambiguous and every transaction waits for the RTO (IPv4, RTT 100 ms)";
	struct tlp_request rq = tail_loss(2);
	int i, n = 4, done = 0, good = 0, stalled = 0;
	uint32_t len;
	double ms;

	if (on && !ktap_extension(name))
		return;
	set_ours("tcp_tlp_trust_probe_sack", on ? "1" : "0");
	tlp_set_delay(50);
	lab_stall_start(&ka_stall, NULL);
	for (i = 0; i < n; i++) {
		struct tlp_counters before = tlp_counters(), d;
		int fd = tlp_connect(AF_INET, NULL, 0);
		char *rest = malloc(NSEG * 1500);
		bool ok, right;

		lab_stall_take(&ka_stall);
		ok = fd >= 0 && rest && write(fd, &rq, sizeof(rq)) == sizeof(rq) &&
		     !tlp_read_full(fd, &len, 4) && len > 4 && len <= NSEG * 1500;
		/* Let the ACKs of the first segments leave at 50 ms first. */
		usleep(20000);
		ok = ok && !tlp_set_dir_delay("r1", 30) &&
		     !tlp_read_full(fd, rest, len - 4);
		d = tlp_delta(before, tlp_counters());
		ms = lab_stall_take(&ka_stall);
		tlp_set_dir_delay("r1", 50);
		if (fd >= 0)
			tlp_hangup(fd);
		free(rest);
		right = d.probes == 1 && (d.timeouts > 0) == !on;
		done += ok;
		good += ok && right;
		if (ok && !right && ms >= FPS_STALL_MS)
			stalled++;
		ktap_diag("transaction %d: probes %ld timeouts %ld, longest vCPU stall %.1f ms",
			  i, d.probes, d.timeouts, ms);
	}
	lab_stall_stop(&ka_stall);
	tlp_set_delay(10);
	set_ours("tcp_tlp_trust_probe_sack", "0");
	ktap_diag("%d of %d done, %d as expected, %d otherwise during a stall of %.0f ms or more",
		  done, n, good, stalled, FPS_STALL_MS);
	ktap_result(done == n && good + stalled == n && good >= n - 1, name);
}

/*
 * Reordering around min_rtt (RTT 100 ms, 10 segments, nothing lost): the
 * last segment reaches the client X late and the one before it X + 6 ms
 * late, X set from the probe time of the transaction before, so that the
 * last one's SACK reaches the server about 80 ms after the probe: sooner
 * than min_rtt, where RACK cannot tell which copy arrived, and no sooner
 * than the 3/4 min_rtt a threshold would trust. Taking that SACK for the
 * probe's puts RACK's clock at the probe and marks segment 9 lost at once:
 * a false loss mark, retransmitted although it arrives 6 ms later. Dating
 * it from the last segment's first copy (ours with
 * tcp_tlp_trust_probe_sack 1) leaves 9 RACK's reordering window, min_rtt
 * / 4; 6.12 ignores it. False marks are the server's RetransSegs beyond
 * its probes. tcp:tcp_retransmit_skb and tcp:tcp_probe (both in 6.12), in
 * a trace instance on the mono clock, say when the probe left and when the
 * next ACK came: only a transaction whose SACK came between 3/4 and 1
 * min_rtt after the probe tests the rule, and most must.
 */
#define REO_RTT_MS	100
#define REO_SACK_MS	75	/* the late SACK, after the probe, aimed at (on TCG +~10 ms) */
#define REO_BEHIND_MS	6	/* segment 9 behind segment 10 */
#define REO_TXNS	6
#define REO_TRACE	LAB_TRACEFS "/instances/tlp-reorder"

struct reo_trace {
	double probe, ack;	/* mono seconds; -1: not seen */
	char sport[24];		/* " sport=<server port> " (tcp_retransmit_skb) */
	char src[40];		/* " src=<server>:<port> " (tcp_probe) */
};

static bool reo_line(const char *line, void *arg)
{
	struct reo_trace *t = arg;
	const char *p;

	if (t->probe < 0) {
		p = strstr(line, " tcp_retransmit_skb: ");
		if (p && strstr(p, t->sport))
			t->probe = lab_trace_stamp(line, p + 1);
		return true;
	}
	p = strstr(line, " tcp_probe: ");
	if (!p || !strstr(p, t->src))
		return true;
	t->ack = lab_trace_stamp(line, p + 1);
	return false;
}

static bool reo_trace_on(bool on)
{
	static const char *const ev[] = { "tcp_retransmit_skb", "tcp_probe" };
	char path[160];
	int i, bad = 0;

	if (on) {
		lab_tracefs();
		if (mkdir(REO_TRACE, 0755) && errno != EEXIST)
			return false;
		bad |= lab_write(REO_TRACE "/trace_clock", "mono");
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), REO_TRACE "/events/tcp/%s/enable", ev[i]);
		bad |= lab_write(path, on ? "1" : "0");
	}
	if (!on)
		rmdir(REO_TRACE);
	return !bad;
}

struct reo_txn {
	bool ok;
	double probe_ms;	/* the probe, after the request; -1: none */
	double sack_ms;		/* the next ACK, after the probe; -1: none */
	struct tlp_counters d;
};

static struct reo_txn reo_transact(struct tlp_request rq)
{
	struct tlp_counters before = tlp_counters();
	struct reo_trace t = { .probe = -1, .ack = -1 };
	struct reo_txn r = { .probe_ms = -1, .sack_ms = -1 };
	int fd = tlp_connect(AF_INET, NULL, 0);
	double t0 = lab_now();

	snprintf(t.sport, sizeof(t.sport), " sport=%d ", TLP_PORT);
	snprintf(t.src, sizeof(t.src), " src=" TLP_SRV4 ":%d ", TLP_PORT);

	lab_write_flags(REO_TRACE "/trace", "", O_TRUNC);
	r.ok = fd >= 0 && tlp_round(fd, rq);
	/*
	 * The client has everything when segment 9 arrives; the server
	 * learns it half an RTT later, and a false mark it made on the SACK
	 * before is counted only then. The probe's DSACK comes later still.
	 */
	usleep(3 * REO_RTT_MS * 1000);
	r.d = tlp_delta(before, tlp_counters());
	if (fd >= 0)
		tlp_hangup(fd);
	lab_trace_each_in(REO_TRACE, reo_line, &t);
	if (t.probe >= 0)
		r.probe_ms = (t.probe - t0) * 1e3;
	if (t.probe >= 0 && t.ack >= 0)
		r.sack_ms = (t.ack - t.probe) * 1e3;
	return r;
}

/*
 * Segment 10 late by X, 9 by X + REO_BEHIND_MS: 10's SACK comes 1.5 RTT +
 * X after the request, REO_SACK_MS after a probe @probe_ms after it.
 * Returns X, or -1.
 */
static int reo_set_late(int probe_ms)
{
	int x = probe_ms + REO_SACK_MS - 3 * REO_RTT_MS / 2;
	int extra[2] = { x + REO_BEHIND_MS, x };

	return x > 0 && !tlp_delay_marked(REO_RTT_MS / 2, extra, 2) ? x : -1;
}

/* What the late transactions of case_reordered_probe_sack() added up to. */
struct reo_tally {
	int done, tested, false_marks, rtos;
};

/*
 * One transaction with segments 9 and 10 late; returns its probe time
 * (the next one's aim), or -1 when it could not run.
 */
static int reo_late_round(int i, int probe_ms, struct reo_tally *t)
{
	int x = reo_set_late(probe_ms);
	struct reo_txn r;
	bool in_window;

	if (x < 0)
		return -1;
	r = reo_transact(tail_loss(2));
	tlp_drop_marked(REO_RTT_MS / 2);
	in_window = r.ok && r.d.probes == 1 &&
		    r.sack_ms >= REO_RTT_MS * 3 / 4 && r.sack_ms < REO_RTT_MS;
	t->done += r.ok;
	t->tested += in_window;
	t->false_marks += in_window ? r.d.retrans - r.d.probes : 0;
	t->rtos += r.d.timeouts;
	ktap_diag("transaction %d: late by %d/%d ms, probe %.1f ms after the request, next ACK %.1f ms after it%s; probes %ld retransmissions %ld DSACKs %ld RTOs %ld",
		  i, x + REO_BEHIND_MS, x, r.probe_ms, r.sack_ms,
		  in_window ? "" : " (outside the window, not counted)",
		  r.d.probes, r.d.retrans, r.d.dsacks, r.d.timeouts);
	return r.probe_ms > 0 ? (int)r.probe_ms : probe_ms;
}

static void case_reordered_probe_sack(bool on)
{
	const char *name = on ?
		"[extension] tcp_tlp_trust_probe_sack 1: a SACK of the last segment's late original between 3/4 and 1 min_rtt after the probe marks no earlier segment lost (IPv4, RTT 100 ms)" :
		"tcp_tlp_trust_probe_sack 0 (6.12): a SACK of the last segment's late original between 3/4 and 1 min_rtt after the probe marks no earlier segment lost (IPv4, RTT 100 ms)";
	struct reo_tally t = { 0 };
	int i, probe_ms = -1;
	struct reo_txn r;

	if (on && !ktap_extension(name))
		return;
	set_ours("tcp_tlp_trust_probe_sack", on ? "1" : "0");
	tlp_set_delay(REO_RTT_MS / 2);
	if (reo_trace_on(true)) {
		/* Lost, not late: when does the probe leave? */
		r = reo_transact(tail_loss(2));
		ktap_diag("calibration (last 2 lost): %s, probe %.1f ms after the request",
			  r.ok ? "done" : "failed", r.probe_ms);
		if (r.ok && r.probe_ms > 0)
			probe_ms = (int)r.probe_ms;
	} else {
		ktap_diag("trace instance %s: cannot set it up", REO_TRACE);
	}
	for (i = 0; i < REO_TXNS && probe_ms > 0; i++)
		probe_ms = reo_late_round(i, probe_ms, &t);
	tlp_drop_marked(10);
	reo_trace_on(false);
	set_ours("tcp_tlp_trust_probe_sack", "0");
	ktap_diag("%d of %d done, %d with the SACK in the window: %d false loss marks; %d RTOs in all",
		  t.done, REO_TXNS, t.tested, t.false_marks, t.rtos);
	ktap_result(t.done == REO_TXNS && t.tested >= REO_TXNS - 2 &&
		    t.false_marks == 0 && t.rtos == 0, name);
}

/* Probe events in the trace buffer: all, retransmissions, from @sport. */
struct tlp_trace {
	int events, retrans, from_port, one_segment;
	char port[16];		/* ":<server port> " */
	unsigned int mss;
};

static bool tlp_trace_line(const char *line, void *arg)
{
	struct tlp_trace *t = arg;
	unsigned int seq, end;
	const char *p;

	if (!strstr(line, "tcp_tlp_probe:"))
		return true;
	t->events++;
	t->retrans += !!strstr(line, " probe=retrans ");
	p = strstr(line, " src=");
	t->from_port += p && strstr(p, t->port) && strstr(p, t->port) < strstr(p, " dest=");
	p = strstr(line, " seq=");
	if (p && sscanf(p, " seq=%u end_seq=%u", &seq, &end) == 2)
		t->one_segment += end - seq > 0 && end - seq <= t->mss;
	return true;
}

static struct tlp_trace tlp_trace_read(unsigned int sport, unsigned int mss)
{
	struct tlp_trace t = { .mss = mss };

	snprintf(t.port, sizeof(t.port), ":%u ", sport);
	lab_trace_each(tlp_trace_line, &t);
	return t;
}

/*
 * Each probe is one tcp:tcp_tlp_probe event naming the server's socket, a
 * retransmission of one segment of at most an MSS: what a user watching
 * probes with perf or trace-cmd relies on. The events and TCPLossProbes
 * count the same probes.
 */
static void case_tracepoint(void)
{
	const char *name = "[extension] every probe is one tcp:tcp_tlp_probe trace event: the server's port, a retransmission of one segment (IPv4, RTT 20 ms)";
	struct tlp_trace t;
	struct tlp_arm a;
	bool on;

	if (!ktap_extension(name))
		return;
	lab_tracefs();
	/* tracefs clears a buffer on an open with O_TRUNC. */
	on = !lab_write(LAB_TRACEFS "/events/tcp/tcp_tlp_probe/enable", "1") &&
	     !lab_write_flags(LAB_TRACEFS "/trace", "", O_TRUNC);
	tlp_run_arm(&a, 5, AF_INET, NULL, tail_loss(2));
	lab_write(LAB_TRACEFS "/events/tcp/tcp_tlp_probe/enable", "0");
	t = tlp_trace_read(TLP_PORT, 1460);
	tlp_report("traced, K=2", &a);
	ktap_diag("event enabled %d: %d events, %d retrans, %d from port %d, %d of one segment",
		  on, t.events, t.retrans, t.from_port, TLP_PORT, t.one_segment);
	ktap_result(on && a.n == 5 && a.probes >= 5 && t.events == a.probes &&
		    t.retrans == t.events && t.from_port == t.events &&
		    t.one_segment == t.events, name);
}

static void case_single_measured_on(void)
{
	case_single_measured(true);
}

static void case_single_measured_off(void)
{
	case_single_measured(false);
}

static void case_rarely_rto_20(void)
{
	case_rarely_rto(0);
}

static void case_rarely_rto_50(void)
{
	case_rarely_rto(1);
}

static void case_rarely_rto_100(void)
{
	case_rarely_rto(2);
}

static void case_fast_probe_sack_on(void)
{
	case_fast_probe_sack(true);
}

static void case_fast_probe_sack_off(void)
{
	case_fast_probe_sack(false);
}

static void case_reordered_probe_sack_on(void)
{
	case_reordered_probe_sack(true);
}

static void case_reordered_probe_sack_off(void)
{
	case_reordered_probe_sack(false);
}

static const struct ktap_case cases[] = {
	KTAP_CASE("clock", case_clock),
	KTAP_CASE("no-loss", case_no_loss),
	KTAP_CASE("off-costs-rto-ipv4", case_off_costs_rto_ipv4),
	KTAP_CASE("off-costs-rto-ipv6", case_off_costs_rto_ipv6),
	KTAP_CASE("one-probe-k2-ipv4", case_one_probe_k2_ipv4),
	KTAP_CASE("one-probe-k3-ipv6", case_one_probe_k3_ipv6),
	KTAP_CASE("faster-than-off", case_faster_than_off),
	KTAP_CASE("single-capped", case_single_capped),
	KTAP_CASE("new-data-probe", case_new_data_probe),
	KTAP_CASE("tail-split", case_tail_split_ipv4),
	KTAP_CASE("tail-split6", case_tail_split_ipv6),
	KTAP_CASE("peer-ack-delay", case_single_measured_on),
	KTAP_CASE("peer-ack-delay-off", case_single_measured_off),
	KTAP_CASE("rarely-rto-20", case_rarely_rto_20),
	KTAP_CASE("rarely-rto-50", case_rarely_rto_50),
	KTAP_CASE("rarely-rto-100", case_rarely_rto_100),
	KTAP_CASE("fast-probe-sack", case_fast_probe_sack_on),
	KTAP_CASE("fast-probe-sack-off", case_fast_probe_sack_off),
	KTAP_CASE("reordered-probe-sack", case_reordered_probe_sack_on),
	KTAP_CASE("reordered-probe-sack-off", case_reordered_probe_sack_off),
	KTAP_CASE("needless-probe", case_needless_probe),
	KTAP_CASE("keepalive", case_keepalive),
	KTAP_CASE("keepalive6", case_keepalive6),
	KTAP_CASE("keepalive-ack-delay", case_keepalive_measured_ipv4),
	KTAP_CASE("keepalive6-ack-delay", case_keepalive_measured_ipv6),
	KTAP_CASE("keepalive-slow-ack", case_keepalive_slow_ipv4),
	KTAP_CASE("keepalive6-slow-ack", case_keepalive_slow_ipv6),
	KTAP_CASE("keepalive-slow-ack-control", case_keepalive_slow_control),
	KTAP_CASE("keepalive-slow-ack-delay", case_keepalive_slow_measured),
	KTAP_CASE("repaired-single-loss", case_repaired_single_loss),
	KTAP_CASE("tracepoint", case_tracepoint),
};

int main(void)
{
	ktap_begin("tlp-tail", ktap_plan(KTAP_CASES(cases)));
	if (tlp_net_setup(10))
		return ktap_fail_cases(KTAP_CASES(cases), "the emulated path could not be set up");
	return ktap_run_cases(KTAP_CASES(cases));
}
