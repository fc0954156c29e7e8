/*
 * Unit tests for triage: the state machine, the tracker mirror (whiteboard,
 * keywords, status), and triage_run() on a migrated in-memory database:
 * a failing baseline fixed by a patch gives fix-candidate, one result
 * comment and one whiteboard update, a queued re-run, and the re-run gives
 * fix-verified; infra errors blame nobody; duplicates are linked once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "job_record.h"
#include "triage.h"
#include "triage_state.h"
#include "triage_comment.h"
#include "stale.h"

static volatile sig_atomic_t no_stop;

/* Install a configuration; the test is single-threaded, so the old one goes. */
static void use_config(const char *text)
{
	struct config *old = (struct config *)cfg;
	struct config c;
	struct buf err = BUF_INIT;
	struct buf full = BUF_INIT;

	/* back-tests and release bisections queue jobs of their own: test_backtest's */
	buf_addf(&full, "[triage]\nbacktest = false\nrelease_bisect = false\n%s", text);
	config_init(&c);
	if (config_parse(&c, full.ptr, "test.conf", &err))
		fail_msg("config: %s", err.ptr);
	buf_release(&full);
	config_install(&c);
	if (old) {
		config_release(old);
		free(old);
	}
	buf_release(&err);
}

static void test_transitions(void **state)
{
	struct triage_fact f;

	(void)state;
	/* baseline fails: reproduced */
	memset(&f, 0, sizeof(f));
	f.baseline_ran = f.baseline_failed = true;
	assert_int_equal(triage_next(TRIAGE_NEW, &f), TRIAGE_REPRODUCED);
	assert_int_equal(triage_next(TRIAGE_NOT_REPRODUCIBLE, &f), TRIAGE_REPRODUCED);
	assert_int_equal(triage_next(TRIAGE_FIX_CANDIDATE, &f), TRIAGE_FIX_CANDIDATE);
	/* and a patch passes: fix-candidate */
	f.has_patch = f.patched_ran = f.patched_passed = true;
	assert_int_equal(triage_next(TRIAGE_NEW, &f), TRIAGE_FIX_CANDIDATE);
	assert_int_equal(triage_next(TRIAGE_REPRODUCED, &f), TRIAGE_FIX_CANDIDATE);
	assert_int_equal(triage_next(TRIAGE_FIX_VERIFIED, &f), TRIAGE_FIX_VERIFIED);
	/* duplicate is for humans to undo */
	assert_int_equal(triage_next(TRIAGE_DUPLICATE, &f), TRIAGE_DUPLICATE);
	/* a re-run of the fix: verified when it passes again, back when not */
	memset(&f, 0, sizeof(f));
	f.has_patch = f.is_retest = f.patched_ran = f.patched_passed = true;
	assert_int_equal(triage_next(TRIAGE_FIX_CANDIDATE, &f), TRIAGE_FIX_VERIFIED);
	f.patched_passed = false;
	assert_int_equal(triage_next(TRIAGE_FIX_CANDIDATE, &f), TRIAGE_REPRODUCED);
	/* baseline passes: not reproducible, but only before any evidence */
	memset(&f, 0, sizeof(f));
	f.baseline_ran = true;
	assert_int_equal(triage_next(TRIAGE_NEW, &f), TRIAGE_NOT_REPRODUCIBLE);
	assert_int_equal(triage_next(TRIAGE_REPRODUCED, &f), TRIAGE_REPRODUCED);
	/* no baseline at all: we still need a reproduction */
	memset(&f, 0, sizeof(f));
	f.has_patch = f.patched_ran = f.patched_passed = true;
	assert_int_equal(triage_next(TRIAGE_NEW, &f), TRIAGE_NEEDS_REPRO);
	/* an infra error moves nothing, whatever else it claims */
	memset(&f, 0xff, sizeof(f));
	f.infra = true;
	assert_int_equal(triage_next(TRIAGE_REPRODUCED, &f), TRIAGE_REPRODUCED);

	for (int s = TRIAGE_NEW; s <= TRIAGE_DUPLICATE; s++)
		assert_int_equal(triage_state_parse(triage_state_name(s)), s);
	assert_int_equal(triage_state_parse("closed"), -1);
}

static void test_whiteboard(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	triage_whiteboard("", TRIAGE_REPRODUCED, &b);
	assert_string_equal(b.ptr, "[bugbridge: reproduced]");
	triage_whiteboard("[bugbridge: reproduced] regression", TRIAGE_FIX_CANDIDATE, &b);
	assert_string_equal(b.ptr, "regression [bugbridge: fix-candidate]");
	triage_whiteboard("a [bugbridge: new] b [bugbridge: x] c", TRIAGE_DUPLICATE, &b);
	assert_string_equal(b.ptr, "a b c [bugbridge: duplicate]");
	triage_whiteboard("[bugbridge: unclosed", TRIAGE_NEW, &b);
	assert_string_equal(b.ptr, "[bugbridge: unclosed [bugbridge: new]");
	buf_release(&b);
}

static void test_mirror_payloads(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n");
	assert_int_equal(triage_mirror_payload(TRIAGE_FIX_VERIFIED, "keep [bugbridge: new]", "",
					       "NEW", 0, &b), 0);
	assert_string_equal(b.ptr, "{\"whiteboard\":\"keep [bugbridge: fix-verified]\"}");

	use_config("[triage]\nmirror = keywords\n");
	assert_int_equal(triage_mirror_payload(TRIAGE_REPRODUCED, "", "bugbridge-new, regression",
					       "NEW", 0, &b), 0);
	assert_string_equal(b.ptr, "{\"keywords\":{\"add\":[\"bugbridge-reproduced\"],"
			    "\"remove\":[\"bugbridge-new\"]}}");

	/* nothing mirrored, status untouched: nothing to send */
	use_config("[triage]\nmirror =\n");
	assert_int_equal(triage_mirror_payload(TRIAGE_FIX_VERIFIED, "", "", "NEW", 0, &b), 1);
	assert_string_equal(b.ptr, "");

	/* only set_status closes, and only a verified fix or a duplicate */
	use_config("[triage]\nmirror =\nset_status = true\n");
	assert_int_equal(triage_mirror_payload(TRIAGE_FIX_CANDIDATE, "", "", "NEW", 0, &b), 1);
	assert_int_equal(triage_mirror_payload(TRIAGE_FIX_VERIFIED, "", "", "NEW", 0, &b), 0);
	assert_string_equal(b.ptr, "{\"status\":\"RESOLVED\",\"resolution\":\"FIXED\"}");
	assert_int_equal(triage_mirror_payload(TRIAGE_DUPLICATE, "", "", "NEW", 9370, &b), 0);
	assert_string_equal(b.ptr, "{\"dupe_of\":9370}");
	buf_release(&b);
}

/* --- triage_run on a database ------------------------------------------ */

static void exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql failed: %s: %s", msg, sql);
}

static long long count(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static char *text(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	char *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

static void open_db(struct db *db)
{
	struct buf err = BUF_INIT;
	int applied;

	assert_int_equal(db_open(db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(db, &applied, &err), 0);
	buf_release(&err);
	exec(db, "INSERT INTO bugs (id, summary, status, whiteboard, creator, creation_time)"
		 " VALUES (9370, 'sr: attempt to access beyond end of device', 'NEW',"
		 " 'regression', 'reporter@example.org', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));"
		 "INSERT INTO candidates (id, bug_id, source, source_id, kind, name, sha256, content)"
		 " VALUES (1, 9370, 'attachment', 301, 'patch', '0001-sr-fix-capacity.patch',"
		 " 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',"
		 " '--- a/drivers/scsi/sr.c\n+++ b/drivers/scsi/sr.c\n');");
}

static void seed_fix_job(struct db *db)
{
	exec(db, "INSERT INTO jobs (id, bug_id, candidate_id, kind, with_baseline, state, verdict,"
		 " change, accel, kernel_version, started_at, finished_at)"
		 " VALUES (42, 9370, 1, 'test', 1, 'done', 'pass', 'FAIL->PASS', 'kvm',"
		 " '6.1.158', 1000, 1432);"
		 "INSERT INTO test_results (job_id, variant, name, status, change) VALUES"
		 " (42, 'baseline', 'sr-capacity', 'fail', NULL),"
		 " (42, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS'),"
		 " (42, 'baseline', 'sd-basic', 'pass', NULL),"
		 " (42, 'patched', 'sd-basic', 'pass', 'PASS->PASS'),"
		 " (42, 'patched', 'sd-trim', 'skip', NULL);"
		 "INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES"
		 " (42, 'baseline', 'warning', 'WARNING in sr_read_cdda_bpc',"
		 " 'sr_read_cdda_bpc\nsr_block_ioctl', 'feedfacefeedface');");
}

static void test_fix_then_verified(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n[web]\nbase_url = http://bb.example/\n");
	open_db(&db);
	seed_fix_job(&db);
	assert_int_equal(triage_run(&db, &no_stop), 0);

	s = text(&db, "SELECT triage_state FROM bugs WHERE id = 9370");
	assert_string_equal(s, "fix-candidate");
	free(s);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE kind = 'comment'"
			       " AND bug_id = 9370 AND marker = 'bugbridge-result: job 42'"), 1);
	s = text(&db, "SELECT payload FROM outbox WHERE marker = 'bugbridge-result: job 42'");
	assert_non_null(strstr(s, "FAIL->PASS: this patch fixes sr-capacity"));
	assert_non_null(strstr(s, "0001-sr-fix-capacity.patch"));
	assert_non_null(strstr(s, "linux-source-6.1, 6.1.158"));
	assert_non_null(strstr(s, "KVM, 7m12s"));
	/* the tests that differ, sd-trim ran only patched; the one that does not, counted */
	assert_non_null(strstr(s, "\n  Baseline  Patched  Test\n"
			       "  FAIL      PASS     sr-capacity\n"
			       "  -         SKIP     sd-trim\n"
			       "  1 more test passes on both.\n"));
	assert_non_null(strstr(s, "\n  [baseline] warning: WARNING in sr_read_cdda_bpc\n"));
	assert_non_null(strstr(s, "http://bb.example/job/42\n"));
	assert_non_null(strstr(s, "\nbugbridge-result: job 42\n"));
	assert_true(strlen(s) <= TRIAGE_COMMENT_MAX);
	free(s);
	s = text(&db, "SELECT payload FROM outbox WHERE kind = 'update' AND bug_id = 9370");
	assert_string_equal(s, "{\"whiteboard\":\"regression [bugbridge: fix-candidate]\"}");
	free(s);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE kind = 'update'"), 1);
	assert_int_equal(count(&db, "SELECT reported FROM jobs WHERE id = 42"), 1);
	/* the re-run that can verify the fix is queued, once */
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'"
			       " AND parent_id = 42 AND candidate_id = 1 AND state = 'queued'"), 1);

	/* the same patch fixing it again (a second request) queues no second re-run */
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, kind, with_baseline, state, verdict,"
		  " change) VALUES (44, 9370, 1, 'test', 1, 'done', 'pass', 'FAIL->PASS');"
		  "INSERT INTO test_results (job_id, variant, name, status, change) VALUES"
		  " (44, 'baseline', 'sr-capacity', 'fail', NULL),"
		  " (44, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS');");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'"), 1);
	exec(&db, "DELETE FROM outbox WHERE job_id = 44");

	/* a second cycle changes nothing */
	assert_int_equal(triage_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"), 2);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'"), 1);

	/* the runner finishes the re-run: PASS again */
	exec(&db, "UPDATE jobs SET state = 'done', verdict = 'pass', accel = 'tcg'"
		  " WHERE kind = 'retest';"
		  "INSERT INTO test_results (job_id, variant, name, status)"
		  " SELECT id, 'patched', 'sr-capacity', 'pass' FROM jobs WHERE kind = 'retest';");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	s = text(&db, "SELECT triage_state FROM bugs WHERE id = 9370");
	assert_string_equal(s, "fix-verified");
	free(s);
	s = text(&db, "SELECT payload FROM outbox WHERE kind = 'update' ORDER BY id DESC");
	assert_string_equal(s, "{\"whiteboard\":\"regression [bugbridge: fix-verified]\"}");
	free(s);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE kind = 'comment'"), 2);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind = 'retest'"), 1);
	db_close(&db);
}

/* A regression outranks a fix in the job's change; the baseline still failed. */
static void test_fix_with_regression(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n");
	open_db(&db);
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, with_baseline, state, verdict, change)"
		  " VALUES (60, 9370, 1, 1, 'done', 'fail', 'PASS->FAIL');"
		  "INSERT INTO test_results (job_id, variant, name, status, change) VALUES"
		  " (60, 'baseline', 'sr-capacity', 'fail', NULL),"
		  " (60, 'patched', 'sr-capacity', 'pass', 'FAIL->PASS'),"
		  " (60, 'baseline', 'sd-read', 'pass', NULL),"
		  " (60, 'patched', 'sd-read', 'fail', 'PASS->FAIL');");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	s = text(&db, "SELECT triage_state FROM bugs WHERE id = 9370");
	assert_string_equal(s, "reproduced");
	free(s);
	s = text(&db, "SELECT payload FROM outbox WHERE marker = 'bugbridge-result: job 60'");
	assert_non_null(strstr(s, "PASS->FAIL: this patch breaks sd-read (it fixes sr-capacity)"));
	free(s);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM jobs WHERE kind <> 'test'"), 0);
	db_close(&db);
}

/* A job for a bug we do not watch still reports its result, and nothing else. */
static void test_untracked_bug_gets_result(void **state)
{
	struct db db;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n");
	open_db(&db);
	exec(&db, "INSERT INTO jobs (id, bug_id, state, verdict) VALUES (9, 5555, 'done', 'fail');"
		  "INSERT INTO test_results (job_id, variant, name, status) VALUES"
		  " (9, 'baseline', 'sr-capacity', 'fail');");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE bug_id = 5555 AND"
			       " marker = 'bugbridge-result: job 9'"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM bugs WHERE id = 5555"), 0);
	db_close(&db);
}

static void test_infra_error_blames_nobody(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n");
	open_db(&db);
	/* 7 and 8 as written before the fault column (the verdict says it), 9 ours */
	exec(&db, "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, verdict_detail)"
		  " VALUES (7, 9370, 1, 'done', 'infra-error', 'qemu: cannot allocate memory'),"
		  " (8, 5555, 1, 'done', 'infra-error', 'qemu: cannot allocate memory');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, state, verdict, fault, verdict_detail)"
		  " VALUES (9, 9370, 1, 'done', 'infra-error', 'ours',"
		  " 'the test harness does not apply on top of this tree')");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox"), 0);
	assert_int_equal(count(&db, "SELECT reported FROM jobs WHERE id = 8"), 1);
	assert_int_equal(count(&db, "SELECT reported FROM jobs WHERE id = 7"), 1);
	assert_int_equal(count(&db, "SELECT reported FROM jobs WHERE id = 9"), 1);
	s = text(&db, "SELECT triage_state FROM bugs WHERE id = 9370");
	assert_string_equal(s, "new");
	free(s);
	db_close(&db);
}

static void test_duplicates_linked_once(void **state)
{
	struct db db;
	char *s;

	(void)state;
	use_config("[triage]\nmirror = whiteboard\n");
	open_db(&db);
	exec(&db, "INSERT INTO bugs (id, summary) VALUES (9371, 'sr oops again');"
		  "INSERT INTO jobs (id, bug_id, state, verdict) VALUES"
		  " (50, 9370, 'done', 'fail'), (51, 9371, 'done', 'fail'), (52, 9371, 'done', 'fail');"
		  "INSERT INTO signatures (job_id, variant, kind, title, frames, hash) VALUES"
		  " (50, 'patched', 'oops', 'BUG: kernel NULL pointer dereference in sr_done',"
		  "  'sr_done\nscsi_finish_command', 'cafe0001'),"
		  " (51, 'patched', 'oops', 'BUG: kernel NULL pointer dereference in sr_done',"
		  "  'sr_done\nscsi_finish_command', 'cafe0001'),"
		  " (52, 'patched', 'oops', 'BUG: kernel NULL pointer dereference in sr_done',"
		  "  'sr_done\nscsi_finish_command', 'cafe0001');");
	assert_int_equal(triage_run(&db, &no_stop), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker = "
			       "'bugbridge-dup: 9371 9370' AND bug_id = 9371"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker = "
			       "'bugbridge-dup: 9370 9371' AND bug_id = 9370"), 1);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM outbox WHERE marker LIKE "
			       "'bugbridge-dup:%'"), 2);
	s = text(&db, "SELECT triage_state || ' ' || duplicate_of FROM bugs WHERE id = 9371");
	assert_string_equal(s, "duplicate 9370");
	free(s);
	s = text(&db, "SELECT triage_state FROM bugs WHERE id = 9370");
	assert_string_equal(s, "reproduced");
	free(s);
	s = text(&db, "SELECT payload FROM outbox WHERE marker = 'bugbridge-dup: 9371 9370'");
	assert_non_null(strstr(s, "likely a duplicate of bug 9370"));
	free(s);
	db_close(&db);
}

static void test_stale(void **state)
{
	struct db db;
	int flagged;

	(void)state;
	use_config("[triage]\nstale_days = 14\n[tracker]\nlogin = bot@example.org\n");
	open_db(&db);
	exec(&db, "INSERT INTO bugs (id, creator, creation_time) VALUES"
		  " (1, 'r@x', '2026-01-01T00:00:00Z'), (2, 'r@x', '2026-01-01T00:00:00Z'),"
		  " (3, 'r@x', '2026-11-30T00:00:00Z');"
		  "INSERT INTO bugs (id, creator, creation_time, is_open) VALUES"
		  " (4, 'r@x', '2026-01-01T00:00:00Z', 0);"
		  "INSERT INTO comments (id, bug_id, author, time) VALUES"
		  " (10, 1, 'r@x', '2026-12-01T00:00:00Z'),"
		  " (11, 1, 'bot@example.org', '2026-12-01T00:00:00Z'),"
		  " (12, 2, 'maintainer@x', '2026-11-25T00:00:00Z');");
	/* 2026-12-03: bug 1 only heard from its reporter and us; 2 was answered */
	assert_int_equal(stale_check(&db, 1796256000, &flagged), 0);
	assert_int_equal(flagged, 1);
	assert_int_equal(count(&db, "SELECT group_concat(id) FROM bugs WHERE needs_attention"), 1);
	/* a week later, bug 2's answer is old too */
	assert_int_equal(stale_check(&db, 1796256000 + 14 * 86400, &flagged), 0);
	assert_int_equal(count(&db, "SELECT COUNT(*) FROM bugs WHERE needs_attention"), 3);
	assert_int_equal(count(&db, "SELECT needs_attention FROM bugs WHERE id = 4"), 0);
	db_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_whiteboard),
		cmocka_unit_test(test_mirror_payloads),
		cmocka_unit_test(test_fix_then_verified),
		cmocka_unit_test(test_fix_with_regression),
		cmocka_unit_test(test_untracked_bug_gets_result),
		cmocka_unit_test(test_infra_error_blames_nobody),
		cmocka_unit_test(test_duplicates_linked_once),
		cmocka_unit_test(test_stale),
	};
	int rc;

	use_config("");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	config_release((struct config *)cfg);
	free((void *)cfg);
	return rc;
}
