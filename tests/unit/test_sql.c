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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_statement_prepares),
	};
	return cmocka_run_group_tests_name("sql", tests, NULL, NULL);
}
