/*
 * Unit tests for lib/wake: a job queued through job_enqueue wakes a
 * listener on the same database at once, but only after the transaction
 * that queued it commits (a rolled-back one wakes nobody); a verdict wakes
 * the other listener; another file written beside the database does not
 * wake anyone; without a wake, wake_wait returns after its timeout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "job_queue.h"
#include "log.h"
#include "wake.h"

static char dir[64];
static char path[256];
static struct db a, b;

static int setup(void **state)
{
	struct buf err = BUF_INIT;
	int applied;

	(void)state;
	log_open("/dev/null", LOG_ERROR);
	snprintf(dir, sizeof(dir), "/tmp/bbwakeXXXXXX");
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void enqueue(struct db *db)
{
	struct job_spec spec = { .bug_id = 9370, .base = "linux-source-6.1" };

	assert_int_equal(job_enqueue(db, &spec, NULL), 0);
}

static void test_enqueue_wakes_runner(void **state)
{
	struct wake w;
	double t;

	(void)state;
	wake_open(&w, path, WAKE_JOBS);
	assert_true(w.fd >= 0);
	enqueue(&b);
	t = now();
	assert_int_equal(wake_wait(&w, 5000), 1);
	assert_true(now() - t < 1.0);
	/* one wake, one return: the next wait times out */
	assert_int_equal(wake_wait(&w, 200), 0);
	wake_close(&w);
}

static void test_wake_only_after_commit(void **state)
{
	struct wake w;

	(void)state;
	wake_open(&w, path, WAKE_JOBS);
	assert_int_equal(db_begin(&b), 0);
	enqueue(&b);
	assert_int_equal(wake_wait(&w, 300), 0);	/* not visible yet: no wake */
	assert_int_equal(db_commit(&b), 0);
	assert_int_equal(wake_wait(&w, 5000), 1);
	assert_int_equal(db_begin(&b), 0);
	enqueue(&b);
	assert_int_equal(db_rollback(&b), 0);
	assert_int_equal(wake_wait(&w, 300), 0);	/* rolled back: nothing to claim */
	wake_close(&w);
}

static void test_kinds_and_other_files(void **state)
{
	struct wake jobs, verdicts;
	char other[300];
	int fd;
	double t;

	(void)state;
	wake_open(&jobs, path, WAKE_JOBS);
	wake_open(&verdicts, path, WAKE_VERDICTS);
	snprintf(other, sizeof(other), "%s/unrelated.log", dir);
	fd = open(other, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	t = now();
	assert_int_equal(wake_wait(&jobs, 400), 0);
	assert_true(now() - t >= 0.35);		/* the other file did not cut it short */
	wake_notify(path, WAKE_VERDICTS);
	assert_int_equal(wake_wait(&verdicts, 5000), 1);
	assert_int_equal(wake_wait(&jobs, 200), 0);
	wake_close(&jobs);
	wake_close(&verdicts);
}

static void test_memory_db_never_blocks_forever(void **state)
{
	struct wake w;
	double t;

	(void)state;
	wake_open(&w, ":memory:", WAKE_JOBS);
	wake_notify(":memory:", WAKE_JOBS);	/* no file is made */
	t = now();
	assert_int_equal(wake_wait(&w, 200), 0);
	assert_true(now() - t >= 0.15);
	wake_close(&w);
	assert_int_equal(access(":memory:.wake-jobs", F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enqueue_wakes_runner),
		cmocka_unit_test(test_wake_only_after_commit),
		cmocka_unit_test(test_kinds_and_other_files),
		cmocka_unit_test(test_memory_db_never_blocks_forever),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
