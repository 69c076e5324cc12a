/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlpnet.h - the emulated path of the TLP guest tests, in one process.
 *
 *   cli (10.0.1.1, fd00:1::1) -- c0|r0  rtr  r1|s0 -- srv (10.0.2.1, fd00:2::1)
 *
 * The router delays both directions with netem (RTT = 2 * delay) and drops
 * the first copy of every response segment that ends with a drop marker
 * "TLP-DROP-ONCE-nn" (iptables string match; a connmark bit per nn makes
 * each marker drop once per connection). The server (a thread in srv) sends
 * responses of whole MSS-sized segments (gso_max_segs 1 on s0) and never
 * closes first, so no FIN follows the data. The client (the main thread,
 * in cli) opens a fresh connection per transaction and times it.
 *
 * 10.0.1.3 is a second client address whose route on srv has initcwnd 4,
 * for tests that need data queued behind a flight.
 */
#ifndef TLPNET_H
#define TLPNET_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "lab.h"

#define TLP_PORT 8080
#define TLP_SRV4 "10.0.2.1"	/* the server, as trace events print it too */
#define TLP_MARKS 12		/* distinct drop markers, one connmark bit each */
#define TLP_MARK_LEN 16

struct tlp_request {
	uint32_t nseg;		/* response length in segments */
	uint32_t flags;		/* TLP_RQ_* */
	uint64_t drop_mask;	/* bit i: drop segment i (0-based) once */
};

/*
 * The response carries, after its 4-byte length, the server socket's
 * struct tcp_info as it was when the request arrived: the only way to see
 * the sender's cwnd, ssthresh and CA state from the client.
 */
#define TLP_RQ_INFO 1

/* Drop count segments from the from-th (0-based) on. */
static inline struct tlp_request tlp_drop(uint32_t nseg, uint32_t from,
					  uint32_t count)
{
	uint64_t mask = count >= 64 ? ~0ULL : ((1ULL << count) - 1);

	if (!count || from >= 64)
		return (struct tlp_request){ nseg, 0, 0 };
	return (struct tlp_request){ nseg, 0, mask << from };
}

static int ns_root = -1, ns_cli = -1, ns_rtr = -1, ns_srv = -1;

static inline void tlp_enter(int ns)
{
	if (setns(ns, CLONE_NEWNET)) {
		perror("setns");
		exit(2);
	}
}

/* Write a sysctl in network namespace ns; returns 0 or -errno. */
static inline int tlp_sysctl(int ns, const char *name, const char *value)
{
	char path[160];
	int rc;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	tlp_enter(ns);
	rc = lab_write(path, value);
	tlp_enter(ns_cli);
	return rc;
}

/* Read a sysctl of network namespace ns, its first line into buf; 0 or -errno. */
static inline int tlp_sysctl_read(int ns, const char *name, char *buf, size_t len)
{
	char path[160];
	int rc;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	tlp_enter(ns);
	rc = lab_read_line(path, buf, len);
	tlp_enter(ns_cli);
	return rc < 0 ? rc : 0;
}

/* TcpExt and Tcp counters of the server namespace; -1 if absent. */
struct tlp_counters {
	long probes, probe_recovery, timeouts, spurious_probes, retrans, out;
	long dsacks;
	long cuts;	/* cwnd reductions short of an RTO: fast recoveries, repaired probes */
	long undos;	/* reductions found needless and undone (DSACK, timestamps) */
};

/*
 * Counter @name of @group in @text, the whole of /proc/net/netstat or
 * /proc/net/snmp: lines in pairs, "Group: name name ..." then "Group: value
 * value ...". -1 if absent.
 */
static inline long tlp_stat_in(const char *text, const char *group, const char *name)
{
	size_t glen = strlen(group), nlen = strlen(name);
	const char *names, *values, *n, *v;

	for (names = text; names && *names; names = strchr(values, '\n'), names = names ? names + 1 : NULL) {
		values = strchr(names, '\n');
		if (!values++)
			return -1;
		if (strncmp(names, group, glen) || names[glen] != ':' ||
		    strncmp(values, names, glen + 1))
			continue;
		/* Walk both lines a word at a time, from after "Group:". */
		for (n = names + glen + 1, v = values + glen + 1; *n != '\n' && *v != '\n';) {
			n += strspn(n, " ");
			v += strspn(v, " ");
			if (!strncmp(n, name, nlen) && (n[nlen] == ' ' || n[nlen] == '\n'))
				return atol(v);
			n += strcspn(n, " \n");
			v += strcspn(v, " \n");
		}
	}
	return -1;
}

/*
 * Both files of the server namespace, each read once: one snapshot, and
 * the kernel formats each once per call, not once per counter.
 */
static inline struct tlp_counters tlp_counters(void)
{
	struct tlp_counters c = { -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	static char ext[16384], snmp[8192];
	int ext_len, snmp_len;

	tlp_enter(ns_srv);
	ext_len = lab_read("/proc/thread-self/net/netstat", ext, sizeof(ext));
	snmp_len = lab_read("/proc/thread-self/net/snmp", snmp, sizeof(snmp));
	tlp_enter(ns_cli);
	if (ext_len > 0) {
		c.probes = tlp_stat_in(ext, "TcpExt", "TCPLossProbes");
		c.probe_recovery = tlp_stat_in(ext, "TcpExt", "TCPLossProbeRecovery");
		c.timeouts = tlp_stat_in(ext, "TcpExt", "TCPTimeouts");
		/* Ours only: absent on upstream, where it stays -1. */
		c.spurious_probes = tlp_stat_in(ext, "TcpExt", "TCPLossProbeSpurious");
		c.dsacks = tlp_stat_in(ext, "TcpExt", "TCPDSACKRecv");
		c.cuts = tlp_stat_in(ext, "TcpExt", "TCPSackRecovery") +
			 tlp_stat_in(ext, "TcpExt", "TCPRenoRecovery") + c.probe_recovery;
		c.undos = tlp_stat_in(ext, "TcpExt", "TCPDSACKUndo") +
			  tlp_stat_in(ext, "TcpExt", "TCPFullUndo") +
			  tlp_stat_in(ext, "TcpExt", "TCPPartialUndo") +
			  tlp_stat_in(ext, "TcpExt", "TCPLossUndo");
	}
	if (snmp_len > 0) {
		c.retrans = tlp_stat_in(snmp, "Tcp", "RetransSegs");
		c.out = tlp_stat_in(snmp, "Tcp", "OutSegs");
	}
	return c;
}

static inline struct tlp_counters tlp_delta(struct tlp_counters a, struct tlp_counters b)
{
	return (struct tlp_counters){
		b.probes - a.probes, b.probe_recovery - a.probe_recovery,
		b.timeouts - a.timeouts, b.spurious_probes - a.spurious_probes,
		b.retrans - a.retrans, b.out - a.out, b.dsacks - a.dsacks,
		b.cuts - a.cuts, b.undos - a.undos,
	};
}

/* ---- the server: a thread in srv answering one connection at a time ---- */

static inline int tlp_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

/* Answer one request; false when the client is done or misbehaves. */
static inline bool tlp_answer(int fd)
{
	struct tlp_request rq;
	int mss = 0;
	socklen_t sl = sizeof(mss);
	uint32_t i, len, marks;
	char *buf;
	bool ok;

	if (tlp_read_full(fd, &rq, sizeof(rq)) || rq.nseg == 0 || rq.nseg > 4096 ||
	    getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl) || mss < 32)
		return false;
	len = rq.nseg * mss;
	buf = calloc(1, len);
	if (!buf)
		return false;
	memcpy(buf, &len, 4);
	if ((rq.flags & TLP_RQ_INFO) && len >= 4 + sizeof(struct tcp_info)) {
		struct tcp_info ti = { 0 };
		socklen_t il = sizeof(ti);

		getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &il);
		memcpy(buf + 4, &ti, sizeof(ti));
	}
	for (i = 0, marks = 0; i < rq.nseg && i < 64 && marks < TLP_MARKS; i++) {
		uint32_t end = (i + 1) * mss;
		char mark[TLP_MARK_LEN + 1];

		if (!(rq.drop_mask & (1ULL << i)))
			continue;
		snprintf(mark, sizeof(mark), "TLP-DROP-ONCE-%02u", ++marks);
		if (end >= TLP_MARK_LEN + 4)
			memcpy(buf + end - TLP_MARK_LEN, mark, TLP_MARK_LEN);
	}
	ok = write(fd, buf, len) == (ssize_t)len;
	free(buf);
	return ok;
}

static inline void tlp_serve_one(int fd)
{
	char sink[4096];
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (tlp_answer(fd))
		;
	/* Never close first: wait for the client's FIN. */
	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

static void *tlp_conn_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;

	tlp_serve_one(fd);
	close(fd);
	return NULL;
}

/* One thread per connection, so that benchmarks can overlap transactions. */
static inline int tlp_spawn_conn(int fd)
{
	pthread_attr_t at;
	pthread_t t;
	int rc;

	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 << 10);
	rc = pthread_create(&t, &at, tlp_conn_thread, (void *)(intptr_t)fd);
	pthread_attr_destroy(&at);
	return rc;
}

static inline int tlp_listen(int family)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(TLP_PORT) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(TLP_PORT) };
	int fd = socket(family, SOCK_STREAM, 0), one = 1;

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (family == AF_INET6 ? bind(fd, (void *)&a6, sizeof(a6)) :
				 bind(fd, (void *)&a4, sizeof(a4)))
		return -1;
	return listen(fd, 64) ? -1 : fd;
}

static inline void *tlp_server(void *arg)
{
	struct pollfd p[2];
	int i, c;

	(void)arg;
	tlp_enter(ns_srv);
	p[0].fd = tlp_listen(AF_INET);
	p[1].fd = tlp_listen(AF_INET6);
	p[0].events = p[1].events = POLLIN;
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		for (i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			c = accept(p[i].fd, NULL, NULL);
			if (c >= 0 && tlp_spawn_conn(c))
				close(c);
		}
	}
	return NULL;
}

/* ---- the client ---- */

struct tlp_txn {
	double ms;		/* connect() to the last byte of the response */
	struct tlp_counters d;	/* server counters, before connect to last byte */
	bool ok;
};

static inline int tlp_connect(int family, const char *src, int mss)
{
	struct sockaddr_in6 d6 = { .sin6_family = AF_INET6, .sin6_port = htons(TLP_PORT) };
	struct sockaddr_in d4 = { .sin_family = AF_INET, .sin_port = htons(TLP_PORT) };
	int fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (mss)
		setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	if (src) {
		struct sockaddr_in s4 = { .sin_family = AF_INET };

		inet_pton(AF_INET, src, &s4.sin_addr);
		bind(fd, (void *)&s4, sizeof(s4));
	}
	inet_pton(AF_INET, TLP_SRV4, &d4.sin_addr);
	inet_pton(AF_INET6, "fd00:2::1", &d6.sin6_addr);
	if (family == AF_INET6 ? connect(fd, (void *)&d6, sizeof(d6)) :
				 connect(fd, (void *)&d4, sizeof(d4))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Finish a transaction: our FIN first, then wait for the server's. */
static inline void tlp_hangup(int fd)
{
	char sink[4096];

	shutdown(fd, SHUT_WR);
	while (read(fd, sink, sizeof(sink)) > 0)
		;
	close(fd);
}

/* Read one response; its first @cap bytes after the length go to @head. */
static inline bool tlp_read_response_head(int fd, void *head, size_t cap)
{
	uint32_t len;
	char *buf;
	bool ok;

	if (tlp_read_full(fd, &len, 4) || len < 4 || len > (64u << 20))
		return false;
	buf = malloc(len);
	ok = buf && !tlp_read_full(fd, buf, len - 4);
	if (ok && head)
		memcpy(head, buf, cap < len - 4 ? cap : len - 4);
	free(buf);
	return ok;
}

static inline bool tlp_read_response(int fd)
{
	return tlp_read_response_head(fd, NULL, 0);
}

/* One request/response round on an open connection. */
static inline bool tlp_round(int fd, struct tlp_request rq)
{
	return write(fd, &rq, sizeof(rq)) == sizeof(rq) && tlp_read_response(fd);
}

/*
 * A round on a kept-alive connection whose client delays its ACKs as an
 * interactive Linux peer does. A Linux receiver that reads all the data
 * of a segment sent with PSH (the end of the server's write) ACKs it at
 * once unless it is in pingpong mode (tcp_cleanup_rbuf()), which its
 * delayed-ACK timer ends: TCP_QUICKACK 0 asks for the mode again before
 * every request, so that a lone last segment waits for the 40 ms delayed
 * ACK, where a probe can be needless.
 */
static inline bool tlp_round_pingpong(int fd, struct tlp_request rq)
{
	int off = 0;

	return !setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof(off)) &&
	       tlp_round(fd, rq);
}

static inline struct tlp_txn tlp_transact(int family, const char *src,
				   struct tlp_request rq)
{
	struct tlp_counters before = tlp_counters();
	struct tlp_txn t = { 0 };
	double t0 = lab_now();
	int fd = tlp_connect(family, src, 0);

	if (fd < 0)
		return t;
	t.ok = write(fd, &rq, sizeof(rq)) == sizeof(rq) && tlp_read_response(fd);
	t.ms = (lab_now() - t0) * 1e3;
	t.d = tlp_delta(before, tlp_counters());
	tlp_hangup(fd);
	return t;
}

/*
 * ---- the path ----
 *
 * Commands go through lab_sh(), tools named by full path: busybox sh runs
 * its own applet for a bare "ip" or "tc" before it looks at PATH, and those
 * applets lack netns, batch mode and netem.
 */

/* Write a new file (commands for a batch); 0 or -errno, with a diagnostic. */
static inline int tlp_write_tmp(const char *path, const char *text)
{
	int rc = lab_write_flags(path, text, O_CREAT | O_TRUNC);

	if (rc)
		ktap_diag("cannot write %s: %s", path, strerror(-rc));
	return rc;
}

static inline int tlp_drop_rules(const char *path)
{
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return -1;
	fprintf(f, "*filter\n:FORWARD ACCEPT [0:0]\n:TLPDROP - [0:0]\n");
	fprintf(f, "-A FORWARD -i r1 -p tcp -m string --algo bm --string TLP-DROP-ONCE- -j TLPDROP\n");
	for (i = 1; i <= TLP_MARKS; i++) {
		const char *m = "-A TLPDROP -m string --algo bm --string TLP-DROP-ONCE-%02d";

		fprintf(f, m, i);
		fprintf(f, " -m connmark --mark 0x%x/0x%x -j ACCEPT\n", 1 << i, 1 << i);
		fprintf(f, m, i);
		fprintf(f, " -j CONNMARK --or-mark 0x%x\n", 1 << i);
		fprintf(f, m, i);
		fprintf(f, " -j DROP\n");
	}
	fprintf(f, "COMMIT\n");
	return fclose(f);
}

/*
 * One direction only: r0 carries the responses (towards cli), r1 the
 * requests and ACKs (towards srv). A change keeps the packets already
 * queued at their old delay.
 */
static inline int tlp_set_dir_delay(const char *dev, int delay_ms)
{
	return lab_sh(NULL, 0,
		      "/usr/sbin/tc -n rtr qdisc change dev %s root netem delay %dms limit 100000",
		      dev, delay_ms);
}

/*
 * Both directions delayed by delay_us, each packet by up to jitter_ms more
 * or less (uniform): netem sends in time order, so jitter reorders.
 */
static inline int tlp_set_path_us(int delay_us, int jitter_ms)
{
	char b[256], d[32];

	if (jitter_ms)
		snprintf(d, sizeof(d), "%dus %dms", delay_us, jitter_ms);
	else
		snprintf(d, sizeof(d), "%dus", delay_us);
	snprintf(b, sizeof(b),
		 "qdisc replace dev r0 root netem delay %s limit 100000\n"
		 "qdisc replace dev r1 root netem delay %s limit 100000\n", d, d);
	if (tlp_write_tmp("/tmp/tlp-tc", b))
		return -1;
	return lab_sh(NULL, 0, "/usr/sbin/tc -n rtr -b /tmp/tlp-tc");
}

static inline int tlp_set_path(int delay_ms, int jitter_ms)
{
	return tlp_set_path_us(delay_ms * 1000, jitter_ms);
}

static inline int tlp_set_delay(int delay_ms)
{
	return tlp_set_path(delay_ms, 0);
}

/*
 * The server's qdisc: fq, which paces each flow at a rate from its cwnd
 * and SRTT (so a probe can find its original still queued in the host),
 * or the device's default.
 */
static inline int tlp_server_fq(bool on)
{
	return on ? lab_sh(NULL, 0, "/usr/sbin/tc -n srv qdisc replace dev s0 root fq") :
		    lab_sh(NULL, 0, "/usr/sbin/tc -n srv qdisc del dev s0 root 2>/dev/null || true");
}

/* The mangle rules of tlp_delay_marked() for markers 1..n. 0 or -1. */
static inline int tlp_late_rules(const char *path, int n)
{
	const char *m = "-A TLPLATE -m string --algo bm --string TLP-DROP-ONCE-%02d";
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return -1;
	fprintf(f, "*mangle\n:FORWARD ACCEPT [0:0]\n:TLPLATE - [0:0]\n");
	fprintf(f, "-A FORWARD -i r1 -p tcp -m string --algo bm --string TLP-DROP-ONCE- -j TLPLATE\n");
	for (i = 1; i <= n; i++) {
		fprintf(f, m, i);
		fprintf(f, " -m connmark --mark 0x%x/0x%x -j RETURN\n", 1 << i, 1 << i);
		fprintf(f, m, i);
		fprintf(f, " -j CONNMARK --or-mark 0x%x\n", 1 << i);
		fprintf(f, m, i);
		fprintf(f, " -j CLASSIFY --set-class 1:%d\n", i + 1);
	}
	fprintf(f, "COMMIT\n");
	return fclose(f) ? -1 : 0;
}

/*
 * Late instead of lost: the first copy of the segment with drop marker nn
 * (1-based, in segment order) reaches cli extra_ms[nn - 1] after the
 * path's delay_ms, later copies (a retransmission) with delay_ms. r0 gets
 * a prio qdisc with a netem per band; an iptables CLASSIFY rule in the
 * mangle table puts the first copy in its band and sets the connmark bit
 * that lets the filter table's drop rule pass it. tlp_drop_marked() puts
 * the path back. 0 or -1.
 */
static inline int tlp_delay_marked(int delay_ms, const int *extra_ms, int n)
{
	char b[1024];
	size_t o;
	int i;

	if (n < 1 || n > 8)
		return -1;
	o = snprintf(b, sizeof(b),
		     "qdisc replace dev r0 root handle 1: prio bands %d priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		     "qdisc add dev r0 parent 1:1 netem delay %dms limit 100000\n",
		     n + 1, delay_ms);
	for (i = 0; i < n && o < sizeof(b); i++)
		o += snprintf(b + o, sizeof(b) - o,
			      "qdisc add dev r0 parent 1:%d netem delay %dms limit 100000\n",
			      i + 2, delay_ms + extra_ms[i]);
	if (o >= sizeof(b) || tlp_late_rules("/tmp/tlp-late-rules", n) ||
	    tlp_write_tmp("/tmp/tlp-tc", b))
		return -1;
	return lab_sh(NULL, 0, "/usr/sbin/ip netns exec rtr /usr/sbin/iptables-legacy-restore < /tmp/tlp-late-rules") ||
	       lab_sh(NULL, 0, "/usr/sbin/tc -n rtr -b /tmp/tlp-tc") ? -1 : 0;
}

/* Markers drop their segment's first copy again, on a path of delay_ms. */
static inline int tlp_drop_marked(int delay_ms)
{
	if (tlp_write_tmp("/tmp/tlp-late-rules", "*mangle\n:FORWARD ACCEPT [0:0]\nCOMMIT\n") ||
	    lab_sh(NULL, 0, "/usr/sbin/ip netns exec rtr /usr/sbin/iptables-legacy-restore < /tmp/tlp-late-rules"))
		return -1;
	return tlp_set_delay(delay_ms);
}

static const char tlp_ip_root[] =
	"netns add cli\nnetns add rtr\nnetns add srv\n"
	"link add c0 netns cli type veth peer name r0 netns rtr\n"
	"link add s0 netns srv type veth peer name r1 netns rtr\n";
static const char tlp_ip_cli[] =
	"link set lo up\nlink set c0 up\n"
	"addr add 10.0.1.1/24 dev c0\naddr add 10.0.1.3/24 dev c0\n"
	"addr add fd00:1::1/64 dev c0 nodad\n"
	"route add default via 10.0.1.2\nroute add default via fd00:1::2\n";
static const char tlp_ip_rtr[] =
	"link set lo up\nlink set r0 up\nlink set r1 up\n"
	"addr add 10.0.1.2/24 dev r0\naddr add 10.0.2.2/24 dev r1\n"
	"addr add fd00:1::2/64 dev r0 nodad\naddr add fd00:2::2/64 dev r1 nodad\n";
static const char tlp_ip_srv[] =
	"link set lo up\nlink set s0 gso_max_segs 1\nlink set s0 up\n"
	"addr add " TLP_SRV4 "/24 dev s0\naddr add fd00:2::1/64 dev s0 nodad\n"
	"route add default via 10.0.2.2\nroute add default via fd00:2::2\n"
	"route add 10.0.1.3/32 via 10.0.2.2 initcwnd 4\n";

static inline int tlp_open_ns(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return open(path, O_RDONLY);
}

static inline int tlp_ip_batch(const char *ns, const char *cmds)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/tlp-ip-%s", ns ? ns : "root");
	if (tlp_write_tmp(path, cmds))
		return -1;
	return ns ? lab_sh(NULL, 0, "/usr/sbin/ip -n %s -b %s", ns, path) :
		    lab_sh(NULL, 0, "/usr/sbin/ip -b %s", path);
}

/*
 * Remove the namespaces an earlier program of this boot left (bound under
 * /run/netns, they outlive it), so that a suite can run again by hand
 * after make test: ip -force goes on past the ones missing.
 */
static inline void tlp_net_clean(void)
{
	if (!tlp_write_tmp("/tmp/tlp-ip-clean", "netns del cli\nnetns del rtr\nnetns del srv\n"))
		lab_sh(NULL, 0, "/usr/sbin/ip -force -b /tmp/tlp-ip-clean >/dev/null 2>&1 || true");
}

/* Build the path; leaves the calling thread in cli. Returns 0 or -1. */
static inline int tlp_net_setup(int delay_ms)
{
	pthread_t srv;

	mkdir("/run", 0755);
	mkdir("/tmp", 01777);
	ns_root = open("/proc/thread-self/ns/net", O_RDONLY);
	tlp_net_clean();
	if (tlp_ip_batch(NULL, tlp_ip_root) || tlp_ip_batch("cli", tlp_ip_cli) ||
	    tlp_ip_batch("rtr", tlp_ip_rtr) || tlp_ip_batch("srv", tlp_ip_srv))
		return -1;
	ns_cli = tlp_open_ns("cli");
	ns_rtr = tlp_open_ns("rtr");
	ns_srv = tlp_open_ns("srv");
	if (ns_cli < 0 || ns_rtr < 0 || ns_srv < 0)
		return -1;
	if (tlp_sysctl(ns_rtr, "net/ipv4/ip_forward", "1") ||
	    tlp_sysctl(ns_rtr, "net/ipv6/conf/all/forwarding", "1"))
		return -1;
	if (tlp_drop_rules("/tmp/tlp-rules"))
		return -1;
	tlp_enter(ns_rtr);
	if (lab_sh(NULL, 0, "/usr/sbin/iptables-legacy-restore < /tmp/tlp-rules") ||
	    lab_sh(NULL, 0, "/usr/sbin/ip6tables-legacy-restore < /tmp/tlp-rules"))
		return -1;
	tlp_enter(ns_cli);
	if (tlp_set_delay(delay_ms))
		return -1;
	if (pthread_create(&srv, NULL, tlp_server, NULL))
		return -1;
	pthread_detach(srv);
	usleep(200000);
	return 0;
}

/* ---- statistics over an arm of transactions ---- */

struct tlp_arm {
	int n, failed;
	int with_rto;		/* transactions that saw TCPTimeouts grow */
	int with_one_probe;	/* transactions with exactly one probe */
	long probes, timeouts, spurious, recovery, retrans, out;
	double ms[256];
};

static inline int tlp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double tlp_pct(struct tlp_arm *a, double p)
{
	double s[256];
	int i;

	if (!a->n)
		return 0;
	memcpy(s, a->ms, a->n * sizeof(double));
	qsort(s, a->n, sizeof(double), tlp_cmp_double);
	i = (int)(p * (a->n - 1) + 0.5);
	return s[i];
}

static inline double tlp_max(struct tlp_arm *a)
{
	return tlp_pct(a, 1.0);
}

static inline void tlp_run_arm(struct tlp_arm *a, int n, int family, const char *src,
			struct tlp_request rq)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < n && i < 256; i++) {
		struct tlp_txn t = tlp_transact(family, src, rq);

		if (!t.ok) {
			a->failed++;
			continue;
		}
		a->ms[a->n++] = t.ms;
		a->with_rto += t.d.timeouts > 0;
		a->with_one_probe += t.d.probes == 1;
		a->probes += t.d.probes;
		a->timeouts += t.d.timeouts;
		a->spurious += t.d.spurious_probes;
		a->recovery += t.d.probe_recovery;
		a->retrans += t.d.retrans;
		a->out += t.d.out;
	}
}

static inline void tlp_report(const char *what, struct tlp_arm *a)
{
	ktap_diag("%s: n=%d failed=%d p50=%.1f p99=%.1f max=%.1f ms; probes=%ld "
		  "timeouts=%ld (in %d txns) one-probe txns=%d spurious=%ld",
		  what, a->n, a->failed, tlp_pct(a, 0.5), tlp_pct(a, 0.99),
		  tlp_max(a), a->probes, a->timeouts, a->with_rto,
		  a->with_one_probe, a->spurious);
}

static inline bool tlp_clock_is_tsc(void)
{
	char cs[64];

	lab_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      cs, sizeof(cs));
	ktap_diag("clocksource: %s", cs);
	return !strcmp(cs, "tsc");
}

#endif /* TLPNET_H */
