/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlp-ackhold.h - a receiver that delays its ACK of a lone segment 100-200 ms,
 * played by the router of tlpnet.h.
 *
 * A Linux receiver delays an ACK by at most max(SRTT, 40 ms), and never
 * beyond 200 ms (tcp_send_delayed_ack()); in practice by its 40 ms ato. So
 * at RTT 10 ms it cannot be the peer RFC 8985's one-segment allowance is
 * for: a stack that ACKs every second segment at once but a lone one only
 * when its delayed-ACK timer fires, 100 to 200 ms later. The router plays
 * that peer for the client: an NFQUEUE rule in its FORWARD chain hands the
 * client's segments towards the server port to a thread here, which
 *  - holds a pure ACK that acknowledges one segment (new data of at most
 *    TLP_HOLD_ONE bytes beyond the last ACK it let through) for a uniform
 *    random time in [min_ms, max_ms], then lets it through;
 *  - drops a held ACK when a later segment of the client's arrives first:
 *    that segment carries the same or a newer ACK, as the receiver that
 *    gets a second segment ACKs both at once (a later pure ACK of the same
 *    segment, a window update, keeps the held one's time);
 *  - lets everything else through at once: ACKs of two segments or more,
 *    data, SYN, FIN, and ACKs with SACK blocks (a receiver ACKs a
 *    duplicate, with its DSACK, at once).
 * The client must ACK every segment at once itself for the hold to be the
 * whole delay: it does at the start of each round, which comes more than
 * its RTO after the last data and so finds it quick-ACKing again
 * (tcp_event_data_recv()), and TCP_QUICKACK 1 keeps it out of pingpong
 * mode (tlp_round_quickack()).
 *
 * One connection at a time: a SYN starts the count afresh. Segments of at
 * least TLP_HOLD_ONE / 2 bytes (MSS 750 and up) are assumed.
 */
#ifndef TLP_ACKHOLD_H
#define TLP_ACKHOLD_H

#include "tlpnet.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>

/* One MSS-sized segment of any path of MTU 1500, and less than two. */
#define TLP_HOLD_ONE	1500
#define TLP_HOLD_QUEUE	0
#define TLP_HOLD_STR(x)	#x
#define TLP_HOLD_XSTR(x) TLP_HOLD_STR(x)
/*
 * With --queue-bypass a rule left behind by a program that died passes
 * the packets instead of dropping every later segment to the port.
 */
#define TLP_HOLD_RULE	"FORWARD -i r0 -p tcp --dport " TLP_HOLD_XSTR(TLP_PORT) \
			" -j NFQUEUE --queue-num " TLP_HOLD_XSTR(TLP_HOLD_QUEUE) " --queue-bypass"

struct tlp_hold_stats {
	long held;		/* ACKs held for their time, then let through */
	long superseded;	/* ACKs held, then dropped for a later segment */
	long passed;		/* segments let through at once */
	double held_min_ms, held_max_ms;	/* of the ACKs let through late */
};

/*
 * The hold thread owns everything below @stop while it runs; the caller
 * reads @st and @err after joining it.
 */
struct tlp_hold {
	int fd;
	pthread_t thread;
	bool stop;		/* __atomic: set by the caller, read by the thread */
	int min_ms, max_ms;
	uint32_t rnd;
	bool have_ack;		/* an ACK of this connection went through */
	uint32_t acked;		/* the last ACK let through */
	bool pending;		/* an ACK is held */
	uint32_t pend_id;	/* its packet id, network order */
	uint32_t pend_ack;
	double pend_since, pend_due;
	struct tlp_hold_stats st;
	char err[96];		/* what went wrong in the thread, if anything */
};

static struct tlp_hold tlp_hold;

/* Send one nfnetlink message to queue TLP_HOLD_QUEUE with one attribute. */
static inline int tlp_nfq_send(int fd, int msg, bool ack, int atype,
			       const void *attr, size_t alen)
{
	char buf[64] __attribute__((aligned(4))) = { 0 };
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct nfgenmsg *g = NLMSG_DATA(nh);
	struct nlattr *a = (struct nlattr *)((char *)g + NLMSG_ALIGN(sizeof(*g)));
	ssize_t n;

	nh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | msg;
	nh->nlmsg_flags = NLM_F_REQUEST | (ack ? NLM_F_ACK : 0);
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(TLP_HOLD_QUEUE);
	a->nla_type = atype;
	a->nla_len = NLA_HDRLEN + alen;
	memcpy((char *)a + NLA_HDRLEN, attr, alen);
	nh->nlmsg_len = (char *)a - buf + NLA_ALIGN(a->nla_len);
	n = send(fd, buf, nh->nlmsg_len, 0);
	if (n < 0)
		return -errno;
	return n == (ssize_t)nh->nlmsg_len ? 0 : -EMSGSIZE;
}

/* The error a netlink message carries, 0 if it is not a complete error. */
static inline int tlp_nfq_error(const struct nlmsghdr *nh, size_t len)
{
	if (len < NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    nh->nlmsg_type != NLMSG_ERROR)
		return 0;
	return ((const struct nlmsgerr *)NLMSG_DATA(nh))->error;
}

/* A configuration message, and the kernel's answer to it: 0 or -errno. */
static inline int tlp_nfq_config(int fd, int atype, const void *attr, size_t alen)
{
	char buf[256] __attribute__((aligned(4)));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n;
	int rc = tlp_nfq_send(fd, NFQNL_MSG_CONFIG, true, atype, attr, alen);

	if (rc)
		return rc;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    nh->nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	return tlp_nfq_error(nh, n);
}

static inline void tlp_hold_verdict(struct tlp_hold *h, uint32_t id, int verdict)
{
	struct nfqnl_msg_verdict_hdr v = { htonl(verdict), id };
	int rc = tlp_nfq_send(h->fd, NFQNL_MSG_VERDICT, false, NFQA_VERDICT_HDR,
			      &v, sizeof(v));

	if (rc)
		snprintf(h->err, sizeof(h->err), "verdict: %s", strerror(-rc));
}

/* The TCP header fields a hold decides on, from an IPv4 or IPv6 packet. */
struct tlp_hold_seg {
	uint8_t flags;
	uint32_t ack;
	long payload;
	bool sack;
};

/* Whether the TCP options in p[from, to) hold a SACK block. */
static inline bool tlp_hold_sack(const uint8_t *p, size_t from, size_t to)
{
	size_t o = from;

	while (o < to && p[o] != TCPOPT_EOL) {
		if (p[o] == TCPOPT_NOP) {
			o++;
			continue;
		}
		if (o + 1 >= to || p[o + 1] < 2)
			return false;
		if (p[o] == TCPOPT_SACK)
			return true;
		o += p[o + 1];
	}
	return false;
}

/* IPv6 without extension headers: the path of tlpnet.h has none. */
static inline bool tlp_hold_parse(const uint8_t *p, size_t len, struct tlp_hold_seg *s)
{
	size_t ip, doff;
	long total;

	if (len >= 20 && p[0] >> 4 == 4 && p[9] == IPPROTO_TCP) {
		ip = (p[0] & 15) * 4;
		total = p[2] << 8 | p[3];
	} else if (len >= 40 && p[0] >> 4 == 6 && p[6] == IPPROTO_TCP) {
		ip = 40;
		total = 40 + (p[4] << 8 | p[5]);
	} else {
		return false;
	}
	if (len < ip + 20 || len < ip + (doff = (p[ip + 12] >> 4) * 4))
		return false;
	s->flags = p[ip + 13];
	s->ack = (uint32_t)p[ip + 8] << 24 | p[ip + 9] << 16 | p[ip + 10] << 8 | p[ip + 11];
	s->payload = total - (long)ip - (long)doff;
	s->sack = tlp_hold_sack(p, ip + 20, ip + doff);
	return true;
}

/* Hold it (true) or let it through at once (false). */
static inline bool tlp_hold_lone(const struct tlp_hold *h, const struct tlp_hold_seg *s)
{
	int32_t adv = (int32_t)(s->ack - h->acked);

	return s->flags == TH_ACK && !s->payload && !s->sack && h->have_ack &&
	       adv > 0 && adv <= TLP_HOLD_ONE;
}

/* A uniform draw in [min_ms, max_ms], from a seeded xorshift: every run alike. */
static inline double tlp_hold_draw_s(struct tlp_hold *h)
{
	h->rnd ^= h->rnd << 13;
	h->rnd ^= h->rnd >> 17;
	h->rnd ^= h->rnd << 5;
	return (h->min_ms + h->rnd % (h->max_ms - h->min_ms + 1)) / 1e3;
}

/* Hold packet @id, acknowledging @ack; @fresh: its time starts now. */
static inline void tlp_hold_keep(struct tlp_hold *h, uint32_t id, uint32_t ack, bool fresh)
{
	h->pending = true;
	h->pend_id = id;
	h->pend_ack = ack;
	if (fresh) {
		h->pend_since = lab_now();
		h->pend_due = h->pend_since + tlp_hold_draw_s(h);
	}
}

static inline void tlp_hold_packet(struct tlp_hold *h, uint32_t id,
				   const uint8_t *p, size_t len)
{
	struct tlp_hold_seg s = { 0 };
	bool parsed = p && tlp_hold_parse(p, len, &s);
	bool lone, same;

	if (parsed && (s.flags & TH_SYN))
		h->have_ack = false;
	lone = parsed && tlp_hold_lone(h, &s);
	same = lone && h->pending && s.ack == h->pend_ack;
	if (h->pending) {
		tlp_hold_verdict(h, h->pend_id, NF_DROP);
		h->pending = false;
		h->st.superseded += !same;
	}
	if (lone) {
		tlp_hold_keep(h, id, s.ack, !same);
		return;
	}
	tlp_hold_verdict(h, id, NF_ACCEPT);
	h->st.passed++;
	if (parsed && (s.flags & TH_ACK)) {
		h->acked = s.ack;
		h->have_ack = true;
	}
}

/* Let the held ACK through; @early: at stop, not due, so not timed. */
static inline void tlp_hold_release(struct tlp_hold *h, bool early)
{
	double ms = (lab_now() - h->pend_since) * 1e3;

	tlp_hold_verdict(h, h->pend_id, NF_ACCEPT);
	h->pending = false;
	h->acked = h->pend_ack;
	if (early)
		return;
	if (!h->st.held || ms < h->st.held_min_ms)
		h->st.held_min_ms = ms;
	if (ms > h->st.held_max_ms)
		h->st.held_max_ms = ms;
	h->st.held++;
}

/* One queued-packet message: its id and IP packet, then the decision. */
static inline void tlp_hold_message(struct tlp_hold *h, struct nlmsghdr *nh)
{
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(nh) +
					     NLMSG_ALIGN(sizeof(struct nfgenmsg)));
	int left = (char *)nh + nh->nlmsg_len - (char *)a;
	const uint8_t *pkt = NULL;
	uint32_t plen = 0;
	struct nfqnl_msg_packet_hdr *ph = NULL;

	for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == NFQA_PACKET_HDR)
			ph = (struct nfqnl_msg_packet_hdr *)((char *)a + NLA_HDRLEN);
		else if ((a->nla_type & NLA_TYPE_MASK) == NFQA_PAYLOAD) {
			pkt = (const uint8_t *)a + NLA_HDRLEN;
			plen = a->nla_len - NLA_HDRLEN;
		}
	}
	if (ph)
		tlp_hold_packet(h, ph->packet_id, pkt, pkt ? plen : 0);
	else
		snprintf(h->err, sizeof(h->err), "a queued packet without its id");
}

/*
 * Every message in one datagram of the queue's socket. Returns false when
 * there was none to read.
 */
static inline bool tlp_hold_read(struct tlp_hold *h)
{
	char buf[4096] __attribute__((aligned(4)));
	ssize_t got = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT), n = got;
	struct nlmsghdr *nh;
	int err;

	if (got < 0 && errno != EAGAIN && errno != EINTR)
		snprintf(h->err, sizeof(h->err), "reading the queue: %s", strerror(errno));
	for (nh = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		err = tlp_nfq_error(nh, n);
		if (err)
			snprintf(h->err, sizeof(h->err), "a verdict: %s", strerror(-err));
		if (nh->nlmsg_type == ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
			tlp_hold_message(h, nh);
	}
	return got > 0;
}

static inline void *tlp_hold_thread(void *arg)
{
	struct tlp_hold *h = arg;
	struct pollfd pfd = { .fd = h->fd, .events = POLLIN };

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		double wait = h->pending ? h->pend_due - lab_now() : 0.05;
		struct timespec ts;

		wait = wait > 0 ? wait : 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - ts.tv_sec) * 1e9);
		if (ppoll(&pfd, 1, &ts, NULL) > 0)
			tlp_hold_read(h);
		if (h->pending && lab_now() >= h->pend_due)
			tlp_hold_release(h, false);
	}
	/* The rules are gone: what is still queued goes through, in order. */
	while (tlp_hold_read(h))
		;
	if (h->pending)
		tlp_hold_release(h, true);
	return NULL;
}

/* Add (-I) or delete (-D) the IPv4 and the IPv6 rule; 0 if both did. */
static inline int tlp_hold_rules(const char *op)
{
	int v4 = lab_sh(NULL, 0, "/usr/sbin/ip netns exec rtr /usr/sbin/iptables-legacy %s "
			TLP_HOLD_RULE, op);
	int v6 = lab_sh(NULL, 0, "/usr/sbin/ip netns exec rtr /usr/sbin/ip6tables-legacy %s "
			TLP_HOLD_RULE, op);

	return v4 || v6;
}

/* The queue's socket in rtr, bound, packets copied up to their TCP options. */
static inline int tlp_hold_open(void)
{
	struct nfqnl_msg_config_cmd bind = { NFQNL_CFG_CMD_BIND, 0, 0 };
	struct nfqnl_msg_config_params params = { htonl(128), NFQNL_COPY_PACKET };
	int fd, rc;

	tlp_enter(ns_rtr);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	tlp_enter(ns_cli);
	if (fd < 0) {
		printf("# ackhold: netlink socket: %s\n", strerror(errno));
		return -1;
	}
	rc = tlp_nfq_config(fd, NFQA_CFG_CMD, &bind, sizeof(bind));
	if (!rc)
		rc = tlp_nfq_config(fd, NFQA_CFG_PARAMS, &params, sizeof(params));
	if (rc) {
		printf("# ackhold: binding NFQUEUE %d: %s (CONFIG_NETFILTER_NETLINK_QUEUE?)\n",
		       TLP_HOLD_QUEUE, strerror(-rc));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Start holding the client's ACKs of a lone segment for [min_ms, max_ms].
 * The queue is bound before the rules send packets to it. Returns 0, or -1
 * with nothing left in place.
 */
static inline int tlp_hold_start(int min_ms, int max_ms)
{
	struct tlp_hold *h = &tlp_hold;

	if (min_ms < 0 || max_ms < min_ms) {
		printf("# ackhold: bad hold %d-%d ms\n", min_ms, max_ms);
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->min_ms = min_ms;
	h->max_ms = max_ms;
	h->rnd = 20130311u;
	h->fd = tlp_hold_open();
	if (h->fd < 0)
		return -1;
	if (pthread_create(&h->thread, NULL, tlp_hold_thread, h))
		goto err_close;
	if (tlp_hold_rules("-I")) {
		printf("# ackhold: cannot add the NFQUEUE rules (libxt_NFQUEUE, CONFIG_NETFILTER_XT_TARGET_NFQUEUE?)\n");
		tlp_hold_rules("-D");
		goto err_stop;
	}
	return 0;

err_stop:
	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
err_close:
	close(h->fd);
	return -1;
}

/*
 * Remove the rules, let a held ACK through and stop. Returns what was held;
 * held is -1 if the rules could not be removed or the thread met an error.
 */
static inline struct tlp_hold_stats tlp_hold_stop(void)
{
	struct tlp_hold *h = &tlp_hold;
	int rc = tlp_hold_rules("-D");

	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
	close(h->fd);
	if (rc)
		printf("# ackhold: cannot delete the NFQUEUE rules\n");
	if (h->err[0])
		printf("# ackhold: %s\n", h->err);
	if (rc || h->err[0])
		h->st.held = -1;
	return h->st;
}

/*
 * Did the hold act on a connection with @lone rounds whose response ends in
 * a lone segment? Each of those ACKs was held, or replaced by a later
 * segment of the client's (a probe's DSACK among them); -1: it failed.
 */
static inline bool tlp_hold_acted(const struct tlp_hold_stats *st, long lone)
{
	return st->held >= 0 && st->held + st->superseded >= lone;
}

/*
 * A round whose client ACKs every segment at once: TCP_QUICKACK 1 takes it
 * out of pingpong mode, and a round that starts more than its RTO after
 * the last data finds it quick-ACKing (see above).
 */
static inline bool tlp_round_quickack(int fd, struct tlp_request rq)
{
	int on = 1;

	return !setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &on, sizeof(on)) &&
	       tlp_round(fd, rq);
}

#endif /* TLP_ACKHOLD_H */
