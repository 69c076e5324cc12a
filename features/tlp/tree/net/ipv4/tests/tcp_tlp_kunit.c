// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the tail loss probe decisions in tcp_tlp.c: when a probe
 * timeout may be armed, how long it is, which segment becomes the probe and
 * what the ACKs that follow say about it.
 */

#include <kunit/test.h>
#include <net/tcp.h>

#include "../tcp_tlp.h"

#define MSS 1448U
#define RTO_MIN_US 200000U

/* A connection that may be probed; each test breaks one condition. */
static struct tcp_tlp_sched_input probe_ready(void)
{
	return (struct tcp_tlp_sched_input){
		.early_retrans = 3,
		.ca_state = TCP_CA_Open,
		.sack = true,
		.packets_out = 10,
	};
}

/* Values 0, 1 and 2 of tcp_early_retrans disable TLP (1, 2 were ER). */
static void tlp_is_off_unless_early_retrans_is_3_or_4(struct kunit *test)
{
	struct tcp_tlp_sched_input in = probe_ready();
	u8 v;

	for (v = 0; v <= 5; v++) {
		in.early_retrans = v;
		KUNIT_EXPECT_EQ_MSG(test, tcp_tlp_may_schedule(&in),
				    v == 3 || v == 4, "tcp_early_retrans=%u", v);
	}
}

static void no_probe_before_fast_open_handshake_completes(struct kunit *test)
{
	struct tcp_tlp_sched_input in = probe_ready();

	in.fastopen_pending = true;
	KUNIT_EXPECT_FALSE(test, tcp_tlp_may_schedule(&in));
}

static void no_probe_with_nothing_in_flight(struct kunit *test)
{
	struct tcp_tlp_sched_input in = probe_ready();

	in.packets_out = 0;
	KUNIT_EXPECT_FALSE(test, tcp_tlp_may_schedule(&in));
}

static void no_probe_without_sack(struct kunit *test)
{
	struct tcp_tlp_sched_input in = probe_ready();

	in.sack = false;
	KUNIT_EXPECT_FALSE(test, tcp_tlp_may_schedule(&in));
}

/* Disorder, Recovery and Loss already act on SACKs or the RTO. */
static void probe_only_in_open_or_cwr_state(struct kunit *test)
{
	struct tcp_tlp_sched_input in = probe_ready();
	u8 state;

	for (state = TCP_CA_Open; state <= TCP_CA_Loss; state++) {
		in.ca_state = state;
		KUNIT_EXPECT_EQ_MSG(test, tcp_tlp_may_schedule(&in),
				    state == TCP_CA_Open || state == TCP_CA_CWR,
				    "ca_state %u", state);
	}
}

static struct tcp_tlp_pto_input pto_at(u32 srtt_us, u32 packets_out)
{
	return (struct tcp_tlp_pto_input){
		.srtt_us8 = srtt_us << 3,
		.packets_out = packets_out,
		.ack_delay_us = RTO_MIN_US,
		.rto_left_us = 10 * USEC_PER_SEC,
	};
}

static void pto_is_two_srtt_plus_2ms_with_several_segments_out(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(20000, 4);

	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 2 * 20000 + 2000);
	/* 2 * SRTT is srtt_us >> 2, as 6.12 computes it, to the microsecond */
	in.srtt_us8 = 8 * 20000 + 7;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 40001 + 2000);
}

static void pto_allows_for_delayed_ack_with_one_segment_out(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(20000, 1);

	in.ack_delay_us = 7000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 2 * 20000 + 7000);
}

static void pto_is_one_second_without_rtt_sample(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(0, 3);

	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), USEC_PER_SEC);
}

static void pto_never_fires_after_the_rto(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(20000, 1);

	in.rto_left_us = 150000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 150000);
	in = pto_at(0, 2);
	in.rto_left_us = 300000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 300000);
}

/* 0 tells the caller to keep the RTO that is already due. */
static void no_pto_when_the_rto_is_due(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(20000, 2);

	in.rto_left_us = 0;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 0);
	in.rto_left_us = -5000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), 0);
}

static void pto_of_a_huge_srtt_does_not_overflow(struct kunit *test)
{
	struct tcp_tlp_pto_input in = pto_at(0, 1);

	in.srtt_us8 = U32_MAX;
	in.ack_delay_us = U32_MAX;
	in.rto_left_us = S64_MAX;
	KUNIT_EXPECT_EQ(test, tcp_tlp_pto_us(&in), U32_MAX);
}

#define DELACK_MIN_US	40000U
#define WINDOW		(300 * HZ)

static struct tcp_tlp_ack_delay ack_delay(u32 max_us, bool at_once)
{
	return (struct tcp_tlp_ack_delay){
		.max_us = max_us, .stamp = 1000, .at_once = at_once,
	};
}

static void unmeasured_peer_gets_the_rto_floor_as_ack_delay(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(0, false);

	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), RTO_MIN_US);
	d.at_once = true;
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), RTO_MIN_US);
}

static void measured_ack_delay_gets_a_quarter_and_2ms_margin(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(40000, false);

	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US),
			40000 + 10000 + 2000);
	d = ack_delay(1, true);
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), 1 + 2000);
}

/* A peer seen only quick-ACKing may still delay its next lone segment. */
static void allowance_stays_a_delayed_ack_until_the_peer_acks_at_once(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(1, false);

	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), DELACK_MIN_US);
	d.max_us = 20000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), DELACK_MIN_US);
	d.max_us = 36000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), 36000 + 9000 + 2000);
	/* Seen ACKing at once: the measurement alone. */
	d.at_once = true;
	d.max_us = 20000;
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), 20000 + 5000 + 2000);
}

static void measured_ack_delay_never_exceeds_the_rto_floor(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(190000, true);

	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), RTO_MIN_US);
	d.max_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, RTO_MIN_US), RTO_MIN_US);
	/* A route's rto_min below the delayed-ACK floor still caps it. */
	d = ack_delay(1, false);
	KUNIT_EXPECT_EQ(test, tcp_tlp_ack_delay_us(&d, 5000), 5000);
}

static void first_ack_delay_sample_is_taken_as_is(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(0, false);

	tcp_tlp_ack_delay_update(&d, 3000, 5000, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 3000);
	KUNIT_EXPECT_EQ(test, d.stamp, 5000);
}

/* 0 would read as "not measured": an undelayed peer is measured as 1 us. */
static void ack_delay_estimate_is_never_zero(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(0, false);

	tcp_tlp_ack_delay_update(&d, 0, 1000, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 1);
	/* Also when a 0 replaces a maximum that aged out. */
	d.max_us = 40000;
	tcp_tlp_ack_delay_update(&d, 0, 1001 + WINDOW, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 1);
}

static void larger_ack_delay_replaces_the_estimate(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(3000, false);

	tcp_tlp_ack_delay_update(&d, 40000, 1001, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 40000);
	KUNIT_EXPECT_EQ(test, d.stamp, 1001);
}

/* Undelayed ACKs in between must not pull the estimate down. */
static void smaller_ack_delays_within_the_window_leave_the_maximum(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(40000, false);
	u32 t;

	for (t = 1001; t <= 1000 + WINDOW; t += HZ)
		tcp_tlp_ack_delay_update(&d, 0, t, WINDOW);
	tcp_tlp_ack_delay_update(&d, 0, 1000 + WINDOW, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 40000);
	KUNIT_EXPECT_EQ(test, d.stamp, 1000);
}

static void maximum_older_than_the_window_gives_way_to_a_new_sample(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(40000, false);

	tcp_tlp_ack_delay_update(&d, 500, 1001 + WINDOW, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 500);
	KUNIT_EXPECT_EQ(test, d.stamp, 1001 + WINDOW);
}

static void window_survives_jiffies_wraparound(struct kunit *test)
{
	struct tcp_tlp_ack_delay d = ack_delay(40000, false);

	d.stamp = U32_MAX - 10;
	/* Before now wraps: stamp + window wrapped, now has not. */
	tcp_tlp_ack_delay_update(&d, 0, U32_MAX - 5, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 40000);
	tcp_tlp_ack_delay_update(&d, 0, 10, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 40000);
	tcp_tlp_ack_delay_update(&d, 0, U32_MAX - 10 + WINDOW + 1, WINDOW);
	KUNIT_EXPECT_EQ(test, d.max_us, 1);
}

/*
 * The first 16 data segments a Linux receiver ACKs at once, delayed ACK or
 * not; tp->delivered counts the handshake's SYN or SYN-ACK as one more.
 */
static void undelayed_ack_in_the_quick_ack_start_does_not_count(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, tcp_tlp_acked_at_once(0, 1));
	KUNIT_EXPECT_FALSE(test, tcp_tlp_acked_at_once(0, TCP_MAX_QUICKACKS + 1));
	KUNIT_EXPECT_TRUE(test, tcp_tlp_acked_at_once(0, TCP_MAX_QUICKACKS + 2));
}

static void only_an_ack_well_under_a_delayed_ack_is_at_once(struct kunit *test)
{
	u32 past = TCP_MAX_QUICKACKS + 100;

	KUNIT_EXPECT_TRUE(test, tcp_tlp_acked_at_once(DELACK_MIN_US / 2 - 1, past));
	KUNIT_EXPECT_FALSE(test, tcp_tlp_acked_at_once(DELACK_MIN_US / 2, past));
	KUNIT_EXPECT_FALSE(test, tcp_tlp_acked_at_once(40000, past));
}

/* RFC 8985 7.3 condition 1: at most one probe in flight. */
static void no_second_probe_while_one_is_unacknowledged(struct kunit *test)
{
	struct tcp_tlp_probe_input in = {
		.episode_open = true, .new_data = true, .new_data_fits = true,
		.have_tail = true,
	};

	KUNIT_EXPECT_EQ(test, tcp_tlp_choose_probe(&in), TCP_TLP_PROBE_SKIP);
}

static void probe_is_new_data_when_the_window_admits_it(struct kunit *test)
{
	struct tcp_tlp_probe_input in = {
		.new_data = true, .new_data_fits = true, .have_tail = true,
	};

	KUNIT_EXPECT_EQ(test, tcp_tlp_choose_probe(&in), TCP_TLP_PROBE_NEW);
}

static void probe_resends_the_tail_when_the_window_is_full(struct kunit *test)
{
	struct tcp_tlp_probe_input in = { .new_data = true, .have_tail = true };

	KUNIT_EXPECT_EQ(test, tcp_tlp_choose_probe(&in), TCP_TLP_PROBE_TAIL);
}

static void probe_resends_the_tail_when_no_new_data_waits(struct kunit *test)
{
	struct tcp_tlp_probe_input in = { .have_tail = true };

	KUNIT_EXPECT_EQ(test, tcp_tlp_choose_probe(&in), TCP_TLP_PROBE_TAIL);
}

static void nothing_to_probe_with_an_empty_queue(struct kunit *test)
{
	struct tcp_tlp_probe_input in = {};

	KUNIT_EXPECT_EQ(test, tcp_tlp_choose_probe(&in), TCP_TLP_PROBE_NOTHING);
}

static void new_segment_fits_when_it_ends_at_the_window_edge(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, tcp_tlp_head_fits(1000, 1000 + MSS, MSS, MSS,
						  1000 + MSS));
	KUNIT_EXPECT_FALSE(test, tcp_tlp_head_fits(1000, 1000 + MSS, MSS, MSS,
						   1000 + MSS - 1));
}

/* Only the first MSS of a large unsent skb has to fit. */
static void only_the_first_mss_of_a_large_head_must_fit(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, tcp_tlp_head_fits(0, 4 * MSS, 4 * MSS, MSS, MSS));
	KUNIT_EXPECT_FALSE(test, tcp_tlp_head_fits(0, 4 * MSS, 4 * MSS, MSS,
						   MSS - 1));
}

/* A FIN takes a sequence number, so it needs window too. */
static void head_with_fin_needs_one_more_sequence_number(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, tcp_tlp_head_fits(0, 101, 100, MSS, 100));
	KUNIT_EXPECT_TRUE(test, tcp_tlp_head_fits(0, 101, 100, MSS, 101));
}

static void window_test_survives_sequence_wraparound(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, tcp_tlp_head_fits(0xffffff00U, 0xffffff00U + MSS,
						  MSS, MSS, 0x1000));
}

static void single_segment_tail_is_resent_whole(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(MSS, 1, MSS), 0);
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(100, 1, MSS), 0);
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(0, 0, MSS), 0);
}

static void multi_segment_tail_is_split_before_its_last_mss(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(3 * MSS, 3, MSS), 2 * MSS);
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(2 * MSS + 1, 3, MSS), 2 * MSS);
}

/* After the MSS grew, the skb may hold fewer full segments than pcount. */
static void short_tail_skb_is_resent_whole(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tcp_tlp_tail_split(2 * MSS, 3, MSS), 0);
}

static struct tcp_tlp_ack_input ack_of(u32 ack, bool is_retrans)
{
	return (struct tcp_tlp_ack_input){
		.ack = ack, .end_seq = 50000, .is_retrans = is_retrans,
	};
}

static void ack_below_the_probe_decides_nothing(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(49999, true);

	in.dsack_probe = true;
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_OPEN);
	in = ack_of(40000, false);
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_OPEN);
}

static void new_data_probe_ends_when_acknowledged(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(50000, false);

	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_DELIVERED);
	in = ack_of(60000, false);
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_DELIVERED);
}

static void dsack_of_the_probe_means_nothing_was_lost(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(60000, true);

	in.dsack_probe = true;
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_NOT_NEEDED);
}

static void ack_beyond_the_probe_without_dsack_is_a_repair(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(50001, true);

	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_REPAIRED);
}

static void pure_dupack_at_the_probe_means_nothing_was_lost(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(50000, true);

	in.dupack = true;
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_NOT_NEEDED);
}

/* The DSACK of the second copy may still follow this ACK. */
static void ack_of_exactly_the_probe_waits_for_a_dsack(struct kunit *test)
{
	struct tcp_tlp_ack_input in = ack_of(50000, true);

	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_OPEN);
}

static void probe_verdict_survives_sequence_wraparound(struct kunit *test)
{
	struct tcp_tlp_ack_input in = {
		.ack = 10, .end_seq = 0xfffffff0U, .is_retrans = true,
	};

	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_REPAIRED);
	in.ack = 0xffffffe0U;
	KUNIT_EXPECT_EQ(test, tcp_tlp_judge_ack(&in), TCP_TLP_OPEN);
}

/* A fast SACK of the probe's segment, extension on, first copy known. */
static const struct tcp_tlp_sack_input fast_probe_sack = {
	.enabled = true, .high_seq = 5000, .is_retrans = true,
	.first_xmit_us = 123456789, .end_seq = 5000,
};

static void fast_sack_of_probe_dates_from_first_copy(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&fast_probe_sack),
			123456789ULL);
}

static void fast_sack_is_ignored_with_extension_off(struct kunit *test)
{
	struct tcp_tlp_sack_input in = fast_probe_sack;

	in.enabled = false;
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&in), 0ULL);
}

static void fast_sack_of_another_segment_is_ignored(struct kunit *test)
{
	struct tcp_tlp_sack_input in = fast_probe_sack;

	in.end_seq = 3552;
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&in), 0ULL);
}

/* Nothing was retransmitted by a new-data probe; no probe, no episode. */
static void fast_sack_without_retransmitted_probe_is_ignored(struct kunit *test)
{
	struct tcp_tlp_sack_input in = fast_probe_sack;

	in.is_retrans = false;
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&in), 0ULL);
	in = fast_probe_sack;
	in.high_seq = 0;
	in.end_seq = 0;
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&in), 0ULL);
}

/* A segment retransmitted before the probe: its first copy is unknown. */
static void fast_sack_of_segment_resent_before_is_ignored(struct kunit *test)
{
	struct tcp_tlp_sack_input in = fast_probe_sack;

	in.first_xmit_us = 0;
	KUNIT_EXPECT_EQ(test, tcp_tlp_sack_first_xmit(&in), 0ULL);
}

static struct kunit_case tcp_tlp_test_cases[] = {
	KUNIT_CASE(tlp_is_off_unless_early_retrans_is_3_or_4),
	KUNIT_CASE(no_probe_before_fast_open_handshake_completes),
	KUNIT_CASE(no_probe_with_nothing_in_flight),
	KUNIT_CASE(no_probe_without_sack),
	KUNIT_CASE(probe_only_in_open_or_cwr_state),
	KUNIT_CASE(pto_is_two_srtt_plus_2ms_with_several_segments_out),
	KUNIT_CASE(pto_allows_for_delayed_ack_with_one_segment_out),
	KUNIT_CASE(pto_is_one_second_without_rtt_sample),
	KUNIT_CASE(pto_never_fires_after_the_rto),
	KUNIT_CASE(no_pto_when_the_rto_is_due),
	KUNIT_CASE(pto_of_a_huge_srtt_does_not_overflow),
	KUNIT_CASE(unmeasured_peer_gets_the_rto_floor_as_ack_delay),
	KUNIT_CASE(measured_ack_delay_gets_a_quarter_and_2ms_margin),
	KUNIT_CASE(measured_ack_delay_never_exceeds_the_rto_floor),
	KUNIT_CASE(first_ack_delay_sample_is_taken_as_is),
	KUNIT_CASE(ack_delay_estimate_is_never_zero),
	KUNIT_CASE(larger_ack_delay_replaces_the_estimate),
	KUNIT_CASE(allowance_stays_a_delayed_ack_until_the_peer_acks_at_once),
	KUNIT_CASE(smaller_ack_delays_within_the_window_leave_the_maximum),
	KUNIT_CASE(maximum_older_than_the_window_gives_way_to_a_new_sample),
	KUNIT_CASE(window_survives_jiffies_wraparound),
	KUNIT_CASE(undelayed_ack_in_the_quick_ack_start_does_not_count),
	KUNIT_CASE(only_an_ack_well_under_a_delayed_ack_is_at_once),
	KUNIT_CASE(no_second_probe_while_one_is_unacknowledged),
	KUNIT_CASE(probe_is_new_data_when_the_window_admits_it),
	KUNIT_CASE(probe_resends_the_tail_when_the_window_is_full),
	KUNIT_CASE(probe_resends_the_tail_when_no_new_data_waits),
	KUNIT_CASE(nothing_to_probe_with_an_empty_queue),
	KUNIT_CASE(new_segment_fits_when_it_ends_at_the_window_edge),
	KUNIT_CASE(only_the_first_mss_of_a_large_head_must_fit),
	KUNIT_CASE(head_with_fin_needs_one_more_sequence_number),
	KUNIT_CASE(window_test_survives_sequence_wraparound),
	KUNIT_CASE(single_segment_tail_is_resent_whole),
	KUNIT_CASE(multi_segment_tail_is_split_before_its_last_mss),
	KUNIT_CASE(short_tail_skb_is_resent_whole),
	KUNIT_CASE(ack_below_the_probe_decides_nothing),
	KUNIT_CASE(new_data_probe_ends_when_acknowledged),
	KUNIT_CASE(dsack_of_the_probe_means_nothing_was_lost),
	KUNIT_CASE(ack_beyond_the_probe_without_dsack_is_a_repair),
	KUNIT_CASE(pure_dupack_at_the_probe_means_nothing_was_lost),
	KUNIT_CASE(ack_of_exactly_the_probe_waits_for_a_dsack),
	KUNIT_CASE(probe_verdict_survives_sequence_wraparound),
	KUNIT_CASE(fast_sack_of_probe_dates_from_first_copy),
	KUNIT_CASE(fast_sack_is_ignored_with_extension_off),
	KUNIT_CASE(fast_sack_of_another_segment_is_ignored),
	KUNIT_CASE(fast_sack_without_retransmitted_probe_is_ignored),
	KUNIT_CASE(fast_sack_of_segment_resent_before_is_ignored),
	{}
};

static struct kunit_suite tcp_tlp_test_suite = {
	.name = "tcp_tlp",
	.test_cases = tcp_tlp_test_cases,
};

kunit_test_suite(tcp_tlp_test_suite);

MODULE_DESCRIPTION("KUnit tests for the TCP tail loss probe");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
