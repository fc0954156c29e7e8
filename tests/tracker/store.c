/*
 * store: the stand-in's own SQLite schema, users, times, and seeding.
 *
 * The schema lives here, not in schema/: it is the fake tracker's database,
 * not bugbridge's.  Times are stored as Unix seconds (Bugzilla keeps whole
 * seconds) and printed as YYYY-MM-DDTHH:MM:SSZ in UTC.
 *
 * The fixture (tests/data/tracker-seed.json, format in README.md) is loaded
 * when the database is new or with --reset.  Bugs, comments and attachments
 * are inserted in fixture order, so their ids come out as Bugzilla's did.
 */
#include "standin.h"
#include "xalloc.h"
#include "log.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sa_schema[] =
	"CREATE TABLE IF NOT EXISTS sa_meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS sa_users(id INTEGER PRIMARY KEY,"
	" login TEXT UNIQUE NOT NULL, real_name TEXT NOT NULL DEFAULT '',"
	" password TEXT NOT NULL DEFAULT '', api_key TEXT UNIQUE,"
	" groups TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE IF NOT EXISTS sa_components(product TEXT NOT NULL,"
	" name TEXT NOT NULL, PRIMARY KEY(product, name));"
	"CREATE TABLE IF NOT EXISTS sa_keywords(name TEXT PRIMARY KEY);"
	"CREATE TABLE IF NOT EXISTS sa_bugs(id INTEGER PRIMARY KEY,"
	" product TEXT NOT NULL, component TEXT NOT NULL, summary TEXT NOT NULL,"
	" status TEXT NOT NULL, resolution TEXT NOT NULL DEFAULT '',"
	" whiteboard TEXT NOT NULL DEFAULT '', version TEXT NOT NULL,"
	" op_sys TEXT NOT NULL, platform TEXT NOT NULL, priority TEXT NOT NULL,"
	" severity TEXT NOT NULL, creator INTEGER NOT NULL,"
	" assigned_to INTEGER NOT NULL, cf_kernel_version TEXT NOT NULL DEFAULT '',"
	" cf_regression TEXT NOT NULL DEFAULT '---', url TEXT NOT NULL DEFAULT '',"
	" groups TEXT NOT NULL DEFAULT '', everconfirmed INTEGER NOT NULL,"
	" creation_time INTEGER NOT NULL, last_change_time INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS sa_bugs_lct ON sa_bugs(last_change_time);"
	"CREATE TABLE IF NOT EXISTS sa_bug_keywords(bug INTEGER NOT NULL,"
	" keyword TEXT NOT NULL, PRIMARY KEY(bug, keyword));"
	"CREATE TABLE IF NOT EXISTS sa_bug_cc(bug INTEGER NOT NULL,"
	" user INTEGER NOT NULL, PRIMARY KEY(bug, user));"
	"CREATE TABLE IF NOT EXISTS sa_comments(id INTEGER PRIMARY KEY,"
	" bug INTEGER NOT NULL, creator INTEGER NOT NULL, text TEXT NOT NULL,"
	" is_private INTEGER NOT NULL DEFAULT 0, attachment_id INTEGER,"
	" time INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS sa_comments_bug ON sa_comments(bug, id);"
	"CREATE TABLE IF NOT EXISTS sa_attachments(id INTEGER PRIMARY KEY,"
	" bug INTEGER NOT NULL, creator INTEGER NOT NULL, file_name TEXT NOT NULL,"
	" summary TEXT NOT NULL, content_type TEXT NOT NULL, data BLOB NOT NULL,"
	" is_patch INTEGER NOT NULL, is_obsolete INTEGER NOT NULL,"
	" is_private INTEGER NOT NULL, creation_time INTEGER NOT NULL,"
	" last_change_time INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS sa_attachments_bug ON sa_attachments(bug, id);"
	"CREATE TABLE IF NOT EXISTS sa_history(id INTEGER PRIMARY KEY,"
	" bug INTEGER NOT NULL, who INTEGER NOT NULL, time INTEGER NOT NULL,"
	" field TEXT NOT NULL, removed TEXT NOT NULL, added TEXT NOT NULL,"
	" attachment_id INTEGER);"
	"CREATE INDEX IF NOT EXISTS sa_history_bug ON sa_history(bug, id);";

static const char sa_drop[] =
	"DROP TABLE IF EXISTS sa_meta; DROP TABLE IF EXISTS sa_users;"
	"DROP TABLE IF EXISTS sa_components; DROP TABLE IF EXISTS sa_keywords;"
	"DROP TABLE IF EXISTS sa_bugs; DROP TABLE IF EXISTS sa_bug_keywords;"
	"DROP TABLE IF EXISTS sa_bug_cc; DROP TABLE IF EXISTS sa_comments;"
	"DROP TABLE IF EXISTS sa_attachments; DROP TABLE IF EXISTS sa_history;";

DB_SQL(sql_user_by_id, "SELECT id, login, real_name, groups FROM sa_users WHERE id = ?");
DB_SQL(sql_user_by_login,
       "SELECT id, login, real_name, groups FROM sa_users WHERE login = ?");
DB_SQL(sql_user_by_key,
       "SELECT id, login, real_name, groups FROM sa_users WHERE api_key = ?");
DB_SQL(sql_user_by_pw, "SELECT id, login, real_name, groups FROM sa_users"
       " WHERE login = ? AND password = ? AND password <> ''");
DB_SQL(sql_user_insert, "INSERT INTO sa_users(id, login, real_name, password,"
       " api_key, groups) VALUES (?, ?, ?, ?, ?, ?)");
DB_SQL(sql_keyword_get, "SELECT 1 FROM sa_keywords WHERE name = ?");
DB_SQL(sql_keyword_insert, "INSERT OR IGNORE INTO sa_keywords(name) VALUES (?)");
DB_SQL(sql_component_get, "SELECT 1 FROM sa_components WHERE product = ? AND name = ?");
DB_SQL(sql_product_get, "SELECT 1 FROM sa_components WHERE product = ?");
DB_SQL(sql_component_insert,
       "INSERT OR IGNORE INTO sa_components(product, name) VALUES (?, ?)");
DB_SQL(sql_meta_get, "SELECT value FROM sa_meta WHERE key = ?");
DB_SQL(sql_meta_set, "INSERT OR REPLACE INTO sa_meta(key, value) VALUES (?, ?)");

void sa_fmt_time(time_t t, char out[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct json_object *sa_time_json(time_t t)
{
	char s[32];

	sa_fmt_time(t, s);
	return json_object_new_string(s);
}

int sa_parse_time(const char *s, time_t *out)
{
	struct tm tm = { 0 };
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	char sep;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	s += n;
	if (*s) {
		sep = *s++;
		if (sep != 'T' && sep != ' ' && sep != '+')
			return -1;
		n = 0;
		if (sscanf(s, "%2d:%2d:%2d%n", &h, &mi, &sec, &n) != 3 || n != 8)
			return -1;
		s += n;
		if (*s == 'Z')
			s++;
		if (*s)
			return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
	    h < 0 || mi < 0 || sec < 0)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = timegm(&tm);
	return 0;
}

static int user_row(sqlite3_stmt *st, struct sa_user *u)
{
	int ret = -1;

	memset(u, 0, sizeof(*u));
	if (sqlite3_step(st) == SQLITE_ROW) {
		u->id = sqlite3_column_int(st, 0);
		snprintf(u->login, sizeof(u->login), "%s", db_col_text(st, 1));
		snprintf(u->real_name, sizeof(u->real_name), "%s", db_col_text(st, 2));
		snprintf(u->groups, sizeof(u->groups), "%s", db_col_text(st, 3));
		ret = 0;
	}
	sqlite3_reset(st);
	return ret;
}

int sa_user_by_id(struct db *db, int id, struct sa_user *u)
{
	sqlite3_stmt *st = db_stmt(db, sql_user_by_id);

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, id);
	return user_row(st, u);
}

int sa_user_by_login(struct db *db, const char *login, struct sa_user *u)
{
	sqlite3_stmt *st = db_stmt(db, sql_user_by_login);

	if (!st)
		return -1;
	db_bind_text(st, 1, login);
	return user_row(st, u);
}

int sa_user_by_key(struct db *db, const char *key, struct sa_user *u)
{
	sqlite3_stmt *st = db_stmt(db, sql_user_by_key);

	if (!st)
		return -1;
	db_bind_text(st, 1, key);
	return user_row(st, u);
}

int sa_user_by_password(struct db *db, const char *login, const char *pw,
			struct sa_user *u)
{
	sqlite3_stmt *st = db_stmt(db, sql_user_by_pw);

	if (!st)
		return -1;
	db_bind_text(st, 1, login);
	db_bind_text(st, 2, pw);
	return user_row(st, u);
}

struct json_object *sa_user_detail(const struct sa_user *u)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int(u->id));
	json_object_object_add(o, "name", json_object_new_string(u->login));
	json_object_object_add(o, "real_name", json_object_new_string(u->real_name));
	json_object_object_add(o, "email", json_object_new_string(u->login));
	return o;
}

static bool exists2(struct db *db, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	bool found;

	if (!st)
		return false;
	db_bind_text(st, 1, a);
	if (b)
		db_bind_text(st, 2, b);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	return found;
}

bool sa_keyword_exists(struct db *db, const char *name)
{
	return exists2(db, sql_keyword_get, name, NULL);
}

bool sa_component_exists(struct db *db, const char *product, const char *component)
{
	return exists2(db, sql_component_get, product, component);
}

bool sa_product_exists(struct db *db, const char *product)
{
	return exists2(db, sql_product_get, product, NULL);
}

/* --- seeding ----------------------------------------------------------- */

static const char *jstr(struct json_object *o, const char *key, const char *def)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return def;
	return json_object_get_string(v);
}

static int jint(struct json_object *o, const char *key, int def)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return def;
	return json_object_get_int(v);
}

/* A JSON array of strings joined with commas into out. */
static void join_list(struct json_object *o, const char *key, struct buf *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		if (out->len)
			buf_addch(out, ',');
		buf_addstr(out, json_object_get_string(json_object_array_get_idx(v, i)));
	}
}

static int seed_users(struct db *db, struct json_object *users, struct buf *err)
{
	for (size_t i = 0; i < json_object_array_length(users); i++) {
		struct json_object *u = json_object_array_get_idx(users, i);
		sqlite3_stmt *st = db_stmt(db, sql_user_insert);
		struct buf groups = BUF_INIT;
		int rc;

		if (!st)
			return -1;
		join_list(u, "groups", &groups);
		sqlite3_bind_int(st, 1, jint(u, "id", (int)i + 1));
		db_bind_text(st, 2, jstr(u, "login", ""));
		db_bind_text(st, 3, jstr(u, "real_name", ""));
		db_bind_text(st, 4, jstr(u, "password", ""));
		db_bind_text(st, 5, jstr(u, "api_key", NULL));
		db_bind_text(st, 6, groups.ptr);
		rc = db_step_done(db, st);
		buf_release(&groups);
		if (rc) {
			buf_addf(err, "cannot seed user '%s'", jstr(u, "login", ""));
			return -1;
		}
	}
	return 0;
}

static int seed_vocabulary(struct db *db, struct json_object *seed)
{
	struct json_object *products, *keywords;
	sqlite3_stmt *st;

	if (json_object_object_get_ex(seed, "products", &products)) {
		json_object_object_foreach(products, product, comps) {
			for (size_t i = 0; i < json_object_array_length(comps); i++) {
				if (!(st = db_stmt(db, sql_component_insert)))
					return -1;
				db_bind_text(st, 1, product);
				db_bind_text(st, 2, json_object_get_string(
					json_object_array_get_idx(comps, i)));
				if (db_step_done(db, st))
					return -1;
			}
		}
	}
	if (json_object_object_get_ex(seed, "keywords", &keywords)) {
		for (size_t i = 0; i < json_object_array_length(keywords); i++) {
			if (!(st = db_stmt(db, sql_keyword_insert)))
				return -1;
			db_bind_text(st, 1, json_object_get_string(
				json_object_array_get_idx(keywords, i)));
			if (db_step_done(db, st))
				return -1;
		}
	}
	return 0;
}

static int user_id(struct db *db, const char *login, struct buf *err)
{
	struct sa_user u;

	if (sa_user_by_login(db, login, &u)) {
		buf_addf(err, "seed names unknown user '%s'", login);
		return -1;
	}
	return u.id;
}

static int seed_attachment(struct db *db, int bug, struct json_object *a,
			   const char *seed_dir, time_t now, struct buf *err)
{
	struct buf data = BUF_INIT, path = BUF_INIT;
	int who = user_id(db, jstr(a, "creator", ""), err), id, ret = -1;
	const char *file = jstr(a, "file", NULL);

	if (who < 0)
		goto out;
	if (file) {
		buf_addf(&path, "%s/%s", seed_dir, file);
		if (buf_read_file(&data, path.ptr)) {
			buf_addf(err, "cannot read '%s'", path.ptr);
			goto out;
		}
	} else {
		buf_addstr(&data, jstr(a, "text", ""));
	}
	if (sa_attach_insert(db, bug, who, jstr(a, "file_name", "file"),
			     jstr(a, "summary", ""), jstr(a, "content_type", "text/plain"),
			     data.ptr, data.len, jint(a, "is_patch", 0),
			     jint(a, "is_obsolete", 0), jint(a, "is_private", 0),
			     jstr(a, "comment", ""), now, &id))
		goto out;
	/* An obsolete seed attachment was made so later, as the recording shows. */
	if (jint(a, "is_obsolete", 0) &&
	    sa_history_add(db, bug, who, now, "attachments.isobsolete", "0", "1", id))
		goto out;
	ret = 0;
out:
	buf_release(&data);
	buf_release(&path);
	return ret;
}

static int seed_bug(struct db *db, struct json_object *b, const char *seed_dir,
		    time_t now, struct buf *err)
{
	struct sa_newbug nb = { 0 };
	struct buf groups = BUF_INIT;
	struct json_object *list;
	int id, ret = -1;

	join_list(b, "groups", &groups);
	nb.id = jint(b, "id", 0);
	nb.product = jstr(b, "product", "");
	nb.component = jstr(b, "component", "");
	nb.summary = jstr(b, "summary", "");
	nb.status = jstr(b, "status", "UNCONFIRMED");
	nb.resolution = jstr(b, "resolution", "");
	nb.version = jstr(b, "version", "unspecified");
	nb.op_sys = jstr(b, "op_sys", "Linux");
	nb.platform = jstr(b, "platform", "PC");
	nb.priority = jstr(b, "priority", "Normal");
	nb.severity = jstr(b, "severity", "normal");
	nb.whiteboard = jstr(b, "whiteboard", "");
	nb.cf_kernel_version = jstr(b, "cf_kernel_version", "");
	nb.cf_regression = jstr(b, "cf_regression", "---");
	nb.url = jstr(b, "url", "");
	nb.groups = groups.ptr;
	nb.everconfirmed = strcmp(nb.status, "UNCONFIRMED") != 0;
	nb.when = now;
	if ((nb.creator = user_id(db, jstr(b, "reporter", ""), err)) < 0 ||
	    (nb.assigned_to = user_id(db, jstr(b, "assigned_to", "admin@example.com"),
				      err)) < 0)
		goto out;
	if (sa_bug_insert(db, &nb, &id))
		goto out;
	if (json_object_object_get_ex(b, "keywords", &list))
		for (size_t i = 0; i < json_object_array_length(list); i++)
			if (sa_bug_add_keyword(db, id, json_object_get_string(
					json_object_array_get_idx(list, i))))
				goto out;
	if (json_object_object_get_ex(b, "cc", &list))
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			int cc = user_id(db, json_object_get_string(
				json_object_array_get_idx(list, i)), err);
			if (cc < 0 || sa_bug_add_cc(db, id, cc))
				goto out;
		}
	if (json_object_object_get_ex(b, "comments", &list))
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			struct json_object *c = json_object_array_get_idx(list, i);
			int who = user_id(db, jstr(c, "creator", ""), err), cid;
			if (who < 0 || sa_comment_add(db, id, who, jstr(c, "text", ""),
						      jint(c, "is_private", 0), 0, now, &cid))
				goto out;
		}
	if (json_object_object_get_ex(b, "attachments", &list))
		for (size_t i = 0; i < json_object_array_length(list); i++)
			if (seed_attachment(db, id, json_object_array_get_idx(list, i),
					    seed_dir, now, err))
				goto out;
	ret = 0;
out:
	if (ret && !err->len)
		buf_addf(err, "cannot seed bug %d", jint(b, "id", 0));
	buf_release(&groups);
	return ret;
}

/*
 * "bulk": [{"first_id": N, "count": M, "product", "component", "summary"
 * (a printf format taking the bug id), "reporter", "status", "description"}]
 * makes many plain bugs at once, for benchmarks.
 */
static int seed_bulk(struct db *db, struct json_object *bulk, time_t now,
		     struct buf *err)
{
	for (size_t i = 0; i < json_object_array_length(bulk); i++) {
		struct json_object *b = json_object_array_get_idx(bulk, i);
		struct sa_newbug nb = { 0 };
		int first = jint(b, "first_id", 0), count = jint(b, "count", 0), id, cid;
		const char *fmt = jstr(b, "summary", "bulk bug");

		nb.product = jstr(b, "product", "Linux");
		nb.component = jstr(b, "component", "SCSI");
		nb.status = jstr(b, "status", "CONFIRMED");
		nb.version = "unspecified";
		nb.op_sys = "Linux";
		nb.platform = "PC";
		nb.priority = "Normal";
		nb.severity = "normal";
		nb.everconfirmed = strcmp(nb.status, "UNCONFIRMED") != 0;
		nb.when = now;
		nb.assigned_to = 1;
		if ((nb.creator = user_id(db, jstr(b, "reporter", "user@example.com"),
					  err)) < 0)
			return -1;
		for (int n = 0; n < count; n++) {
			struct buf summary = BUF_INIT;
			int rc;

			nb.id = first ? first + n : 0;
			/* the fixture is ours, but treat the format as data anyway */
			for (const char *p = fmt; *p; p++) {
				if (p[0] == '%' && p[1] == 'd') {
					buf_addf(&summary, "%d", first + n);
					p++;
				} else {
					buf_addch(&summary, *p);
				}
			}
			nb.summary = summary.ptr;
			rc = sa_bug_insert(db, &nb, &id) ||
			     sa_comment_add(db, id, nb.creator,
					    jstr(b, "description", "bulk test bug"),
					    false, 0, now, &cid);
			buf_release(&summary);
			if (rc)
				return -1;
		}
	}
	return 0;
}

static int seed_load(struct db *db, const char *path, struct buf *err)
{
	struct json_object *seed = json_object_from_file(path), *users, *bugs;
	char *dircopy = xstrdup(path);
	const char *dir = dirname(dircopy);
	time_t now = time(NULL);
	sqlite3_stmt *st;
	int ret = -1;

	if (!seed) {
		buf_addf(err, "cannot read seed '%s': %s", path, json_util_get_last_err());
		goto out;
	}
	if (db_begin(db))
		goto out;
	if (json_object_object_get_ex(seed, "users", &users) &&
	    seed_users(db, users, err))
		goto rollback;
	if (seed_vocabulary(db, seed))
		goto rollback;
	if (json_object_object_get_ex(seed, "bugs", &bugs))
		for (size_t i = 0; i < json_object_array_length(bugs); i++)
			if (seed_bug(db, json_object_array_get_idx(bugs, i), dir, now, err))
				goto rollback;
	if (json_object_object_get_ex(seed, "bulk", &bugs) && seed_bulk(db, bugs, now, err))
		goto rollback;
	if (!(st = db_stmt(db, sql_meta_set)))
		goto rollback;
	db_bind_text(st, 1, "seeded");
	db_bind_text(st, 2, path);
	if (db_step_done(db, st) || db_commit(db))
		goto rollback;
	ret = 0;
	goto out;
rollback:
	db_rollback(db);
	if (!err->len)
		buf_addf(err, "cannot seed from '%s': %s", path, db_errmsg(db));
out:
	json_object_put(seed);
	free(dircopy);
	return ret;
}

static bool seeded(struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_meta_get);
	bool found;

	if (!st)
		return false;
	db_bind_text(st, 1, "seeded");
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	return found;
}

int sa_store_open(struct standin *st, const char *path, const char *seed,
		  bool reset, struct buf *err)
{
	if (db_open(&st->db, path, err))
		return -1;
	if ((reset && db_exec(&st->db, sa_drop)) || db_exec(&st->db, sa_schema)) {
		buf_addf(err, "cannot create the schema in '%s'", path);
		return -1;
	}
	if (seed && !seeded(&st->db))
		return seed_load(&st->db, seed, err);
	return 0;
}
