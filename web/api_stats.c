/*
 * api_stats: /api/stats (the numbers behind /stats) and /api/digests.
 */
#include "api.h"
#include "log.h"
#include "page.h"

DB_SQL(sql_api_digests,
       "SELECT d.id, d.list, d.period, d.subject, d.message_id, d.created_at,"
       " ifnull(o.state, 'unsent') AS state, o.sent_at, d.body"
       " FROM digests d LEFT JOIN outbox o ON o.id = d.outbox_id"
       " ORDER BY d.id DESC LIMIT ?");

int api_stats(struct http_request *req, struct http_response *resp)
{
	struct json_object *o, *months, *closers, *verdicts;
	struct stats s;

	if (stats_load(req->db, &s))
		return -1;
	months = json_object_new_array();
	for (int i = 0; i < s.nmonths; i++) {
		struct json_object *m = json_object_new_object();

		json_object_object_add(m, "month", json_object_new_string(s.months[i].month));
		json_object_object_add(m, "opened", json_object_new_int(s.months[i].opened));
		json_object_object_add(m, "closed", json_object_new_int(s.months[i].closed));
		json_object_array_add(months, m);
	}
	closers = json_object_new_array();
	for (int i = 0; i < s.ncloser; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "year", json_object_new_string(s.closers[i].year));
		json_object_object_add(c, "closed_by", json_object_new_string(s.closers[i].who));
		json_object_object_add(c, "count", json_object_new_int(s.closers[i].count));
		json_object_array_add(closers, c);
	}
	verdicts = json_object_new_object();
	for (int i = 0; i < s.nverdicts; i++)
		json_object_object_add(verdicts, s.verdicts[i].name,
				       json_object_new_int(s.verdicts[i].count));
	o = json_object_new_object();
	json_object_object_add(o, "months", months);
	json_object_object_add(o, "top_closers", closers);
	json_object_object_add(o, "verdicts", verdicts);
	json_object_object_add(o, "median_seconds_to_post", s.median_to_post >= 0 ?
			       json_object_new_int64(s.median_to_post) : NULL);
	json_object_object_add(o, "candidates_posted", json_object_new_int(s.nposted));
	stats_release(&s);
	return api_send(resp, 200, o);
}

int api_digests(struct http_request *req, struct http_response *resp)
{
	sqlite3_stmt *st = db_stmt(req->db, sql_api_digests);
	struct json_object *o, *rows;
	long limit;

	if (!st)
		return -1;
	if (api_limit(req, resp, "limit", 20, 200, &limit))
		return 0;
	sqlite3_bind_int64(st, 1, limit);
	rows = api_rows(req->db, st);
	if (!rows)
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "digests", rows);
	return api_send(resp, 200, o);
}
