/*
 * privsep_export: the dashboard's database, a file of its own.
 *
 * The dashboard's process parses hostile HTTP; if it is taken over, what it
 * reads is what its descriptors reach.  So it never opens bugbridged's
 * database: bugbridged keeps an export, [db] path with "-web" after it,
 * that holds what anyone may see and nothing else, and the dashboard opens
 * only that (read-only, before it drops root and confines itself):
 *
 *   - the rows the public_* views give (0008_private.sql; the same TEMP
 *     views the dashboard's connections used to shadow the tables with,
 *     http_db_public_of()): no private bug, nothing of one, no private
 *     comment or attachment, no job of either;
 *   - no attachment's data, no mail's text (an outbox row of kind mail,
 *     the digest as sent: the digests table has it, with the items of
 *     private bugs left out), no artifact token (the table is empty);
 *   - the same schema otherwise (tables, indexes, views, user_version), so
 *     every page's SQL runs on it unchanged.
 *
 * A token holder's pages, which may show private bugs, are drawn by
 * bugbridged from its own connection instead (privsep_render.c).
 *
 * Before each request the dashboard asks bugbridged to bring the export up
 * to date (PS_SYNC), so a page shows every write committed before it was
 * asked for.  Nothing is copied while the database has not changed
 * (data_version); a table is copied again only when its row in export_seq
 * moved (0024_web_export.sql), or every table when which bugs, candidates
 * or jobs are private changed.  One transaction reads one snapshot of the
 * database.  The export deletes with secure_delete and truncates its WAL
 * after each copy, so a row that turned private is not left in a free page
 * or an old frame for the dashboard to read.
 *
 * The statements here name the attached database (src), which test_sql's
 * database has not: they are prepared where they run, not with DB_SQL.
 */
#include "privsep.h"
#include "xalloc.h"
#include "config.h"
#include "http.h"
#include "log.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Columns the export never holds: their value there instead. */
static const struct {
	const char *table, *column, *value;
} blanked[] = {
	{ "attachments", "data", "NULL" },
	{ "outbox", "payload", "CASE WHEN kind = 'mail' THEN '' ELSE payload END" },
};

/* Tables the export has empty (their rows are secrets), or not at all. */
static const char *const kept_empty[] = { "artifacts" };
static const char *const left_out[] = { "export_seq" };

struct table {
	char *name;
	sqlite3_int64 seq;	/* its export_seq row when last copied; -1: no row */
	bool copy;		/* to be copied in this round */
};

struct web_export {
	struct db db;		/* main: the export; src: bugbridged's database */
	struct table *t;
	int n;
	sqlite3_int64 data_version, schema_version;
	char privacy[SHA256_HEX_LEN];	/* hash of the private ids last copied */
	bool fresh;		/* nothing copied yet */
};

static bool listed(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}
#define LISTED(list, name) listed(list, sizeof(list) / sizeof(list[0]), name)

void web_export_path(struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s-web", cfg_str("db.path"));
}

static sqlite3_int64 pragma_int(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3_int64 v = -1;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void tables_free(struct web_export *x)
{
	for (int i = 0; i < x->n; i++)
		free(x->t[i].name);
	free(x->t);
	x->t = NULL;
	x->n = 0;
}

/*
 * The export's schema: every table, index and view of the database but
 * export_seq, in that order, and its user_version (the dashboard checks
 * it).  Drops what the export had first (a migration ran meanwhile).
 */
static int make_schema(struct web_export *x)
{
	static const char list[] =
		"SELECT type, name, sql FROM src.sqlite_master WHERE sql IS NOT NULL"
		" AND name NOT LIKE 'sqlite_%' AND type IN ('table', 'index', 'view')"
		" ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name";
	sqlite3_stmt *st = NULL;
	struct buf sql = BUF_INIT;
	size_t alloc = 0;
	int ret = -1;

	tables_free(x);
	/* the public views (temp.bugs, ...) go while the tables are made: they would shadow them */
	if (sqlite3_prepare_v2(x->db.h, "SELECT type, name, 'main' FROM main.sqlite_master"
			       " WHERE type IN ('view', 'table') AND name NOT LIKE 'sqlite_%'"
			       " UNION ALL SELECT type, name, 'temp' FROM temp.sqlite_master"
			       " WHERE type = 'view'", -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW)
		buf_addf(&sql, "DROP %s IF EXISTS %s.\"%s\";\n", db_col_text(st, 0),
			 db_col_text(st, 2), db_col_text(st, 1));
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(x->db.h, list, -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = db_col_text(st, 0), *name = db_col_text(st, 1);

		if (LISTED(left_out, name))
			continue;
		buf_addf(&sql, "%s;\n", db_col_text(st, 2));
		if (strcmp(type, "table") || LISTED(kept_empty, name))
			continue;
		XGROW(x->t, (size_t)x->n + 1, alloc);
		x->t[x->n++] = (struct table){ .name = xstrdup(name), .seq = -1 };
	}
	buf_addf(&sql, "PRAGMA main.user_version = %lld;",
		 (long long)pragma_int(&x->db, "PRAGMA src.user_version"));
	/* CREATE statements name no schema: they land in main, the export */
	ret = db_exec(&x->db, sql.ptr) || http_db_public_of(&x->db, "src") ? -1 : 0;
	x->schema_version = pragma_int(&x->db, "PRAGMA src.schema_version");
out:
	if (ret)
		log_error("web: cannot make the dashboard's export: %s", db_errmsg(&x->db));
	sqlite3_finalize(st);
	buf_release(&sql);
	return ret;
}

/*
 * Append the SQL that copies table's public rows, the blanked columns
 * blank: from temp.<table>, its public view where it has one
 * (http_db_public_of), else from the table itself.
 */
static int copy_sql(struct web_export *x, const char *table, struct buf *sql)
{
	static const char cols_sql[] =
		"SELECT name, (SELECT count(*) FROM temp.sqlite_master WHERE name = ?1)"
		" FROM pragma_table_info(?1, 'src')";
	sqlite3_stmt *st;
	struct buf cols = BUF_INIT;
	bool shadowed = false;

	if (sqlite3_prepare_v2(x->db.h, cols_sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	db_bind_text(st, 1, table);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *col = db_col_text(st, 0), *value = col;

		for (size_t i = 0; i < sizeof(blanked) / sizeof(blanked[0]); i++)
			if (!strcmp(blanked[i].table, table) && !strcmp(blanked[i].column, col))
				value = blanked[i].value;
		buf_addf(&cols, "%s%s", cols.len ? ", " : "", value);
		shadowed = sqlite3_column_int(st, 1) > 0;
	}
	sqlite3_finalize(st);
	buf_addf(sql, "DELETE FROM main.\"%s\";\nINSERT INTO main.\"%s\" SELECT %s FROM %s.\"%s\";\n",
		 table, table, cols.ptr, shadowed ? "temp" : "src", table);
	buf_release(&cols);
	return 0;
}

/* Which tables changed since the last copy (all of them when privacy did). */
static int mark_changed(struct web_export *x, bool all)
{
	sqlite3_stmt *st;

	for (int i = 0; i < x->n; i++)
		x->t[i].copy = all || x->t[i].seq < 0;
	if (sqlite3_prepare_v2(x->db.h, "SELECT tbl, n FROM src.export_seq", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < x->n; i++) {
			if (strcmp(x->t[i].name, db_col_text(st, 0)))
				continue;
			if (x->t[i].seq != sqlite3_column_int64(st, 1))
				x->t[i].copy = true;
			x->t[i].seq = sqlite3_column_int64(st, 1);
		}
	}
	return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

/* The hash of which bugs, candidates and jobs are private now. */
static int privacy_hash(struct web_export *x, char hex[SHA256_HEX_LEN])
{
	static const char sql[] =
		"SELECT ifnull((SELECT group_concat(id) FROM (SELECT id FROM src.private_bug_ids"
		" ORDER BY id)), '') || '/' || ifnull((SELECT group_concat(id) FROM (SELECT id FROM"
		" src.private_candidate_ids ORDER BY id)), '') || '/' || ifnull((SELECT"
		" group_concat(id) FROM (SELECT id FROM src.private_job_ids ORDER BY id)), '')";
	sqlite3_stmt *st;
	const char *ids;

	if (sqlite3_prepare_v2(x->db.h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return -1;
	}
	ids = db_col_text(st, 0);
	sha256_hex(ids, strlen(ids), hex);
	sqlite3_finalize(st);
	return 0;
}

/* Copy what changed, in one transaction (one snapshot of the database). */
static int copy_changed(struct web_export *x, int *copied)
{
	struct buf sql = BUF_INIT;
	char privacy[SHA256_HEX_LEN];
	int ret = -1;

	*copied = 0;
	/* deferred: a read lock on the database, the write lock on the export only */
	if (db_exec(&x->db, "BEGIN"))
		goto out;
	if (pragma_int(&x->db, "PRAGMA src.schema_version") != x->schema_version &&
	    make_schema(x))
		goto fail;
	if (privacy_hash(x, privacy) || mark_changed(x, x->fresh || strcmp(privacy, x->privacy)))
		goto fail;
	for (int i = 0; i < x->n; i++)
		if (x->t[i].copy && !copy_sql(x, x->t[i].name, &sql))
			(*copied)++;
	if ((sql.len && db_exec(&x->db, sql.ptr)) || db_commit(&x->db))
		goto fail;
	memcpy(x->privacy, privacy, sizeof(privacy));
	x->fresh = false;
	ret = 0;
	goto out;
fail:
	db_rollback(&x->db);
out:
	if (ret)
		log_error("web: cannot bring the dashboard's export up to date: %s",
			  db_errmsg(&x->db));
	buf_release(&sql);
	return ret;
}

int web_export_sync(struct web_export *x)
{
	sqlite3_int64 dv = pragma_int(&x->db, "PRAGMA src.data_version");
	struct timespec t0, t1;
	int copied;

	if (!x->fresh && dv == x->data_version)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (copy_changed(x, &copied))
		return -1;
	x->data_version = dv;
	if (!copied)
		return 0;
	(void)db_exec(&x->db, "PRAGMA main.wal_checkpoint(TRUNCATE)");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_debug("web: the dashboard's database: %d of %d tables copied in %.0f ms", copied,
		  x->n, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}

/* Remove an earlier export and its WAL: it is made afresh. */
static void unlink_export(const char *path)
{
	struct buf f = BUF_INIT;

	unlink(path);
	buf_addf(&f, "%s-wal", path);
	unlink(f.ptr);
	buf_reset(&f);
	buf_addf(&f, "%s-shm", path);
	unlink(f.ptr);
	buf_release(&f);
}

struct web_export *web_export_open(struct buf *err)
{
	struct web_export *x = xcalloc(1, sizeof(*x));
	struct buf path = BUF_INIT, sql = BUF_INIT;
	char *quoted;

	web_export_path(&path);
	unlink_export(path.ptr);
	if (db_open(&x->db, path.ptr, err))
		goto fail;
	quoted = sqlite3_mprintf("ATTACH DATABASE %Q AS src", cfg_str("db.path"));
	buf_addf(&sql, "PRAGMA foreign_keys = OFF; PRAGMA main.secure_delete = ON;"
		 " PRAGMA main.journal_size_limit = 0; %s;", quoted);
	sqlite3_free(quoted);
	if (db_exec(&x->db, sql.ptr) || db_exec(&x->db, "BEGIN") || make_schema(x) ||
	    db_exec(&x->db, "COMMIT")) {
		buf_addf(err, "cannot make the dashboard's database '%s': %s", path.ptr,
			 db_errmsg(&x->db));
		goto fail;
	}
	x->fresh = true;
	if (web_export_sync(x)) {
		buf_addf(err, "cannot fill the dashboard's database '%s'", path.ptr);
		goto fail;
	}
	buf_release(&path);
	buf_release(&sql);
	return x;
fail:
	web_export_close(x);
	buf_release(&path);
	buf_release(&sql);
	return NULL;
}

void web_export_close(struct web_export *x)
{
	if (!x)
		return;
	db_close(&x->db);
	tables_free(x);
	free(x);
}
