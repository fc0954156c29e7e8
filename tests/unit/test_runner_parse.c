/*
 * Unit tests for the runner's pure parsers: KTAP out of a noisy console,
 * kernel problems as stable signatures, flake counting and the change
 * against the baseline, the scenarios file, config fragment checks and
 * compiler errors out of a build log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"
#include "stage.h"
#include "tree.h"
#include "kconfig.h"
#include "build.h"
#include "console.h"
#include "scenario.h"
#include "ktap.h"
#include "logscan.h"
#include "verdict.h"
#include "buf.h"
#include "paths.h"

static const char console[] =
	"[    0.000000] Linux version 6.1.0 (bugbridge@runner)\r\n"
	"[    0.912345] Run /init as init process\r\n"
	"KTAP version 1\r\n"
	"1..4\r\n"
	"# sd-read-verify: 64 sectors\r\n"
	"ok 1 sd-read-verify\r\n"
	"[    1.200000] sr 0:0:4:0: [sr1] tag#0 Sense Key : Medium Error [current]\r\n"
	"# size 256 -> 0\r\n"
	"# 'attempt to access beyond end of device' logged 3 times\r\n"
	"not ok 2 sr-capacity # capacity trimmed to 0\r\n"
	"ok 3 - sd-timeout-eh # SKIP no scsi_debug\r\n"
	"  ok 1 nested-ignored\r\n"
	"ok 4 kernel-log-clean\r\n"
	"# bbsuite exit status 1\r\n";

static void test_ktap(void **state)
{
	struct ktap_result k;

	(void)state;
	assert_int_equal(ktap_parse(console, strlen(console), &k), 0);
	assert_true(k.seen_version);
	assert_int_equal(k.planned, 4);
	assert_int_equal(k.ntests, 4);
	assert_string_equal(k.tests[0].name, "sd-read-verify");
	assert_int_equal(k.tests[0].status, KTAP_PASS);
	assert_string_equal(k.tests[0].diag, "sd-read-verify: 64 sectors");
	assert_string_equal(k.tests[1].name, "sr-capacity");
	assert_int_equal(k.tests[1].status, KTAP_FAIL);
	assert_string_equal(k.tests[1].reason, "capacity trimmed to 0");
	assert_non_null(strstr(k.tests[1].diag, "size 256 -> 0"));
	assert_string_equal(k.tests[2].name, "sd-timeout-eh");
	assert_int_equal(k.tests[2].status, KTAP_SKIP);
	assert_int_equal(k.tests[3].number, 4);
	ktap_release(&k);
}

static void test_ktap_garbage(void **state)
{
	static const char junk[] = "ok\nnot ok\nok x\n1..\nok 99999999999999 big\n\0\nok 2 a # ";
	struct ktap_result k;

	(void)state;
	assert_int_equal(ktap_parse(junk, sizeof(junk) - 1, &k), 0);
	assert_false(k.seen_version);
	assert_int_equal(k.planned, -1);
	ktap_release(&k);
}

static const char oops_log[] =
	"[   12.345678] WARNING: CPU: 0 PID: 77 at drivers/scsi/scsi_lib.c:712 scsi_io_completion+0x2a1/0x5b0\r\n"
	"[   12.345679] Modules linked in:\r\n"
	"[   12.345680] RIP: 0010:scsi_io_completion+0x2a1/0x5b0\r\n"
	"[   12.345681] Call Trace:\r\n"
	"[   12.345682]  <TASK>\r\n"
	"[   12.345683]  ? __warn+0x7d/0xc0\r\n"
	"[   12.345684]  scsi_finish_command+0xd1/0x110\r\n"
	"[   12.345685]  scsi_complete+0x61/0xf0\r\n"
	"[   12.345686]  blk_complete_reqs+0x3d/0x50\r\n"
	"[   12.345687]  </TASK>\r\n"
	"[   13.000000] attempt to access beyond end of device\r\n"
	"[   13.000001] sr1: rw=0, sector=256, nr_sectors = 4 limit=0\r\n"
	"# no 'attempt to access beyond end of device' here: the suite quoting it\r\n"
	"[   14.000000] attempt to access beyond end of device\r\n"
	"[   15.000000] Kernel panic - not syncing: Fatal exception\r\n"
	"# kernel: WARNING: CPU: 0 PID: 9 at drivers/scsi/scsi_lib.c:712 scsi_io_completion+0x2a1/0x5b0\r\n"
	"# kernel: BUG: KASAN: slab-out-of-bounds in sr_done+0x1/0x2\r\n";

static void test_logscan(void **state)
{
	struct logscan_result a, b;
	char *shifted = strdup(oops_log);
	char *p;

	(void)state;
	assert_int_equal(logscan(oops_log, strlen(oops_log), &a), 0);
	assert_true(a.panicked);
	assert_int_equal(a.n, 4);
	assert_string_equal(a.items[0].kind, "warning");
	assert_string_equal(a.items[0].title, "WARNING in scsi_io_completion");
	assert_string_equal(a.items[0].frames,
			    "scsi_finish_command\nscsi_complete\nblk_complete_reqs");
	assert_string_equal(a.items[1].kind, "eod");
	assert_int_equal(a.items[1].count, 2);
	assert_string_equal(a.items[2].kind, "panic");
	/* quoted by the suite: the same WARNING counts, a new KASAN is added */
	assert_int_equal(a.items[0].count, 2);
	assert_string_equal(a.items[3].kind, "kasan");
	assert_string_equal(a.items[3].title, "BUG: KASAN: slab-out-of-bounds in sr_done");
	/* Other pid, CPU, line number and offsets: the same signature. */
	while ((p = strstr(shifted, "PID: 77")))
		memcpy(p, "PID: 91", 7);
	p = strstr(shifted, "CPU: 0");
	p[5] = '1';
	p = strstr(shifted, "712");
	memcpy(p, "733", 3);
	p = strstr(shifted, "+0xd1/");
	memcpy(p, "+0xd5/", 6);
	assert_int_equal(logscan(shifted, strlen(shifted), &b), 0);
	assert_string_equal(a.items[0].hash, b.items[0].hash);
	assert_string_not_equal(a.items[0].hash, a.items[1].hash);
	logscan_release(&a);
	logscan_release(&b);
	free(shifted);
}

static void test_normalise(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	logscan_normalise("[    3.1] BUG: unable to handle page fault for address: ffff888003c4d000",
			  &out);
	assert_string_equal(out.ptr, "BUG: unable to handle page fault for address: ?");
	buf_reset(&out);
	logscan_normalise("[ 30.0] INFO: task bbsuite:123 blocked for more than 20 seconds.", &out);
	assert_string_equal(out.ptr, "INFO: task bbsuite blocked for more than 20 seconds.");
	buf_release(&out);
}

static struct vtest mk(const char *name, const char *status)
{
	struct vtest t = { strdup(name), strdup(status), 1, !strcmp(status, "fail"),
			   strdup(""), NULL };
	return t;
}

static void test_flakes_and_change(void **state)
{
	struct vtest patched[3], base[3];
	struct buf s = BUF_INIT;

	(void)state;
	patched[0] = mk("sr-capacity", "pass");
	patched[1] = mk("sd-stress", "fail");
	patched[2] = mk("sd-read-verify", "pass");
	base[0] = mk("sr-capacity", "fail");
	base[1] = mk("sd-stress", "pass");
	base[2] = mk("sd-read-verify", "pass");
	vtest_add_rerun(&base[0], true, NULL);
	vtest_add_rerun(&base[0], true, NULL);
	vtest_summary(&base[0], &s);
	assert_string_equal(s.ptr, "failed 3/3");
	vtest_add_rerun(&patched[1], false, NULL);
	vtest_add_rerun(&patched[1], true, NULL);
	buf_reset(&s);
	vtest_summary(&patched[1], &s);
	assert_string_equal(s.ptr, "failed 2/3: flaky");
	assert_string_equal(patched[1].status, "flaky");
	/* The flaky PASS->FAIL does not count: the job's change is the fix. */
	assert_string_equal(verdict_compare(patched, 3, base, 3, "pass", "fail"), "FAIL->PASS");
	assert_string_equal(patched[0].change, "FAIL->PASS");
	assert_string_equal(patched[1].change, "FLAKY");
	assert_string_equal(patched[2].change, "PASS->PASS");
	/* A real regression outranks a fix. */
	vtest_add_rerun(&patched[1], true, NULL);
	free(patched[1].status);
	patched[1].status = strdup("fail");
	patched[1].failures = patched[1].runs;
	assert_string_equal(verdict_compare(patched, 3, base, 3, "fail", "fail"), "PASS->FAIL");
	/* A patched kernel that panics before any result regresses what passed. */
	assert_string_equal(verdict_compare(NULL, 0, base, 3, "panic", "fail"), "PASS->FAIL");
	vtests_free(NULL, 0);
	for (int i = 0; i < 3; i++) {
		free(patched[i].name); free(patched[i].status); free(patched[i].diag);
		free(base[i].name); free(base[i].status); free(base[i].diag);
	}
	buf_release(&s);
}

/* bbsuite.rerun=N: the guest's in-boot re-runs count like fresh-boot ones. */
static void test_guest_reruns(void **state)
{
	struct vtest t[3];
	const char *console =
		"not ok 7 sr-capacity # size 256 -> 0\n"
		"# bbsuite: 24 tests, 2 not ok, 9.1 s\n"
		"[   12.1] sr 0:0:0:1: [sr0] tag#0 FAILED\r\n"
		"# rerun sr-capacity 1/2: not ok # size 256 -> 0 sectors\r\n"
		"# rerun sr-capacity 2/2: ok\n"
		"# rerun sd-stress: fresh boot (a test got stuck)\n"
		"# rerun sr-capacity-x 1/2: ok\n"
		"# rerun sd-read-verify 1/2: not ok";

	(void)state;
	t[0] = mk("sr-capacity", "fail");
	t[1] = mk("sd-stress", "fail");
	t[2] = mk("sd-read-verify", "fail");
	vtests_add_guest_reruns(t, 3, console);
	assert_int_equal(t[0].runs, 3);
	assert_int_equal(t[0].failures, 2);
	assert_string_equal(t[0].status, "flaky");
	/* "fresh boot": left to the runner's own re-runs */
	assert_int_equal(t[1].runs, 1);
	assert_string_equal(t[1].status, "fail");
	/* a last line without a newline still counts; a longer name is not this test */
	assert_int_equal(t[2].runs, 2);
	assert_int_equal(t[2].failures, 2);
	for (int i = 0; i < 3; i++) {
		free(t[i].name); free(t[i].status); free(t[i].diag);
	}
}

/* The build's progress line: of how many, and how long is left. */
static void test_progress_text(void **state)
{
	struct variant v = { .name = "seed" };
	struct build_progress p = { .v = &v, .done = 426, .total = 852, .total_secs = 400 };
	struct buf s = BUF_INIT;

	(void)state;
	buf_init(&p.step, 0);
	buf_addstr(&p.step, "CC drivers/scsi/sr.o");
	progress_text(&p, 150, &s);
	assert_string_equal(s.ptr, "seed: build: 426 of 852 objects compiled, about 2 min 30 s"
			    " left (CC drivers/scsi/sr.o)");
	buf_reset(&s);
	p.done = 10;
	progress_text(&p, 30, &s);	/* too few to trust a rate: the last full build's time */
	assert_string_equal(s.ptr, "seed: build: 10 of 852 objects compiled, about 6 min 10 s"
			    " left (CC drivers/scsi/sr.o)");
	buf_reset(&s);
	v.name = "patched";
	v.seeded = true;
	p.total = 0;
	p.done = 1;
	buf_reset(&p.step);
	buf_addstr(&p.step, "LD vmlinux");
	progress_text(&p, 8, &s);
	assert_string_equal(s.ptr, "patched: build (incremental): 1 objects compiled (LD vmlinux)");
	buf_release(&s);
	buf_release(&p.step);
}

static void test_scenario(void **state)
{
	static const char text[] =
		"# comment\n\nversion 1\nboot all\n  timeout 300\n"
		"  image qdisk 4194304 lba-pattern\n  image cd 131072 zero\n"
		"  cmdline scsi_debug.dev_size_mb=8 a=b\n"
		"  qemu -blockdev driver=file,node-name=q,filename=@qdisk@\n"
		"  busybox-applets sh\n  test sd-read-verify\n  test lying-device-lba\n";
	struct scenario sc;
	struct buf err = BUF_INIT, out = BUF_INIT;

	(void)state;
	assert_int_equal(scenario_parse(text, &sc, &err), 0);
	assert_int_equal(sc.nboots, 1);
	assert_int_equal(sc.boots[0].timeout, 300);
	assert_int_equal(sc.boots[0].nimages, 2);
	assert_true(sc.boots[0].images[0].lba_pattern);
	assert_int_equal(sc.boots[0].ncmdline, 2);
	assert_int_equal(sc.boots[0].nqemu, 2);
	assert_ptr_equal(scenario_boot_for(&sc, "lying-device"), &sc.boots[0]);
	assert_null(scenario_boot_for(&sc, "sd-rea"));
	assert_ptr_equal(scenario_boot_for(&sc, "sd-read"), &sc.boots[0]);
	scenario_subst(&sc.boots[0], sc.boots[0].qemu[1], "/i", &out);
	assert_string_equal(out.ptr, "driver=file,node-name=q,filename=/i/qdisk.img");
	scenario_release(&sc);
	assert_int_equal(scenario_parse("version 1\nboot a\nreboot now\n", &sc, &err), -1);
	assert_non_null(strstr(err.ptr, "line 3: unknown directive 'reboot'"));
	buf_reset(&err);
	assert_int_equal(scenario_parse("boot a\n", &sc, &err), -1);
	buf_reset(&err);
	assert_int_equal(scenario_parse("version 1\nboot a\nimage x 100 zero\n", &sc, &err), -1);
	buf_release(&err);
	buf_release(&out);
}

static void test_kconf_missing(void **state)
{
	static const char frag[] = "# comment\nCONFIG_SCSI=y\nCONFIG_TMPFS=y\n"
				   "# CONFIG_SCSI_SCAN_ASYNC is not set\nCONFIG_HZ=250\n";
	static const char config[] = "CONFIG_SCSI=y\n# CONFIG_TMPFS is not set\n"
				     "CONFIG_SCSI_SCAN_ASYNC=y\nCONFIG_HZ=100\n";
	struct buf missing = BUF_INIT;

	(void)state;
	assert_int_equal(kconf_missing(frag, config, &missing), 3);
	assert_string_equal(missing.ptr, "CONFIG_TMPFS=y (not set), CONFIG_SCSI_SCAN_ASYNC=n "
			    "(have y), CONFIG_HZ=250 (have 100)");
	buf_reset(&missing);
	assert_int_equal(kconf_missing("CONFIG_A=y\n", "CONFIG_A=y\n", &missing), 0);
	buf_release(&missing);
}

static void test_build_errors(void **state)
{
	static const char log[] =
		"  CC      drivers/scsi/sr.o\n"
		"../drivers/scsi/sr.c: In function 'sr_done':\n"
		"../drivers/scsi/sr.c:301:9: error: 'bogus' undeclared (first use in this function)\n"
		"make[3]: *** [../scripts/Makefile.build:250: drivers/scsi/sr.o] Error 1\n";
	struct buf out = BUF_INIT;

	(void)state;
	build_first_errors(log, &out, 5);
	assert_non_null(strstr(out.ptr, "sr.c:301:9: error: 'bogus' undeclared"));
	assert_null(strstr(out.ptr, "CC      drivers"));
	buf_release(&out);
}

/* The console keeps its head and its tail within the cap, and says what it cut. */
static void test_console_head_and_tail(void **state)
{
	struct console c;
	struct buf text = BUF_INIT;
	char flood[1000];

	(void)state;
	console_init(&c, 20);
	console_add(&c, "boot\n", 5);
	console_text(&c, &text);
	assert_string_equal(text.ptr, "boot\n");	/* under the cap: as it came */
	assert_int_equal(console_cut_bytes(&c), 0);
	buf_reset(&text);

	memset(flood, 'x', sizeof(flood));
	console_add(&c, flood, sizeof(flood));
	/* a tail that wraps the ring over several writes */
	console_add(&c, "ok 1 a\n", 7);
	console_add(&c, "ok 2 b\n", 7);
	console_text(&c, &text);
	assert_int_equal(console_cut_bytes(&c), 5 + 1000 + 14 - 20);
	assert_true(!strncmp(text.ptr, "boot\nxxxxx\n[bugbridge: 999 bytes of console output cut",
			     strlen("boot\nxxxxx\n[bugbridge: 999 bytes of console output cut")));
	assert_non_null(strstr(text.ptr, "the guest wrote 1019, [runner] max_console keeps 20]\n"));
	assert_string_equal(text.ptr + text.len - 10, " a\nok 2 b\n");
	buf_release(&text);
	console_release(&c);

	/* one write bigger than the ring keeps its last bytes */
	console_init(&c, 8);
	console_add(&c, "headTAIL-0123456789", 19);
	console_text(&c, &text);
	assert_string_equal(strrchr(text.ptr, '\n') + 1, "6789");
	assert_true(!strncmp(text.ptr, "head\n", 5));
	buf_release(&text);
	console_release(&c);
}

/* Why no seed fits: the ingredients that differ, each named once. */
static void test_seed_parts_diff(void **state)
{
	const char *seed = "base\tlinux-source-6.1\nkernel version\t6.1.158\n"
			   "[runner] config_variant\tbase 1111\nharness 0001-a.patch\taaaa\n"
			   "harness 0002-b.patch\tbbbb\n";
	const char *ours = "base\tlinux-source-6.1\nkernel version\t6.1.158\n"
			   "[runner] config_variant\tkasan 2222\nharness 0001-a.patch\taaaa\n"
			   "harness 0003-c.patch\tcccc\n";
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(seed_parts_diff(seed, seed, &out), 0);
	assert_string_equal(out.ptr, "");
	assert_int_equal(seed_parts_diff(ours, seed, &out), 3);
	assert_string_equal(out.ptr, "[runner] config_variant (kasan 2222 here, base 1111 in the"
			    " seed); harness 0003-c.patch (not in the seed);"
			    " harness 0002-b.patch (only in the seed)");
	buf_release(&out);
}

/* The banner must name the build that was made (a stale piggy.o did not). */
static void test_banner_is_built(void **state)
{
	static const char seed[] =
		"[    0.000000] Linux version 6.1.192 (bugbridge@runner) (gcc (Debian 12.2.0-14)"
		" 12.2.0, GNU ld 2.40) #1 bugbridge\r\n[    0.1] Command line: quiet\r\n";
	struct buf booted = BUF_INIT;

	(void)state;
	assert_true(banner_is_built(seed, "#1 bugbridge", &booted));
	assert_false(banner_is_built(seed, "#2 bugbridge", &booted));
	assert_string_equal(booted.ptr, "#1 bugbridge");
	buf_release(&booted);
	assert_false(banner_is_built(seed, "#11 bugbridge", &booted));
	buf_release(&booted);
	/* no banner (QEMU died first): another check's business */
	assert_true(banner_is_built("qemu: could not load kernel\n", "#2 bugbridge", &booted));
}

/* What the check compares with: kbuild's include/generated/utsversion.h. */
static void test_build_uts_version(void **state)
{
	char dir[] = "/tmp/bbuts.XXXXXX";
	struct buf path = BUF_INIT, got = BUF_INIT, out = BUF_INIT, cmd = BUF_INIT;
	struct run r = { .jobdir = dir };
	struct variant v = { .run = &r };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	buf_addf(&out, "%s/out", dir);
	v.out = out.ptr;
	assert_int_equal(build_uts_version(&v, &got), -1);	/* not built yet */
	buf_addf(&path, "%s/include/generated", out.ptr);
	assert_int_equal(mkdir_p(path.ptr, 0700), 0);
	buf_addstr(&path, "/utsversion.h");
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fputs("#define UTS_VERSION \"#3 bugbridge\"\n", f);
	fclose(f);
	assert_int_equal(build_uts_version(&v, &got), 0);
	assert_string_equal(got.ptr, "#3 bugbridge");
	/* the build's output is read through lib/safefile: never through a link */
	unlink(path.ptr);
	assert_int_equal(symlink("/etc/hostname", path.ptr), 0);
	buf_reset(&got);
	assert_int_equal(build_uts_version(&v, &got), -1);
	buf_addf(&cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd.ptr), 0);
	buf_release(&path);
	buf_release(&got);
	buf_release(&out);
	buf_release(&cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_banner_is_built),
		cmocka_unit_test(test_build_uts_version),
		cmocka_unit_test(test_seed_parts_diff),
		cmocka_unit_test(test_ktap),
		cmocka_unit_test(test_ktap_garbage),
		cmocka_unit_test(test_logscan),
		cmocka_unit_test(test_normalise),
		cmocka_unit_test(test_flakes_and_change),
		cmocka_unit_test(test_guest_reruns),
		cmocka_unit_test(test_progress_text),
		cmocka_unit_test(test_scenario),
		cmocka_unit_test(test_kconf_missing),
		cmocka_unit_test(test_build_errors),
		cmocka_unit_test(test_console_head_and_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
