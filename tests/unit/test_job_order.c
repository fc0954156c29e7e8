/*
 * Unit tests for the queue's order and limits (lib/job_queue, lib/job_budget,
 * lib/job): first verdicts before follow-up work, allow_commands accounts
 * first, least-recent use across accounts; a job is not claimed before its
 * not_before; infrastructure errors wait longer each try; budgets hold a
 * burst to the next UTC day, refuse past defer_days, count follow-up work
 * against the bug, and say so in one comment per bug and day; an mbox over
 * the cap is not queued; `job retry`.  A real SQLite file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "db.h"
#include "job.h"
#include "job_budget.h"
#include "job_queue.h"
#include "log.h"

static char dir[64];
static struct db db;
static int serial;

static void use_config(const char *text)
{
	struct config c;
	struct buf err = BUF_INIT;

	config_init(&c);
	if (config_parse(&c, text, "test.conf", &err))
		fail_msg("config: %s", err.ptr);
	config_install(&c);
	buf_release(&err);
}

/* Each test on a database of its own. */
static int setup(void **state)
{
	struct buf err = BUF_INIT;
	char path[128];
	int applied;

	(void)state;
	log_open("/dev/null", LOG_ERROR);
	use_config("[queue]\naccount_jobs_per_day = 3\nbug_jobs_per_day = 6\ndefer_days = 1\n"
		   "max_mbox_patches = 4\n[triage]\nallow_commands = maint@example.org\n"
		   "[runner]\nretry_delay = 60\nretry_delay_max = 200\n");
	snprintf(dir, sizeof(dir), "/tmp/bbqueueXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/test.db", dir);
	if (db_open(&db, path, &err) || db_migrate(&db, &applied, &err))
		return -1;
	buf_release(&err);
	return 0;
}

static int teardown(void **state)
{
	char f[128];

	(void)state;
	db_close(&db);
	snprintf(f, sizeof(f), "rm -rf %s", dir);
	return system(f) == 0 ? 0 : -1;
}

static long long query(const char *fmt, ...)
{
	char sql[512];
	sqlite3_stmt *st;
	long long n = -1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	assert_int_equal(sqlite3_prepare_v2(db.h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* A candidate of `patches` patches on bug, attachment `att`. */
static sqlite3_int64 candidate(sqlite3_int64 bug, int att, int patches)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO candidates (bug_id, source, source_id, kind, name,"
		 " sha256, patch_count) VALUES (%lld, 'attachment', %d, 'patch', 'fix-%d.patch',"
		 " 'sha%d', %d)", (long long)bug, att, att, ++serial, patches);
	assert_int_equal(db_exec(&db, sql), 0);
	return db_last_id(&db);
}

/* A first verdict of account's patch on bug. */
static struct job_admission submit(const char *account, sqlite3_int64 bug, int att)
{
	struct job_spec spec = { .bug_id = bug, .base = "linux-source-6.1", .account = account,
				 .with_baseline = true };
	struct job_admission adm;

	spec.candidate_id = candidate(bug, att, 1);
	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	return adm;
}

/* Follow-up work of job parent (a back-test): its account is the parent's. */
static struct job_admission follow_up(sqlite3_int64 parent, sqlite3_int64 bug)
{
	struct job_spec spec = { .bug_id = bug, .base = "linux-source-6.12", .parent_id = parent,
				 .purpose = "backtest" };
	struct job_admission adm;

	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	return adm;
}

static sqlite3_int64 claim(void)
{
	struct job j = JOB_INIT;
	sqlite3_int64 id;

	assert_int_equal(job_claim_next(&db, "r", 60, 3, &j), 1);
	id = j.id;
	job_release(&j);
	return id;
}

static void finish(sqlite3_int64 id, const char *verdict, enum fault fault)
{
	struct job j = JOB_INIT;
	struct job_outcome out = { .verdict = verdict, .fault = fault, .detail = "x" };

	assert_int_equal(job_claim_id(&db, id, "r", 60, 3, &j), 1);
	assert_int_equal(job_finish(&j, &db, &out, 3), 0);
	job_release(&j);
}

static void test_first_verdicts_before_follow_up(void **state)
{
	sqlite3_int64 root = submit("dev@example.org", 1, 1).id, rerun, back, second;
	struct job_spec spec = { .bug_id = 1, .base = "linux-source-6.1", .kind = "retest" };

	(void)state;
	assert_int_equal(claim(), root);
	spec.parent_id = root;
	assert_int_equal(job_enqueue(&db, &spec, &rerun), 0);
	back = follow_up(root, 1).id;
	/* a later patch of another bug is a first verdict: it goes first */
	second = submit("dev@example.org", 2, 2).id;
	assert_int_equal(query("SELECT lane FROM jobs WHERE id = %lld", rerun), 2);
	assert_int_equal(query("SELECT account = 'dev@example.org' FROM jobs WHERE id = %lld",
			       back), 1);
	/* the position a comment or page gives is the runners' order */
	assert_int_equal(job_queue_position(&db, second, (long)time(NULL)), 1);
	assert_int_equal(job_queue_position(&db, back, (long)time(NULL)), 3);
	assert_int_equal(job_queue_position(&db, root, (long)time(NULL)), 0);
	assert_int_equal(claim(), second);
	assert_int_equal(claim(), rerun);
	assert_int_equal(claim(), back);
}

static void test_fair_across_accounts(void **state)
{
	sqlite3_int64 burst[4], other, maint;

	(void)state;
	use_config("[triage]\nallow_commands = maint@example.org\n");
	for (int i = 0; i < 3; i++)
		burst[i] = submit("dev@example.org", 10 + i, i + 1).id;
	assert_int_equal(claim(), burst[0]);
	other = submit("user@example.com", 20, 7).id;
	/* the other account has had nothing started: its one patch is next */
	assert_int_equal(claim(), other);
	assert_int_equal(claim(), burst[1]);
	/* an allow_commands account goes before both */
	burst[3] = submit("dev@example.org", 13, 4).id;
	maint = submit("maint@example.org", 30, 9).id;
	assert_int_equal(query("SELECT lane FROM jobs WHERE id = %lld", maint), 0);
	assert_int_equal(claim(), maint);
	assert_int_equal(claim(), burst[2]);
	assert_int_equal(claim(), burst[3]);
}

static void test_not_before_is_respected(void **state)
{
	struct job j = JOB_INIT;
	sqlite3_int64 late = submit("dev@example.org", 1, 1).id, now;
	long t = (long)time(NULL);

	(void)state;
	assert_int_equal(db_exec(&db, "UPDATE jobs SET not_before = strftime('%s', 'now') + 100"),
			 0);
	assert_int_equal(job_claim_next(&db, "r", 60, 3, &j), 0);
	assert_true(job_next_due(&db, t) >= t + 99);
	now = submit("user@example.com", 2, 2).id;
	assert_int_equal(claim(), now);
	/* a runner told to run that job runs it */
	assert_int_equal(job_claim_id(&db, late, "r", 60, 3, &j), 1);
	job_release(&j);
}

/* Each try of an infra-error waits twice as long as the one before, up to the cap. */
static void test_infra_errors_back_off(void **state)
{
	sqlite3_int64 id = submit("dev@example.org", 1, 1).id;
	long waits[] = { 60, 120, 200 };
	struct job j = JOB_INIT;

	(void)state;
	use_config("[runner]\nretry_delay = 60\nretry_delay_max = 200\nmax_attempts = 4\n");
	for (int i = 0; i < 3; i++) {
		struct job_outcome out = { .verdict = "infra-error", .fault = FAULT_INFRA };
		long before = (long)time(NULL), wait;

		assert_int_equal(job_claim_id(&db, id, "r", 60, 4, &j), 1);
		assert_int_equal(job_finish(&j, &db, &out, 4), 0);
		job_release(&j);
		wait = (long)query("SELECT not_before FROM jobs WHERE id = %lld", id) - before;
		assert_true(wait >= waits[i] && wait <= waits[i] + 2);
		assert_int_equal(job_claim_next(&db, "r", 60, 4, &j), 0);
	}
	/* a lost lease waits too */
	assert_int_equal(db_exec(&db, "UPDATE jobs SET attempts = 0"), 0);
	assert_int_equal(job_claim_id(&db, id, "r", 60, 4, &j), 1);
	job_release(&j);
	assert_int_equal(db_exec(&db, "UPDATE jobs SET lease_expires = 1"), 0);
	assert_int_equal(job_expire_leases(&db, (long)time(NULL), 4), 0);
	assert_int_equal(query("SELECT state = 'queued' AND not_before - strftime('%%s', 'now')"
			       " BETWEEN 58 AND 60 FROM jobs WHERE id = %lld", id), 1);
}

static void test_retry(void **state)
{
	sqlite3_int64 broken = submit("dev@example.org", 1, 1).id;
	sqlite3_int64 passed = submit("dev@example.org", 2, 2).id;
	struct buf err = BUF_INIT;
	struct job j = JOB_INIT;

	(void)state;
	for (int i = 0; i < 3; i++) {
		finish(broken, "infra-error", FAULT_INFRA);
		assert_int_equal(db_exec(&db, "UPDATE jobs SET not_before = 0"), 0);
	}
	assert_int_equal(query("SELECT state = 'done' AND attempts = 3 FROM jobs WHERE id = %lld",
			       broken), 1);
	finish(passed, "pass", FAULT_NONE);
	assert_int_equal(job_retry(&db, passed, &err), -1);
	assert_non_null(strstr(err.ptr, "ended 'pass'"));
	assert_int_equal(job_retry(&db, broken, &err), 0);
	assert_int_equal(query("SELECT state = 'queued' AND verdict IS NULL AND reported = 0"
			       " AND retry_from = 3 FROM jobs WHERE id = %lld", broken), 1);
	/* a fresh round of tries: the next infra-error is queued again, not final */
	assert_int_equal(job_claim_next(&db, "r", 60, 3, &j), 1);
	assert_int_equal(j.attempt, 4);
	job_release(&j);
	assert_int_equal(db_exec(&db, "UPDATE jobs SET state = 'queued', runner = NULL"), 0);
	finish(broken, "infra-error", FAULT_INFRA);
	assert_int_equal(query("SELECT state = 'queued' FROM jobs WHERE id = %lld", broken), 1);
	/* waiting for its next try: an operator makes it due now */
	assert_int_equal(job_retry(&db, broken, &err), 0);
	assert_int_equal(query("SELECT not_before FROM jobs WHERE id = %lld", broken), 0);
	buf_release(&err);
}

static long tomorrow(void)
{
	long now = (long)time(NULL);

	return now - now % 86400 + 86400;
}

static void test_account_budget_holds_a_burst(void **state)
{
	struct job_admission adm[6];
	sqlite3_int64 bug = 9370;
	struct buf text = BUF_INIT;

	(void)state;
	for (int i = 0; i < 6; i++)
		adm[i] = submit("dev@example.org", bug, 100 + i);
	for (int i = 0; i < 3; i++)
		assert_int_equal(adm[i].admit, JOB_QUEUED);
	/* the day's 3 are used: the next 3 wait for tomorrow (defer_days = 1) */
	for (int i = 3; i < 6; i++) {
		assert_int_equal(adm[i].admit, JOB_DEFERRED);
		assert_int_equal(adm[i].not_before, tomorrow());
		assert_non_null(strstr(adm[i].why, "the sender's 3 jobs a day are used"));
	}
	/* another account is not held by dev's budget */
	assert_int_equal(submit("user@example.com", bug, 200).admit, JOB_QUEUED);
	/* tomorrow is full too now: a seventh is not queued at all */
	adm[0] = submit("dev@example.org", bug + 1, 300);
	assert_int_equal(adm[0].admit, JOB_REFUSED);
	assert_int_equal(adm[0].id, 0);
	job_admission_text(&adm[3], &text);
	assert_non_null(strstr(text.ptr, "; it waits until "));
	assert_non_null(strstr(text.ptr, " 00:00 UTC: the sender's 3 jobs a day are used"));
	/* one comment on the bug, naming each patch held and when it runs */
	assert_int_equal(query("SELECT count(*) FROM outbox WHERE bug_id = 9370"), 1);
	assert_int_equal(query("SELECT count(*) FROM outbox WHERE bug_id = 9371"), 1);
	for (int i = 103; i < 106; i++)
		assert_int_equal(query("SELECT instr(payload, '- attachment %d ''fix-%d.patch'':"
				       " after ') > 0 FROM outbox WHERE bug_id = 9370", i, i), 1);
	assert_int_equal(query("SELECT instr(payload, 'not tested (the sender''s 3 jobs a day"
			       " are used up to ') > 0 FROM outbox WHERE bug_id = 9371"), 1);
	assert_int_equal(query("SELECT payload LIKE '%%' || char(10) || 'bugbridge-budget: bug"
			       " 9370 ' || strftime('%%Y-%%m-%%d', 'now') || char(10)"
			       " FROM outbox WHERE bug_id = 9370"), 1);
	/* the allowed account is counted but never held by its own budget */
	for (int i = 0; i < 4; i++)
		assert_int_equal(submit("maint@example.org", 500 + i, 400 + i).admit, JOB_QUEUED);
	/* a cancelled job frees its place */
	assert_int_equal(db_exec(&db, "UPDATE jobs SET state = 'cancelled' WHERE id = 1"), 0);
	assert_int_equal(submit("dev@example.org", 600, 600).admit, JOB_QUEUED);
	buf_release(&text);
}

/* Back-tests and release steps count against the bug: they wait, never dropped. */
static void test_bug_budget_counts_follow_up(void **state)
{
	sqlite3_int64 root = submit("maint@example.org", 7, 1).id;
	struct job_spec step = { .bug_id = 7, .parent_id = root, .kind = "bisect-step",
				 .purpose = "release", .base = "linux-source-6.1=6.1.170-3" };
	struct job_admission adm;

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_int_equal(follow_up(root, 7).admit, JOB_QUEUED);
	/* six on bug 7 today: the release step waits for tomorrow, and then later still */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(job_submit(&db, &step, &adm), 0);
		assert_int_equal(adm.admit, JOB_DEFERRED);
		assert_non_null(strstr(adm.why, "the bug's 6 jobs a day are used"));
	}
	assert_int_equal(adm.not_before, tomorrow() + 86400);
	assert_int_equal(query("SELECT instr(payload, '- a release bisection step of job %lld"
			       " (6.1=6.1.170-3): after ') FROM outbox WHERE bug_id = 7", root) > 0,
			 1);
	/* the operator's jobs are never held */
	step.parent_id = 0;
	step.purpose = NULL;
	step.kind = "test";
	assert_int_equal(job_submit(&db, &step, &adm), 0);
	assert_int_equal(adm.admit, JOB_QUEUED);
}

static void test_mbox_cap(void **state)
{
	struct job_spec spec = { .bug_id = 5, .base = "linux-source-6.1",
				 .account = "dev@example.org" };
	struct job_admission adm;

	(void)state;
	spec.candidate_id = candidate(5, 55, 5);
	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	assert_int_equal(adm.admit, JOB_REFUSED);
	assert_non_null(strstr(adm.why, "5 patches, more than the 4 one mbox or series may have"));
	assert_int_equal(query("SELECT count(*) FROM jobs"), 0);
	assert_int_equal(query("SELECT instr(payload, '- attachment 55 ''fix-55.patch'': not tested"
			       " (5 patches') > 0 FROM outbox WHERE bug_id = 5"), 1);
	/* the operator may */
	spec.account = NULL;
	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	assert_int_equal(adm.admit, JOB_QUEUED);
	/* a command's reply says it itself: no budget comment */
	spec.account = "dev@example.org";
	spec.bug_id = 6;
	spec.caller_answers = true;
	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	assert_int_equal(adm.admit, JOB_REFUSED);
	assert_int_equal(query("SELECT count(*) FROM outbox WHERE bug_id = 6"), 0);
}

/* A name from the tracker cannot add a line (a forged marker) to our comment. */
static void test_note_is_one_line_each(void **state)
{
	struct job_spec spec = { .bug_id = 8, .base = "linux-source-6.1",
				 .account = "dev@example.org" };
	struct job_admission adm;

	(void)state;
	assert_int_equal(db_exec(&db, "INSERT INTO candidates (bug_id, source, source_id, kind,"
				 " name, sha256, patch_count) VALUES (8, 'attachment', 81, 'mbox',"
				 " 'x' || char(10) || 'bugbridge-result: job 1', 'evil', 9)"), 0);
	spec.candidate_id = db_last_id(&db);
	assert_int_equal(job_submit(&db, &spec, &adm), 0);
	assert_int_equal(adm.admit, JOB_REFUSED);
	assert_int_equal(query("SELECT instr(payload, char(10) || 'bugbridge-result') FROM outbox"
			       " WHERE bug_id = 8"), 0);
	assert_int_equal(query("SELECT instr(payload, 'x?bugbridge-result: job 1') > 0 FROM outbox"
			       " WHERE bug_id = 8"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_verdicts_before_follow_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fair_across_accounts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_before_is_respected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_infra_errors_back_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_account_budget_holds_a_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bug_budget_counts_follow_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mbox_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_note_is_one_line_each, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
