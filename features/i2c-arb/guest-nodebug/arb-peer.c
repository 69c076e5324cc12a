// SPDX-License-Identifier: GPL-2.0
/*
 * arb-peer - our arbitrator shares the bus with a master that is not itself:
 * the "lab,i2c-arb-peer" fixture (fixtures/i2c-wire-sim/i2c-arb-peer.c), a
 * kthread that claims the bus as the seed's ChromeOS EC does, with the EC's
 * timings (slew 10 us, wait-retry 3 ms, wait-free 100 ms), and writes one
 * EEPROM byte per claim on its own i2c-gpio adapter. Overlay
 * features/i2c-arb/i2c-arb-peer.dtso; our arbitrator at the binding's
 * defaults. The same suite runs on ours and on 6.12's arbitrator; the
 * non-debug kernel, because the claim waits are timing.
 *
 * One shared run: the peer saturates the bus (gap 0, cell PEER_CELL) while
 * one thread of ours writes and reads back its own EEPROM bytes through the
 * arbitrator for RUN_S seconds; then a run where the peer pauses DUTY_GAP_US
 * between its claims, as a busy EC would. On ours both runs are repeated with
 * seed_rounds 1 (claims as the seed and 6.12 make them): what our fairness
 * rules cost or give each side against a peer that does not follow them.
 * Then the peer is unloaded in the middle of a last run, and our side must
 * still transfer.
 */
#include "../guest/arb-lib.h"

#define PEER_DTBO	"i2c-arb-peer"
#define SIM_DIR		WSIM_DEBUGFS "/i2c-arb-peer-wires"
#define PEER_DIR	"/sys/kernel/debug/i2c-arb-peer/i2c-arb-peer-ec"
#define OUR_ARB		"i2c-arb-peer-a"
#define PEER_CELL	200	/* outside our EEPROM bytes (0..127) */
#define PEER_WIRE	3	/* the peer's claim wire */
#define RUN_S		10.0
#define UNLOAD_AFTER_S	1.5
#define AFTER_S		1.0
#define DUTY_GAP_US	5000

enum { C_BINDS, C_SAFE, C_PROGRESS, C_FAIR, C_WAITS, C_DUTY, C_SEED, C_UNLOAD, C_CASES };

static const char *const name[C_CASES] = {
	"the peer overlay binds: our arbitrator has its child bus and the peer its debugfs folder",
	"with the peer saturating the bus and our side hammering the EEPROM for 10 s, nothing collides on the wires and no byte is corrupted on either side",
	"both sides make progress while sharing the bus: our transfers and the peer's are both more than zero",
	"[extension] against the peer no claim of ours gives up with EBUSY that a stall does not explain, and the peer gives up none of its claims",
	"the peer reports its claim waits (p50 <= p99 <= max) and both sides' waits are reported",
	"with the peer pausing 5 ms between claims, nothing collides, no byte is corrupted and both sides progress",
	"[extension] with seed_rounds 1 (6.12's claims) against the same peer, saturating or pausing 5 ms, nothing collides, both sides progress, and both modes' shares are reported",
	"the peer unloaded in the middle of a run releases its claim wire, and our side still transfers afterwards",
};

/* Our side: one thread hammering our child bus until a deadline or told to stop. */
struct side {
	struct hammer h;
	double run_s;
	volatile int stop;
	pthread_t th;
};

static void *side_thread(void *arg)
{
	struct side *s = arg;
	double t0, end;
	long i;
	/* Master 0 runs on CPU 0; the peer's kthread is bound to the last CPU. */
	int fd = hammer_open(&s->h);

	if (fd < 0) {
		s->h.first_errno = -fd;
		s->h.failed = 1;
		return NULL;
	}
	t0 = lab_now();
	end = t0 + s->run_s;
	for (i = 0; !s->stop && lab_now() < end; i++)
		hammer_step(&s->h, fd, i);
	s->h.seconds = lab_now() - t0;
	close(fd);
	return NULL;
}

/* Our EEPROM bytes are those of master 0 of 2; the peer writes in master 1's. */
static void side_start(struct side *s, int bus, double run_s)
{
	memset(s, 0, sizeof(*s));
	s->h.bus = bus;
	s->h.masters = 2;
	s->run_s = run_s;
	pthread_create(&s->th, NULL, side_thread, s);
}

static void side_join(struct side *s)
{
	s->stop = 1;
	pthread_join(s->th, NULL);
}

/* The stall detector of arb-lib.h, one thread per CPU, as hammer_all() runs it. */
static struct lab_stall detector;

static void detect_start(void)
{
	arb_nstalls = 0;
	arb_stall_max_ms = 0;
	lab_stall_start(&detector, arb_note_stall);
}

static void detect_stop(void)
{
	lab_stall_stop(&detector);
}

static int peer_set(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), PEER_DIR "/%s", file);
	return lab_write(path, val);
}

static long long peer_stat(const char *stats, const char *key)
{
	return lab_key_num(stats, key);
}

/* "key value" lines as one diagnostic line. */
static const char *one_line(const char *text)
{
	static char buf[1024];
	char *p;

	snprintf(buf, sizeof(buf), "%s", text);
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return buf;
}

static int overlay_id = -1;

static bool topo_up(int *bus)
{
	double end = lab_now() + 10;

	overlay_id = lab_overlay_apply(PEER_DTBO);
	if (overlay_id < 0)
		return false;
	/* Both ends probe late: the adapters first (deferred probing). */
	do {
		*bus = child_bus(OUR_ARB);
		if (*bus >= 0 && !access(PEER_DIR "/run", F_OK))
			return true;
		usleep(20000);
	} while (lab_now() < end);
	return false;
}

/* The shared run, read by the cases that follow it. */
struct shared {
	struct side ours;
	char peer[1024];	/* the peer's "stats" after the run */
	char arb[1024];		/* our arbitrator's counters ("" upstream) */
	long long coll, starts, stalled;
	int cell;		/* the EEPROM byte the peer writes */
};

static void shared_run(struct shared *r, int bus, int gap_us)
{
	long long stalled0 = arb_counter_sum(&bus, 1, "timeouts_stalled");
	unsigned char byte;
	char cell[8], gap[16];

	memset(r, 0, sizeof(*r));
	wsim_reset(SIM_DIR);
	snprintf(cell, sizeof(cell), "%d", PEER_CELL);
	peer_set("cell", cell);
	snprintf(gap, sizeof(gap), "%d", gap_us);
	peer_set("gap_us", gap);
	peer_set("run", "1");
	detect_start();
	side_start(&r->ours, bus, RUN_S);
	pthread_join(r->ours.th, NULL);
	detect_stop();
	peer_set("run", "0");

	lab_read(PEER_DIR "/stats", r->peer, sizeof(r->peer));
	if (arb_stats(bus, r->arb, sizeof(r->arb)) < 0)
		r->arb[0] = 0;
	r->stalled = stalled0 < 0 ? 0 : arb_counter_sum(&bus, 1, "timeouts_stalled") - stalled0;
	r->coll = wsim_read_num(SIM_DIR, "monitor/collisions");
	r->starts = wsim_read_num(SIM_DIR, "monitor/starts");
	r->cell = wsim_eeprom_peek(SIM_DIR, PEER_CELL, &byte, 1) ? -1 : byte;
}

static void case_safe(const struct shared *r)
{
	const struct hammer *h = &r->ours.h;
	long long xfers = peer_stat(r->peer, "transfers");
	long long errs = peer_stat(r->peer, "transfer_errors");

	hammer_diag(h, 1);
	ktap_diag("the peer: %s", one_line(r->peer));
	ktap_diag("monitor: %lld collisions in %lld STARTs; EEPROM[%d] = %d, the peer's last_value %lld",
		  r->coll, r->starts, PEER_CELL, r->cell, peer_stat(r->peer, "last_value"));
	ktap_result(r->coll == 0 && h->corrupted == 0 && h->failed == h->busy &&
		    errs == 0 && peer_stat(r->peer, "claims") == xfers + errs &&
		    (xfers == 0 || r->cell == peer_stat(r->peer, "last_value")),
		    name[C_SAFE]);
}

static void case_progress(const struct shared *r)
{
	long long peer = peer_stat(r->peer, "transfers");
	const struct hammer *h = &r->ours.h;

	ktap_diag("ours: %ld transfers (%.0f/s), %ld EBUSY; the peer: %lld transfers (%.0f/s), %lld claim_timeouts",
		  h->done, h->done / RUN_S, h->busy, peer, peer / RUN_S,
		  peer_stat(r->peer, "claim_timeouts"));
	ktap_result(h->done > 0 && peer > 0, name[C_PROGRESS]);
}

static void case_fair(const struct shared *r)
{
	struct hammer sum = r->ours.h;

	if (!ktap_extension(name[C_FAIR]))
		return;
	ktap_diag("the peer gave up %lld claims", peer_stat(r->peer, "claim_timeouts"));
	ktap_result(hammer_failures_explained(&r->ours.h, 1, &sum, r->stalled) &&
		    peer_stat(r->peer, "claim_timeouts") == 0, name[C_FAIR]);
}

static void case_waits(const struct shared *r)
{
	long long p50 = peer_stat(r->peer, "wait_ns_p50");
	long long p99 = peer_stat(r->peer, "wait_ns_p99");
	long long max = peer_stat(r->peer, "wait_ns_max");

	ktap_diag("the peer: claim wait p50 %lld us, p99 %lld us, max %lld us over %lld claims (%lld contended, %lld back-offs)",
		  p50 / 1000, p99 / 1000, max / 1000, peer_stat(r->peer, "claims"),
		  peer_stat(r->peer, "contended"), peer_stat(r->peer, "retries"));
	if (r->arb[0])
		ktap_diag("ours: claim wait p50 < %lld us, p99 < %lld us, max %lld us; %lld contended, %lld back-offs, %lld timeouts",
			  arb_wait_pct(r->arb, 50), arb_wait_pct(r->arb, 99),
			  lab_key_num(r->arb, "wait_max_us"), lab_key_num(r->arb, "contended"),
			  lab_key_num(r->arb, "retries"), lab_key_num(r->arb, "timeouts"));
	else
		ktap_diag("ours: this arbitrator keeps no counters (upstream)");
	ktap_result(peer_stat(r->peer, "waits_kept") > 0 && p50 >= 0 && p50 <= p99 &&
		    p99 <= max, name[C_WAITS]);
}

/* One line of what a run gave each side. */
static void run_diag(const char *what, const struct shared *r)
{
	long long p = peer_stat(r->peer, "transfers");

	ktap_diag("%s: ours %ld transfers (%.0f/s), %ld EBUSY; the peer %lld (%.0f/s), %lld claim_timeouts, wait p50 %lld us, p99 %lld us, max %lld us; %lld collisions",
		  what, r->ours.h.done, r->ours.h.done / RUN_S, r->ours.h.busy, p, p / RUN_S,
		  peer_stat(r->peer, "claim_timeouts"), peer_stat(r->peer, "wait_ns_p50") / 1000,
		  peer_stat(r->peer, "wait_ns_p99") / 1000, peer_stat(r->peer, "wait_ns_max") / 1000,
		  r->coll);
}

/* Nothing collided or was corrupted, and both sides transferred. */
static bool run_sound(const struct shared *r)
{
	return r->coll == 0 && r->ours.h.corrupted == 0 && r->ours.h.failed == r->ours.h.busy &&
	       r->ours.h.done > 0 && peer_stat(r->peer, "transfers") > 0 &&
	       peer_stat(r->peer, "transfer_errors") == 0;
}

static void case_duty(struct shared *r, int bus)
{
	shared_run(r, bus, DUTY_GAP_US);
	run_diag("the peer pausing 5 ms", r);
	ktap_result(run_sound(r), name[C_DUTY]);
}

/*
 * The shared runs again with our fairness rules off. Nothing is asserted
 * on the shares: they are what the README's table reports, ours with and
 * without the rules, and 6.12's (the same suite on VARIANT=upstream).
 */
static void case_seed(const struct shared *sat, const struct shared *duty, int bus)
{
	static struct shared r0, r1;
	int set;

	if (!ktap_extension(name[C_SEED]))
		return;
	set = arb_seed_rounds(bus, true);
	if (!set) {
		shared_run(&r0, bus, 0);
		shared_run(&r1, bus, DUTY_GAP_US);
	}
	arb_seed_rounds(bus, false);
	run_diag("saturating, seed_rounds 0", sat);
	run_diag("saturating, seed_rounds 1", &r0);
	run_diag("pausing 5 ms, seed_rounds 0", duty);
	run_diag("pausing 5 ms, seed_rounds 1", &r1);
	ktap_result(!set && run_sound(&r0) && run_sound(&r1), name[C_SEED]);
}

static void case_unload(int bus)
{
	struct side during, after;
	long long before;
	char stats[1024] = "";
	double t0, rmmod_s;
	int rc, level;
	bool gone;

	wsim_reset(SIM_DIR);
	peer_set("run", "1");
	side_start(&during, bus, UNLOAD_AFTER_S + 30);
	usleep(UNLOAD_AFTER_S * 1e6);
	lab_read(PEER_DIR "/stats", stats, sizeof(stats));
	before = peer_stat(stats, "transfers");
	t0 = lab_now();
	rc = system("rmmod i2c-arb-peer");
	rmmod_s = lab_now() - t0;
	if (rc)
		peer_set("run", "0");
	side_join(&during);
	gone = access(PEER_DIR, F_OK) != 0;
	level = wsim_wire_level(SIM_DIR, PEER_WIRE);

	side_start(&after, bus, AFTER_S);
	pthread_join(after.th, NULL);
	hammer_diag(&during.h, 1);
	hammer_diag(&after.h, 1);
	ktap_diag("the peer: %lld transfers before rmmod (%d, %.3f s), debugfs gone %d, its claim wire %d, %lld collisions",
		  before, rc, rmmod_s, gone, level, wsim_read_num(SIM_DIR, "monitor/collisions"));
	ktap_result(before > 0 && rc == 0 && gone && level == 1 &&
		    wsim_read_num(SIM_DIR, "monitor/collisions") == 0 && during.h.failed == during.h.busy &&
		    after.h.done > 0 && after.h.failed == 0, name[C_UNLOAD]);
}

/*
 * The cases' state: our child bus and the overlay from main(), and the shared
 * runs that several cases read. Each runs when the first case that reads
 * it does, so that a case run alone (LAB_CASE) has it too.
 */
static int our_bus = -1;
static bool up;
static struct shared sat, duty;	/* the peer saturating, pausing */
static bool sat_done, duty_done;

static void need_sat(void)
{
	if (!sat_done)
		shared_run(&sat, our_bus, 0);
	sat_done = true;
}

static void need_duty(void)
{
	if (!duty_done)
		shared_run(&duty, our_bus, DUTY_GAP_US);
	duty_done = true;
}

static void case_binds(void)
{
	ktap_result(up, name[C_BINDS]);
}

static void case_safe_sat(void)
{
	need_sat();
	case_safe(&sat);
}

static void case_progress_sat(void)
{
	need_sat();
	case_progress(&sat);
}

/* Upstream skips the extensions: no runs only they would read. */
static void case_fair_sat(void)
{
	if (!ktap_upstream())
		need_sat();
	case_fair(&sat);
}

static void case_waits_sat(void)
{
	need_sat();
	case_waits(&sat);
}

static void case_duty_run(void)
{
	case_duty(&duty, our_bus);
	duty_done = true;
}

static void case_seed_runs(void)
{
	if (!ktap_upstream()) {
		need_sat();
		need_duty();
	}
	case_seed(&sat, &duty, our_bus);
}

/* Last: it unloads the peer. */
static void case_unload_bus(void)
{
	case_unload(our_bus);
}

static const struct ktap_case cases[] = {
	KTAP_CASE("binds", case_binds),
	KTAP_CASE("safe", case_safe_sat),
	KTAP_CASE("progress", case_progress_sat),
	KTAP_CASE("fair", case_fair_sat),
	KTAP_CASE("waits", case_waits_sat),
	KTAP_CASE("duty", case_duty_run),
	KTAP_CASE("seed", case_seed_runs),
	KTAP_CASE("unload", case_unload_bus),
};

int main(void)
{
	int ret;

	ktap_begin("arb-peer", ktap_plan(KTAP_CASES(cases)));
	if (system("modprobe i2c-wire-sim") || system("modprobe i2c-arb-peer"))
		ktap_diag("modprobe i2c-wire-sim or i2c-arb-peer failed");
	up = topo_up(&our_bus);
	ktap_diag("our child bus i2c-%d", our_bus);
	if (!up) {
		lab_overlay_remove(overlay_id);
		return ktap_fail_cases(KTAP_CASES(cases), "the peer overlay does not bind");
	}
	ret = ktap_run_cases(KTAP_CASES(cases));
	lab_overlay_remove(overlay_id);
	return ret;
}
