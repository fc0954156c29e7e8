/*
 * db: connection setup, the migration runner, and the statement cache.
 *
 * The migration runner trusts PRAGMA user_version as the record of what is
 * applied: it is stored in the database header and changes atomically with
 * the migration's own transaction, so a crash mid-migration leaves the old
 * version and none of the new tables.
 */
#include "db.h"
#include "xalloc.h"
#include "log.h"
#include "redact.h"
#include "wake.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open path with flags on vfs (NULL: the default), then run setup. */
static int open_with(struct db *db, const char *path, int flags, const char *vfs,
		     const char *setup, struct buf *err)
{
	memset(db, 0, sizeof(*db));
	if (sqlite3_open_v2(path, &db->h, flags | SQLITE_OPEN_NOMUTEX, vfs) != SQLITE_OK) {
		buf_addf(err, "cannot open database '%s': %s", path,
			 db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto fail;
	}
	db->path = xstrdup(path);
	sqlite3_busy_timeout(db->h, 10000);
	sqlite3_extended_result_codes(db->h, 1);
	if (sqlite3_exec(db->h, setup, NULL, NULL, NULL) != SQLITE_OK) {
		buf_addf(err, "cannot set up database '%s': %s", path, sqlite3_errmsg(db->h));
		goto fail;
	}
	return 0;
fail:
	db_close(db);
	return -1;
}

int db_open(struct db *db, const char *path, struct buf *err)
{
	return open_with(db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL,
			 "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;"
			 " PRAGMA synchronous = NORMAL;", err);
}

/*
 * A read-only connection opens the database O_RDONLY, but SQLite opens its
 * WAL read-write whatever the connection: a process holding that
 * descriptor could append frames, i.e. write the database.  This VFS is
 * the default one, except that the database, its WAL and its journal are
 * always opened read-only (SQLite handles a read-only WAL as on read-only
 * media).  The shared-memory index stays writable: readers take their
 * read locks in it, and with no write to the WAL its worst is a corrupt
 * index, never a forged row.
 */
static sqlite3_vfs ro_vfs;
static int (*base_open)(sqlite3_vfs *, const char *, sqlite3_file *, int, int *);
static pthread_once_t ro_vfs_once = PTHREAD_ONCE_INIT;

static int ro_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	if (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL))
		flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) |
			SQLITE_OPEN_READONLY;
	return base_open(sqlite3_vfs_find(NULL), name, f, flags, out);
}

static void ro_vfs_register(void)
{
	sqlite3_vfs *base = sqlite3_vfs_find(NULL);

	if (!base)
		return;
	ro_vfs = *base;
	ro_vfs.zName = "bugbridge-readonly";
	ro_vfs.pNext = NULL;
	base_open = base->xOpen;
	ro_vfs.xOpen = ro_open;
	sqlite3_vfs_register(&ro_vfs, 0);
}

int db_open_readonly(struct db *db, const char *path, struct buf *err)
{
	pthread_once(&ro_vfs_once, ro_vfs_register);
	/* sorts and TEMP views stay in memory: no file is ever opened later */
	return open_with(db, path, SQLITE_OPEN_READONLY, "bugbridge-readonly",
			 "PRAGMA temp_store = MEMORY;", err);
}

void db_close(struct db *db)
{
	for (int i = 0; i < db->nstmts; i++)
		sqlite3_finalize(db->stmts[i].stmt);
	free(db->stmts);
	if (db->h)
		sqlite3_close(db->h);
	free(db->path);
	memset(db, 0, sizeof(*db));
}

int db_latest_version(void)
{
	return db_nmigrations ? db_migrations[db_nmigrations - 1].version : 0;
}

int db_version(struct db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int newer_error(struct db *db, int have, struct buf *err)
{
	buf_addf(err, "database '%s' has schema version %d, newer than this "
		 "bugbridge knows (%d); upgrade bugbridge", db->path ? db->path : "", have,
		 db_latest_version());
	return -1;
}

int db_check_version(struct db *db, struct buf *err)
{
	int have = db_version(db);

	if (have < 0) {
		buf_addf(err, "cannot read schema version of '%s': %s", db->path,
			 sqlite3_errmsg(db->h));
		return -1;
	}
	if (have > db_latest_version())
		return newer_error(db, have, err);
	if (have < db_latest_version()) {
		buf_addf(err, "database '%s' has schema version %d, this bugbridge "
			 "needs %d: run 'bugbridge db migrate'", db->path, have,
			 db_latest_version());
		return -1;
	}
	return 0;
}

static int apply_one(struct db *db, const struct db_migration *m, struct buf *err)
{
	char pragma[64];
	char *msg = NULL;

	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (sqlite3_exec(db->h, m->sql, NULL, NULL, &msg) != SQLITE_OK)
		goto fail_rollback;
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", m->version);
	if (sqlite3_exec(db->h, pragma, NULL, NULL, &msg) != SQLITE_OK)
		goto fail_rollback;
	if (sqlite3_exec(db->h, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto fail_rollback;
	log_info("db: applied migration %s", m->name);
	return 0;
fail_rollback:
	sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
fail:
	buf_addf(err, "migration %s failed: %s", m->name, msg ? msg : sqlite3_errmsg(db->h));
	sqlite3_free(msg);
	return -1;
}

int db_apply_migrations(struct db *db, const struct db_migration *list, int n,
			int *applied, struct buf *err)
{
	int have = db_version(db);

	*applied = 0;
	if (have < 0) {
		buf_addf(err, "cannot read schema version of '%s': %s", db->path,
			 sqlite3_errmsg(db->h));
		return -1;
	}
	if (n && have > list[n - 1].version)
		return newer_error(db, have, err);
	for (int i = 0; i < n; i++) {
		if (list[i].version <= have)
			continue;
		if (apply_one(db, &list[i], err))
			return -1;
		(*applied)++;
	}
	return 0;
}

int db_migrate(struct db *db, int *applied, struct buf *err)
{
	return db_apply_migrations(db, db_migrations, db_nmigrations, applied, err);
}

sqlite3_stmt *db_stmt(struct db *db, const char *sql)
{
	sqlite3_stmt *st;

	for (int i = 0; i < db->nstmts; i++) {
		if (db->stmts[i].sql == sql) {
			st = db->stmts[i].stmt;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return st;
		}
	}
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		error("db: cannot prepare statement: %s", sqlite3_errmsg(db->h));
		return NULL;
	}
	if (db->nstmts == db->allocstmts) {
		db->allocstmts = db->allocstmts ? db->allocstmts * 2 : 32;
		db->stmts = xrealloc(db->stmts, db->allocstmts * sizeof(*db->stmts));
	}
	db->stmts[db->nstmts].sql = sql;
	db->stmts[db->nstmts].stmt = st;
	db->nstmts++;
	return st;
}

int db_exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("db: %s", msg ? msg : sqlite3_errmsg(db->h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_begin(struct db *db)
{
	return db_exec(db, "BEGIN IMMEDIATE");
}

static void fire_wakes(struct db *db)
{
	for (int what = 1; what <= WAKE_VERDICTS; what <<= 1)
		if (db->wake_pending & what)
			wake_notify(db->path, what);
	db->wake_pending = 0;
}

int db_commit(struct db *db)
{
	if (db_exec(db, "COMMIT"))
		return -1;
	fire_wakes(db);
	return 0;
}

int db_rollback(struct db *db)
{
	db->wake_pending = 0;
	if (sqlite3_get_autocommit(db->h))
		return 0;
	return db_exec(db, "ROLLBACK");
}

void db_wake_after_commit(struct db *db, int what)
{
	db->wake_pending |= what;
	if (sqlite3_get_autocommit(db->h))
		fire_wakes(db);
}

const char *db_errmsg(struct db *db)
{
	return sqlite3_errmsg(db->h);
}

int db_step_done(struct db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return error("db: %s", sqlite3_errmsg(db->h));
	return 0;
}

int db_id_row(struct db *db, const char *sql, sqlite3_int64 id, sqlite3_int64 *col0)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && col0)
		*col0 = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

sqlite3_int64 db_last_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->h);
}

int db_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	struct buf scrubbed = BUF_INIT;
	int rc;

	if (!s)
		return sqlite3_bind_null(st, idx);
	if (!redact_has_secret(s, strlen(s)))
		return sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
	/* a secret on its way into the database: a detail, a log excerpt, a comment */
	buf_addstr(&scrubbed, s);
	redact_secrets(&scrubbed);
	rc = sqlite3_bind_text(st, idx, scrubbed.ptr, -1, SQLITE_TRANSIENT);
	buf_release(&scrubbed);
	return rc;
}

const char *db_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? (const char *)t : "";
}
