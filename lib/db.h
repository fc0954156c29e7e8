/*
 * db: SQLite connections, migrations, and prepared statements.
 *
 * Every thread opens its own struct db (WAL mode: readers never block the
 * one writer; busy_timeout covers writer-writer contention between
 * bugbridged, runners and the admin command).
 *
 * SQL text lives in the module that uses it, declared with DB_SQL so that it
 * lands in the "bb_sql" linker section: tests/unit/test_sql.c prepares every
 * statement in the program against a freshly migrated database, so a query
 * that drifts from schema/ fails `make check`, not production.
 *
 *   DB_SQL(sql_bug_get, "SELECT summary FROM bugs WHERE id = ?");
 *   sqlite3_stmt *st = db_stmt(db, sql_bug_get);   // cached, reset, owned by db
 *
 * Migrations are schema/NNNN-name.sql, embedded at build time, applied in
 * order, each in one transaction that also sets PRAGMA user_version = NNNN.
 */
#ifndef BB_DB_H
#define BB_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include "buf.h"

struct db_sql {
	const char *text;
	const char *where;
};

#define DB_SQL(name, sql_text) \
	static const char name[] = sql_text; \
	static const struct db_sql name##_reg \
		__attribute__((used, section("bb_sql"), aligned(sizeof(void *)))) = \
		{ name, __FILE__ ":" #name }

extern const struct db_sql __start_bb_sql[] __attribute__((weak));
extern const struct db_sql __stop_bb_sql[] __attribute__((weak));

struct db_migration {
	int version;
	const char *name;
	const char *sql;
};
extern const struct db_migration db_migrations[];
extern const int db_nmigrations;

struct db_stmt_slot {
	const char *sql;
	sqlite3_stmt *stmt;
};

struct db {
	sqlite3 *h;
	char *path;
	struct db_stmt_slot *stmts;
	int nstmts, allocstmts;
	int wake_pending;		/* wake.h: fired by db_commit, dropped by db_rollback */
};

/* Open (creating if needed) with WAL, foreign keys and a busy timeout. */
int db_open(struct db *db, const char *path, struct buf *err);
/*
 * Open an existing database read-only: the database file and its WAL are
 * opened O_RDONLY (a VFS of our own sees to the WAL), so nothing done
 * through the connection can write them; with the busy timeout and
 * temp_store in memory.  For the dashboard's process.
 */
int db_open_readonly(struct db *db, const char *path, struct buf *err);
void db_close(struct db *db);

/* The newest version this program knows. */
int db_latest_version(void);
int db_version(struct db *db);
/* Apply pending migrations; *applied gets their count.  Refuses a newer db. */
int db_migrate(struct db *db, int *applied, struct buf *err);
/* The runner behind db_migrate, on any list (tests use broken ones). */
int db_apply_migrations(struct db *db, const struct db_migration *list, int n,
			int *applied, struct buf *err);
/* Refuse a database that is missing migrations or is newer than us. */
int db_check_version(struct db *db, struct buf *err);

/* A cached prepared statement for sql (identity by pointer), reset and unbound. */
sqlite3_stmt *db_stmt(struct db *db, const char *sql);
/* Run SQL without results; logs and returns -1 on error. */
int db_exec(struct db *db, const char *sql);
int db_begin(struct db *db);		/* BEGIN IMMEDIATE */
int db_commit(struct db *db);
int db_rollback(struct db *db);
/*
 * Wake the listeners of `what` (enum wake_what, wake.h) once the current
 * transaction commits; at once when there is none.
 */
void db_wake_after_commit(struct db *db, int what);
/* Last error text of the connection. */
const char *db_errmsg(struct db *db);

/* Helpers for the common cases; the statement is reset afterwards. */
int db_step_done(struct db *db, sqlite3_stmt *st);	/* expects SQLITE_DONE */
sqlite3_int64 db_last_id(struct db *db);
/*
 * Run sql (one ? for id): 1 when it gives a row (its first column into
 * *col0 unless NULL), 0 when not, -1 on a database error.
 */
int db_id_row(struct db *db, const char *sql, sqlite3_int64 id, sqlite3_int64 *col0);
/*
 * Bind text that may be NULL.  Every text stored goes through here, so here
 * the value of any configured secret is replaced by REDACTED (redact.h).
 */
int db_bind_text(sqlite3_stmt *st, int idx, const char *s);
/* Column text that is never NULL. */
const char *db_col_text(sqlite3_stmt *st, int col);

#endif
