/* Unit tests for lib/db: the migration runner and the statement cache. */
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

static char dir[] = "/tmp/bbdbXXXXXX";
static char path[256];

static int setup(void **state)
{
	(void)state;
	log_open("/dev/null", LOG_ERROR);	/* the cache test provokes an error line */
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/test.db", dir);
	return 0;
}

static int teardown(void **state)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };
	char f[300];

	(void)state;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		snprintf(f, sizeof(f), "%s%s", path, suffixes[i]);
		unlink(f);
	}
	return rmdir(dir);
}

static int count_rows(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;

	assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_fresh_migrate_twice(void **state)
{
	struct buf err = BUF_INIT;
	struct db db;
	int applied;

	(void)state;
	assert_int_equal(db_open(&db, path, &err), 0);
	assert_int_equal(db_version(&db), 0);
	assert_int_equal(db_check_version(&db, &err), -1);
	assert_non_null(strstr(err.ptr, "run 'bugbridge db migrate'"));
	buf_reset(&err);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	assert_int_equal(applied, db_nmigrations);
	assert_int_equal(db_version(&db), db_latest_version());
	assert_int_equal(db_check_version(&db, &err), 0);
	assert_int_equal(count_rows(&db, "SELECT count(*) FROM sqlite_master WHERE name = 'jobs'"), 1);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	assert_int_equal(applied, 0);
	/* WAL and foreign keys are on for every connection */
	assert_int_equal(count_rows(&db, "PRAGMA foreign_keys"), 1);
	db_close(&db);
	buf_release(&err);
}

static void test_newer_database_refused(void **state)
{
	struct buf err = BUF_INIT;
	struct db db;
	char pragma[64];
	int applied;

	(void)state;
	assert_int_equal(db_open(&db, path, &err), 0);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", db_latest_version() + 1);
	assert_int_equal(db_exec(&db, pragma), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), -1);
	assert_non_null(strstr(err.ptr, "newer than this bugbridge knows"));
	buf_reset(&err);
	assert_int_equal(db_check_version(&db, &err), -1);
	assert_non_null(strstr(err.ptr, "upgrade bugbridge"));
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", db_latest_version());
	assert_int_equal(db_exec(&db, pragma), 0);
	db_close(&db);
	buf_release(&err);
}

static void test_failed_migration_rolls_back(void **state)
{
	static const struct db_migration list[] = {
		{ 1, "0001_a", "CREATE TABLE a (x INTEGER);" },
		{ 2, "0002_b", "CREATE TABLE b (y INTEGER); INSERT INTO nosuch VALUES (1);" },
	};
	struct buf err = BUF_INIT;
	struct db db;
	int applied;

	(void)state;
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_apply_migrations(&db, list, 2, &applied, &err), -1);
	assert_int_equal(applied, 1);
	assert_non_null(strstr(err.ptr, "migration 0002_b failed"));
	assert_int_equal(db_version(&db), 1);
	/* nothing of the failed migration is left */
	assert_int_equal(count_rows(&db, "SELECT count(*) FROM sqlite_master WHERE name = 'b'"), 0);
	assert_int_equal(count_rows(&db, "SELECT count(*) FROM sqlite_master WHERE name = 'a'"), 1);
	db_close(&db);
	buf_release(&err);
}

/* 0010_attempts: a job finished before it says as many runs as its stages show. */
static void test_attempts_migration(void **state)
{
	struct buf err = BUF_INIT;
	struct db db;
	int before = 0, applied;

	(void)state;
	while (before < db_nmigrations && db_migrations[before].version < 10)
		before++;
	assert_true(before < db_nmigrations && db_migrations[before].version == 10);
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_apply_migrations(&db, db_migrations, before, &applied, &err), 0);
	assert_int_equal(db_exec(&db,
		"INSERT INTO bugs (id) VALUES (1);"
		"INSERT INTO jobs (id, bug_id, state, verdict, attempts) VALUES"
		" (1, 1, 'done', 'pass', 0), (2, 1, 'done', 'fail', 1), (3, 1, 'queued', NULL, 1),"
		" (4, 1, 'cancelled', NULL, 0);"
		"INSERT INTO job_stages (job_id, attempt, variant, stage, started_at) VALUES"
		" (1, 1, 'patched', 'build', 1), (2, 1, 'patched', 'build', 1),"
		" (2, 2, 'patched', 'build', 2), (3, 1, 'patched', 'build', 1);"), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	assert_int_equal(count_rows(&db, "SELECT attempts FROM jobs WHERE id = 1"), 1);
	assert_int_equal(count_rows(&db, "SELECT attempts FROM jobs WHERE id = 2"), 2);
	/* a queued job is between runs: its count is already right */
	assert_int_equal(count_rows(&db, "SELECT attempts FROM jobs WHERE id = 3"), 1);
	assert_int_equal(count_rows(&db, "SELECT attempts FROM jobs WHERE id = 4"), 0);
	db_close(&db);
	buf_release(&err);
}

DB_SQL(sql_test_count, "SELECT count(*) FROM jobs WHERE state = ?");

static void test_statement_cache(void **state)
{
	struct buf err = BUF_INIT;
	sqlite3_stmt *a, *b;
	struct db db;
	int applied;

	(void)state;
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	a = db_stmt(&db, sql_test_count);
	assert_non_null(a);
	sqlite3_bind_text(a, 1, "queued", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	b = db_stmt(&db, sql_test_count);
	assert_ptr_equal(a, b);
	/* handed back reset and unbound */
	assert_int_equal(sqlite3_step(b), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(b, 0), 0);
	assert_null(db_stmt(&db, "SELECT nosuch FROM jobs"));
	db_close(&db);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_migrate_twice),
		cmocka_unit_test(test_newer_database_refused),
		cmocka_unit_test(test_failed_migration_rolls_back),
		cmocka_unit_test(test_statement_cache),
		cmocka_unit_test(test_attempts_migration),
	};
	return cmocka_run_group_tests_name("db", tests, setup, teardown);
}
