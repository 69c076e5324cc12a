/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tail loss probe (RFC 8985 section 7): the decisions of tcp_tlp.c as pure
 * functions of plain values, so that KUnit can test every branch without a
 * socket. Not an API for the rest of the stack: include/net/tcp.h has that.
 * The two that run on every ACK of new data, whether to arm the PTO and
 * how long it is, are inline here, so that their cost does not depend on
 * whether KUnit makes the others visible.
 */
#ifndef _TCP_TLP_H
#define _TCP_TLP_H

#include <linux/tcp.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <net/tcp.h>

/* A Linux receiver's shortest delayed ACK: TCP_DELACK_MIN, HZ / 25. */
#define TCP_TLP_DELACK_MIN_US	(USEC_PER_SEC / 25)

/* What the PTO is computed from, all in microseconds. */
struct tcp_tlp_pto_input {
	u32 srtt_us8;		/* smoothed RTT << 3 (tp->srtt_us); 0: no sample */
	u32 packets_out;	/* FlightSize in segments */
	u32 ack_delay_us;	/* peer's delayed-ACK allowance (one segment out) */
	s64 rto_left_us;	/* time until the RTO would fire from now */
};

/* What the connection looks like when a PTO might be scheduled. */
struct tcp_tlp_sched_input {
	u8 early_retrans;	/* net.ipv4.tcp_early_retrans */
	u8 ca_state;		/* icsk_ca_state */
	bool sack;		/* SACK negotiated */
	bool fastopen_pending;	/* Fast Open 3WHS not finished yet */
	u32 packets_out;
};

/* What the sender holds when the PTO fires. */
struct tcp_tlp_probe_input {
	bool episode_open;	/* a probe is still unacknowledged */
	bool new_data;		/* a segment waits at SND.NXT ... */
	bool new_data_fits;	/* ... and the peer's window admits it */
	bool have_tail;		/* the retransmit queue is not empty */
};

enum tcp_tlp_probe {
	TCP_TLP_PROBE_SKIP,	/* no probe now: re-arm the RTO */
	TCP_TLP_PROBE_NEW,	/* send one new segment, even past cwnd */
	TCP_TLP_PROBE_TAIL,	/* retransmit the last segment */
	TCP_TLP_PROBE_NOTHING,	/* nothing in flight: stop the timer */
};

/* What an ACK says about the open probe episode. */
struct tcp_tlp_ack_input {
	u32 ack;		/* cumulative ACK number */
	u32 end_seq;		/* TLP.end_seq: SND.NXT when the probe left */
	bool is_retrans;	/* TLP.is_retrans */
	bool dsack_probe;	/* a DSACK block ends at TLP.end_seq */
	bool dupack;		/* acks nothing, SACKs nothing, no data */
};

/* What is known when RACK finds the SACK of a retransmission ambiguous. */
struct tcp_tlp_sack_input {
	bool enabled;		/* net.ipv4.tcp_tlp_trust_probe_sack */
	u32 high_seq;		/* TLP.end_seq; 0: no probe in flight */
	bool is_retrans;	/* TLP.is_retrans */
	u64 first_xmit_us;	/* the probed segment's first send; 0: unknown */
	u32 end_seq;		/* end of the SACKed range */
};

enum tcp_tlp_verdict {
	TCP_TLP_OPEN,		/* not decided yet: the episode goes on */
	TCP_TLP_DELIVERED,	/* a new-data probe was acknowledged */
	TCP_TLP_NOT_NEEDED,	/* original and probe both arrived */
	TCP_TLP_REPAIRED,	/* the probe repaired a lost segment */
};

/* Values 1 and 2 selected Early Retransmit, removed in 2017 (RACK does it). */
static inline bool tcp_tlp_enabled(u8 early_retrans)
{
	return early_retrans == 3 || early_retrans == 4;
}

/*
 * Only a connection in Open or CWR state that has something in flight can
 * lose its tail unnoticed; in Disorder, Recovery and Loss the sender already
 * acts on SACKs or on the RTO. Without SACK a probe's ACK cannot point at the
 * hole, and a Fast Open server must finish its handshake first (the timer
 * then still retransmits the SYN-ACK).
 */
static inline bool tcp_tlp_may_schedule(const struct tcp_tlp_sched_input *in)
{
	if (!tcp_tlp_enabled(in->early_retrans) || in->fastopen_pending)
		return false;
	if (!in->packets_out || !in->sack)
		return false;
	return in->ca_state == TCP_CA_Open || in->ca_state == TCP_CA_CWR;
}

/*
 * PTO = 2 * SRTT: one SRTT would fire on every ACK that is merely a little
 * late. With one segment out the peer may hold its ACK back for its delayed
 * ACK timer, so that allowance is added; with more, the receiver ACKs at once
 * and 2 ms absorb timer granularity. 1 s with no RTT sample yet. Never later
 * than the RTO; returns 0 when the RTO is due now, so the RTO comes first.
 */
static inline u32 tcp_tlp_pto_us(const struct tcp_tlp_pto_input *in)
{
	u64 pto_us;

	if (in->rto_left_us <= 0)
		return 0;
	if (!in->srtt_us8)
		pto_us = jiffies_to_usecs(TCP_TIMEOUT_INIT);
	else if (in->packets_out == 1)
		pto_us = (in->srtt_us8 >> 2) + (u64)in->ack_delay_us;
	else
		pto_us = (in->srtt_us8 >> 2) + (u64)TCP_TIMEOUT_MIN_US;
	pto_us = min_t(u64, pto_us, in->rto_left_us);
	return min_t(u64, pto_us, U32_MAX);
}

#if IS_ENABLED(CONFIG_KUNIT)
u32 tcp_tlp_ack_delay_us(const struct tcp_tlp_ack_delay *d, u32 rto_min_us);
enum tcp_tlp_probe tcp_tlp_choose_probe(const struct tcp_tlp_probe_input *in);
bool tcp_tlp_head_fits(u32 seq, u32 end_seq, u32 len, u32 mss, u32 wnd_end);
u32 tcp_tlp_tail_split(u32 len, u32 pcount, u32 mss);
enum tcp_tlp_verdict tcp_tlp_judge_ack(const struct tcp_tlp_ack_input *in);
u64 tcp_tlp_sack_first_xmit(const struct tcp_tlp_sack_input *in);
void tcp_tlp_ack_delay_update(struct tcp_tlp_ack_delay *d, u32 sample_us,
			      u32 now, u32 window);
bool tcp_tlp_acked_at_once(u32 sample_us, u32 delivered);
#endif

#endif /* _TCP_TLP_H */
