/*
 * Unit tests for lib/job: claims are exclusive across connections, leases
 * expire back to the queue, a runner that lost its lease cannot write, and
 * infra-errors retry up to the limit, our own faults and the patch's not.  Two real connections on one file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "db.h"
#include "job.h"
#include "job_queue.h"
#include "log.h"

static char dir[64];
static char path[256];
static struct db a, b;

static int setup(void **state)
{
	struct buf err = BUF_INIT;
	struct config c;
	int applied;

	(void)state;
	log_open("/dev/null", LOG_ERROR);
	config_init(&c);	/* the defaults: [runner] retry_delay and the like */
	config_install(&c);
	snprintf(dir, sizeof(dir), "/tmp/bbjobXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/test.db", dir);
	if (db_open(&a, path, &err) || db_migrate(&a, &applied, &err) ||
	    db_open(&b, path, &err))
		return -1;
	buf_release(&err);
	return 0;
}

static int teardown(void **state)
{
	char f[300];

	(void)state;
	db_close(&a);
	db_close(&b);
	snprintf(f, sizeof(f), "rm -rf %s", dir);
	return system(f) == 0 ? 0 : -1;
}

static sqlite3_int64 enqueue(void)
{
	struct job_spec spec = { .bug_id = 9370, .base = "linux-source-6.1" };
	sqlite3_int64 id = 0;

	assert_int_equal(job_enqueue(&a, &spec, &id), 0);
	return id;
}

static int query_int(struct db *db, const char *sql, sqlite3_int64 id)
{
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void expire_now(sqlite3_int64 id)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "UPDATE jobs SET lease_expires = 1 WHERE id = %lld",
		 (long long)id);
	assert_int_equal(db_exec(&a, sql), 0);
}

static void test_claim_is_exclusive(void **state)
{
	struct job ja = JOB_INIT, jb = JOB_INIT;
	sqlite3_int64 id = enqueue();

	(void)state;
	assert_int_equal(job_claim_next(&a, "runner-a", 60, 3, &ja), 1);
	assert_int_equal(ja.id, id);
	assert_int_equal(ja.attempt, 1);
	/* The second connection sees no queued job, by id or as the next. */
	assert_int_equal(job_claim_next(&b, "runner-b", 60, 3, &jb), 0);
	assert_int_equal(job_claim_id(&b, id, "runner-b", 60, 3, &jb), 0);
	assert_int_equal(jb.id, 0);
	assert_int_equal(query_int(&a, "SELECT state = 'running' FROM jobs WHERE id = ?", id), 1);
	job_release(&ja);
}

static void test_alternating_claims_never_share(void **state)
{
	sqlite3_int64 ids[6];
	int owner[6] = { 0 };

	(void)state;
	for (int i = 0; i < 6; i++)
		ids[i] = enqueue();
	for (int round = 0; round < 6; round++) {
		struct job j = JOB_INIT;
		struct db *db = round % 2 ? &b : &a;
		assert_int_equal(job_claim_next(db, round % 2 ? "b" : "a", 60, 3, &j), 1);
		for (int i = 0; i < 6; i++)
			if (ids[i] == j.id) {
				assert_int_equal(owner[i], 0);
				owner[i] = round + 1;
			}
		job_release(&j);
	}
	for (int i = 0; i < 6; i++)
		assert_true(owner[i] > 0);
}

static void test_lost_lease_is_reclaimed(void **state)
{
	struct job ja = JOB_INIT, jb = JOB_INIT;
	struct job_outcome out = { .verdict = "pass" };
	sqlite3_int64 id = enqueue();
	bool cancel;

	(void)state;
	assert_int_equal(job_claim_id(&a, id, "runner-a", 60, 3, &ja), 1);
	assert_int_equal(job_renew(&ja, &a, 60, &cancel), 0);
	expire_now(id);
	assert_int_equal(job_claim_id(&b, id, "runner-b", 60, 3, &jb), 1);
	assert_int_equal(jb.attempt, 2);
	/* The old owner finds out on its next renewal and cannot finish. */
	assert_int_equal(job_renew(&ja, &a, 60, &cancel), -1);
	assert_int_equal(job_finish(&ja, &a, &out, 3), -1);
	assert_int_equal(job_finish(&jb, &b, &out, 3), 0);
	/* two runs: the lost one and the one that gave the verdict */
	assert_int_equal(query_int(&a, "SELECT attempts FROM jobs WHERE id = ?", id), 2);
	assert_int_equal(query_int(&a, "SELECT verdict = 'pass' FROM jobs WHERE id = ?", id), 1);
	job_release(&ja);
	job_release(&jb);
}

static void test_infra_error_retries_then_sticks(void **state)
{
	struct job_outcome out = { .verdict = "infra-error", .fault = FAULT_INFRA,
				   .detail = "qemu did not start" };
	sqlite3_int64 id = enqueue();

	(void)state;
	for (int attempt = 1; attempt <= 3; attempt++) {
		struct job j = JOB_INIT;
		assert_int_equal(job_claim_id(&a, id, "r", 60, 3, &j), 1);
		assert_int_equal(j.attempt, attempt);
		assert_int_equal(job_finish(&j, &a, &out, 3), 0);
		job_release(&j);
	}
	assert_int_equal(query_int(&a, "SELECT state = 'done' AND verdict = 'infra-error'"
				   " FROM jobs WHERE id = ?", id), 1);
	assert_int_equal(query_int(&a, "SELECT attempts FROM jobs WHERE id = ?", id), 3);
	assert_int_equal(query_int(&a, "SELECT fault = 'infra' FROM jobs WHERE id = ?", id), 1);
}

/* Our own fault (a harness that does not apply) would fail the same way: no retry. */
static void test_our_fault_is_not_retried(void **state)
{
	struct job_outcome out = { .verdict = "infra-error", .fault = FAULT_OURS,
				   .detail = "the test harness does not apply on top of this tree" };
	struct job_outcome patch = { .verdict = "build-failed", .fault = FAULT_PATCH };
	struct job j = JOB_INIT;
	sqlite3_int64 id = enqueue(), other = enqueue();

	(void)state;
	assert_int_equal(job_claim_id(&a, id, "r", 60, 3, &j), 1);
	assert_int_equal(job_finish(&j, &a, &out, 3), 0);
	job_release(&j);
	assert_int_equal(query_int(&a, "SELECT state = 'done' AND verdict = 'infra-error'"
				   " AND fault = 'ours' AND attempts = 1 FROM jobs WHERE id = ?", id), 1);
	assert_int_equal(job_claim_id(&a, other, "r", 60, 3, &j), 1);
	assert_int_equal(job_finish(&j, &a, &patch, 3), 0);
	job_release(&j);
	assert_int_equal(query_int(&a, "SELECT state = 'done' AND fault = 'patch' AND attempts = 1"
				   " FROM jobs WHERE id = ?", other), 1);
}

static void test_cancel(void **state)
{
	struct buf err = BUF_INIT;
	struct job j = JOB_INIT;
	sqlite3_int64 queued = enqueue(), running = enqueue();
	bool cancel = false;

	(void)state;
	assert_int_equal(job_claim_id(&a, running, "r", 60, 3, &j), 1);
	assert_int_equal(job_request_cancel(&b, queued, &err), 0);
	assert_int_equal(job_request_cancel(&b, running, &err), 0);
	assert_int_equal(query_int(&a, "SELECT state = 'cancelled' FROM jobs WHERE id = ?",
				   queued), 1);
	assert_int_equal(job_renew(&j, &a, 60, &cancel), 0);
	assert_true(cancel);
	assert_int_equal(job_finish_cancelled(&j, &a), 0);
	assert_int_equal(job_request_cancel(&b, running, &err), -1);
	/* the cancelled run was one; the job cancelled in the queue never ran */
	assert_int_equal(query_int(&a, "SELECT attempts FROM jobs WHERE id = ?", running), 1);
	assert_int_equal(query_int(&a, "SELECT attempts FROM jobs WHERE id = ?", queued), 0);
	job_release(&j);
	buf_release(&err);
}

static void test_stages_and_results(void **state)
{
	struct job j = JOB_INIT;
	struct job_test tests[] = {
		{ "patched", "sr-capacity", "pass", 1, 0, "", "FAIL->PASS" },
		{ "baseline", "sr-capacity", "fail", 3, 3, "capacity 0", NULL },
	};
	struct job_signature sig = { "baseline", "eod", "attempt to access beyond end of device",
				     "", "abc" };
	struct job_outcome out = { .verdict = "pass", .change = "FAIL->PASS", .tests = tests,
				   .ntests = 2, .sigs = &sig, .nsigs = 1 };
	sqlite3_int64 id = enqueue(), stage;

	(void)state;
	assert_int_equal(job_claim_id(&a, id, "r", 60, 3, &j), 1);
	assert_int_equal(job_stage_begin(&j, &a, "patched", "build", &stage), 0);
	assert_int_equal(query_int(&a, "SELECT stage = 'build' FROM jobs WHERE id = ?", id), 1);
	assert_int_equal(job_stage_end(&a, stage, "ok", NULL), 0);
	assert_int_equal(job_finish(&j, &a, &out, 3), 0);
	assert_int_equal(query_int(&a, "SELECT count(*) FROM test_results WHERE job_id = ?", id), 2);
	assert_int_equal(query_int(&a, "SELECT count(*) FROM signatures WHERE job_id = ?", id), 1);
	assert_int_equal(query_int(&a, "SELECT finished_at >= started_at FROM job_stages"
				   " WHERE job_id = ?", id), 1);
	/* finished on its first run: attempts says 1, as its stage table does */
	assert_int_equal(query_int(&a, "SELECT j.attempts = max(s.attempt) AND j.attempts = 1"
				   " FROM jobs j JOIN job_stages s ON s.job_id = j.id"
				   " WHERE j.id = ?", id), 1);
	job_release(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_is_exclusive),
		cmocka_unit_test(test_alternating_claims_never_share),
		cmocka_unit_test(test_lost_lease_is_reclaimed),
		cmocka_unit_test(test_infra_error_retries_then_sticks),
		cmocka_unit_test(test_our_fault_is_not_retried),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_stages_and_results),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
