// SPDX-License-Identifier: GPL-2.0
/*
 * tlp-tail: tail loss probe on an emulated path (see tlpnet.h), timed.
 *
 * Each transaction is a fresh connection asking for a 10-segment response
 * whose last K segments the router drops once each. Counters are read from
 * the server namespace around each transaction. Parity cases hold on the
 * unpatched kernel too; "[extension]" cases test what only ours does.
 */
#include "tlpnet.h"

#include <sys/mount.h>

#define NSEG 10
#define CASES 15

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
	ktap_result(a.n == 20 && a.probes <= 1 && a.timeouts == 0,
		    "without loss a 10-segment response sends no probe and takes no RTO (IPv4, RTT 20 ms)");
}

static struct tlp_arm off_arm;

static void case_off_costs_rto(int family, const char *name)
{
	struct tlp_arm a;

	set_tlp("0");
	tlp_run_arm(&a, 10, family, NULL, tail_loss(2));
	set_tlp("3");
	tlp_report("tcp_early_retrans=0, K=2", &a);
	if (family == AF_INET)
		off_arm = a;
	ktap_result(a.n == 10 && a.with_rto == a.n && a.probes == 0, name);
}

static struct tlp_arm on_arm;

static void case_one_probe(int family, uint32_t k, const char *name)
{
	struct tlp_arm a;

	tlp_run_arm(&a, 20, family, NULL, tail_loss(k));
	tlp_report("TLP on", &a);
	if (family == AF_INET && k == 2)
		on_arm = a;
	ktap_result(a.n == 20 && a.with_one_probe == a.n, name);
}

static void case_faster_than_off(void)
{
	double on = tlp_pct(&on_arm, 0.5), off = tlp_pct(&off_arm, 0.5);

	ktap_diag("p50 TLP on %.1f ms, off %.1f ms (ratio %.2f)", on, off,
		  off > 0 ? on / off : 0);
	ktap_result(on_arm.n && off_arm.n && on < 0.7 * off,
		    "TLP on: the median transaction with 2 lost tail segments takes under 70% of TLP off's (IPv4, RTT 20 ms)");
}

static struct tlp_arm capped_arm;

/* With one segment out the PTO (2 SRTT + 200 ms) exceeds the RTO. */
static void case_single_capped(void)
{
	struct tlp_arm *a = &capped_arm;

	set_ours("tcp_tlp_peer_ack_delay", "0");
	tlp_run_arm(a, 10, AF_INET, NULL, tail_loss(1));
	set_ours("tcp_tlp_peer_ack_delay", "1");
	tlp_report("K=1, fixed ACK-delay allowance", a);
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
 * Upstream falls back to an RTO in up to 42% of the transactions that lose 2 or
 * 3 tail segments in this lab (RACK ignores the probe's SACK as ambiguous;
 * see the README): ours must stay at or under one in ten over the four arms.
 * How long the repair took is the benchmark's to show: under TCG the probe's
 * round trips are not a protocol bound.
 */
static void case_rarely_rto(int ri)
{
	static const char *const names[] = {
		"[extension] TLP on: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 20 ms)",
		"[extension] TLP on: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 50 ms)",
		"[extension] TLP on: at most 1 in 10 transactions losing the last 2 or 3 segments falls back to an RTO (IPv4 and IPv6, RTT 100 ms)",
	};
	int rtt = rtts[ri], n = ri == 2 ? 6 : 10, family, k, total = 0, rtos = 0;
	bool complete = true;
	struct tlp_arm a;

	if (!ktap_extension(names[ri]))
		return;
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
	ktap_diag("%d of %d transactions fell back to an RTO", rtos, total);
	ktap_result(complete && 10 * rtos <= total, names[ri]);
}

static void case_single_measured(void)
{
	const char *name = "[extension] with the measured peer ACK delay, one lost tail segment costs under 60% of the extra time the fixed allowance costs, and no RTO (IPv4, RTT 20 ms)";
	double capped = tlp_pct(&capped_arm, 0.5) - base_ms[0], extra;
	struct tlp_arm a;

	if (!ktap_extension(name))
		return;
	tlp_run_arm(&a, 10, AF_INET, NULL, tail_loss(1));
	tlp_report("K=1, measured ACK delay", &a);
	extra = tlp_pct(&a, 0.5) - base_ms[0];
	ktap_diag("extra over no loss: p50 %.1f ms, fixed allowance %.1f ms", extra, capped);
	ktap_result(a.n == 10 && a.with_rto == 0 && a.with_one_probe == a.n &&
		    extra < 0.6 * capped, name);
}

/*
 * A peer that starts delaying its ACKs (TCP_QUICKACK 0) after ACKing every
 * segment of a first response makes the next single-segment probe needless:
 * its DSACK must count as a spurious probe, and not as a repaired loss.
 */
static void case_spurious_counted(void)
{
	const char *name = "[extension] a probe made needless by a delayed ACK counts in TCPLossProbeSpurious, not as a repair (IPv4, RTT 10 ms)";
	struct tlp_request big = tlp_drop(NSEG, 0, 0), one = tlp_drop(1, 0, 0);
	struct tlp_counters before, d;
	int fd, off = 0, ok;

	if (!ktap_extension(name))
		return;
	tlp_set_delay(5);
	before = tlp_counters();
	fd = tlp_connect(AF_INET, NULL, 0);
	ok = fd >= 0 && write(fd, &big, sizeof(big)) == sizeof(big) &&
	     tlp_read_response(fd);
	if (ok) {
		setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof(off));
		ok = write(fd, &one, sizeof(one)) == sizeof(one) &&
		     tlp_read_response(fd);
		usleep(300000);
	}
	if (fd >= 0)
		tlp_hangup(fd);
	d = tlp_delta(before, tlp_counters());
	tlp_set_delay(10);
	ktap_diag("probes %ld spurious %ld recovery %ld timeouts %ld", d.probes,
		  d.spurious_probes, d.probe_recovery, d.timeouts);
	ktap_result(ok && d.probes >= 1 && d.spurious_probes == d.probes &&
		    d.probe_recovery == 0 && d.timeouts == 0, name);
}

#define TRACEFS "/sys/kernel/tracing"

/* Probe events in the trace buffer: all, retransmissions, from @sport. */
struct tlp_trace {
	int events, retrans, from_port, one_segment;
};

static struct tlp_trace tlp_trace_read(unsigned int sport, unsigned int mss)
{
	struct tlp_trace t = { 0 };
	char line[512], port[16];
	unsigned int seq, end;
	const char *p;
	FILE *f = fopen(TRACEFS "/trace", "r");

	snprintf(port, sizeof(port), ":%u ", sport);
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, "tcp_tlp_probe:"))
			continue;
		t.events++;
		t.retrans += !!strstr(line, " probe=retrans ");
		p = strstr(line, " src=");
		t.from_port += p && strstr(p, port) && strstr(p, port) < strstr(p, " dest=");
		p = strstr(line, " seq=");
		if (p && sscanf(p, " seq=%u end_seq=%u", &seq, &end) == 2)
			t.one_segment += end - seq > 0 && end - seq <= mss;
	}
	if (f)
		fclose(f);
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
	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		ktap_diag("mount tracefs: %s", strerror(errno));
	on = !tlp_write_file(TRACEFS "/events/tcp/tcp_tlp_probe/enable", "1") &&
	     !tlp_write_file(TRACEFS "/trace", "");
	tlp_run_arm(&a, 5, AF_INET, NULL, tail_loss(2));
	tlp_write_file(TRACEFS "/events/tcp/tcp_tlp_probe/enable", "0");
	t = tlp_trace_read(TLP_PORT, 1460);
	tlp_report("traced, K=2", &a);
	ktap_diag("event enabled %d: %d events, %d retrans, %d from port %d, %d of one segment",
		  on, t.events, t.retrans, t.from_port, TLP_PORT, t.one_segment);
	ktap_result(on && a.n == 5 && a.probes >= 5 && t.events == a.probes &&
		    t.retrans == t.events && t.from_port == t.events &&
		    t.one_segment == t.events, name);
}

int main(void)
{
	int i;

	ktap_begin("tlp-tail", CASES);
	if (tlp_net_setup(10)) {
		for (i = 0; i < CASES; i++)
			ktap_result(false, "the emulated path could be set up");
		return ktap_end();
	}
	case_clock();
	case_no_loss();
	case_off_costs_rto(AF_INET,
			   "tcp_early_retrans=0: losing the last 2 segments costs an RTO every time (IPv4, RTT 20 ms)");
	case_off_costs_rto(AF_INET6,
			   "tcp_early_retrans=0: losing the last 2 segments costs an RTO every time (IPv6, RTT 20 ms)");
	case_one_probe(AF_INET, 2,
		       "TLP on: losing the last 2 segments sends exactly one probe per transaction (IPv4, RTT 20 ms)");
	case_one_probe(AF_INET6, 3,
		       "TLP on: losing the last 3 segments sends exactly one probe per transaction (IPv6, RTT 20 ms)");
	case_faster_than_off();
	case_single_capped();
	case_new_data_probe();
	case_single_measured();
	for (i = 0; i < 3; i++)
		case_rarely_rto(i);
	case_spurious_counted();
	case_tracepoint();
	return ktap_end();
}
