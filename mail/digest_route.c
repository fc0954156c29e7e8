/*
 * digest_route: who gets a digest, covering what, and when.
 *
 * [smtp] to names lists that hear about every watched bug; [smtp] lists
 * maps components to lists ("SCSI=linux-scsi@vger.kernel.org").  A list
 * named in both hears about everything, once.  Each list gets its own
 * digest, recorded under its own (list, period), so lists never wait for
 * each other and a failure on one never resends another.
 *
 * With [smtp] use_maintainers, the lists MAINTAINERS gives for the files a
 * bug's patches touch (and its traces name) also hear about that bug.
 * Triage works those out (server/owners.c) and keeps them in bug_owners;
 * we only read them.
 */
#include "mail.h"
#include "xalloc.h"
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct digest_route *route_find(struct digest_routes *r, const char *list)
{
	for (int i = 0; i < r->n; i++)
		if (!strcasecmp(r->v[i].list, list))
			return &r->v[i];
	return NULL;
}

static struct digest_route *route_add(struct digest_routes *r, const char *list)
{
	struct digest_route *route = route_find(r, list);

	if (route)
		return route;
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	route = &r->v[r->n++];
	memset(route, 0, sizeof(*route));
	route->list = xstrdup(list);
	return route;
}

static void route_add_component(struct digest_route *route, const char *component)
{
	route->components = xrealloc(route->components,
				    (route->ncomponents + 1) * sizeof(char *));
	route->components[route->ncomponents++] = xstrdup(component);
}

/* The subject's name: "SCSI, Block" for component lists, else "linux-scsi". */
static void route_name(struct digest_route *route)
{
	struct buf name = BUF_INIT;

	if (route->all || !route->ncomponents) {
		buf_add(&name, route->list, strcspn(route->list, "@"));
	} else {
		for (int i = 0; i < route->ncomponents; i++) {
			const char *c = strrchr(route->components[i], ':');

			buf_addf(&name, "%s%s", i ? ", " : "", c ? c + 1 : route->components[i]);
		}
	}
	route->name = buf_detach(&name, NULL);
}

DB_SQL(sql_route_owner_lists,
       "SELECT DISTINCT address FROM public_bug_owners WHERE kind = 'list' ORDER BY address");
DB_SQL(sql_route_owner_bugs,
       "SELECT bug_id FROM public_bug_owners WHERE kind = 'list' AND address = ? ORDER BY bug_id");

static int route_load_bugs(struct digest_route *route, struct db *db)
{
	sqlite3_stmt *st = db_stmt(db, sql_route_owner_bugs);
	int rc, alloc = 0;

	if (!st)
		return -1;
	db_bind_text(st, 1, route->list);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (route->nbugs == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			route->bugs = xrealloc(route->bugs, alloc * sizeof(*route->bugs));
		}
		route->bugs[route->nbugs++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int routes_from_owners(struct digest_routes *r, struct db *db, struct buf *err)
{
	sqlite3_stmt *st = db_stmt(db, sql_route_owner_lists);
	int rc;

	if (!st) {
		buf_addf(err, "cannot read bug_owners: %s", db_errmsg(db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *list = db_col_text(st, 0);

		if (strchr(list, '@'))
			route_add(r, list);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		buf_addf(err, "cannot read bug_owners: %s", db_errmsg(db));
		return -1;
	}
	for (int i = 0; i < r->n; i++) {
		if (route_load_bugs(&r->v[i], db)) {
			buf_addf(err, "cannot read bug_owners: %s", db_errmsg(db));
			return -1;
		}
	}
	return 0;
}

int digest_routes_load(struct digest_routes *r, struct db *db, struct buf *err)
{
	char **to, **lists;
	int nto, nlists, ret = -1;

	to = config_split_list(cfg_str("smtp.to"), &nto);
	lists = config_split_list(cfg_str("smtp.lists"), &nlists);
	for (int i = 0; i < nto; i++)
		route_add(r, to[i])->all = true;
	for (int i = 0; i < nlists; i++) {
		char *eq = strrchr(lists[i], '=');
		char *addr = eq ? eq + 1 : NULL;

		while (addr && *addr == ' ')
			addr++;
		if (!eq || eq == lists[i] || !addr || !*addr || !strchr(addr, '@')) {
			buf_addf(err, "[smtp] lists: '%s' is not COMPONENT=address", lists[i]);
			goto out;
		}
		*eq = '\0';
		while (eq > lists[i] && eq[-1] == ' ')
			*--eq = '\0';
		route_add_component(route_add(r, addr), lists[i]);
	}
	if (cfg_bool("smtp.use_maintainers") && routes_from_owners(r, db, err))
		goto out;
	for (int i = 0; i < r->n; i++)
		route_name(&r->v[i]);
	ret = 0;
out:
	config_list_free(to);
	config_list_free(lists);
	return ret;
}

void digest_routes_release(struct digest_routes *r)
{
	for (int i = 0; i < r->n; i++) {
		for (int j = 0; j < r->v[i].ncomponents; j++)
			free(r->v[i].components[j]);
		free(r->v[i].components);
		free(r->v[i].bugs);
		free(r->v[i].list);
		free(r->v[i].name);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int cmp_id(const void *a, const void *b)
{
	sqlite3_int64 x = *(const sqlite3_int64 *)a, y = *(const sqlite3_int64 *)b;

	return x < y ? -1 : x > y;
}

bool digest_route_covers(const struct digest_route *r, sqlite3_int64 bug,
			 const char *product, const char *component)
{
	size_t plen = strlen(product);

	if (r->all)
		return true;
	if (r->nbugs && bsearch(&bug, r->bugs, r->nbugs, sizeof(*r->bugs), cmp_id))
		return true;
	for (int i = 0; i < r->ncomponents; i++) {
		const char *c = r->components[i];

		if (!strcmp(c, component))
			return true;
		if (!strncmp(c, product, plen) && c[plen] == ':' && !strcmp(c + plen + 1, component))
			return true;
	}
	return false;
}

long digest_period_seconds(const char *every)
{
	return strcmp(every, "weekly") ? 86400L : 7 * 86400L;
}

/*
 * Shifting t back by the hour makes the period boundaries fall at that
 * hour: the daily period "2026-12-03" runs from 08:00 that day to 08:00 the
 * next, and ISO week 49 from Monday 08:00.
 */
void digest_period(struct buf *out, time_t t, const char *every, int hour)
{
	time_t shifted = t - (time_t)hour * 3600;
	struct tm tm;
	char label[32];

	gmtime_r(&shifted, &tm);
	if (!strcmp(every, "weekly"))
		strftime(label, sizeof(label), "%G-W%V", &tm);
	else
		strftime(label, sizeof(label), "%Y-%m-%d", &tm);
	buf_addstr(out, label);
}

time_t digest_next_period(time_t t, const char *every, int hour)
{
	time_t shifted = t - (time_t)hour * 3600;
	time_t day = shifted - shifted % 86400;	/* midnight of the shifted day */
	struct tm tm;

	if (strcmp(every, "weekly"))
		return day + 86400 + (time_t)hour * 3600;
	gmtime_r(&shifted, &tm);
	/* the next Monday: ISO weeks start on Monday */
	return day + (7 - (tm.tm_wday + 6) % 7) * 86400L + (time_t)hour * 3600;
}

void digest_iso_time(struct buf *out, time_t t)
{
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_addstr(out, s);
}

time_t digest_parse_time(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}
