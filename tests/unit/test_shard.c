/*
 * Unit tests for runner/shard.c and runner/gcda.c: the suite dealt to
 * shards (each test in one, kernel-log-clean in all, the scenario's order,
 * the same deal for the same times), how many shards for which host, the
 * times read out of a console, the shards' results merged back into one
 * guest's, and two guests' gcov counters added up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "shard.h"
#include "gcda.h"
#include "verdict.h"
#include "xalloc.h"

static char *names[] = { "guest-no-network", "sd-medium-error", "slow-a", "quick-1", "quick-2",
			 "slow-b", "quick-3", "quick-4", "quick-5", "kernel-log-clean" };
#define NNAMES (int)(sizeof(names) / sizeof(*names))

static struct scenario_boot boot_of_names(void)
{
	struct scenario_boot sb = { 0 };

	sb.name = "all";
	sb.tests = names;
	sb.ntests = NNAMES;
	return sb;
}

/* Times as a run on this host would have kept them. */
static void measured(struct shard_times *t)
{
	static const double secs[NNAMES] = { 0.04, 0.2, 2.5, 0.1, 0.1, 2.0, 0.1, 0.1, 0.1, 0.01 };

	memset(t, 0, sizeof(*t));
	t->boot = 2.0;
	t->measured = true;
	for (int i = 0; i < NNAMES; i++) {
		t->names = xreallocarray(t->names, t->n + 1, sizeof(*t->names));
		t->seconds = xreallocarray(t->seconds, t->n + 1, sizeof(*t->seconds));
		t->names[t->n] = xstrdup(names[i]);
		t->seconds[t->n++] = secs[i];
	}
}

static int where(char ***plan, int *nplan, int n, const char *name, int *count)
{
	int at = -1;

	*count = 0;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < nplan[k]; i++)
			if (!strcmp(plan[k][i], name)) {
				at = k;
				(*count)++;
			}
	return at;
}

static void test_plan(void **state)
{
	struct scenario_boot sb = boot_of_names();
	struct shard_times t;
	char **plan[SHARD_MAX], **again[SHARD_MAX];
	int nplan[SHARD_MAX], nagain[SHARD_MAX], count;

	(void)state;
	measured(&t);
	shard_plan(&t, &sb, 3, plan, nplan);
	for (int i = 0; i < NNAMES; i++) {
		int k = where(plan, nplan, 3, names[i], &count);

		assert_true(k >= 0);
		/* kernel-log-clean judges each guest's whole boot: in every one */
		assert_int_equal(count, strcmp(names[i], "kernel-log-clean") ? 1 : 3);
	}
	/* the two slow tests apart, and each shard in the scenario's order */
	assert_int_not_equal(where(plan, nplan, 3, "slow-a", &count),
			     where(plan, nplan, 3, "slow-b", &count));
	for (int k = 0; k < 3; k++) {
		int last = -1;

		assert_string_equal(plan[k][nplan[k] - 1], "kernel-log-clean");
		for (int i = 0; i < nplan[k]; i++) {
			int idx = 0;

			while (strcmp(names[idx], plan[k][i]))
				idx++;
			assert_true(idx > last);
			last = idx;
		}
	}
	/* the same times, the same deal */
	shard_plan(&t, &sb, 3, again, nagain);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(nplan[k], nagain[k]);
		for (int i = 0; i < nplan[k]; i++)
			assert_string_equal(plan[k][i], again[k][i]);
	}
	shard_plan_free(plan, nplan, 3);
	shard_plan_free(again, nagain, 3);
	shard_times_release(&t);
}

static void test_count(void **state)
{
	struct scenario_boot sb = boot_of_names();
	struct shard_times t;
	int two, one;

	(void)state;
	measured(&t);
	two = shard_count(&t, &sb, 2);
	one = shard_count(&t, &sb, 1);
	/* 5.25 s of tests, the longest 2.5 s: two guests beat one, and never more than fit */
	assert_true(two >= 2);
	assert_true(one <= two);
	assert_true(two <= SHARD_MAX);
	/* a boot that costs more than the whole suite: one guest */
	t.boot = 60;
	assert_int_equal(shard_count(&t, &sb, 2), 1);
	shard_times_release(&t);
}

static const char console[] =
	"[    0.000000] Linux version 6.1.192\r\n"
	"[    2.132097] Run /init as init process\r\n"
	"KTAP version 1\r\n"
	"1..3\r\n"
	"# sd-sgio took 0.03 s\r\n"
	"ok 1 sd-sgio\r\n"
	"# the rescan took 1.51 s\r\n"
	"# lying-device-timeouts took 1.52 s\r\n"
	"ok 2 lying-device-timeouts\r\n"
	"ok 3 kernel-log-clean # SKIP not selected (bbsuite.tests)\r\n"
	"# bbsuite: 3 tests, 0 not ok, 1.60 s\r\n"
	"# sd-sgio took 9.99 s\r\n";	/* a re-run after the suite: not the suite's */

static void test_times_from_console(void **state)
{
	struct shard_times t = { 0 };

	(void)state;
	/* the guest's seconds: to /init, then its tests */
	assert_true(shard_times_from_console(console, &t) > 3.68 - 0.01);
	assert_true(shard_times_from_console(console, &t) < 3.68 + 0.01);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.names[0], "sd-sgio");
	assert_true(t.seconds[0] > 0.02 && t.seconds[0] < 0.04);
	assert_string_equal(t.names[1], "lying-device-timeouts");
	assert_true(t.boot > 2.1 && t.boot < 2.2);
	assert_true(shard_times_from_console("[    1.0] Run /init as init process\n", &t) < 0);
	assert_true(t.boot > 0.9 && t.boot < 1.1);	/* the least boot of the shards */
	shard_times_release(&t);
}

static void add(struct vtest **t, int *n, const char *name, const char *status, const char *diag)
{
	*t = xreallocarray(*t, *n + 1, sizeof(**t));
	memset(&(*t)[*n], 0, sizeof(**t));
	(*t)[*n].name = xstrdup(name);
	(*t)[*n].status = xstrdup(status);
	(*t)[*n].runs = 1;
	(*t)[*n].failures = !strcmp(status, "fail");
	(*t)[(*n)++].diag = xstrdup(diag);
}

static void test_merge(void **state)
{
	struct vtest *t = NULL;
	int n = 0;

	(void)state;
	/* an earlier boot's tests (another controller's): left as they are */
	add(&t, &n, "hba-x-read", "pass", "");
	add(&t, &n, "kernel-log-clean", "pass", "");
	/* this boot's: shard 1, then shard 2, as boot.c collects them */
	add(&t, &n, "quick-1", "pass", "");
	add(&t, &n, "slow-b", "pass", "");
	add(&t, &n, "kernel-log-clean", "pass", "");
	add(&t, &n, "slow-a", "fail", "sector 156");
	add(&t, &n, "quick-2", "pass", "");
	add(&t, &n, "kernel-log-clean", "fail", "1 kernel failure line(s)");
	add(&t, &n, "not-in-scenario", "pass", "");
	shard_merge_tests(t, &n, 2, names, NNAMES);
	assert_int_equal(n, 8);
	assert_string_equal(t[0].name, "hba-x-read");
	assert_string_equal(t[1].name, "kernel-log-clean");
	assert_string_equal(t[1].status, "pass");	/* the earlier boot's: not merged */
	t += 2;
	assert_string_equal(t[0].name, "slow-a");
	assert_string_equal(t[1].name, "quick-1");
	assert_string_equal(t[2].name, "quick-2");
	assert_string_equal(t[3].name, "slow-b");
	assert_string_equal(t[4].name, "kernel-log-clean");
	assert_string_equal(t[4].status, "fail");	/* it failed in one shard */
	assert_string_equal(t[4].diag, "1 kernel failure line(s)");
	assert_int_equal(t[4].runs, 1);
	assert_string_equal(t[5].name, "not-in-scenario");
	vtests_free(t - 2, n);
}

/* A gcda as the kernel writes it (GCC 12: a checksum word, lengths in bytes). */
static size_t gcda(unsigned char *p, uint32_t ident, const uint64_t *arcs, int narcs, bool words)
{
	uint32_t w[64];
	int n = 0;

	w[n++] = 0x67636461;
	w[n++] = 0x42323250;
	w[n++] = 0x1234;
	if (!words)
		w[n++] = 0;
	w[n++] = 0x01000000;
	w[n++] = words ? 3 : 12;
	w[n++] = ident;
	w[n++] = 7;
	w[n++] = 9;
	w[n++] = 0x01a10000;
	w[n++] = narcs * 2 * (words ? 1 : 4);
	for (int i = 0; i < narcs; i++) {
		w[n++] = (uint32_t)arcs[i];
		w[n++] = (uint32_t)(arcs[i] >> 32);
	}
	memcpy(p, w, n * 4);
	return n * 4;
}

static void test_gcda_merge(void **state)
{
	unsigned char a[256], b[256], c[256], before[256];
	const uint64_t x[] = { 1, 0, 0xffffffffu }, y[] = { 2, 0, 1 }, sum[] = { 3, 0, 0x100000000u };
	size_t la, lb, lc;

	(void)state;
	for (int words = 0; words < 2; words++) {
		la = gcda(a, 42, x, 3, words);
		lb = gcda(b, 42, y, 3, words);
		lc = gcda(c, 42, sum, 3, words);
		assert_int_equal(la, lb);
		assert_int_equal(gcda_merge(a, b, la), 0);
		assert_memory_equal(a, c, lc);	/* a line either guest ran has a count */
		/* another function: not the same object, nothing added */
		lb = gcda(b, 43, y, 3, words);
		memcpy(before, a, la);
		assert_int_equal(gcda_merge(a, b, la), -1);
		assert_memory_equal(a, before, la);
	}
	/* a truncated record is refused */
	la = gcda(a, 42, x, 3, false);
	lb = gcda(b, 42, y, 3, false);
	assert_int_equal(gcda_merge(a, b, la - 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_times_from_console),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_gcda_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
