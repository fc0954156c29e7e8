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
	"#bbgcov end\r\n"
	/* the guest names a file by its path in the build: the tail is kept */
	"#bbgcov file bb/src/out/block/blk-mq.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	/* a profiled object the job did not ask for: refused */
	"#bbgcov file bb/src/out/block/blk-core.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	/* the wanted name at the end of another one: refused */
	"#bbgcov file bb/src/out/xblock/blk-mq.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	"#bbgcov file bb/src/out/drivers/scsi/megaraid/mega.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n"
	"#bbgcov file /x/out/drivers/scsi/sr_ioctl.gcda 5\r\n"
	"#g aGVsbG8=\r\n"
	"#bbgcov end\r\n";

static void test_blobs(void **state)
{
	struct gcda_blob *b;
	int n;

	char *wanted[] = { "block/blk-mq.gcda" };

	(void)state;
	assert_int_equal(coverage_blobs(console, strlen(console), wanted, 1, &b, &n), 4);
	assert_string_equal(b[0].path, "drivers/scsi/sd.gcda");
	assert_int_equal(b[0].len, 5);
	assert_memory_equal(b[0].data, "hello", 5);
	assert_string_equal(b[1].path, "drivers/scsi/scsi.gcda");
	assert_memory_equal(b[1].data, "foobar", 6);
	assert_string_equal(b[2].path, "block/blk-mq.gcda");
	assert_string_equal(b[3].path, "drivers/scsi/sr_ioctl.gcda");
	coverage_blobs_free(b, n);
	/* without the plan's list: drivers/scsi's only */
	assert_int_equal(coverage_blobs(console, strlen(console), NULL, 0, &b, &n), 3);
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
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", "{not json", reached, 2, &acc),
			 -1);
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", "", reached, 2, &acc), -1);
	reach_release(&acc);
}

/*
 * The finding of issue 32: a series of the sr fix and a line of
 * virtio_scsi.c said "reached 1 of 1": every file is named with its count,
 * and a file whose changed line is no executable one is named as such.
 */
static const char virtio_json[] =
	"{\"files\":[{\"file\":\"../drivers/scsi/virtio_scsi.c\",\"functions\":["
	"{\"name\":\"virtscsi_complete_cmd\",\"start_line\":100,\"end_line\":160}],"
	"\"lines\":[{\"line_number\":120,\"count\":40}]}]}\n";

static void test_reach_files(void **state)
{
	struct changed_line sr[] = { { 317, false } }, virtio[] = { { 120, false } };
	struct changed_line comment[] = { { 99, false } };
	struct reach acc;

	(void)state;
	reach_init(&acc);
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", gcov_json, sr, 1, &acc), 1);
	assert_int_equal(coverage_reach_file("drivers/scsi/virtio_scsi.c", virtio_json, virtio, 1,
					     &acc), 1);
	coverage_summary(&acc);
	assert_string_equal(acc.summary.ptr, "reached 2 of 2 changed lines (sr.c 1 of 1,"
			    " virtio_scsi.c 1 of 1)");
	reach_release(&acc);

	reach_init(&acc);
	assert_int_equal(coverage_reach_file("drivers/scsi/sr.c", gcov_json, sr, 1, &acc), 1);
	/* a file gcov read whose changed line is a comment: named, not silently dropped */
	assert_int_equal(coverage_reach_file("drivers/scsi/virtio_scsi.c", virtio_json, comment, 1,
					     &acc), 0);
	buf_addstr(&acc.not_measured, "drivers/scsi/sg.c (not built into this kernel)");
	buf_addstr(&acc.no_lines, "drivers/scsi/Kconfig (build rules: no lines that run)");
	coverage_summary(&acc);
	assert_string_equal(acc.summary.ptr, "reached 1 of 1 changed lines (sr.c 1 of 1,"
			    " virtio_scsi.c: no executable line changed); not measured:"
			    " drivers/scsi/sg.c (not built into this kernel); no lines to reach:"
			    " drivers/scsi/Kconfig (build rules: no lines that run)");
	reach_release(&acc);
}

/* A header's lines run in every object that includes it: counts are summed over them. */
static void test_reach_header(void **state)
{
	const char *two =
		"{\"files\":[{\"file\":\"../block/blk-mq.c\",\"lines\":[]},"
		"{\"file\":\"../block/blk-mq.h\",\"lines\":[{\"line_number\":50,\"count\":0},"
		"{\"line_number\":60,\"count\":0}]}]}\n"
		"{\"files\":[{\"file\":\"../block/blk-core.c\",\"lines\":[]},"
		"{\"file\":\"../block/blk-mq.h\",\"lines\":[{\"line_number\":50,\"count\":7}]}]}\n";
	struct changed_line cl[] = { { 50, false }, { 60, false } };
	struct reach acc;

	(void)state;
	reach_init(&acc);
	assert_int_equal(coverage_reach_file("block/blk-mq.h", two, cl, 2, &acc), 2);
	assert_int_equal(acc.reached, 1);
	coverage_summary(&acc);
	assert_string_equal(acc.summary.ptr, "reached 1 of 2 changed lines; never executed:"
			    " line 60 (blk-mq.h)");
	reach_release(&acc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_changed_lines),
		cmocka_unit_test(test_reach),
		cmocka_unit_test(test_reach_files),
		cmocka_unit_test(test_reach_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
