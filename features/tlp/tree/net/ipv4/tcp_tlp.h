/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tail loss probe (RFC 8985 section 7): the decisions of tcp_tlp.c as pure
 * functions of plain values, so that KUnit can test every branch without a
 * socket. Not an API for the rest of the stack: include/net/tcp.h has that.
 */
#ifndef _TCP_TLP_H
#define _TCP_TLP_H

#include <linux/tcp.h>
#include <linux/time64.h>
#include <linux/types.h>

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

enum tcp_tlp_verdict {
	TCP_TLP_OPEN,		/* not decided yet: the episode goes on */
	TCP_TLP_DELIVERED,	/* a new-data probe was acknowledged */
	TCP_TLP_NOT_NEEDED,	/* original and probe both arrived */
	TCP_TLP_REPAIRED,	/* the probe repaired a lost segment */
};

#if IS_ENABLED(CONFIG_KUNIT)
bool tcp_tlp_may_schedule(const struct tcp_tlp_sched_input *in);
u32 tcp_tlp_pto_us(const struct tcp_tlp_pto_input *in);
u32 tcp_tlp_ack_delay_us(const struct tcp_tlp_ack_delay *d, u32 rto_min_us);
enum tcp_tlp_probe tcp_tlp_choose_probe(const struct tcp_tlp_probe_input *in);
bool tcp_tlp_head_fits(u32 seq, u32 end_seq, u32 len, u32 mss, u32 wnd_end);
u32 tcp_tlp_tail_split(u32 len, u32 pcount, u32 mss);
enum tcp_tlp_verdict tcp_tlp_judge_ack(const struct tcp_tlp_ack_input *in);
bool tcp_tlp_rtt_fits_probe(u32 rtt_us, u32 min_rtt_us);
void tcp_tlp_ack_delay_update(struct tcp_tlp_ack_delay *d, u32 sample_us,
			      u32 now, u32 window);
bool tcp_tlp_acked_at_once(u32 sample_us, u32 delivered);
#endif

#endif /* _TCP_TLP_H */
