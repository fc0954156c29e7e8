/*
 * api_bugs: the bugs as JSON.
 *
 *   GET /api/bugs?component=SCSI&product=&status=open|closed|all&triage=&limit=&offset=
 *   GET /api/bugs/<id>         one bug with comments, candidates, jobs, posts
 *   GET /api/components        open bugs per component
 *
 * Lists are newest change first; "next_offset" is present when more rows
 * follow.  Private tracker comments are left out, as on the pages.
 */
#include "api.h"
#include "log.h"
#include "page.h"

#include <string.h>

#define BUG_COLUMNS \
	"b.id, b.product, b.component, b.status, b.resolution, b.is_open, b.summary," \
	" b.assigned_to, b.creation_time, b.last_change_time, b.closed_time, b.closed_by," \
	" b.triage_state, b.needs_attention, b.duplicate_of"
#define BUG_FIELDS BUG_COLUMNS "," \
	" (SELECT j.verdict FROM jobs j WHERE j.bug_id = b.id AND j.state = 'done'" \
	"   AND j.verdict IS NOT NULL ORDER BY j.finished_at DESC, j.id DESC LIMIT 1)" \
	" AS latest_verdict"

/*
 * Lists: the inner query picks the page, the outer one adds each row's
 * latest verdict, so the verdict subquery runs only for the rows returned.
 * With a component and "is_open = ?3" (status open or closed) the inner
 * query walks index bugs_component_open_change in order, without a sort;
 * hence one statement per shape.  ?1 component, ?2 product, ?3 is_open,
 * ?5 triage state (NULL: any), ?6 limit, ?7 offset.
 */
#define BUG_LIST(where) \
	"SELECT " BUG_FIELDS " FROM (SELECT " BUG_COLUMNS " FROM bugs b WHERE " where \
	" AND (?2 IS NULL OR b.product = ?2) AND (?5 IS NULL OR b.triage_state = ?5)" \
	" ORDER BY b.last_change_time DESC, b.id DESC LIMIT ?6 OFFSET ?7) b" \
	" ORDER BY b.last_change_time DESC, b.id DESC"

DB_SQL(sql_api_bugs_comp_status, BUG_LIST("b.component = ?1 AND b.is_open = ?3 AND ?4 IS NULL"));
DB_SQL(sql_api_bugs_comp_all, BUG_LIST("b.component = ?1 AND ?3 IS NULL AND ?4 IS NULL"));
DB_SQL(sql_api_bugs_status, BUG_LIST("?1 IS NULL AND b.is_open = ?3 AND ?4 IS NULL"));
DB_SQL(sql_api_bugs_all, BUG_LIST("?1 IS NULL AND ?3 IS NULL AND ?4 IS NULL"));
DB_SQL(sql_api_bug_one, "SELECT " BUG_FIELDS " FROM bugs b WHERE b.id = ?");
DB_SQL(sql_api_bug_comments,
       "SELECT id, count, author, time, is_ours, text FROM comments"
       " WHERE bug_id = ? AND NOT is_private ORDER BY count, id");
DB_SQL(sql_api_bug_candidates,
       "SELECT id, source, source_id, kind, name, sha256, patch_count, created_at"
       " FROM candidates WHERE bug_id = ? ORDER BY id");
DB_SQL(sql_api_bug_jobs,
       "SELECT id, candidate_id, kind, state, stage, verdict, change, verdict_detail,"
       " created_at, started_at, finished_at FROM jobs WHERE bug_id = ? ORDER BY id");
DB_SQL(sql_api_bug_posts,
       "SELECT id, kind, job_id, state, attempts, created_at, sent_at, remote_id,"
       " payload AS text FROM outbox WHERE bug_id = ? ORDER BY id");
DB_SQL(sql_api_bug_owners,
       "SELECT kind, address, entry FROM bug_owners WHERE bug_id = ? ORDER BY kind DESC, rank");
DB_SQL(sql_api_components,
       "SELECT component, product, count(*) AS open, sum(needs_attention) AS needs_attention"
       " FROM bugs WHERE is_open GROUP BY component, product ORDER BY component, product");

/* status=open (default) -> 1, closed -> 0, all -> -1; -2 if unknown. */
static int status_code(const char *status)
{
	if (!status || !strcmp(status, "open"))
		return 1;
	if (!strcmp(status, "closed"))
		return 0;
	if (!strcmp(status, "all"))
		return -1;
	return -2;
}

static const char *list_sql(const char *comp, int open)
{
	if (comp)
		return open >= 0 ? sql_api_bugs_comp_status : sql_api_bugs_comp_all;
	return open >= 0 ? sql_api_bugs_status : sql_api_bugs_all;
}

int api_bugs(struct http_request *req, struct http_response *resp)
{
	const char *comp = http_query(req, "component");
	struct json_object *o, *rows;
	sqlite3_stmt *st;
	long limit, offset = 0;
	int open = status_code(http_query(req, "status"));

	if (open == -2)
		return http_error(resp, 400, "bad status: want open, closed or all");
	if (api_limit(req, resp, "limit", 100, 1000, &limit))
		return 0;
	if (http_query(req, "offset") && strcmp(http_query(req, "offset"), "0") &&
	    api_limit(req, resp, "offset", 0, 10000000, &offset))
		return 0;
	st = db_stmt(req->db, list_sql(comp, open));
	if (!st)
		return -1;
	db_bind_text(st, 1, comp);
	db_bind_text(st, 2, http_query(req, "product"));
	if (open >= 0)
		sqlite3_bind_int(st, 3, open);
	db_bind_text(st, 5, http_query(req, "triage"));
	sqlite3_bind_int64(st, 6, limit + 1);
	sqlite3_bind_int64(st, 7, offset);
	rows = api_rows(req->db, st);
	if (!rows)
		return -1;
	o = json_object_new_object();
	if ((long)json_object_array_length(rows) > limit) {
		json_object_array_del_idx(rows, (size_t)limit, 1);
		json_object_object_add(o, "next_offset", json_object_new_int64(offset + limit));
	}
	json_object_object_add(o, "count", json_object_new_int64((int64_t)json_object_array_length(rows)));
	json_object_object_add(o, "bugs", rows);
	return api_send(resp, 200, o);
}

int api_bug(struct http_request *req, struct http_response *resp)
{
	sqlite3_stmt *st;
	struct json_object *o;
	sqlite3_int64 id;

	if (http_parse_id(req->rest, &id))
		return http_error(resp, 400, "bad bug id");
	st = db_stmt(req->db, sql_api_bug_one);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return http_error(resp, 404, "no bug %lld is known here", (long long)id);
	}
	o = api_row(st);
	sqlite3_reset(st);
	if (api_add_rows(req->db, o, "comments", sql_api_bug_comments, id) ||
	    api_add_rows(req->db, o, "candidates", sql_api_bug_candidates, id) ||
	    api_add_rows(req->db, o, "jobs", sql_api_bug_jobs, id) ||
	    api_add_rows(req->db, o, "posts", sql_api_bug_posts, id) ||
	    api_add_rows(req->db, o, "owners", sql_api_bug_owners, id)) {
		json_object_put(o);
		return -1;
	}
	return api_send(resp, 200, o);
}

int api_components(struct http_request *req, struct http_response *resp)
{
	sqlite3_stmt *st = db_stmt(req->db, sql_api_components);
	struct json_object *o, *rows;

	if (!st)
		return -1;
	rows = api_rows(req->db, st);
	if (!rows)
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "components", rows);
	return api_send(resp, 200, o);
}
