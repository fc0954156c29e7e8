/*
 * Unit tests for web/page_queue over lib/estimate: queue positions and the
 * estimated start and finish of jobs from the stage times measured (as the
 * runner writes them: a build row says its kind), with one and with two
 * runner slots, a baseline that runs once and is cached after, and
 * without any measurement.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "log.h"
#include "page.h"

#define NOW 2000000000L

static void exec(struct db *db, const char *sql)
{
	assert_int_equal(db_exec(db, sql), 0);
}

/* Install a config with [runner] parallel; the one it replaces is freed. */
static void install_config(const char *parallel)
{
	struct config conf, *old = (struct config *)cfg;
	struct buf err = BUF_INIT, text = BUF_INIT;

	config_init(&conf);
	if (parallel) {
		buf_addf(&text, "[runner]\nparallel = %s\n", parallel);
		assert_int_equal(config_parse(&conf, text.ptr, "test", &err), 0);
	}
	config_install(&conf);
	config_release(&conf);
	if (old) {
		config_release(old);
		free(old);
	}
	buf_release(&err);
	buf_release(&text);
}

static void open_db(struct db *db, const char *parallel)
{
	struct buf err = BUF_INIT;
	int applied;

	log_open("/dev/null", LOG_ERROR);
	install_config(parallel);
	assert_int_equal(db_open(db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(db, &applied, &err), 0);
	buf_release(&err);
}

/*
 * Job 1 finished, a patch's job on the base's seed: seven steps of 100 s
 * each (its build incremental), so such a job takes 700 s.  Job 2 built
 * the base: a full build of 300 s, 800 objects, the base's seed.
 */
static void history(struct db *db)
{
	static const char *stages[] = { "prepare", "apply", "configure", "build", "boot",
					"test", "report" };
	struct buf sql = BUF_INIT;

	exec(db, "INSERT INTO candidates (id, bug_id, source, kind, sha256)"
		 " VALUES (1, 9370, 'manual', 'patch', 'x')");
	exec(db, "INSERT INTO jobs (id, candidate_id, state, verdict) VALUES (1, 1, 'done', 'pass')");
	exec(db, "INSERT INTO jobs (id, state, verdict) VALUES (2, 'done', 'pass')");
	for (int i = 0; i < 7; i++)
		buf_addf(&sql, "INSERT INTO job_stages (job_id, stage, started_at, finished_at,"
			 " status, build_kind) VALUES (1, '%s', %d, %d, 'ok', %s);", stages[i],
			 1000 + i * 100, 1100 + i * 100, i == 3 ? "'incremental'" : "NULL");
	buf_addstr(&sql, "INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at,"
		   " status, build_kind, objects) VALUES (2, 'patched', 'build', 500, 800, 'ok',"
		   " 'full', 800);");
	exec(db, sql.ptr);
	buf_release(&sql);
}

/*
 * Job 10 runs, 50 s into its build; 11 and 12 (patches, with a baseline
 * that is not cached: it builds, boots and tests the base too) are queued.
 */
static void work(struct db *db)
{
	exec(db, "INSERT INTO candidates (id, bug_id, source, kind, sha256)"
		 " VALUES (2, 9371, 'manual', 'patch', 'y')");
	exec(db, "INSERT INTO jobs (id, bug_id, candidate_id, state, stage, started_at) VALUES"
		 " (10, 9370, 2, 'running', 'build', 1999999700)");
	exec(db, "INSERT INTO job_stages (job_id, stage, started_at, status) VALUES"
		 " (10, 'build', 1999999950, 'running')");
	exec(db, "INSERT INTO jobs (id, bug_id, candidate_id, state, created_at) VALUES"
		 " (11, 9371, 2, 'queued', 1)");
	exec(db, "INSERT INTO jobs (id, bug_id, candidate_id, state, created_at, with_baseline)"
		 " VALUES (12, 9380, 2, 'queued', 2, 1), (13, 9380, 2, 'queued', 3, 1)");
}

static void test_one_slot(void **state)
{
	struct db db;
	struct queue q;

	(void)state;
	open_db(&db, "1");
	history(&db);
	work(&db);
	assert_int_equal(queue_load(&db, NOW, &q), 0);
	assert_int_equal(q.n, 4);
	assert_int_equal(q.typical, 700);
	assert_int_equal(q.slots, 1);
	assert_int_equal(q.v[0].job_id, 10);
	assert_string_equal(q.v[0].state, "running");
	assert_string_equal(q.v[0].stage, "build");
	assert_int_equal(q.v[0].elapsed, 300);
	/* 50 s left of build, then boot, test, report. */
	assert_int_equal(q.v[0].est_finish, NOW + 350);
	assert_false(q.v[0].overdue);
	assert_int_equal(q.v[1].job_id, 11);
	assert_int_equal(q.v[1].position, 1);
	assert_int_equal(q.v[1].est_start, NOW + 350);
	assert_int_equal(q.v[1].est_finish, NOW + 1050);
	assert_int_equal(q.v[2].job_id, 12);
	assert_int_equal(q.v[2].position, 2);
	assert_int_equal(q.v[2].est_start, NOW + 1050);
	/* The baseline: its apply, configure, incremental build, boot and test. */
	assert_int_equal(q.v[2].est_finish, NOW + 1050 + 700 + 500);
	/* ... after which it is cached. */
	assert_int_equal(q.v[3].est_finish - q.v[3].est_start, 700);
	queue_release(&q);
	db_close(&db);
}

static void test_two_slots(void **state)
{
	struct db db;
	struct queue q;

	(void)state;
	open_db(&db, "2");
	history(&db);
	work(&db);
	assert_int_equal(queue_load(&db, NOW, &q), 0);
	assert_int_equal(q.slots, 2);
	/* The idle slot takes job 11 at once; job 12 waits for the running one. */
	assert_int_equal(q.v[1].est_start, NOW);
	assert_int_equal(q.v[1].est_finish, NOW + 700);
	assert_int_equal(q.v[2].est_start, NOW + 350);
	assert_int_equal(q.v[2].est_finish, NOW + 350 + 1200);
	queue_release(&q);
	db_close(&db);
}

/* A step past its median is given a tenth of it more: never done while running. */
static void test_overdue(void **state)
{
	struct db db;
	struct queue q;

	(void)state;
	open_db(&db, "1");
	history(&db);
	work(&db);
	exec(&db, "UPDATE job_stages SET started_at = 1999999000 WHERE job_id = 10");
	assert_int_equal(queue_load(&db, NOW, &q), 0);
	assert_true(q.v[0].overdue);
	assert_int_equal(q.v[0].est_finish, NOW + 10 + 300);
	queue_release(&q);
	db_close(&db);
}

/* A full build counts its own objects: 200 of 800 in 100 s, 300 s left. */
static void test_full_build_progress(void **state)
{
	struct db db;
	struct queue q;

	(void)state;
	open_db(&db, "1");
	history(&db);
	work(&db);
	exec(&db, "UPDATE job_stages SET started_at = 1999999900, build_kind = 'full',"
		 " objects = 200 WHERE job_id = 10");
	assert_int_equal(queue_load(&db, NOW, &q), 0);
	assert_int_equal(q.v[0].done, 200);
	assert_int_equal(q.v[0].total, 800);
	assert_int_equal(q.v[0].est_finish, NOW + 300 + 300);
	queue_release(&q);
	db_close(&db);
}

static void test_no_history(void **state)
{
	struct db db;
	struct queue q;

	(void)state;
	open_db(&db, "1");
	work(&db);
	assert_int_equal(queue_load(&db, NOW, &q), 0);
	assert_int_equal(q.typical, 0);
	assert_int_equal(q.v[1].position, 1);
	assert_int_equal(q.v[2].position, 2);
	assert_int_equal(q.v[0].est_finish, 0);
	assert_int_equal(q.v[1].est_start, 0);
	assert_int_equal(q.v[2].est_finish, 0);
	queue_release(&q);
	db_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_slot),
		cmocka_unit_test(test_two_slots),
		cmocka_unit_test(test_overdue),
		cmocka_unit_test(test_full_build_progress),
		cmocka_unit_test(test_no_history),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	struct config *last = (struct config *)cfg;

	if (last) {
		config_release(last);
		free(last);
	}
	return failed;
}
