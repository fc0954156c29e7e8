/*
 * Unit tests for what bugbridge posts (issue 31): the result comment's
 * shape (the tests that differ or fail, a count of the rest, columns that
 * never shift, a re-run compared with its first run), the apply-failed
 * comment's quoted hunk and summary, the build-failed detail, and the
 * plain-text tables (lib/text_table.c) the result and back-test comments
 * share.  The integration tests (t2502, t3148) check the same on the
 * stand-in tracker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "backtest.h"
#include "config.h"
#include "db.h"
#include "job_record.h"
#include "text_table.h"
#include "triage_backtest.h"
#include "triage_comment.h"

static void use_config(const char *text)
{
	struct config *old = (struct config *)cfg;
	struct config c;
	struct buf err = BUF_INIT;

	config_init(&c);
	if (config_parse(&c, text, "test.conf", &err))
		fail_msg("config: %s", err.ptr);
	config_install(&c);
	if (old) {
		config_release(old);
		free(old);
	}
	buf_release(&err);
}

static void exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql failed: %s: %s", msg, sql);
}

static void open_db(struct db *db)
{
	struct buf err = BUF_INIT;
	int applied;

	assert_int_equal(db_open(db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(db, &applied, &err), 0);
	buf_release(&err);
	exec(db, "INSERT INTO bugs (id, summary, status, creator, creation_time)"
		 " VALUES (9370, 'sr: attempt to access beyond end of device', 'NEW',"
		 " 'reporter@example.org', '2026-12-01T00:00:00Z');"
		 "INSERT INTO candidates (id, bug_id, source, source_id, kind, name, sha256)"
		 " VALUES (1, 9370, 'attachment', 301, 'patch', 'sr-fix.patch', 'aaaa');");
}

static int lines_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char *comment_of(struct db *db, sqlite3_int64 job)
{
	struct job_record rec = JOB_RECORD_INIT;
	struct buf b = BUF_INIT;
	int rc;

	assert_int_equal(job_record_load(db, job, JOB_LOAD_TESTS | JOB_LOAD_SIGS, &rec), 1);
	rc = triage_comment(db, &rec, &b);
	job_record_release(&rec);
	assert_true(rc >= 0);
	return rc ? NULL : buf_detach(&b, NULL);
}

static void test_comment_headlines(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("");
	open_db(&db);
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, verdict_detail) VALUES"
		  " (1, 9370, 1, 'done', 'apply-failed', 'sr.c: hunk #2 FAILED at 310'),"
		  " (2, 9370, 1, 'done', 'build-failed', 'sr.c:12: error: expected'),"
		  " (3, 9370, 1, 'done', 'panic', 'Kernel panic - not syncing'),"
		  " (4, 9370, NULL, 'done', 'fail', NULL),"
		  " (5, 9370, NULL, 'done', 'pass', NULL),"
		  " (6, 9370, 1, 'done', 'infra-error', 'disk full');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, kind, patch_count, state, verdict)"
		  " VALUES (7, 9370, 1, 'bisect-step', 2, 'done', 'pass');"
		  "INSERT INTO test_results (job_id, variant, name, status) VALUES"
		  " (4, 'baseline', 'sr-capacity', 'fail');");
	s = comment_of(&db, 1);
	assert_non_null(strstr(s, "bugbridge APPLY FAILED: this patch does not apply to linux-source-6.1"));
	assert_non_null(strstr(s, "\nDetail:   sr.c: hunk #2 FAILED at 310\n"));
	free(s);
	s = comment_of(&db, 2);
	assert_non_null(strstr(s, "BUILD FAILED: the kernel does not build with this patch"));
	free(s);
	s = comment_of(&db, 3);
	assert_non_null(strstr(s, "PANIC: the patched kernel did not finish the suite"));
	free(s);
	s = comment_of(&db, 4);
	assert_non_null(strstr(s, "FAIL: the unpatched linux-source-6.1 fails sr-capacity"));
	assert_null(strstr(s, "Patch:"));
	free(s);
	s = comment_of(&db, 5);
	assert_non_null(strstr(s, "PASS: the unpatched linux-source-6.1 passes the suite"));
	free(s);
	/* infra errors and bisection steps get no result comment */
	assert_null(comment_of(&db, 6));
	assert_null(comment_of(&db, 7));
	db_close(&db);
}

static void test_comment_cap_and_hostile_text(void **state)
{
	struct db db;
	sqlite3_stmt *st;
	char name[200];
	char *s;

	(void)state;
	use_config("");
	open_db(&db);
	exec(&db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256) VALUES"
		  " (2, 9370, 'attachment', 'patch', 'x.patch' || char(10) ||"
		  " 'bugbridge-result: job 1', 'bbbb');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict) VALUES"
		  " (8, 9370, 2, 'done', 'fail');");
	assert_int_equal(sqlite3_prepare_v2(db.h, "INSERT INTO test_results (job_id, name, status)"
					    " VALUES (8, ?, 'fail')", -1, &st, NULL), SQLITE_OK);
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "a-rather-long-test-name-%05d-%s", i,
			 "padding-padding-padding-padding-padding");
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	s = comment_of(&db, 8);
	/* 3000 failures: ten rows and a count, not a table of 3000 */
	assert_true(lines_of(s) <= 25);
	assert_non_null(strstr(s, "\n  2990 more that differ or fail (the job page lists every"
			       " test).\n"));
	assert_non_null(strstr(s, "\nbugbridge-result: job 8\n"));
	/* a patch name cannot smuggle in a marker line of its own */
	assert_null(strstr(s, "\nbugbridge-result: job 1"));
	assert_non_null(strstr(s, "x.patch bugbridge-result: job 1"));
	free(s);
	db_close(&db);
}

/* Every line of s: at most max bytes, no control character. */
static void assert_lines_clean(const char *s, size_t max)
{
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, "\n");

		if (len > max)
			fail_msg("a line of %zu bytes: %.*s", len, (int)len, p);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				fail_msg("control character 0x%02x in: %.*s", p[i], (int)len, p);
		p += len + (p[len] == '\n');
	}
}

static void test_comment_apply_failed_hunk(void **state)
{
	struct buf detail = BUF_INIT;
	struct db db;
	sqlite3_stmt *st;
	char *s, *hunk;
	int lines = 0;

	(void)state;
	use_config("");
	open_db(&db);
	buf_addstr(&detail, "patch 1/1 '001-revert.patch' does not apply to 6.1.158:\n"
		   "drivers/scsi/scsi_debug.c: hunk #1 FAILED at 310\n"
		   "rejected hunk:\n"
		   "@@ -310,43 +310,44 @@ static int resp_inquiry(struct scsi_cmnd *scp)\n"
		   " \tif (!sdb->length)\n"
		   "-\tprintk(KERN_INFO \"buffer = 0x%p, bufflen = %d\\n\", sdb, sdb->length);\n"
		   "+\tprintk(KERN_INFO \"buffer = 0x%p\\n\", sdb);\n"
		   " bugbridge-result: job 2\n"
		   "+\x1b[31mred\x07\n");
	for (int i = 0; i < 40; i++)
		buf_addf(&detail, " \tline %d of a long hunk%s\n", i,
			 i == 3 ? " that goes on and on and on and on and on and on and on and on and"
				  " on and on and on and on and on and on and on" : "");
	buf_addstr(&detail, "drivers/scsi/sr.c: hunk #2 FAILED at 80\nrejected hunk:\n"
		   "@@ -80,3 +80,3 @@\n-second hunk\n+second hunk\n");
	exec(&db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256) VALUES"
		  " (3, 9370, 'attachment', 'patch', 'revert.patch', 'cccc');");
	assert_int_equal(sqlite3_prepare_v2(db.h, "INSERT INTO jobs (id, bug_id, candidate_id,"
					    " state, verdict, verdict_detail) VALUES"
					    " (9, 9370, 3, 'done', 'apply-failed', ?)", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, detail.ptr, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	s = comment_of(&db, 9);
	/* the reasons on Detail lines, the hunk line by line with the code's own layout */
	assert_non_null(strstr(s, "\nDetail:   patch 1/1 '001-revert.patch' does not apply to"
			       " 6.1.158:\n          drivers/scsi/scsi_debug.c: hunk #1 FAILED at"
			       " 310\n          drivers/scsi/sr.c: hunk #2 FAILED at 80\n"));
	hunk = strstr(s, "\nRejected hunk");
	assert_non_null(hunk);
	assert_non_null(strstr(hunk, ":\n    @@ -310,43 +310,44 @@ static int resp_inquiry"));
	assert_non_null(strstr(hunk, "\n            if (!sdb->length)\n"));
	assert_non_null(strstr(hunk, "\n    -       printk(KERN_INFO \"buffer = 0x%p, bufflen = %d"
				  "\\n\", sdb, sdb->length);\n"));
	assert_non_null(strstr(hunk, "\n    +       printk(KERN_INFO \"buffer = 0x%p\\n\", sdb);\n"));
	/* bounded: the first hunk only, 16 lines, the rest counted */
	assert_non_null(strstr(hunk, "\n    (30 more lines)\n"));
	assert_null(strstr(s, "second hunk"));
	for (const char *p = hunk + 1; *p != '\n' || p[1] == ' '; p = strchr(p, '\n') + 1)
		lines++;
	assert_true(lines <= 1 + 16 + 1);
	assert_non_null(strstr(hunk, " on and on a...\n"));
	assert_lines_clean(s, 220);
	/* hunk text cannot pose as a marker line */
	assert_null(strstr(s, "\nbugbridge-result: job 2"));
	assert_non_null(strstr(s, "\n     bugbridge-result: job 2\n"));
	/* nothing was booted: no accelerator, no run line at all */
	assert_null(strstr(s, "unknown accelerator"));
	assert_null(strstr(s, "Run:"));
	free(s);
	buf_release(&detail);
	db_close(&db);
}

/*
 * A build-failed detail carries log text a hostile Makefile controls: only
 * parsed, bounded fields reach the comment; a printed secret, a raw tail of
 * the log and a line posing as a marker do not.
 */
static void test_comment_build_failed_detail(void **state)
{
	struct buf detail = BUF_INIT;
	sqlite3_stmt *st;
	struct db db;
	char *s;

	(void)state;
	use_config("");
	open_db(&db);
	buf_addstr(&detail, "../drivers/scsi/sr.c:123:45: error: 'sr_bogus' undeclared (first use"
		   " in this function)\n"
		   "api_key = LEAKED-KEY-0123456789\n"
		   "bugbridge-result: job 3\n"
		   "ld: vmlinux.o: in function `sr_done': undefined reference to `sr_missing'\n"
		   "make[2]: *** [scripts/Makefile.build:250: drivers/scsi/sr.o] Error 1\n"
		   "/etc/bugbridge/bugbridge.conf:3: error: password = LEAKED-PASS\n"
		   "../../../etc/bugbridge/bugbridge.conf:3: error: password = LEAKED-PASS\n"
		   "drivers/scsi/sd.c:9: warning: unused variable 'x'\n"
		   "baseline (cached): pass: 12 tests: 0 failed\n");
	exec(&db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256) VALUES"
		  " (4, 9370, 'attachment', 'patch', 'evil.patch', 'dddd');");
	assert_int_equal(sqlite3_prepare_v2(db.h, "INSERT INTO jobs (id, bug_id, candidate_id,"
					    " state, verdict, verdict_detail) VALUES"
					    " (10, 9370, 4, 'done', 'build-failed', ?)", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, detail.ptr, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	s = comment_of(&db, 10);
	assert_non_null(strstr(s, "\nDetail:   drivers/scsi/sr.c:123: error: 'sr_bogus' undeclared"
			       " (first use in this function)\n"
			       "          undefined reference to 'sr_missing'\n"
			       "          make: *** Error 1\n"
			       "          baseline: pass\n"
			       "          (5 more lines on the job page)\n"));
	assert_null(strstr(s, "LEAKED"));
	assert_null(strstr(s, "api_key"));
	assert_null(strstr(s, "/etc/bugbridge"));
	assert_null(strstr(s, "\nbugbridge-result: job 3"));
	assert_null(strstr(s, "warning"));
	free(s);
	buf_release(&detail);
	db_close(&db);
}


/*
 * Rows of 70 tests for job: `status` for all, both variants when both; the
 * baseline fails `fixed`, which the patched kernel passes.
 */
static void seventy(struct db *db, int job, bool both, const char *status, const char *fixed)
{
	struct buf sql = BUF_INIT;

	for (int i = 0; i < 70; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%02d-%s", i, i == 7 && fixed ? fixed : "case");
		if (both)
			buf_addf(&sql, "INSERT INTO test_results (job_id, variant, name, status, change)"
				 " VALUES (%d, 'baseline', '%s', '%s', NULL);", job, name,
				 i == 7 && fixed ? "fail" : status);
		buf_addf(&sql, "INSERT INTO test_results (job_id, variant, name, status, change)"
			 " VALUES (%d, 'patched', '%s', '%s', %s);", job, name, status,
			 !both ? "NULL" : i == 7 && fixed ? "'FAIL->PASS'" : "'PASS->PASS'");
	}
	exec(db, sql.ptr);
	buf_release(&sql);
}

/* Does every row of the table under header start each column where header does? */
static void assert_aligned(const char *s, const char *header)
{
	const char *h = strstr(s, header), *row;
	int starts[4], n = 0, rows = 0;

	assert_non_null(h);
	h += *h == '\n';
	for (const char *p = h + 2; *p != '\n'; p++)
		if (p[0] != ' ' && p[-1] == ' ' && p[-2] == ' ')
			starts[n++] = (int)(p - h);
	for (row = strchr(h, '\n') + 1; !strncmp(row, "  ", 2) && strchr("PFS-", row[2]);
	     row = strchr(row, '\n') + 1, rows++)
		for (int i = 0; i < n; i++)
			if (row[starts[i] - 1] != ' ' || row[starts[i]] == ' ')
				fail_msg("column %d shifted in: %.*s", i, (int)strcspn(row, "\n"), row);
	assert_true(rows > 0);
}

static void test_comment_tests(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("[web]\nbase_url = http://bb.example/\n");
	open_db(&db);
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, change, reach,"
		  " reach_changed, reach_reached, kernel_version) VALUES"
		  " (20, 9370, 1, 'done', 'pass', 'FAIL->PASS', 'reached 3 of 3 changed lines', 3, 3,"
		  "  '6.1.158'),"
		  " (21, 9370, 1, 'done', 'pass', 'PASS->PASS', NULL, 0, 0, '6.1.158'),"
		  " (23, 9370, NULL, 'done', 'fail', NULL, NULL, 0, 0, '6.1.158');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, parent_id, kind, state, verdict)"
		  " VALUES (22, 9370, 1, 20, 'retest', 'done', 'pass');");
	seventy(&db, 20, true, "pass", "sr-capacity");
	seventy(&db, 21, true, "pass", NULL);
	seventy(&db, 22, false, "pass", NULL);
	exec(&db, "UPDATE test_results SET name = 't07-sr-capacity' WHERE job_id = 22"
		  " AND name = 't07-case';"
		  "INSERT INTO test_results (job_id, variant, name, status) VALUES"
		  " (23, 'patched', 'sr-capacity', 'fail'), (23, 'patched', 'sd-trim', 'skip'),"
		  " (23, 'patched', 'sd-read', 'pass'), (23, 'patched', 'sd-sgio', 'pass');");

	/* the fix: its row, one line for the other 69, at most 25 lines */
	s = comment_of(&db, 20);
	assert_true(lines_of(s) <= 25);
	assert_non_null(strstr(s, "bugbridge FAIL->PASS: this patch fixes t07-sr-capacity\n"));
	assert_non_null(strstr(s, "\nKernel:   linux-source-6.1, 6.1.158\n"
			       "Reach:    reached 3 of 3 changed lines\n\n"
			       "  Baseline  Patched  Test\n"
			       "  FAIL      PASS     t07-sr-capacity\n"
			       "  69 more tests pass on both.\n\n"
			       "Job:      http://bb.example/job/20\n"));
	free(s);
	/* no change at all: one line */
	s = comment_of(&db, 21);
	assert_non_null(strstr(s, "\nAll 70 tests pass on both.\n\nJob:"));
	assert_null(strstr(s, "Baseline"));
	free(s);
	/* a re-run that agrees with its first run, in a few lines */
	s = comment_of(&db, 22);
	assert_true(lines_of(s) <= 10);
	assert_non_null(strstr(s, "bugbridge PASS again on a re-run: the fix holds\n\n"
			       "Patch:    sr-fix.patch, as in job 20\n"
			       "Kernel:   linux-source-6.1\n"
			       "Run:      re-run of job 20\n"
			       "All 70 tests pass, as in job 20.\n"));
	free(s);
	/* without db, no first run to compare with: the re-run's own statuses */
	{
		struct job_record rec = JOB_RECORD_INIT;
		struct buf b = BUF_INIT;

		assert_int_equal(job_record_load(&db, 22, JOB_LOAD_TESTS, &rec), 1);
		assert_int_equal(triage_comment(NULL, &rec, &b), 0);
		assert_non_null(strstr(b.ptr, "\nAll 70 tests pass.\n"));
		job_record_release(&rec);
		buf_release(&b);
	}
	/* one run: what fails, then a count that says the skipped apart */
	s = comment_of(&db, 23);
	assert_non_null(strstr(s, "\n  Result  Test\n"
			       "  FAIL    sr-capacity\n"
			       "  3 more tests: 2 pass, 1 skipped.\n"));
	free(s);
	db_close(&db);
}

/* A 60-character name, a flaky test's runs, a UTF-8 name: no column moves. */
static void test_comment_columns(void **state)
{
	static const char long_name[] =
		"lying-device-a-test-name-of-exactly-sixty-characters-long-xx";
	struct buf sql = BUF_INIT;
	struct db db;
	char *s;

	(void)state;
	assert_int_equal(strlen(long_name), 60);
	use_config("");
	open_db(&db);
	buf_addf(&sql, "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, change) VALUES"
		 " (30, 9370, 1, 'done', 'fail', 'PASS->FAIL');"
		 "INSERT INTO test_results (job_id, variant, name, status, change, runs, failures)"
		 " VALUES (30, 'baseline', '%s', 'pass', NULL, 1, 0),"
		 " (30, 'patched', '%s', 'fail', 'PASS->FAIL', 1, 1),"
		 " (30, 'baseline', 'sr', 'fail', NULL, 1, 1),"
		 " (30, 'patched', 'sr', 'pass', 'FAIL->PASS', 1, 0),"
		 " (30, 'baseline', 'sd-flaky', 'pass', NULL, 1, 0),"
		 " (30, 'patched', 'sd-flaky', 'flaky', NULL, 3, 1),"
		 " (30, 'baseline', 'caf\xc3\xa9-\xe2\x9c\x93', 'pass', NULL, 1, 0),"
		 " (30, 'patched', 'caf\xc3\xa9-\xe2\x9c\x93', 'skip', NULL, 1, 0);",
		 long_name, long_name);
	exec(&db, sql.ptr);
	s = comment_of(&db, 30);
	assert_aligned(s, "\n  Baseline  Patched  Test\n");
	assert_non_null(strstr(s, "\n  PASS      FAIL     lying-device-a-test-name-of-exactly-"
			       "sixty-characters-long-xx\n"));
	assert_non_null(strstr(s, "\n  PASS      FLAKY    sd-flaky (1 of 3 runs failed)\n"));
	assert_non_null(strstr(s, "\n  PASS      SKIP     caf\xc3\xa9-\xe2\x9c\x93\n"));
	free(s);
	buf_release(&sql);
	db_close(&db);
}

/*
 * An apply failure as the runner wrote it before it followed the hunk's
 * counts: the rejected hunk ran on into the next file's "Index:", "===="
 * and "---" lines, and GNU patch's own "malformed patch" line quotes a line
 * of the patch.  None of those is quoted; the hunk and the summary are.
 */
static void test_comment_apply_failed_headers(void **state)
{
	struct buf detail = BUF_INIT;
	sqlite3_stmt *st;
	struct db db;
	char *s;

	(void)state;
	use_config("");
	open_db(&db);
	buf_addstr(&detail, "patch 1/1 'garbage.patch' does not apply to 6.1.158:\n"
		   "drivers/scsi/sd.c: hunk #1 FAILED at 1\n"
		   "rejected hunk:\n"
		   "@@ -1,2 +1,2 @@\n"
		   " int sd;\n"
		   "-int nothere;\n"
		   "+int sd2;\n"
		   "Index: drivers/scsi/Kconfig\n"
		   "===================================================================\n"
		   "--- a/drivers/scsi/Kconfig\n"
		   "diff --git a/x b/x\n"
		   "patch: **** malformed patch at line 14: +secret line of the patch\n"
		   "can't find file to patch at input line 9\n"
		   "|Index: drivers/scsi/Kconfig\n");
	exec(&db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256) VALUES"
		  " (5, 9370, 'attachment', 'patch', 'garbage.patch', 'eeee');");
	assert_int_equal(sqlite3_prepare_v2(db.h, "INSERT INTO jobs (id, bug_id, candidate_id,"
					    " state, verdict, verdict_detail) VALUES"
					    " (11, 9370, 5, 'done', 'apply-failed', ?)", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, detail.ptr, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	s = comment_of(&db, 11);
	assert_non_null(strstr(s, "\nPatch:    garbage.patch\n"));
	assert_non_null(strstr(s, "\nDetail:   patch 1/1 'garbage.patch' does not apply to 6.1.158:\n"
			       "          drivers/scsi/sd.c: hunk #1 FAILED at 1\n"
			       "          malformed patch at line 14\n"
			       "          can't find file to patch at input line 9\n"
			       "          (5 more lines on the job page)\n"
			       "Rejected hunk:\n"
			       "    @@ -1,2 +1,2 @@\n"
			       "     int sd;\n"
			       "    -int nothere;\n"
			       "    +int sd2;\n\n"));
	assert_null(strstr(s, "Index"));
	assert_null(strstr(s, "===="));
	assert_null(strstr(s, "diff --git"));
	assert_null(strstr(s, "Kconfig"));
	assert_null(strstr(s, "secret"));
	assert_null(strstr(s, "0001-"));
	free(s);
	buf_release(&detail);
	db_close(&db);
}

/* text_table: widths in characters, cells cleaned and cut, no trailing blanks. */
static void test_text_table(void **state)
{
	struct text_table t;
	struct buf out = BUF_INIT;
	char long_cell[200];
	const char *r1[] = { "a", "caf\xc3\xa9", "x" }, *r2[] = { "bbbb", "c", NULL };
	const char *r3[] = { "ctl\n\tz", long_cell, "y" };

	(void)state;
	memset(long_cell, 'w', sizeof(long_cell) - 1);
	long_cell[sizeof(long_cell) - 1] = '\0';
	text_table_init(&t, 3);
	text_table_add(&t, r1);
	text_table_add(&t, r2);
	text_table_render(&t, "  ", &out);
	assert_string_equal(out.ptr, "  a     caf\xc3\xa9  x\n  bbbb  c\n");
	buf_reset(&out);
	text_table_add(&t, r3);
	text_table_render(&t, "", &out);
	/* the 199 w's cut to 77 and "...": 80 characters, and the column as wide */
	assert_non_null(strstr(out.ptr, "ctl  z  www"));
	assert_non_null(strstr(out.ptr, "w...  y\n"));
	assert_int_equal(strstr(out.ptr, "w...") + 4 - strstr(out.ptr, "www"), 80);
	/* x and y in the same column: bytes differ by café's two-byte \xc3\xa9 */
	assert_int_equal(strstr(out.ptr, "x\n") - out.ptr - 1, strstr(out.ptr, "y\n") -
			 strstr(out.ptr, "ctl"));
	assert_int_equal(text_width("caf\xc3\xa9-\xe2\x9c\x93"), 6);
	text_table_release(&t);
	buf_release(&out);
}

/* The back-test matrix keeps its columns with a 60-character failing test. */
static void test_backtest_text(void **state)
{
	struct backtest_row rows[2] = {
		{ .job_id = 12, .series = "6.1", .kernel_version = "6.1.192", .state = "done",
		  .applies = "yes", .unpatched = "FAIL (sr-capacity)", .patched = "PASS",
		  .change = "FAIL->PASS" },
		{ .job_id = 1400, .series = "6.12", .kernel_version = "6.12.118", .state = "done",
		  .applies = "yes",
		  .unpatched = "FAIL (sr-capacity, lying-device-a-test-name-of-exactly-sixty-"
			       "characters-long-xx)",
		  .patched = "PASS", .change = "FAIL->PASS" },
	};
	struct backtest bt = { .fix_job = 12, .rows = rows, .n = 2 };
	struct buf out = BUF_INIT;
	const char *head, *l1, *l2;

	(void)state;
	backtest_text(&bt, &out);
	head = out.ptr;
	l1 = strchr(head, '\n') + 1;
	l2 = strchr(l1, '\n') + 1;
	assert_true(!strncmp(head, "  Series  Kernel    Job   Applies  Unpatched", 44));
	/* "Patched" starts where each row's patched cell does */
	assert_int_equal(strstr(head, "Patched") - head, strstr(l1, "PASS (FAIL->PASS)") - l1);
	assert_int_equal(strstr(head, "Patched") - head, strstr(l2, "PASS (FAIL->PASS)") - l2);
	assert_int_equal(strstr(head, "Job") - head, strstr(l2, "1400") - l2);
	buf_release(&out);
}

static char *outbox_text(struct db *db, const char *marker)
{
	sqlite3_stmt *st;
	char *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db->h, "SELECT payload FROM outbox WHERE marker = ?",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, marker, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

static void assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("want a text starting\n%s\ngot\n%s", prefix, s);
}

/* The matrix comment's verdict line says in words what its rows say. */
static void test_backtest_comment(void **state)
{
	struct job_record rec = JOB_RECORD_INIT;
	struct db db;
	char *s;

	(void)state;
	use_config("");
	open_db(&db);
	/* a fix, back-tested on 6.12 (works) and 6.6 (does not apply) */
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, base, state, verdict, change,"
		  " kernel_version) VALUES"
		  " (40, 9370, 1, 'linux-source-6.1', 'done', 'pass', 'FAIL->PASS', '6.1.192');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, parent_id, purpose, base, state,"
		  " verdict, change, kernel_version) VALUES"
		  " (41, 9370, 1, 40, 'backtest', 'linux-source-6.12', 'done', 'pass', 'FAIL->PASS',"
		  "  '6.12.118'),"
		  " (42, 9370, 1, 40, 'backtest', 'linux-source-6.6', 'done', 'apply-failed', NULL,"
		  "  '6.6.1');"
		  "INSERT INTO test_results (job_id, variant, name, status) VALUES"
		  " (40, 'baseline', 'sr-capacity', 'fail'), (40, 'patched', 'sr-capacity', 'pass'),"
		  " (41, 'baseline', 'sr-capacity', 'fail'), (41, 'patched', 'sr-capacity', 'pass');");
	assert_int_equal(job_record_load(&db, 42, 0, &rec), 1);
	assert_int_equal(backtest_job_done(&db, &rec), 0);
	job_record_release(&rec);
	s = outbox_text(&db, "bugbridge-backtest: job 40");
	assert_non_null(s);
	assert_prefix(s, "bugbridge back-test of the fix: works on 6.1 and 6.12;"
		      " does not apply to 6.6\n\n");
	assert_non_null(strstr(s, "\n  6.6     6.6.1     42   no       -                   -\n"));
	free(s);
	/* a patch asked for by a command, not a fix: "of the patch", and what it did */
	exec(&db, "DELETE FROM outbox; UPDATE jobs SET change = 'PASS->PASS' WHERE id = 40;"
		  "UPDATE test_results SET status = 'pass' WHERE variant = 'baseline';"
		  "UPDATE jobs SET change = 'PASS->PASS' WHERE id = 41;");
	assert_int_equal(job_record_load(&db, 42, 0, &rec), 1);
	assert_int_equal(backtest_job_done(&db, &rec), 0);
	job_record_release(&rec);
	s = outbox_text(&db, "bugbridge-backtest: job 40");
	assert_non_null(s);
	assert_prefix(s, "bugbridge back-test of the patch: passes on 6.1 and 6.12, as do"
		      " the unpatched kernels; does not apply to 6.6\n");
	free(s);
	db_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comment_headlines),
		cmocka_unit_test(test_comment_cap_and_hostile_text),
		cmocka_unit_test(test_comment_apply_failed_hunk),
		cmocka_unit_test(test_comment_apply_failed_headers),
		cmocka_unit_test(test_comment_build_failed_detail),
		cmocka_unit_test(test_comment_tests),
		cmocka_unit_test(test_comment_columns),
		cmocka_unit_test(test_text_table),
		cmocka_unit_test(test_backtest_text),
		cmocka_unit_test(test_backtest_comment),
	};
	int rc;

	use_config("");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	config_release((struct config *)cfg);
	free((void *)cfg);
	return rc;
}
