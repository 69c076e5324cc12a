// SPDX-License-Identifier: GPL-2.0
/*
 * lab-smoke - the lab proves it booted what it built.
 *
 * The host writes what it built into /lab/env (kernel release, GNU build
 * id of vmlinux, variant); this suite checks the running kernel against it
 * and checks that every fixture module loads and unloads cleanly.
 */
#include <elf.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "lab.h"

/* Hex GNU build id of the running kernel, from the notes it exports. */
static int running_build_id(char *hex, size_t len)
{
	unsigned char buf[4096];
	size_t off = 0;
	int n = lab_read("/sys/kernel/notes", (char *)buf, sizeof(buf));

	if (n < 0)
		return n;
	while (n > 0 && off + sizeof(Elf64_Nhdr) <= (size_t)n) {
		Elf64_Nhdr *nh = (Elf64_Nhdr *)(buf + off);
		size_t name = off + sizeof(*nh);
		size_t desc = name + ((nh->n_namesz + 3) & ~3u);

		if (desc + nh->n_descsz > (size_t)n)
			break;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && nh->n_descsz * 2 < len) {
			for (unsigned int i = 0; i < nh->n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", buf[desc + i]);
			return 0;
		}
		off = desc + ((nh->n_descsz + 3) & ~3u);
	}
	return -ENOENT;
}

static void test_release_is_the_one_built(void)
{
	struct utsname u;
	const char *want = getenv("LAB_RELEASE");

	uname(&u);
	if (!want || strcmp(u.release, want))
		ktap_diag("running %s, built %s", u.release, want ? want : "(unset)");
	ktap_result(want && !strcmp(u.release, want),
		    "the running kernel release is the one just built");
}

static void test_build_id_is_the_one_built(void)
{
	char id[128] = "";
	const char *want = getenv("LAB_BUILD_ID");
	int err = running_build_id(id, sizeof(id));

	if (err || !want || strcmp(id, want))
		ktap_diag("running build id '%s' (%d), vmlinux has '%s'", id, err,
			  want ? want : "(unset)");
	ktap_result(!err && want && !strcmp(id, want),
		    "the running kernel's build id is the vmlinux just built");
}

static void test_variant_is_the_one_asked_for(void)
{
	struct utsname u;
	char suffix[64];
	const char *variant = getenv("LAB_VARIANT");
	size_t rl, sl;

	uname(&u);
	snprintf(suffix, sizeof(suffix), "-lab-%s", variant ? variant : "?");
	rl = strlen(u.release);
	sl = strlen(suffix);
	if (rl < sl || strcmp(u.release + rl - sl, suffix))
		ktap_diag("release %s does not end in %s", u.release, suffix);
	ktap_result(rl >= sl && !strcmp(u.release + rl - sl, suffix),
		    "the booted variant is the one asked for");
}

static bool module_loaded(const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/*
 * modprobe and remove each fixture module: the lab installs them under
 * extra/, and modules.dep names them (with what they need loaded first).
 */
static void test_fixture_modules_load_and_unload(void)
{
	char path[300], line[1024], name[256];
	struct utsname u;
	int loaded = 0, bad = 0;
	FILE *dep;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	dep = fopen(path, "r");
	while (dep && fgets(line, sizeof(line), dep)) {
		char *base, *dot;

		if (strncmp(line, "extra/", 6) || !(dot = strstr(line, ".ko:")))
			continue;
		*dot = 0;
		base = strrchr(line, '/') + 1;
		snprintf(name, sizeof(name), "%s", base);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		if (lab_sh(NULL, 0, "modprobe %s && modprobe -r %s", name, name) ||
		    module_loaded(name)) {
			ktap_diag("fixture module %s did not load and unload cleanly", name);
			bad++;
		}
		loaded++;
	}
	if (dep)
		fclose(dep);
	if (!loaded)
		ktap_diag("no fixture module (extra/) in %s", path);
	ktap_result(loaded > 0 && !bad, "every fixture module loads and unloads cleanly");
}

static void test_clocksource_is_high_resolution(void)
{
	char cs[64];
	bool is_tsc;

	lab_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      cs, sizeof(cs));
	/*
	 * A fast-booting kernel can reach this before tsc-early hands over to
	 * tsc: the same counter, so both are the high-resolution clock.
	 */
	is_tsc = !strcmp(cs, "tsc") || !strcmp(cs, "tsc-early");
	if (!is_tsc)
		ktap_diag("clocksource is '%s' (1 ms jiffies would quantise RTT samples)", cs);
	ktap_result(is_tsc, "the guest clock is the TSC, not jiffies");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("release", test_release_is_the_one_built),
	KTAP_CASE("build-id", test_build_id_is_the_one_built),
	KTAP_CASE("variant", test_variant_is_the_one_asked_for),
	KTAP_CASE("fixture-modules", test_fixture_modules_load_and_unload),
	KTAP_CASE("clocksource", test_clocksource_is_high_resolution),
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--build-id")) {
		char id[128];

		if (running_build_id(id, sizeof(id)))
			return 1;
		puts(id);
		return 0;
	}
	return ktap_run("lab_smoke", KTAP_CASES(cases));
}
