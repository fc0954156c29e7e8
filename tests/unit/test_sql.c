/*
 * Every SQL statement in the program (declared with DB_SQL, collected in the
 * bb_sql linker section) must prepare against a freshly migrated database:
 * a query that drifts from schema/ fails here, not in production.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>

#include "db.h"
#include "http.h"
#include "log.h"

static void test_every_statement_prepares(void **state)
{
	struct buf err = BUF_INIT;
	struct db db;
	int applied, count = 0, bad = 0;

	(void)state;
	log_set_level(LOG_ERROR);
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	assert_non_null(__start_bb_sql);
	for (const struct db_sql *s = __start_bb_sql; s < __stop_bb_sql; s++) {
		sqlite3_stmt *st;

		count++;
		if (sqlite3_prepare_v2(db.h, s->text, -1, &st, NULL) != SQLITE_OK) {
			print_error("%s: %s\n", s->where, sqlite3_errmsg(db.h));
			bad++;
			continue;
		}
		sqlite3_finalize(st);
	}
	print_message("prepared %d statements\n", count);
	assert_true(count > 5);
	assert_int_equal(bad, 0);
	db_close(&db);
	buf_release(&err);
}

/* A fresh database holding rows (SQL), seen as the dashboard's public connection. */
static void open_public(struct db *db, const char *rows)
{
	struct buf err = BUF_INIT;
	int applied;

	log_set_level(LOG_ERROR);
	assert_int_equal(db_open(db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(db, &applied, &err), 0);
	assert_int_equal(db_exec(db, rows), 0);
	assert_int_equal(http_db_public(db), 0);
	buf_release(&err);
}

/*
 * The dashboard's public connections shadow every table that belongs to a
 * bug or a job (http_db.c): a table added later with a bug_id or job_id
 * column and no shadow would show private bugs' rows to anyone.  And the
 * shadows hide a private bug's rows, but for a job of a public bug.
 */
static void test_public_shadows_every_bug_table(void **state)
{
	sqlite3_stmt *st, *shadow;
	struct db db;
	int missing = 0;

	(void)state;
	open_public(&db,
		"INSERT INTO bugs (id, groups) VALUES (1, ''), (2, 'kernel-security');"
		"INSERT INTO jobs (id, bug_id) VALUES (10, 1), (20, 2), (30, NULL);"
		"INSERT INTO signatures (job_id, kind, title, hash) VALUES (10, 'oops', 'a', 'a'), (20, 'oops', 'b', 'b');");
	assert_int_equal(sqlite3_prepare_v2(db.h,
		"SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table' AND"
		" (m.name IN ('bugs', 'jobs') OR EXISTS (SELECT 1 FROM pragma_table_info(m.name) c"
		"  WHERE c.name IN ('bug_id', 'job_id')))", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db.h,
		"SELECT 1 FROM sqlite_temp_master WHERE type = 'view' AND name = ?", -1, &shadow,
		NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		sqlite3_bind_text(shadow, 1, (const char *)sqlite3_column_text(st, 0), -1,
				  SQLITE_TRANSIENT);
		if (sqlite3_step(shadow) != SQLITE_ROW) {
			print_error("table %s has a bug_id or job_id but no public shadow"
				    " (web/http_db.c)\n", sqlite3_column_text(st, 0));
			missing++;
		}
		sqlite3_reset(shadow);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(shadow);
	assert_int_equal(missing, 0);
	assert_int_equal(sqlite3_prepare_v2(db.h,
		"SELECT (SELECT group_concat(id) FROM bugs), (SELECT group_concat(id) FROM jobs),"
		" (SELECT group_concat(job_id) FROM signatures)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "1");
	assert_string_equal((const char *)sqlite3_column_text(st, 1), "10,30");
	assert_string_equal((const char *)sqlite3_column_text(st, 2), "10");
	sqlite3_finalize(st);
	db_close(&db);
}

/*
 * The public digests shadow (http_db.c) lists digests' columns by name: a
 * column added to digests later must be added there too.  And it leaves
 * out the item of a bug that is private now, keeping the others.
 */
static void test_public_digests(void **state)
{
	sqlite3_stmt *st;
	struct db db;

	(void)state;
	open_public(&db,
		"INSERT INTO bugs (id, groups) VALUES (1, ''), (2, 'kernel-security');"
		"INSERT INTO digests (list, period, subject, message_id, body) VALUES ('l', 'p', 's',"
		" 'm', 'New bugs (2)' || char(10) || '#1 NEW 1h  public one' || char(10) ||"
		" '    u1' || char(10) || '#2 NEW 1h  secret two' || char(10) || '    u2' || char(10))");
	assert_int_equal(sqlite3_prepare_v2(db.h,
		"SELECT (SELECT group_concat(name) FROM pragma_table_info('digests', 'main')),"
		" (SELECT group_concat(name) FROM pragma_table_info('digests', 'temp')),"
		" (SELECT body FROM digests)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 1),
			    (const char *)sqlite3_column_text(st, 0));
	assert_string_equal((const char *)sqlite3_column_text(st, 2),
			    "New bugs (2)\n#1 NEW 1h  public one\n    u1\n\n(1 item left out here:"
			    " private since this digest was sent)\n");
	sqlite3_finalize(st);
	db_close(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_statement_prepares),
		cmocka_unit_test(test_public_shadows_every_bug_table),
		cmocka_unit_test(test_public_digests),
	};
	return cmocka_run_group_tests_name("sql", tests, NULL, NULL);
}
