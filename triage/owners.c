/*
 * owners: who should hear about a bug.  The files its patches touch (the
 * diff headers of its candidates) and the files its traces name ("WARNING:
 * ... at drivers/scsi/sd.c:3312", "kernel BUG at mm/slub.c:123!" in its
 * comments and in our signatures' frames) go through MAINTAINERS
 * (lib/maintainers.h) to entries, maintainers and lists, stored in
 * bug_owners for the dashboard and the digest's routing.
 *
 * A bug's owners are recomputed only when what they come from changed:
 * bugs.owners_key records the newest candidate, comment and signature seen.
 * MAINTAINERS is read once per refresh that has work, from [triage]
 * maintainers (a file, or "auto": the one in [runner] kernel_source,
 * extracted into the cache once); when that is empty owners stay empty.  With [triage]
 * cc_maintainers the maintainers' addresses are added to the bug's Cc, one
 * update row per distinct set of addresses, never on a private bug (its Cc
 * list may read it).  Private comments are not read for traces.
 */
#include "owners.h"
#include "bases.h"
#include "xalloc.h"
#include "cachedir.h"
#include "child.h"
#include "config.h"
#include "log.h"
#include "maintainers.h"
#include "outbox.h"
#include "privacy.h"
#include "sha256.h"

#include <ctype.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void files_add(char ***files, int *n, const char *s, size_t len)
{
	for (int i = 0; i < *n; i++)
		if (strlen((*files)[i]) == len && !strncmp((*files)[i], s, len))
			return;
	*files = xrealloc(*files, (*n + 1) * sizeof(**files));
	(*files)[(*n)++] = xstrndup(s, len);
}

void owners_files_free(char **files, int nfiles)
{
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
}

/* "b/drivers/scsi/sd.c\t2026-..." -> "drivers/scsi/sd.c" */
static void add_header_path(const char *p, const char *end, char ***files, int *n)
{
	const char *e = p, *slash;

	while (e < end && *e != '\t' && *e != ' ' && *e != '\r')
		e++;
	if (e - p == 9 && !strncmp(p, "/dev/null", 9))
		return;
	slash = memchr(p, '/', e - p);
	if (!slash || slash + 1 >= e)
		return;
	files_add(files, n, slash + 1, e - slash - 1);
}

int owners_diff_files(const char *diff, char ***files, int *nfiles)
{
	const char *p = diff;

	*files = NULL;
	*nfiles = 0;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);

		if (!strncmp(p, "+++ ", 4) || !strncmp(p, "--- ", 4))
			add_header_path(p + 4, end, files, nfiles);
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '/' || c == '.' ||
	       c == '+' || c == ',';
}

int owners_trace_files(const char *text, char ***files, int *nfiles)
{
	const char *p = text;

	*files = NULL;
	*nfiles = 0;
	while ((p = strchr(p, ':')) != NULL) {
		const char *ext = p - 2, *start;

		/* "<path>.[chS]:<line>" */
		if (p - text >= 3 && ext[0] == '.' && strchr("chS", ext[1]) &&
		    isdigit((unsigned char)p[1])) {
			start = ext;
			while (start > text && path_char(start[-1]))
				start--;
			while (start < ext && (*start == '.' || *start == '/'))
				start++;
			if (memchr(start, '/', p - start))
				files_add(files, nfiles, start, p - start);
		}
		p++;
	}
	return 0;
}

DB_SQL(sql_ow_due,
       "SELECT b.id, 'c' || IFNULL((SELECT MAX(id) FROM candidates WHERE bug_id = b.id), 0)"
       " || '/m' || IFNULL((SELECT MAX(id) FROM comments WHERE bug_id = b.id), 0)"
       " || '/s' || IFNULL((SELECT MAX(s.id) FROM signatures s JOIN jobs j ON j.id = s.job_id"
       "   WHERE j.bug_id = b.id), 0) AS k"
       " FROM bugs b WHERE b.is_open = 1 AND b.ignored = 0 AND b.owners_key <> k LIMIT 100");
DB_SQL(sql_ow_patches, "SELECT IFNULL(content, '') FROM candidates WHERE bug_id = ?");
DB_SQL(sql_ow_texts,
       "SELECT text FROM comments WHERE bug_id = ? AND is_ours = 0 AND is_private = 0"
       " UNION ALL SELECT s.title || char(10) || s.frames FROM signatures s"
       " JOIN jobs j ON j.id = s.job_id WHERE j.bug_id = ?");
DB_SQL(sql_ow_clear, "DELETE FROM bug_owners WHERE bug_id = ?");
DB_SQL(sql_ow_add,
       "INSERT INTO bug_owners (bug_id, kind, address, entry, rank) VALUES (?, ?, ?, ?, ?)"
       " ON CONFLICT DO NOTHING");
DB_SQL(sql_ow_key, "UPDATE bugs SET owners_key = ? WHERE id = ?");

static void merge(char ***all, int *n, char **files, int nfiles)
{
	for (int i = 0; i < nfiles; i++)
		files_add(all, n, files[i], strlen(files[i]));
	owners_files_free(files, nfiles);
}

static int bug_files(struct db *db, sqlite3_int64 bug, char ***all, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_ow_patches);
	char **f;
	int nf;

	*all = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	while (sqlite3_step(st) == SQLITE_ROW) {
		owners_diff_files(db_col_text(st, 0), &f, &nf);
		merge(all, n, f, nf);
	}
	sqlite3_reset(st);
	st = db_stmt(db, sql_ow_texts);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	sqlite3_bind_int64(st, 2, bug);
	while (sqlite3_step(st) == SQLITE_ROW) {
		owners_trace_files(db_col_text(st, 0), &f, &nf);
		merge(all, n, f, nf);
	}
	sqlite3_reset(st);
	return 0;
}

static const char *entry_of(const struct maint_result *r, const char *address, int *rank)
{
	for (int i = 0; i < r->nentries; i++) {
		const struct maint_entry *e = r->entries[i];
		const struct maint_list *lists[] = { &e->maintainers, &e->reviewers, &e->lists };

		for (int l = 0; l < 3; l++)
			for (int k = 0; k < lists[l]->n; k++)
				if (!strcmp(lists[l]->v[k], address)) {
					*rank = i;
					return e->title;
				}
	}
	*rank = 0;
	return "";
}

static int store_one(struct db *db, sqlite3_int64 bug, const char *kind, const char *address,
		     const struct maint_result *r)
{
	sqlite3_stmt *st = db_stmt(db, sql_ow_add);
	int rank;
	const char *entry = entry_of(r, address, &rank);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	db_bind_text(st, 2, kind);
	db_bind_text(st, 3, address);
	db_bind_text(st, 4, entry);
	sqlite3_bind_int(st, 5, rank);
	return db_step_done(db, st);
}

static int queue_cc(struct db *db, sqlite3_int64 bug, const struct maint_result *r)
{
	json_object *body, *cc, *add;
	struct buf marker = BUF_INIT, all = BUF_INIT;
	char addr[256], hex[SHA256_HEX_LEN];
	int ret;

	/* a private bug's Cc list may see it (cclist_accessible): never widen it */
	if (!cfg_bool("triage.cc_maintainers") || !r->npeople || bug_is_private(db, bug, NULL))
		return 0;
	body = json_object_new_object();
	cc = json_object_new_object();
	add = json_object_new_array();
	for (int i = 0; i < r->npeople; i++) {
		maint_address(r->people[i], addr, sizeof(addr));
		json_object_array_add(add, json_object_new_string(addr));
		buf_addf(&all, "%s\n", addr);
	}
	json_object_object_add(cc, "add", add);
	json_object_object_add(body, "cc", cc);
	/* one update per set of people: a new comment alone changes nothing */
	sha256_hex(all.ptr, all.len, hex);
	buf_addf(&marker, "bugbridge-cc: bug %lld %.16s", (long long)bug, hex);
	ret = outbox_add(db, "update", bug, 0, marker.ptr,
			 json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
	json_object_put(body);
	buf_release(&marker);
	buf_release(&all);
	return ret;
}

static int refresh_bug(struct db *db, const struct maint_db *m, sqlite3_int64 bug,
		       const char *key)
{
	struct maint_result r = MAINT_RESULT_INIT;
	sqlite3_stmt *st;
	char **files = NULL;
	int nfiles = 0, ret = -1;

	if (bug_files(db, bug, &files, &nfiles))
		goto out;
	maint_for_files(m, (const char *const *)files, nfiles, &r);
	st = db_stmt(db, sql_ow_clear);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, bug);
	if (db_step_done(db, st))
		goto out;
	for (int i = 0; nfiles && i < r.npeople; i++)
		if (store_one(db, bug, "maintainer", r.people[i], &r))
			goto out;
	for (int i = 0; nfiles && i < r.nlists; i++)
		if (store_one(db, bug, "list", r.lists[i], &r))
			goto out;
	st = db_stmt(db, sql_ow_key);
	if (!st)
		goto out;
	db_bind_text(st, 1, key);
	sqlite3_bind_int64(st, 2, bug);
	if (db_step_done(db, st))
		goto out;
	ret = nfiles ? queue_cc(db, bug, &r) : 0;
	log_debug("owners: bug %lld: %d file(s), %d maintainer(s), %d list(s)", (long long)bug,
		  nfiles, nfiles ? r.npeople : 0, nfiles ? r.nlists : 0);
out:
	maint_result_release(&r);
	owners_files_free(files, nfiles);
	return ret;
}

struct ow_due {
	sqlite3_int64 bug;
	char *key;
};

static int due_bugs(struct db *db, struct ow_due **due, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_ow_due);

	*due = NULL;
	*n = 0;
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		*due = xrealloc(*due, (*n + 1) * sizeof(**due));
		(*due)[*n].bug = sqlite3_column_int64(st, 0);
		(*due)[*n].key = xstrdup(db_col_text(st, 1));
		(*n)++;
	}
	sqlite3_reset(st);
	return 0;
}

static void due_free(struct ow_due *due, int n)
{
	for (int i = 0; i < n; i++)
		free(due[i].key);
	free(due);
}

/* Owners of one batch of due bugs, each in its own transaction. */
static int refresh_batch(struct db *db, const struct maint_db *m, const struct ow_due *due,
			 int n, const volatile sig_atomic_t *stop)
{
	int ret = 0;

	for (int i = 0; i < n && !*stop; i++) {
		if (db_begin(db))
			return -1;
		if (refresh_bug(db, m, due[i].bug, due[i].key)) {
			db_rollback(db);
			ret = -1;
		} else if (db_commit(db)) {
			ret = -1;
		}
	}
	return ret;
}

static int run_quietly(const char *const *argv)
{
	struct child ch = CHILD_INIT;

	ch.argv = argv;
	ch.timeout = 600;
	return child_run(&ch) || ch.exit_code ? -1 : 0;
}

/*
 * [triage] maintainers = auto: the MAINTAINERS of the default base's
 * tarball (linux-source-6.1.tar.xz holds linux-source-6.1/MAINTAINERS),
 * extracted once into the cache; xz makes that some seconds, so only on
 * first need.
 */
static int auto_maintainers(struct buf *path)
{
	struct buf tarball_buf = BUF_INIT;
	const char *tarball = bases_default_tarball(&tarball_buf)->ptr;
	const char *base = strrchr(tarball, '/') ? strrchr(tarball, '/') + 1 : tarball;
	const char *ext = strstr(base, ".tar");
	struct buf top = BUF_INIT, dir = BUF_INIT, member = BUF_INIT;
	int ret = -1;

	buf_add(&top, base, ext ? (size_t)(ext - base) : strlen(base));
	if (cache_dir(&dir))		/* logged; no MAINTAINERS, no owners */
		goto out;
	buf_addf(&dir, "/maintainers-%s", top.ptr);
	buf_addf(&member, "%s/MAINTAINERS", top.ptr);
	buf_addf(path, "%s/%s", dir.ptr, member.ptr);
	if (!access(path->ptr, R_OK)) {
		ret = 0;
	} else if (access(tarball, R_OK)) {
		log_warn("owners: cannot read '%s': %m", tarball);
	} else {
		const char *mk[] = { "mkdir", "-p", dir.ptr, NULL };
		const char *tar[] = { "tar", "-xJf", tarball, "-C", dir.ptr, member.ptr, NULL };

		log_info("owners: extracting %s from %s", member.ptr, tarball);
		ret = run_quietly(mk) || run_quietly(tar) ? -1 : 0;
		if (ret)
			log_warn("owners: cannot extract %s from '%s'", member.ptr, tarball);
	}
out:
	buf_release(&top);
	buf_release(&dir);
	buf_release(&member);
	buf_release(&tarball_buf);
	return ret;
}

static int load_maintainers(struct maint_db *m)
{
	const char *conf = cfg_str("triage.maintainers");
	struct buf path = BUF_INIT, text = BUF_INIT;
	int ret = -1;

	if (!strcmp(conf, "auto")) {
		if (auto_maintainers(&path))
			goto out;
	} else {
		buf_addstr(&path, conf);
	}
	if (buf_read_file(&text, path.ptr)) {
		log_warn("owners: cannot read '%s': %m", path.ptr);
		goto out;
	}
	maint_parse(m, text.ptr, text.len);
	ret = 0;
out:
	buf_release(&path);
	buf_release(&text);
	return ret;
}

int owners_refresh(struct db *db, const volatile sig_atomic_t *stop)
{
	struct maint_db m = MAINT_DB_INIT;
	struct ow_due *due = NULL;
	bool parsed = false;
	int n = 0, ret = 0;

	if (!*cfg_str("triage.maintainers"))
		return 0;
	do {
		if (due_bugs(db, &due, &n)) {
			ret = -1;
			break;
		}
		if (n && !parsed) {
			if (load_maintainers(&m)) {
				due_free(due, n);
				break;
			}
			parsed = true;
		}
		if (n)
			ret = refresh_batch(db, &m, due, n, stop);
		due_free(due, n);
	} while (n && !ret && !*stop);
	maint_release(&m);
	return ret;
}
