/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab.h - the helpers every guest test program needs, in one place so that
 * no feature keeps a copy that drifts from the others: the monotonic clock,
 * small kernel files (sysfs, debugfs, procfs, tracefs) as text and as
 * numbers, a shell command, the lab's DT overlays, the kernel log, tracefs
 * and a watchdog. Results are printed through ktap.h, included here.
 *
 * Helpers of one fixture sit with it (fixtures/<fixture>/, on the include
 * path: "i2c-wire-sim/wire-sim-guest.h"), those of one feature in its
 * guest/ folder.
 *
 * Return conventions, the same for every helper:
 *  - a write or an action: 0 or -errno;
 *  - a read into a buffer: the bytes read or -errno; the buffer is always a
 *    string, "" after an error;
 *  - a number: its value, or -1 when there is none (the file is missing or
 *    unreadable, or holds no number). The files tests read hold counts,
 *    levels and sizes; the one that shows -1 as a value (the wire
 *    simulator's fault_stuck_sda, "no fault") is only read after writes
 *    whose results the test checks, so the two never need telling apart.
 *    Numbers are decimal, or hexadecimal after "0x"; never octal.
 */
#ifndef LAB_H
#define LAB_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

#define LAB_OVERLAYS	"/lab/overlays"
#define LAB_OVERLAY_DBG	"/sys/kernel/debug/lab-overlay"
#define LAB_TRACEFS	"/sys/kernel/tracing"

/* syslog(2) actions; glibc's <sys/klog.h> has no names for them. */
#define LAB_SYSLOG_READ_ALL	3
#define LAB_SYSLOG_SIZE_BUFFER	10

/* ---- time ---- */

/* Seconds on the monotonic clock; differences are what count. */
static inline double lab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep @ms milliseconds; returns nothing. */
static inline void lab_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* lab_watchdog()'s SIGALRM handler: never returns, exits 1 (write(2), _exit(2) only). */
static inline void lab_watchdog_fired(int sig)
{
	static const char msg[] = "# watchdog: the suite did not finish in time\nBail out!\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/*
 * End the program with a verdict after @seconds even if a call into the
 * kernel never returns (the lab's own timeout would only say "timeout").
 * Returns nothing.
 */
static inline void lab_watchdog(unsigned int seconds)
{
	signal(SIGALRM, lab_watchdog_fired);
	alarm(seconds);
}

/* ---- files ---- */

/* Write @text to @path opened O_WRONLY | @flags (O_CREAT: mode 0644); 0 or -errno. */
static inline int lab_write_flags(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/*
 * Write @text to the kernel file @path, which the kernel parses in the
 * write: 0 or -errno (-EINVAL and the like are its answer).
 */
static inline int lab_write(const char *path, const char *text)
{
	return lab_write_flags(path, text, 0);
}

/* All of @path, at most @size - 1 bytes, into the string @buf; bytes or -errno. */
static inline int lab_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n = 0;

	buf[0] = 0;
	if (fd < 0)
		return -errno;
	/* debugfs and procfs files may come in more than one read. */
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : len] = 0;
	return n < 0 ? (int)n : (int)len;
}

/* The first line of @path, without its newline, into @buf; its length or -errno. */
static inline int lab_read_line(const char *path, char *buf, size_t size)
{
	int n = lab_read(path, buf, size);

	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = 0;
	return strlen(buf);
}

/* ---- numbers ---- */

/* The number at the start of @s (after blanks): hex after "0x", else decimal; -1 if none. */
static inline long long lab_num(const char *s)
{
	const char *p = s + strspn(s, " \t");
	const char *d = p + (*p == '-' || *p == '+');
	int base = d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? 16 : 10;
	char *end;
	long long v = strtoll(p, &end, base);

	return end == p ? -1 : v;
}

/* The number the file @path holds; -1 if none. */
static inline long long lab_read_num(const char *path)
{
	char buf[64];

	return lab_read(path, buf, sizeof(buf)) < 0 ? -1 : lab_num(buf);
}

/*
 * The number after @key on the first line of @text that starts with @key
 * and then ':' or a blank ("key: N" of the fixtures' debugfs files, "key N"
 * of others); -1 if none. Every file read so has each key once.
 */
static inline long long lab_key_num(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] && strchr(": \t", p[len]))
			return lab_num(p + len + 1);
	return -1;
}

/* lab_key_num() of the file @path (up to 4 KiB); -1 if none. */
static inline long long lab_read_key(const char *path, const char *key)
{
	char buf[4096];

	return lab_read(path, buf, sizeof(buf)) < 0 ? -1 : lab_key_num(buf, key);
}

/* ---- commands ---- */

/* For lab_sh(): @cmd's stdout into @out; pclose()'s status, or -1. */
static inline int lab_sh_capture(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, n;
	char sink[256];

	out[0] = 0;
	if (!p)
		return -1;
	/* Read to the end even when @out is full: a blocked writer never exits. */
	do {
		char *to = len < size - 1 ? out + len : sink;

		n = fread(to, 1, to == sink ? sizeof(sink) : size - 1 - len, p);
		if (to != sink)
			len += n;
	} while (n > 0);
	out[len] = 0;
	return pclose(p);
}

/*
 * Run the command line @fmt through /bin/sh: its exit status, or -1 when
 * it could not run or a signal ended it. With @out, its stdout goes into
 * the string @out (at most @size - 1 bytes), else where ours goes. A
 * status other than 0 is printed as a diagnostic naming the command: no
 * test runs a command it expects to fail, so that line says what broke.
 * Full paths for Debian tools: busybox sh prefers its own applets.
 */
__attribute__((format(printf, 3, 4)))
static inline int lab_sh(char *out, size_t size, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = out ? lab_sh_capture(cmd, out, size) : system(cmd);
	rc = rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
	if (rc)
		ktap_diag("command failed (%d): %s", rc, cmd);
	return rc;
}

/*
 * Kernel log lines that contain @text (as dmesg | grep -c); -1 if
 * unreadable. *@level, if not NULL, gets the log level of the last of them
 * (its syslog prefix "<N>"), or -1 when there is none.
 */
static inline int lab_kmsg_find(const char *text, int *level)
{
	int size = klogctl(LAB_SYSLOG_SIZE_BUFFER, NULL, 0), len, count = 0, prio;
	char *buf = size > 0 ? malloc(size + 1) : NULL, *line, *end;

	if (level)
		*level = -1;
	len = buf ? klogctl(LAB_SYSLOG_READ_ALL, buf, size) : -1;
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (line = buf; line; line = end) {
		end = strchr(line, '\n');
		if (end)
			*end++ = 0;
		if (!strstr(line, text))
			continue;
		count++;
		if (level && sscanf(line, "<%d>", &prio) == 1)
			*level = prio & 7;
	}
	free(buf);
	return count;
}

static inline int lab_kmsg_count(const char *text)
{
	return lab_kmsg_find(text, NULL);
}

/* ---- DT overlays (fixtures/lab-overlay; the shell's tool is lab-overlay) ---- */

/* The id of the last line "id path" of @list naming @dtbo; -ENOENT if none. */
static inline int lab_overlay_id(char *list, const char *dtbo)
{
	char *line, *save, path[256];
	int id = -ENOENT, n;

	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %255s", &n, path) == 2 && !strcmp(path, dtbo))
			id = n;
	return id;
}

/*
 * Apply LAB_OVERLAYS/<@name>.dtbo: write its path to the module's apply
 * file, then find it in the list that file reads back. Its id, or -errno.
 */
static inline int lab_overlay_apply(const char *name)
{
	char dtbo[256], list[4096];
	int ret;

	if (access(LAB_OVERLAY_DBG, F_OK) && lab_sh(NULL, 0, "modprobe lab_overlay"))
		return -ENODEV;
	snprintf(dtbo, sizeof(dtbo), LAB_OVERLAYS "/%s.dtbo", name);
	ret = lab_write(LAB_OVERLAY_DBG "/apply", dtbo);
	if (!ret)
		ret = lab_read(LAB_OVERLAY_DBG "/apply", list, sizeof(list));
	return ret < 0 ? ret : lab_overlay_id(list, dtbo);
}

/* Remove overlay @id: 0 or -errno; 0 for an id < 0 (nothing was applied). */
static inline int lab_overlay_remove(int id)
{
	char buf[16];

	if (id < 0)
		return 0;
	snprintf(buf, sizeof(buf), "%d", id);
	return lab_write(LAB_OVERLAY_DBG "/remove", buf);
}

/* ---- tracing ---- */

/* Mount tracefs on LAB_TRACEFS unless it is there: 0 or -errno (with a diagnostic). */
static inline int lab_tracefs(void)
{
	int err;

	if (!mount("nodev", LAB_TRACEFS, "tracefs", 0, NULL) || errno == EBUSY)
		return 0;
	err = errno;
	ktap_diag("mount tracefs: %s", strerror(err));
	return -err;
}

/*
 * Hand each event line of the trace buffer of tracefs folder @dir (the top
 * one or an instance: LAB_TRACEFS "/instances/<name>"), not its '#'
 * header, to @fn until it returns false; the number of lines handed over,
 * or -errno.
 */
static inline long lab_trace_each_in(const char *dir,
				     bool (*fn)(const char *line, void *arg),
				     void *arg)
{
	char path[PATH_MAX], line[512];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		n++;
		if (!fn(line, arg))
			break;
	}
	fclose(f);
	return n;
}

/* The same for the top trace buffer. */
static inline long lab_trace_each(bool (*fn)(const char *line, void *arg), void *arg)
{
	return lab_trace_each_in(LAB_TRACEFS, fn, arg);
}

/*
 * The time stamp of trace line @line whose event name starts at @event (a
 * pointer into @line): the number before the ": " that precedes it, in
 * seconds of the buffer's trace_clock; -1 if there is none.
 */
static inline double lab_trace_stamp(const char *line, const char *event)
{
	const char *p = event;

	if (p - line < 3 || p[-1] != ' ' || p[-2] != ':')
		return -1;
	p -= 2;
	while (p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
		p--;
	return p < event - 2 ? strtod(p, NULL) : -1;
}

#endif /* LAB_H */
