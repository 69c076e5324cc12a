// SPDX-License-Identifier: GPL-2.0-only
/*
 * TCP tail loss probe (TLP), RFC 8985 section 7.
 *
 * When the last segments of a flight are lost, no ACK comes back at all:
 * there are no duplicate ACKs and no SACKs for RACK (tcp_recovery.c) to work
 * with, and the sender would sit out a retransmission timeout. TLP arms a
 * shorter probe timeout (PTO) instead, about two round trips after the last
 * transmission, and when it fires sends one probe segment: new data if the
 * peer's window admits it, else the last segment again. The ACK or SACK of
 * the probe is what lets RACK see the tail loss and start fast recovery, or
 * shows that the probe itself repaired a single lost segment.
 *
 * TLP never detects losses itself and never replaces the RTO: after a probe
 * the RTO is armed again as the last resort (RFC 8985 section 7.3), and at
 * most one of the reorder, probe and retransmission timers is pending
 * (section 8), all multiplexed on icsk_retransmit_timer.
 *
 * State: tp->tlp_high_seq is TLP.end_seq (0 while no probe is in flight),
 * tp->tlp_retrans is TLP.is_retrans. tcp_enter_loss(), tcp_enter_recovery()
 * and tcp_init_cwnd_reduction() end an episode when recovery starts.
 *
 * Two extensions, each off by default behind its per-netns sysctl
 * (net.ipv4.tcp_tlp_*, ip-sysctl.rst says why they are off): a measured
 * peer ACK delay in place of the fixed one-segment allowance, and RACK
 * dating a fast SACK of a retransmitted probe from the first copy's send.
 */

#include <linux/jump_label.h>
#include <net/tcp.h>
#include <kunit/visibility.h>
#include <trace/events/tcp.h>

#include "tcp_tlp.h"

/*
 * The delayed-ACK allowance for one outstanding segment (RFC 8985 section
 * 7.2: the peer's worst-case ACK delay). Knowing nothing of the peer,
 * assume the largest delay a receiver is expected to use: the RTO floor.
 * Once ACKs of lone segments have been timed (tcp_tlp_sample_ack_delay()),
 * allow the largest recent delay with a quarter and 2 ms of margin, but no
 * less than a Linux receiver's shortest delayed ACK until this peer has
 * ACKed a lone segment at once past its quick-ACK start: a peer seen only
 * quick-ACKing has not yet shown the delay it uses afterwards. Never more
 * than the RTO floor: a longer PTO would gain nothing over the RTO.
 */
VISIBLE_IF_KUNIT u32 tcp_tlp_ack_delay_us(const struct tcp_tlp_ack_delay *d,
					  u32 rto_min_us)
{
	u64 allow_us;

	if (!d->max_us)
		return rto_min_us;
	allow_us = (u64)d->max_us + d->max_us / 4 + TCP_TIMEOUT_MIN_US;
	if (!d->at_once)
		allow_us = max_t(u64, allow_us, TCP_TLP_DELACK_MIN_US);
	return min_t(u64, allow_us, rto_min_us);
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_ack_delay_us);

/*
 * Keep the largest ACK delay sampled within @window jiffies: a peer that
 * delayed an ACK once will again, and one ACK that came back at once says
 * nothing about the next lone segment. A sample at least as large, or one
 * that arrives after the kept maximum has aged out, takes its place. 0
 * means "never sampled", so a sample of 0 is kept as 1 us.
 */
VISIBLE_IF_KUNIT void tcp_tlp_ack_delay_update(struct tcp_tlp_ack_delay *d,
					       u32 sample_us, u32 now,
					       u32 window)
{
	if (d->max_us && sample_us < d->max_us && now - d->stamp <= window)
		return;
	d->max_us = max(sample_us, 1U);
	d->stamp = now;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_ack_delay_update);

/*
 * Did the peer ACK a lone segment at once rather than on its delayed-ACK
 * timer? Only a sample well under the shortest such timer says so, and
 * only once the peer has received more data segments than a Linux
 * receiver quick-ACKs at the start of a connection (TCP_MAX_QUICKACKS;
 * @delivered also counts the handshake's SYN or SYN-ACK). A Linux receiver
 * also quick-ACKs after a pause in the data longer than its RTO, after
 * out-of-order data or a CE mark, and an ACK that rides on the peer's own
 * data comes at once: those lift the floor too. What keeps a delayed
 * lone segment from being probed then is the windowed maximum, as soon
 * as one delayed ACK was seen in the window.
 */
VISIBLE_IF_KUNIT bool tcp_tlp_acked_at_once(u32 sample_us, u32 delivered)
{
	return delivered > TCP_MAX_QUICKACKS + 1 &&
	       sample_us < TCP_TLP_DELACK_MIN_US / 2;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_acked_at_once);

/*
 * RFC 8985 section 7.3: at most one probe in flight; prefer new data, which
 * probes without any ambiguity and may exceed cwnd by one segment, else the
 * highest sequence sent, so that its SACK exposes every hole below it.
 */
VISIBLE_IF_KUNIT enum tcp_tlp_probe
tcp_tlp_choose_probe(const struct tcp_tlp_probe_input *in)
{
	if (in->episode_open)
		return TCP_TLP_PROBE_SKIP;
	if (in->new_data && in->new_data_fits)
		return TCP_TLP_PROBE_NEW;
	if (!in->have_tail)
		return TCP_TLP_PROBE_NOTHING;
	return TCP_TLP_PROBE_TAIL;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_choose_probe);

/*
 * Does the first segment of the unsent head (seq, end_seq, len bytes) fit
 * into the peer's receive window, which ends at wnd_end? A probe may exceed
 * cwnd, never the receive window.
 */
VISIBLE_IF_KUNIT bool tcp_tlp_head_fits(u32 seq, u32 end_seq, u32 len, u32 mss,
					u32 wnd_end)
{
	if (len > mss)
		end_seq = seq + mss;
	return !after(end_seq, wnd_end);
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_head_fits);

/*
 * Where to split the last skb (len bytes, pcount segments of mss) so that the
 * probe is its last segment alone: the offset of that segment, or 0 when the
 * skb is a single segment (or shorter than pcount - 1 full ones, which only a
 * shrinking MSS can make) and goes out whole.
 */
VISIBLE_IF_KUNIT u32 tcp_tlp_tail_split(u32 len, u32 pcount, u32 mss)
{
	u64 head_len;

	if (pcount <= 1)
		return 0;
	head_len = (u64)(pcount - 1) * mss;
	return len > head_len ? head_len : 0;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_tail_split);

/*
 * RFC 8985 section 7.4.2. Nothing is decided until the ACK covers
 * TLP.end_seq. A new-data probe then simply arrived. For a retransmitted
 * probe, a DSACK of it, or a duplicate ACK carrying nothing, means the
 * original got through too; an ACK beyond TLP.end_seq without such a DSACK
 * means the probe filled a hole. An ACK of exactly TLP.end_seq waits: the
 * DSACK of the second copy may still be on its way.
 */
VISIBLE_IF_KUNIT enum tcp_tlp_verdict
tcp_tlp_judge_ack(const struct tcp_tlp_ack_input *in)
{
	if (before(in->ack, in->end_seq))
		return TCP_TLP_OPEN;
	if (!in->is_retrans)
		return TCP_TLP_DELIVERED;
	if (in->dsack_probe)
		return TCP_TLP_NOT_NEEDED;
	if (after(in->ack, in->end_seq))
		return TCP_TLP_REPAIRED;
	if (in->dupack)
		return TCP_TLP_NOT_NEEDED;
	return TCP_TLP_OPEN;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_judge_ack);

/*
 * The send time RACK may take for an ambiguous SACK (one that came back
 * sooner than min_rtt after a retransmission), or 0 to ignore it as 6.12
 * does. Only for the segment of a retransmitted probe whose first copy's
 * send time is known: that copy left before every later one, so whichever
 * copy the receiver got, everything sent before the first one is overdue,
 * and RACK marks no more than it would for the first copy's own SACK.
 * No guess from the RTT, so no reordering or jitter can make it wrong.
 */
VISIBLE_IF_KUNIT u64 tcp_tlp_sack_first_xmit(const struct tcp_tlp_sack_input *in)
{
	if (!in->enabled || !in->high_seq || !in->is_retrans)
		return 0;
	return in->end_seq == in->high_seq ? in->first_xmit_us : 0;
}
EXPORT_SYMBOL_IF_KUNIT(tcp_tlp_sack_first_xmit);

/* The samples are relative to min_rtt: keep them as long as it. */
static u32 tcp_tlp_ack_delay_window(const struct net *net)
{
	return READ_ONCE(net->ipv4.sysctl_tcp_min_rtt_wlen) * HZ;
}

/*
 * A maximum older than the window says nothing any more: as unmeasured.
 * Only with one segment out; out of line, so that its copy of the
 * estimate is not in the frame of every PTO.
 */
static noinline u32 tcp_tlp_peer_ack_delay(const struct sock *sk)
{
	struct tcp_tlp_ack_delay d = tcp_sk(sk)->tlp_ack_delay;
	const struct net *net = sock_net(sk);
	u32 rto_min_us = tcp_rto_min_us(sk);

	if (!READ_ONCE(net->ipv4.sysctl_tcp_tlp_peer_ack_delay))
		return rto_min_us;
	if (tcp_jiffies32 - d.stamp > tcp_tlp_ack_delay_window(net))
		d.max_us = 0;
	return tcp_tlp_ack_delay_us(&d, rto_min_us);
}

/*
 * tcp_schedule_loss_probe() with something in flight. Out of line, so that
 * the ACKs of everything in flight (most of those that get there) pay
 * neither its stack frame nor its loads.
 */
static noinline bool tcp_tlp_arm(struct sock *sk, bool advancing_rto)
{
	struct inet_connection_sock *icsk = inet_csk(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_tlp_sched_input now;
	struct tcp_tlp_pto_input pto = { 0 };
	u32 pto_us;

	now.early_retrans = READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_early_retrans);
	now.ca_state = icsk->icsk_ca_state;
	now.sack = tcp_is_sack(tp);
	now.fastopen_pending = !!rcu_access_pointer(tp->fastopen_rsk);
	now.packets_out = tp->packets_out;
	if (!tcp_tlp_may_schedule(&now))
		return false;

	/*
	 * The RTO's time left first, and out if it is up (tcp_tlp_pto_us()
	 * would say 0): fewer values stay live across the calls, so every
	 * re-arm saves and restores fewer registers.
	 */
	pto.rto_left_us = advancing_rto ? jiffies_to_usecs(icsk->icsk_rto) :
					  tcp_rto_delta_us(sk);
	if (pto.rto_left_us <= 0)
		return false;
	pto.srtt_us8 = tp->srtt_us;
	pto.packets_out = tp->packets_out;
	/* Only one segment out waits for a delayed ACK (tcp_tlp_pto_us()). */
	pto.ack_delay_us = tp->packets_out == 1 ? tcp_tlp_peer_ack_delay(sk) : 0;
	pto_us = tcp_tlp_pto_us(&pto);
	if (!pto_us)
		return false;

	tcp_reset_xmit_timer(sk, ICSK_TIME_LOSS_PROBE, usecs_to_jiffies(pto_us),
			     TCP_RTO_MAX);
	return true;
}

/**
 * tcp_schedule_loss_probe() - arm the probe timeout in place of the RTO
 * @sk: the socket, locked
 * @advancing_rto: the RTO is being restarted from now (an ACK of new data);
 *	otherwise it keeps running from the transmission of the oldest
 *	outstanding segment
 *
 * Called after new data was sent and on ACKs that (S)ACK data.
 *
 * Return: true if the PTO is armed, false if the caller keeps the RTO.
 */
bool tcp_schedule_loss_probe(struct sock *sk, bool advancing_rto)
{
	/* An ACK of everything: nothing can be lost, the RTO is stopped. */
	if (!tcp_sk(sk)->packets_out)
		return false;
	return tcp_tlp_arm(sk, advancing_rto);
}

/*
 * push_one == 2 lets tcp_write_xmit() send one segment past cwnd. Returns
 * the segment sent, now the last of the retransmit queue, or NULL.
 */
static struct sk_buff *tcp_tlp_send_new(struct sock *sk, int mss)
{
	u32 packets_before = tcp_sk(sk)->packets_out;

	tcp_write_xmit(sk, mss, TCP_NAGLE_OFF, 2, GFP_ATOMIC);
	if (tcp_sk(sk)->packets_out <= packets_before)
		return NULL;
	return skb_rb_last(&sk->tcp_rtx_queue);
}

/*
 * Send the last segment again, alone; returns it, or NULL if it stayed.
 * Notes when its first copy left, if this is its first retransmission.
 */
static struct sk_buff *tcp_tlp_resend_tail(struct sock *sk, int mss)
{
	struct sk_buff *skb = skb_rb_last(&sk->tcp_rtx_queue);
	struct tcp_sock *tp = tcp_sk(sk);
	u32 split;

	/* The original is still in a qdisc or the driver: nothing was lost. */
	if (skb_still_in_host_queue(sk, skb))
		return NULL;
	if (WARN_ON(!tcp_skb_pcount(skb)))
		return NULL;

	split = tcp_tlp_tail_split(skb->len, tcp_skb_pcount(skb), mss);
	if (split) {
		if (unlikely(tcp_fragment(sk, TCP_FRAG_IN_RTX_QUEUE, skb, split,
					  mss, GFP_ATOMIC)))
			return NULL;
		skb = skb_rb_next(skb);
		if (WARN_ON(!skb || !tcp_skb_pcount(skb)))
			return NULL;
	}
	/* A split tail keeps the send time and the flags of the whole. */
	tp->tlp_first_xmit_us = TCP_SKB_CB(skb)->sacked & TCPCB_EVER_RETRANS ?
				0 : tcp_skb_timestamp_us(skb);
	return __tcp_retransmit_skb(sk, skb, 1) ? NULL : skb;
}

static void tcp_tlp_probe_sent(struct sock *sk, const struct sk_buff *probe,
			       bool retrans, bool lone)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->tlp_high_seq = tp->snd_nxt;
	tp->tlp_retrans = retrans;
	/* Its PTO waited for a delayed ACK: tcp_tlp_spurious() asks. */
	tp->tlp_ack_delay.probe_lone = lone;
	NET_INC_STATS(sock_net(sk), LINUX_MIB_TCPLOSSPROBES);
	trace_tcp_tlp_probe(sk, probe, retrans);
	/* Not pending any more, so tcp_rearm_rto() runs a full RTO from now. */
	inet_csk(sk)->icsk_pending = 0;
}

/**
 * tcp_send_loss_probe() - the probe timeout fired: send one probe segment
 * @sk: the socket, locked (the write timer handler)
 *
 * Whether a probe went out or not, the RTO is armed next (RFC 8985 7.3).
 */
void tcp_send_loss_probe(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sk_buff *head = tcp_send_head(sk);
	int mss = tcp_current_mss(sk);
	struct tcp_tlp_probe_input in = {
		.episode_open = tp->tlp_high_seq != 0,
		.new_data = !!head,
		.new_data_fits = head &&
				 tcp_tlp_head_fits(TCP_SKB_CB(head)->seq,
						   TCP_SKB_CB(head)->end_seq,
						   head->len, mss,
						   tcp_wnd_end(tp)),
		.have_tail = !tcp_rtx_queue_empty(sk),
	};
	bool lone = tp->packets_out == 1;
	struct sk_buff *probe;

	switch (tcp_tlp_choose_probe(&in)) {
	case TCP_TLP_PROBE_NEW:
		probe = tcp_tlp_send_new(sk, mss);
		if (probe)
			tcp_tlp_probe_sent(sk, probe, false, lone);
		break;
	case TCP_TLP_PROBE_TAIL:
		probe = tcp_tlp_resend_tail(sk, mss);
		if (probe)
			tcp_tlp_probe_sent(sk, probe, true, lone);
		break;
	case TCP_TLP_PROBE_NOTHING:
		WARN_ONCE(tp->packets_out,
			  "TLP: %u packets out but empty rtx queue, state %u\n",
			  tp->packets_out, sk->sk_state);
		inet_csk(sk)->icsk_pending = 0;
		return;
	case TCP_TLP_PROBE_SKIP:
		break;
	}
	tcp_rearm_rto(sk);
}

/*
 * Original and probe both arrived: TCPLossProbeSpurious, so that nstat shows
 * how many probes a host sent for nothing. If the probe's PTO allowed for a
 * delayed ACK (one segment was out when it fired), the peer held its ACK
 * longer than the measured allowance, and Karn's rule hides by how much:
 * allow the full RTO floor, and no less than a delayed ACK, until that
 * maximum ages out of the window. A probe of a longer flight says nothing
 * about the peer's delayed ACK.
 */
static void tcp_tlp_spurious(struct sock *sk)
{
	struct tcp_tlp_ack_delay *d = &tcp_sk(sk)->tlp_ack_delay;

	NET_INC_STATS(sock_net(sk), LINUX_MIB_TCPLOSSPROBESPURIOUS);
	if (READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_tlp_peer_ack_delay) &&
	    d->probe_lone) {
		d->max_us = tcp_rto_min_us(sk);
		d->stamp = tcp_jiffies32;
		d->at_once = false;
	}
}

/**
 * tcp_tlp_process_ack() - end the probe episode when an ACK decides it
 * @sk: the socket, locked, with a probe in flight (tp->tlp_high_seq != 0)
 * @ack: the cumulative ACK number
 * @dsack_probe: the ACK carries a DSACK of the probe's sequence range
 * @dupack: a pure duplicate ACK: acks and SACKs nothing, carries no data
 *
 * The congestion response to a repaired loss is the caller's (tcp_input.c),
 * next to the cwnd reduction helpers it shares with fast recovery.
 *
 * Return: true if the episode ended with the probe repairing a lost segment.
 */
bool tcp_tlp_process_ack(struct sock *sk, u32 ack, bool dsack_probe,
			 bool dupack)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcp_tlp_ack_input in = {
		.ack = ack,
		.end_seq = tp->tlp_high_seq,
		.is_retrans = tp->tlp_retrans,
		.dsack_probe = dsack_probe,
		.dupack = dupack,
	};
	enum tcp_tlp_verdict verdict = tcp_tlp_judge_ack(&in);

	if (verdict == TCP_TLP_OPEN)
		return false;
	if (verdict == TCP_TLP_NOT_NEEDED)
		tcp_tlp_spurious(sk);
	tp->tlp_high_seq = 0;
	return verdict == TCP_TLP_REPAIRED;
}

/*
 * The ACK path's call of tcp_tlp_sample_ack_delay(), a patched-out branch
 * where jump labels are: the sysctl's handler (sysctl_net_ipv4.c) turns it
 * on for good once any netns sets tcp_tlp_peer_ack_delay, as
 * tcp_md5_needed is for any socket with a key.
 */
DEFINE_STATIC_KEY_FALSE(tcp_tlp_ack_delay_sampling);

/**
 * tcp_tlp_sample_ack_delay() - learn how long the peer holds back its ACKs
 * @sk: the socket, locked
 * @rtt_us: RTT sample of the most recently sent segment this ACK covers,
 *	negative if there is none (retransmitted data)
 * @acked: segments this ACK took off the retransmit queue; 0 if any of them
 *	was retransmitted, it SACKed or D-SACKed anything, or it acked the
 *	handshake (tcp_ack() decides)
 *
 * Only an ACK of exactly one segment can have waited for the peer's
 * delayed-ACK timer: with two unacknowledged full segments a receiver ACKs
 * at once, and it ACKs a filled hole at once. For such an ACK, the part of
 * the RTT above min_rtt is time the ACK waited at the peer or in queues,
 * an upper bound of its delay. Called
 * from the ACK path once tcp_tlp_ack_delay_sampling is on; does nothing in
 * a netns whose tcp_tlp_peer_ack_delay is 0.
 */
void tcp_tlp_sample_ack_delay(struct sock *sk, long rtt_us, u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	const struct net *net = sock_net(sk);
	u32 min_rtt_us = tcp_min_rtt(tp), sample_us, window;

	if (!READ_ONCE(net->ipv4.sysctl_tcp_tlp_peer_ack_delay))
		return;
	if (acked != 1 || rtt_us < 0 || min_rtt_us == ~0U)
		return;
	sample_us = max_t(long, rtt_us - min_rtt_us, 0);
	window = tcp_tlp_ack_delay_window(net);
	tcp_tlp_ack_delay_update(&tp->tlp_ack_delay, sample_us, tcp_jiffies32,
				 window);
	if (tcp_tlp_acked_at_once(sample_us, tp->delivered))
		tp->tlp_ack_delay.at_once = true;
}

/**
 * tcp_tlp_probe_first_xmit() - when did the probe's segment first leave?
 * @tp: the socket
 * @end_seq: end of the (S)ACKed retransmitted range
 * @xmit_time: set to the first copy's send time (tcp_skb_timestamp_us())
 *
 * RACK ignores (S)ACKs of retransmissions that come back sooner than
 * min_rtt, unable to tell the copies apart, so a tail whose probe repaired
 * it waits for the RTO when the path got faster. For the probe's segment
 * the first copy's send time is a bound that holds for every copy, and
 * RACK may take that instead (tcp_tlp_sack_first_xmit()).
 *
 * Return: true, with @xmit_time set, if RACK should take the sample.
 */
bool tcp_tlp_probe_first_xmit(const struct tcp_sock *tp, u32 end_seq,
			      u64 *xmit_time)
{
	const struct net *net = sock_net((const struct sock *)tp);
	struct tcp_tlp_sack_input in = {
		.enabled = READ_ONCE(net->ipv4.sysctl_tcp_tlp_trust_probe_sack),
		.high_seq = tp->tlp_high_seq,
		.is_retrans = tp->tlp_retrans,
		.first_xmit_us = tp->tlp_first_xmit_us,
		.end_seq = end_seq,
	};
	u64 first = tcp_tlp_sack_first_xmit(&in);

	if (!first)
		return false;
	*xmit_time = first;
	return true;
}
