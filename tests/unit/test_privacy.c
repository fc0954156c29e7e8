/*
 * Unit tests for lib/privacy: what is private, on a real migrated database.
 * A bug in a group; a job of it; a job of a public bug whose candidate came
 * from a comment or an attachment that turned private; bugs and jobs we do
 * not know (public); and a database that cannot answer (private, failed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "privacy.h"

static char dir[64];
static char path[256];
static struct db db;

static const char fixture[] =
	"INSERT INTO bugs (id, groups) VALUES (1, ''), (2, 'kernel-security');"
	"INSERT INTO comments (id, bug_id, is_private) VALUES (10, 1, 0), (11, 1, 1);"
	"INSERT INTO attachments (id, bug_id, is_private) VALUES (20, 1, 0), (21, 1, 1);"
	"INSERT INTO candidates (id, bug_id, source, source_id, kind, sha256) VALUES"
	" (100, 1, 'comment', 10, 'patch', 'a'), (101, 1, 'comment', 11, 'patch', 'b'),"
	" (102, 1, 'attachment', 20, 'patch', 'c'), (103, 1, 'attachment', 21, 'patch', 'd'),"
	" (104, 2, 'attachment', 20, 'patch', 'e');"
	"INSERT INTO jobs (id, bug_id, candidate_id) VALUES (1000, 1, 100), (1001, 1, 101),"
	" (1002, 1, 102), (1003, 1, 103), (1004, 2, 104), (1005, 2, NULL), (1006, 1, NULL),"
	" (1007, 999, NULL);";

static int setup(void **state)
{
	struct buf err = BUF_INIT;
	int applied;

	(void)state;
	log_open("/dev/null", LOG_ERROR);
	snprintf(dir, sizeof(dir), "/tmp/bbprivXXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/test.db", dir);
	if (db_open(&db, path, &err) || db_migrate(&db, &applied, &err) || db_exec(&db, fixture))
		return -1;
	buf_release(&err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	db_close(&db);
	unlink(path);
	return rmdir(dir);
}

static void test_bugs(void **state)
{
	bool failed = true;

	(void)state;
	assert_false(bug_is_private(&db, 1, &failed));
	assert_false(failed);
	assert_true(bug_is_private(&db, 2, &failed));
	assert_false(failed);
	assert_false(bug_is_private(&db, 999, NULL));	/* not tracked: public */
}

static void test_jobs(void **state)
{
	static const struct { sqlite3_int64 id; bool priv; } want[] = {
		{ 1000, false },	/* public comment of a public bug */
		{ 1001, true },		/* the comment turned private */
		{ 1002, false },	/* public attachment */
		{ 1003, true },		/* the attachment turned private */
		{ 1004, true },		/* a private bug's candidate */
		{ 1005, true },		/* a private bug's job without a candidate */
		{ 1006, false },	/* a public bug's */
		{ 1007, false },	/* a bug we do not track */
		{ 4242, false },	/* no such job */
	};
	bool failed;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		failed = true;
		if (job_is_private(&db, want[i].id, &failed) != want[i].priv)
			fail_msg("job %lld: expected %s", (long long)want[i].id,
				 want[i].priv ? "private" : "public");
		assert_false(failed);
	}
}

/* The public_ views read the same rule (0015 rewrote public_bugs on it). */
static void test_views_agree(void **state)
{
	sqlite3_stmt *st = db_stmt(&db, "SELECT"
		" (SELECT group_concat(id) FROM (SELECT id FROM public_bugs ORDER BY id)),"
		" (SELECT group_concat(id) FROM (SELECT id FROM public_jobs ORDER BY id))");

	(void)state;
	assert_non_null(st);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(db_col_text(st, 0), "1");
	assert_string_equal(db_col_text(st, 1), "1000,1002,1006,1007");
	sqlite3_reset(st);
}

/* A database that cannot answer: private (fail closed), and said so. */
static void test_error_is_private(void **state)
{
	bool failed = false;

	(void)state;
	assert_int_equal(db_begin(&db), 0);
	assert_int_equal(db_exec(&db, "DROP VIEW private_bug_ids"), 0);
	assert_true(bug_is_private(&db, 1, &failed));
	assert_true(failed);
	failed = false;
	assert_true(job_is_private(&db, 1000, &failed));
	assert_true(failed);
	assert_true(bug_is_private(&db, 1, NULL));
	assert_int_equal(db_rollback(&db), 0);
	assert_false(bug_is_private(&db, 1, &failed));
	assert_false(failed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bugs),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_views_agree),
		cmocka_unit_test(test_error_is_private),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
