/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the GPIO challenge-and-response I2C arbitrator
 * (drivers/i2c/muxes/i2c-arb-gpio-challenge.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM i2c_arb

#if !defined(_TRACE_I2C_ARB_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_I2C_ARB_H

#include <linux/tracepoint.h>

/*
 * One claim of the shared bus, when it is released. Times are microseconds
 * on the monotonic clock, so the events of the arbitrators of one machine
 * line up: whether a master was passed over while it waited is then a
 * question the trace answers, whatever the timing.
 */
TRACE_EVENT(i2c_arb_claim,
	    TP_PROTO(int adapter_nr, u64 start_us, u64 end_us, u64 released_us,
		     u64 look_gap_us, unsigned int backoffs, int ret),
	    TP_ARGS(adapter_nr, start_us, end_us, released_us, look_gap_us,
		    backoffs, ret),
	    TP_STRUCT__entry(__field(int, adapter_nr)
			     __field(u64, start_us)
			     __field(u64, end_us)
			     __field(u64, released_us)
			     __field(u64, look_gap_us)
			     __field(unsigned int, backoffs)
			     __field(int, ret)
	    ),
	    TP_fast_assign(__entry->adapter_nr = adapter_nr;
			   __entry->start_us = start_us;
			   __entry->end_us = end_us;
			   __entry->released_us = released_us;
			   __entry->look_gap_us = look_gap_us;
			   __entry->backoffs = backoffs;
			   __entry->ret = ret;
	    ),
	    TP_printk("i2c-%d start=%llu end=%llu released=%llu look_gap=%llu backoffs=%u ret=%d",
		      __entry->adapter_nr, __entry->start_us, __entry->end_us,
		      __entry->released_us, __entry->look_gap_us,
		      __entry->backoffs, __entry->ret)
);

#endif /* _TRACE_I2C_ARB_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
