/*
 * http_db: the dashboard's database connections, opened before it serves
 * anything (and before it gives up root: see web_child.c), one per worker
 * thread, read-only (the file is opened O_RDONLY), on the dashboard's own
 * database: the export bugbridged keeps of what anyone may see
 * (privsep_export.c), never bugbridged's database itself.  A private bug,
 * its comments, candidates, jobs, results, posts and owners, attachments'
 * data, mails' text and artifact tokens are not in that file.  Before a
 * request reads it, bugbridged brings it up to date (privsep_sync).
 *
 * What anyone may see is defined here, as TEMP views of the tables' names
 * over the schema's public_* views (0008_private.sql), which the export is
 * copied from (http_db_public_of): a query that forgets a filter still
 * sees no private row.  The digests we sent are shadowed too: their text
 * as sent, without the items of bugs and jobs that are private now (a bug
 * made private after its digest went out), through the SQL function
 * bb_public_digest() (lib/digest_text.h).
 *
 * A worker thread takes a free connection on its first request and keeps
 * it; they are closed by http_db_close() once the threads are gone.
 */
#include "http.h"
#include "xalloc.h"
#include "config.h"
#include "digest_text.h"
#include "log.h"
#include "privsep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tables the public_* views stand for (0008_private.sql), and the
 * later tables of a job, filtered here.  A new table with a bug_id or a
 * job_id belongs in one of the lists: test_sql checks that it is.
 */
static const char *const shadowed[] = {
	"bugs", "comments", "attachments", "candidates", "jobs", "job_stages",
	"test_results", "signatures", "baseline_runs", "outbox", "bug_owners",
	"release_bisections",
};
static const char *const job_tables[] = { "lava_jobs", "artifacts" };

/*
 * Every column of digests (0001_init.sql), the body filtered; test_sql
 * checks the list.  The private bugs' and jobs' ids are the schema's rule
 * (private_bug_ids, private_job_ids), each read once per statement (an
 * uncorrelated subquery): looking each item up in private_job_ids costs a
 * few milliseconds, as it is a UNION that SQLite does not filter by id.
 */
#define PUBLIC_DIGESTS \
	"CREATE TEMP VIEW digests AS SELECT id, list, period, subject, message_id," \
	" in_reply_to, bb_public_digest(body, (SELECT group_concat(id) FROM %1$s.private_bug_ids)," \
	" (SELECT group_concat(id) FROM %1$s.private_job_ids)) AS body, outbox_id, created_at" \
	" FROM %1$s.digests;\n"

struct http_db_pool {
	pthread_mutex_t lock;
	struct db *dbs;
	int n, used;
};

static struct http_db_pool pool = { .lock = PTHREAD_MUTEX_INITIALIZER };
static _Thread_local int my_slot = -1;

/* Ids, sorted, from group_concat's "3,1,2" (NULL: none). */
struct id_set {
	long long *v;
	size_t n;
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void id_set_parse(struct id_set *s, const char *csv)
{
	size_t alloc = 0;

	memset(s, 0, sizeof(*s));
	for (const char *p = csv; p && *p; p += *p == ',') {
		char *end;
		long long id = strtoll(p, &end, 10);

		if (end == p)
			break;
		XGROW(s->v, s->n + 1, alloc);
		s->v[s->n++] = id;
		p = end;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_ll);
}

static bool id_set_has(const struct id_set *s, long long id)
{
	return s->n && bsearch(&id, s->v, s->n, sizeof(*s->v), cmp_ll);
}

struct private_ids {
	struct id_set bugs, jobs;
};

static bool item_private(const struct digest_item *it, void *ctx)
{
	const struct private_ids *p = ctx;

	return (it->bug && id_set_has(&p->bugs, it->bug)) ||
	       (it->job && id_set_has(&p->jobs, it->job));
}

/*
 * bb_public_digest(text, private bug ids, private job ids): a digest's text
 * without the items of those bugs and jobs.
 */
static void public_digest(sqlite3_context *c, int argc, sqlite3_value **v)
{
	const char *text = (const char *)sqlite3_value_text(v[0]);
	struct private_ids p;
	struct buf out = BUF_INIT;
	int n;

	(void)argc;
	if (!text) {
		sqlite3_result_null(c);
		return;
	}
	id_set_parse(&p.bugs, (const char *)sqlite3_value_text(v[1]));
	id_set_parse(&p.jobs, (const char *)sqlite3_value_text(v[2]));
	n = digest_text_filter(text, item_private, &p, &out);
	if (n)
		buf_addf(&out, "\n(%d item%s left out here: private since this digest was sent)\n",
			 n, n == 1 ? "" : "s");
	sqlite3_result_text(c, out.ptr, (int)out.len, SQLITE_TRANSIENT);
	buf_release(&out);
	free(p.bugs.v);
	free(p.jobs.v);
}

int http_db_public(struct db *db)
{
	return http_db_public_of(db, "main");
}

int http_db_public_of(struct db *db, const char *schema)
{
	struct buf sql = BUF_INIT;
	int ret;

	if (sqlite3_create_function(db->h, "bb_public_digest", 3, SQLITE_UTF8, NULL,
				    public_digest, NULL, NULL) != SQLITE_OK)
		return -1;

	for (size_t i = 0; i < sizeof(shadowed) / sizeof(shadowed[0]); i++)
		buf_addf(&sql, "CREATE TEMP VIEW %s AS SELECT * FROM %s.public_%s;\n",
			 shadowed[i], schema, shadowed[i]);
	for (size_t i = 0; i < sizeof(job_tables) / sizeof(job_tables[0]); i++)
		buf_addf(&sql, "CREATE TEMP VIEW %1$s AS SELECT * FROM %2$s.%1$s"
			 " WHERE job_id NOT IN (SELECT id FROM %2$s.private_job_ids);\n",
			 job_tables[i], schema);
	buf_addf(&sql, PUBLIC_DIGESTS, schema);
	ret = db_exec(db, sql.ptr);
	buf_release(&sql);
	return ret;
}

static int open_one(struct db *db, const char *path, struct buf *err)
{
	if (db_open_readonly(db, path, err) || db_check_version(db, err))
		goto fail;
	/* no statement may write, not even to the TEMP schema */
	if (db_exec(db, "PRAGMA query_only = 1")) {
		buf_addf(err, "cannot make '%s' query-only: %s", path, db_errmsg(db));
		goto fail;
	}
	return 0;
fail:
	db_close(db);
	return -1;
}

int http_db_open(int n, struct buf *err)
{
	struct buf path = BUF_INIT;
	int ret = -1;

	if (n < 1 || n > 256) {
		buf_addf(err, "bad [web] threads %d: want 1 to 256", n);
		return -1;
	}
	web_export_path(&path);
	pool.dbs = xcalloc(n, sizeof(*pool.dbs));
	for (pool.n = 0; pool.n < n; pool.n++)
		if (open_one(&pool.dbs[pool.n], path.ptr, err))
			goto out;
	ret = 0;
out:
	if (ret)
		http_db_close();
	buf_release(&path);
	return ret;
}

void http_db_close(void)
{
	for (int i = 0; i < pool.n; i++)
		db_close(&pool.dbs[i]);
	free(pool.dbs);
	pool.dbs = NULL;
	pool.n = pool.used = 0;
}

struct db *http_db_get(void)
{
	if (my_slot < 0) {
		pthread_mutex_lock(&pool.lock);
		if (pool.used < pool.n)
			my_slot = pool.used++;
		pthread_mutex_unlock(&pool.lock);
		if (my_slot < 0) {
			log_error("http: no database connection left for this thread");
			return NULL;
		}
	}
	if (privsep_sync())
		log_warn("http: the dashboard's database may be behind for this request");
	return &pool.dbs[my_slot];
}
