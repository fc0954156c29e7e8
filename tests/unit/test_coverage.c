/*
 * Unit tests for runner/coverage.c, the pure parts of "did the run reach
 * the patch": the guest's #bbgcov blocks out of a noisy console (and the
 * ones a hostile kernel could print), the changed lines of a `diff -U0`,
 * and the reach of those lines in gcov's JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "coverage.h"

static const char console[] =
	"ok 18 kernel-log-clean\r\n"
	"# bbsuite: 18 tests, 0 not ok, 5.00 s\r\n"
	"#bbgcov file drivers/scsi/sd.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	"[    9.1] a kernel line in between\r\n"
	"#bbgcov file drivers/scsi/../../etc/passwd.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	"#bbgcov file drivers/scsi/sr.gcda 9\r\n"
	"#g aGVsbG8=\r\n"	/* 5 bytes, not the 9 announced: dropped */
	"#bbgcov end\r\n"
	"#bbgcov file drivers/scsi/scsi_lib.gcda 3\r\n"
	"#g YW*j\r\n"		/* not base64: dropped */
	"#bbgcov end\r\n"
	"#bbgcov file drivers/scsi/scsi.gcda 6\r\n"
	"#g Zm9v\r\n"
	"#g YmFy\r\n"
	"#bbgcov end\r\n";

static void test_blobs(void **state)
{
	struct gcda_blob *b;
	int n;

	(void)state;
	assert_int_equal(coverage_blobs(console, strlen(console), &b, &n), 2);
	assert_string_equal(b[0].path, "drivers/scsi/sd.gcda");
	assert_int_equal(b[0].len, 5);
	assert_memory_equal(b[0].data, "hello", 5);
	assert_string_equal(b[1].path, "drivers/scsi/scsi.gcda");
	assert_memory_equal(b[1].data, "foobar", 6);
	coverage_blobs_free(b, n);
}

static void test_changed_lines(void **state)
{
	const char *diff =
		"--- a/drivers/scsi/sr.c\n+++ b/drivers/scsi/sr.c\n"
		"@@ -317 +317 @@ static int sr_done(struct scsi_cmnd *SCpnt)\n"
		"-\t\t\tif (!(SCpnt->sense_buffer[0] & 0x90))\n"
		"+\t\t\tif (!(SCpnt->sense_buffer[0] & 0x80))\n"
		"@@ -400,2 +399,0 @@\n-a\n-b\n"
		"@@ -500,0 +499,3 @@\n+x\n+y\n+z\n";
	struct changed_line *cl;
	int n;

	(void)state;
	assert_int_equal(coverage_changed_lines(diff, &cl, &n), 5);
	assert_int_equal(cl[0].line, 317);
	assert_false(cl[0].deletion);
	assert_int_equal(cl[1].line, 400);	/* after line 399 of the new file */
	assert_true(cl[1].deletion);
	assert_int_equal(cl[2].line, 499);
	assert_int_equal(cl[4].line, 501);
	free(cl);
}

static const char gcov_json[] =
	"{\"format_version\":\"1\",\"files\":["
	"{\"file\":\"../include/linux/blkdev.h\",\"functions\":[],\"lines\":"
	"[{\"line_number\":317,\"count\":99}]},"
	"{\"file\":\"../drivers/scsi/sr.c\",\"functions\":["
	"{\"name\":\"sr_done\",\"start_line\":291,\"end_line\":354},"
	"{\"name\":\"sr_eject\",\"start_line\":600,\"end_line\":620}],"
	"\"lines\":[{\"line_number\":317,\"count\":12},{\"line_number\":318,\"count\":0},"
	"{\"line_number\":610,\"count\":0},{\"line_number\":610,\"count\":0},"
	"{\"line_number\":612,\"count\":0}]}]}";

static void test_reach(void **state)
{
	struct changed_line reached[] = { { 316, false }, { 317, false } };
	struct changed_line unreached[] = { { 610, false }, { 611, false }, { 612, false } };
	struct reach acc;

	(void)state;
	reach_init(&acc);
	/* 316 is not executable (no gcov line): only 317 counts, and it ran */
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", gcov_json, reached, 2, &acc), 1);
	coverage_summary(&acc);
	assert_string_equal(acc.summary.ptr, "reached 1 of 1 changed lines");
	reach_release(&acc);

	reach_init(&acc);
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", gcov_json, unreached, 3, &acc),
			 2);
	coverage_summary(&acc);
	assert_int_equal(acc.reached, 0);
	assert_non_null(strstr(acc.summary.ptr, "the patch's change in sr_eject (sr.c) was never"
				" executed: a pass says nothing about it"));
	reach_release(&acc);

	reach_init(&acc);
	assert_int_equal(coverage_reach_file("drivers/scsi/sd.c", gcov_json, reached, 2, &acc), -1);
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", "{not json", reached, 2, &acc),
			 -1);
	reach_release(&acc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_changed_lines),
		cmocka_unit_test(test_reach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
