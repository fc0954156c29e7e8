/* Unit tests for server/digest_route: periods, times, routing from [smtp]. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "mail.h"

static struct config test_cfg;
static bool test_cfg_set;

/* Point the global at a config parsed from text (the previous one freed). */
static void install(const char *text)
{
	struct buf err = BUF_INIT;

	if (test_cfg_set)
		config_release(&test_cfg);
	config_init(&test_cfg);
	test_cfg_set = true;
	if (config_parse(&test_cfg, text, "test.conf", &err))
		fail_msg("config: %s", err.ptr);
	cfg = &test_cfg;
	buf_release(&err);
}

static void expect_period(time_t t, const char *every, int hour, const char *want)
{
	struct buf out = BUF_INIT;

	digest_period(&out, t, every, hour);
	assert_string_equal(out.ptr, want);
	buf_release(&out);
}

static void test_period(void **state)
{
	time_t thu_0923 = 1796289810;	/* Thu 2026-12-03 09:23:30 UTC */

	(void)state;
	expect_period(thu_0923, "daily", 8, "2026-12-03");
	expect_period(thu_0923, "daily", 10, "2026-12-02");	/* not yet due today */
	expect_period(thu_0923, "daily", 0, "2026-12-03");
	expect_period(thu_0923, "weekly", 8, "2026-W49");
	/* Monday 2026-11-30 07:00: week 49 starts at 08:00, so still week 48 */
	expect_period(1796022000, "weekly", 8, "2026-W48");
	expect_period(1796025600, "weekly", 8, "2026-W49");	/* Monday 08:00 */
	assert_int_equal(digest_period_seconds("daily"), 86400);
	assert_int_equal(digest_period_seconds("weekly"), 7 * 86400);
	/* the next period starts where --send-now builds again */
	assert_int_equal(digest_next_period(thu_0923, "daily", 8), 1796371200);	/* Fri 08:00 */
	assert_int_equal(digest_next_period(thu_0923, "daily", 10), 1796292000);	/* Thu 10:00 */
	assert_int_equal(digest_next_period(thu_0923, "weekly", 8), 1796630400);	/* Mon 12-07 08:00 */
	assert_int_equal(digest_next_period(1796022000, "weekly", 8), 1796025600);	/* Mon 07:00 */
}

static void test_times(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	digest_iso_time(&out, 1796289810);
	assert_string_equal(out.ptr, "2026-12-03T09:23:30Z");
	assert_int_equal(digest_parse_time(out.ptr), 1796289810);
	assert_int_equal(digest_parse_time("garbage"), 0);
	assert_int_equal(digest_parse_time(""), 0);
	buf_release(&out);
}

static void test_routes(void **state)
{
	struct digest_routes r = DIGEST_ROUTES_INIT;
	struct buf err = BUF_INIT;

	(void)state;
	install("[smtp]\n"
		"to = all@example.org\n"
		"lists = SCSI=linux-scsi@vger.kernel.org, IO/Storage:Block Layer = linux-block@vger.kernel.org,"
		" USB=linux-scsi@vger.kernel.org, Misc=all@example.org\n");
	assert_int_equal(digest_routes_load(&r, NULL, &err), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[0].list, "all@example.org");
	assert_true(r.v[0].all);
	assert_string_equal(r.v[0].name, "all");
	assert_string_equal(r.v[1].list, "linux-scsi@vger.kernel.org");
	assert_string_equal(r.v[1].name, "SCSI, USB");
	assert_string_equal(r.v[2].name, "Block Layer");

	assert_true(digest_route_covers(&r.v[0], 1, "Any", "Thing"));
	assert_true(digest_route_covers(&r.v[1], 1, "IO/Storage", "SCSI"));
	assert_true(digest_route_covers(&r.v[1], 1, "Drivers", "USB"));
	assert_false(digest_route_covers(&r.v[1], 1, "IO/Storage", "Block Layer"));
	assert_true(digest_route_covers(&r.v[2], 1, "IO/Storage", "Block Layer"));
	/* product:component must match both */
	assert_false(digest_route_covers(&r.v[2], 1, "Other", "Block Layer"));
	digest_routes_release(&r);

	install("[smtp]\nlists = SCSI\n");
	assert_int_equal(digest_routes_load(&r, NULL, &err), -1);
	assert_non_null(strstr(err.ptr, "'SCSI' is not COMPONENT=address"));
	digest_routes_release(&r);
	buf_reset(&err);
	install("[smtp]\nlists = =a@b\n");
	assert_int_equal(digest_routes_load(&r, NULL, &err), -1);
	digest_routes_release(&r);
	buf_reset(&err);
	install("[smtp]\nlists = SCSI=nobody\n");
	assert_int_equal(digest_routes_load(&r, NULL, &err), -1);
	digest_routes_release(&r);
	buf_release(&err);
}

static void test_route_bugs(void **state)
{
	sqlite3_int64 bugs[] = { 3, 9370, 9376 };
	struct digest_route r = { 0 };

	(void)state;
	r.bugs = bugs;
	r.nbugs = 3;
	assert_true(digest_route_covers(&r, 9376, "P", "C"));
	assert_true(digest_route_covers(&r, 3, "P", "C"));
	assert_false(digest_route_covers(&r, 9371, "P", "C"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_route_bugs),
	};

	int ret = cmocka_run_group_tests_name("digest_route", tests, NULL, NULL);

	if (test_cfg_set)
		config_release(&test_cfg);
	return ret;
}
