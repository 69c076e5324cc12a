// SPDX-License-Identifier: GPL-2.0
/*
 * tlp-robust: the tail loss probe's sysctls and the connections it must
 * survive, on the debug kernel (KASAN, lockdep, kmemleak watch for splats;
 * the lab's judge fails the run on any). Not timing-bound: the path is the
 * one of ../guest-nodebug/tlpnet.h, and only completion and the absence of
 * stuck sockets are asserted.
 */
#include "../guest-nodebug/tlpnet.h"

static bool sysctl_reads(int ns, const char *name, const char *want)
{
	char got[32];

	return !tlp_sysctl_read(ns, name, got, sizeof(got)) && !strcmp(got, want);
}

static void case_range_accepted(void)
{
	static const char *const v[] = { "0", "1", "2", "3", "4" };
	bool ok = true;
	int i;

	for (i = 0; i < 5; i++)
		ok &= !tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", v[i]) &&
		      sysctl_reads(ns_srv, "net/ipv4/tcp_early_retrans", v[i]);
	tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", "3");
	ktap_result(ok, "tcp_early_retrans accepts every value from 0 to 4");
}

static bool rejected(const char *name, const char *value)
{
	int rc = tlp_sysctl(ns_srv, name, value);

	if (rc != -EINVAL)
		ktap_diag("%s=%s: %s", name, value, rc ? strerror(-rc) : "accepted");
	return rc == -EINVAL;
}

static void case_range_rejected(void)
{
	const char *n = "net/ipv4/tcp_early_retrans";
	bool ok = rejected(n, "5") & rejected(n, "-1") & rejected(n, "255") &
		  rejected(n, "4294967299");

	ok &= sysctl_reads(ns_srv, n, "3");
	ktap_result(ok, "tcp_early_retrans rejects values outside 0..4 with EINVAL and keeps its value");
}

static void case_per_netns(void)
{
	bool ok = !tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", "0") &&
		  sysctl_reads(ns_cli, "net/ipv4/tcp_early_retrans", "3") &&
		  sysctl_reads(ns_rtr, "net/ipv4/tcp_early_retrans", "3");

	tlp_sysctl(ns_srv, "net/ipv4/tcp_early_retrans", "3");
	ktap_result(ok, "tcp_early_retrans is per network namespace and defaults to 3");
}

static void case_our_sysctls(void)
{
	static const char *const names[] = {
		"net/ipv4/tcp_tlp_peer_ack_delay",
		"net/ipv4/tcp_tlp_trust_probe_sack",
	};
	const char *name = "[extension] the TLP extension sysctls default to 0 (6.12's behaviour), accept 0 and 1 per namespace, reject the rest with EINVAL";
	bool ok = true;
	int i;

	if (!ktap_extension(name))
		return;
	for (i = 0; i < 2; i++) {
		ok &= sysctl_reads(ns_cli, names[i], "0") &&
		      sysctl_reads(ns_srv, names[i], "0");
		ok &= !tlp_sysctl(ns_srv, names[i], "1") &&
		      sysctl_reads(ns_srv, names[i], "1") &&
		      sysctl_reads(ns_cli, names[i], "0");
		ok &= rejected(names[i], "2") & rejected(names[i], "-1");
		ok &= !tlp_sysctl(ns_srv, names[i], "0");
	}
	ktap_result(ok, name);
}

/* Where nstat and netstat -s look; no private file, no switch for it. */
static void case_counter_in_tcpext(void)
{
	const char *name = "[extension] TCPLossProbeSpurious is a TcpExt counter of each namespace (nstat), with no /proc/net/tcp_tlp or tcp_tlp_count_spurious left";
	struct tlp_counters c;
	char buf[32] = "";
	bool gone;

	if (!ktap_extension(name))
		return;
	c = tlp_counters();
	tlp_enter(ns_srv);
	gone = access("/proc/thread-self/net/tcp_tlp", F_OK) && errno == ENOENT;
	tlp_enter(ns_cli);
	gone &= tlp_sysctl_read(ns_srv, "net/ipv4/tcp_tlp_count_spurious",
				buf, sizeof(buf)) != 0;
	ktap_diag("TcpExt TCPLossProbeSpurious %ld, private file and switch gone %d",
		  c.spurious_probes, gone);
	ktap_result(c.spurious_probes >= 0 && gone, name);
}

static void case_no_sack(void)
{
	struct tlp_arm a;

	tlp_sysctl(ns_cli, "net/ipv4/tcp_sack", "0");
	tlp_run_arm(&a, 3, AF_INET, NULL, tlp_drop(10, 8, 2));
	tlp_sysctl(ns_cli, "net/ipv4/tcp_sack", "1");
	tlp_report("no SACK, K=2", &a);
	ktap_result(a.n == 3 && a.probes == 0,
		    "a connection without SACK sends no probe and still completes after tail loss");
}

static void case_tiny_mss(void)
{
	struct tlp_counters before = tlp_counters(), d;
	struct tlp_request rq = tlp_drop(10, 8, 2);
	int fd = tlp_connect(AF_INET6, NULL, 88), mss = 0;
	socklen_t sl = sizeof(mss);
	bool ok;

	ok = fd >= 0 && !getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl) &&
	     write(fd, &rq, sizeof(rq)) == sizeof(rq) && tlp_read_response(fd);
	if (fd >= 0)
		tlp_hangup(fd);
	d = tlp_delta(before, tlp_counters());
	ktap_diag("client MSS %d, probes %ld timeouts %ld", mss, d.probes, d.timeouts);
	ktap_result(ok && mss > 0 && mss <= 88,
		    "a tiny MSS (88 bytes) with tail loss completes (IPv6)");
}

/* TCP sockets of the server namespace other than the listeners. */
static int busy_server_sockets(void)
{
	static const char *const files[] = {
		"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6",
	};
	char line[512];
	int i, n = 0;

	tlp_enter(ns_srv);
	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");
		unsigned int st;

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*s %*s %*s %x", &st) == 1 && st != 0x0a)
				n++;
		if (f)
			fclose(f);
	}
	tlp_enter(ns_cli);
	return n;
}

static bool server_settles(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!busy_server_sockets())
			return true;
		usleep(100000);
	}
	ktap_diag("%d server sockets still open", busy_server_sockets());
	return false;
}

/* The tail is lost, so the server has a probe pending when the RST lands. */
static void case_rst_with_pto_pending(void)
{
	struct tlp_request rq = tlp_drop(10, 8, 2);
	struct linger lg = { 1, 0 };
	int fd = tlp_connect(AF_INET, NULL, 0), len;
	bool ok;

	ok = fd >= 0 && write(fd, &rq, sizeof(rq)) == sizeof(rq) &&
	     read(fd, &len, 4) == 4;
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
	ktap_result(ok && server_settles(),
		    "an RST arriving while a probe is pending frees the server socket");
}

/* Half-close at once: the server closes right after writing, timer armed. */
static void case_close_with_pto_armed(void)
{
	struct tlp_request rq = tlp_drop(10, 7, 3);
	int fd = tlp_connect(AF_INET6, NULL, 0);
	bool ok;

	ok = fd >= 0 && write(fd, &rq, sizeof(rq)) == sizeof(rq) &&
	     !shutdown(fd, SHUT_WR) && tlp_read_response(fd);
	if (fd >= 0)
		tlp_hangup(fd);
	ktap_result(ok && server_settles(),
		    "closing with the probe timer armed still delivers the tail and ends the connection (IPv6)");
}

/* A receiver that stops reading closes its window under a lost tail. */
static void case_zero_window(void)
{
	struct tlp_request rq = tlp_drop(60, 50, 10);
	int fd = tlp_connect(AF_INET, NULL, 0), small = 2048;
	bool ok;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	ok = fd >= 0 && write(fd, &rq, sizeof(rq)) == sizeof(rq);
	if (ok) {
		usleep(1500000);
		ok = tlp_read_response(fd);
	}
	if (fd >= 0)
		tlp_hangup(fd);
	ktap_result(ok && server_settles(),
		    "a zero-window receiver with a lost tail gets the whole response once it reads");
}

/* The "tr" field of the server's established connection in /proc/net/tcp. */
static int server_timer_field(void)
{
	char line[512];
	unsigned int st, tr;
	int found = -1;
	FILE *f;

	tlp_enter(ns_srv);
	f = fopen("/proc/thread-self/net/tcp", "r");
	tlp_enter(ns_cli);
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %x %*s %x:", &st, &tr) == 2 && st == 1)
			found = tr;
	if (f)
		fclose(f);
	return found;
}

/*
 * RTT 400 ms: the first ACKs reach the server 600 ms after the request and
 * arm the PTO (about 800 ms); 900 ms in, the probe timer is pending.
 */
static void case_probe_timer_in_proc(void)
{
	struct tlp_request rq = tlp_drop(10, 8, 2);
	struct tlp_counters before = tlp_counters(), at = before, pre, post;
	int fd, tr = -1;
	bool ok;

	tlp_set_delay(200);
	fd = tlp_connect(AF_INET, NULL, 0);
	ok = fd >= 0 && write(fd, &rq, sizeof(rq)) == sizeof(rq);
	if (ok) {
		usleep(900000);
		tr = server_timer_field();
		at = tlp_counters();
		ok = tlp_read_response(fd);
	}
	pre = tlp_delta(before, at);
	post = tlp_delta(at, tlp_counters());
	if (fd >= 0)
		tlp_hangup(fd);
	tlp_set_delay(5);
	/*
	 * The RTO shows as 1 too: what makes the pending timer the probe's is
	 * that no timer had fired when it was read and a probe came next.
	 */
	ktap_diag("timer field of the server connection: %d; before the read probes %ld timeouts %ld, after it probes %ld",
		  tr, pre.probes, pre.timeouts, post.probes);
	ktap_result(ok && tr == 1 && !pre.probes && !pre.timeouts && post.probes == 1,
		    "a pending probe timer shows in /proc/net/tcp as the retransmit timer (1), and the probe follows");
}

static void case_many_connections_no_leak(void)
{
	struct tlp_arm a;

	tlp_run_arm(&a, 20, AF_INET6, NULL, tlp_drop(10, 9, 1));
	tlp_report("20 connections, K=1", &a);
	ktap_result(a.n == 20 && server_settles(),
		    "twenty connections with a lost tail segment all complete and close");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("range-accepted", case_range_accepted),
	KTAP_CASE("range-rejected", case_range_rejected),
	KTAP_CASE("per-netns", case_per_netns),
	KTAP_CASE("our-sysctls", case_our_sysctls),
	KTAP_CASE("counter-in-tcpext", case_counter_in_tcpext),
	KTAP_CASE("no-sack", case_no_sack),
	KTAP_CASE("tiny-mss", case_tiny_mss),
	KTAP_CASE("rst-with-pto-pending", case_rst_with_pto_pending),
	KTAP_CASE("close-with-pto-armed", case_close_with_pto_armed),
	KTAP_CASE("zero-window", case_zero_window),
	KTAP_CASE("probe-timer-in-proc", case_probe_timer_in_proc),
	KTAP_CASE("many-connections", case_many_connections_no_leak),
};

int main(void)
{
	ktap_begin("tlp-robust", ktap_plan(KTAP_CASES(cases)));
	if (tlp_net_setup(5))
		return ktap_fail_cases(KTAP_CASES(cases), "the emulated path could not be set up");
	return ktap_run_cases(KTAP_CASES(cases));
}
