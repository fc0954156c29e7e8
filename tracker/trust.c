/*
 * trust: [triage] test_from, and the group look-ups it needs.  See trust.h.
 */
#include "trust.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* names per GET /rest/user: the URL stays far below 8 KiB */
#define TRUST_NAMES_PER_LOOKUP 40

void trust_init(struct trust *t)
{
	char **items;
	int n = 0;

	memset(t, 0, sizeof(*t));
	items = config_split_list(cfg_str("triage.test_from"), &n);
	t->listed = xcalloc(n + 1, sizeof(*t->listed));
	for (int i = 0; i < n; i++) {
		if (!strcasecmp(items[i], "anyone"))
			t->anyone = true;
		else if (!strcasecmp(items[i], "editbugs"))
			t->editbugs = true;
		else if (*items[i])
			t->listed[t->nlisted++] = xstrdup(items[i]);
	}
	/* an empty setting is the default, not "nobody" */
	if (!n)
		t->anyone = true;
	config_list_free(items);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void trust_release(struct trust *t)
{
	free_list(t->listed, (size_t)t->nlisted);
	free_list(t->members, t->nmembers);
	free_list(t->asked, t->nasked);
	memset(t, 0, sizeof(*t));
}

static bool in(char *const *v, size_t n, const char *login)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(v[i], login))
			return true;
	return false;
}

bool trust_allows(const struct trust *t, const char *login)
{
	if (t->anyone)
		return true;
	if (!login || !*login)
		return false;
	return in(t->listed, (size_t)t->nlisted, login) || in(t->members, t->nmembers, login);
}

bool trust_needs_lookup(const struct trust *t, const char *login)
{
	return !t->anyone && t->editbugs && login && *login &&
	       !in(t->listed, (size_t)t->nlisted, login) && !in(t->asked, t->nasked, login);
}

static bool has_group(const char *groups, const char *group)
{
	size_t n = strlen(group);

	for (const char *p = groups; p && *p;) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, group, n))
			return true;
		p = end ? end + 2 : NULL;
	}
	return false;
}

/* One request for up to TRUST_NAMES_PER_LOOKUP names. */
static int ask(struct trust *t, struct bz *bz, const char *const *names, size_t n)
{
	struct bz_user_list users = { 0 };

	if (bz_users(bz, names, n, &users)) {
		if (bz->err == BZ_ERR_TRANSPORT || bz->err == BZ_ERR_SERVER ||
		    bz->err == BZ_ERR_LOGIN || bz->err == BZ_ERR_MALFORMED)
			return -1;
		log_warn("poll: cannot read the groups of %zu accounts (%s): their patches"
			 " wait for 'bugbridge: test N'", n, bz->errmsg.ptr);
		return 0;
	}
	for (size_t i = 0; i < users.n; i++) {
		if (!users.v[i].groups)
			log_info("poll: the tracker does not show us the groups of %s: its patches"
				 " wait for 'bugbridge: test N'", users.v[i].name);
		else if (has_group(users.v[i].groups, "editbugs")) {
			XGROW(t->members, t->nmembers + 1, t->alloc);
			t->members[t->nmembers++] = xstrdup(users.v[i].name);
		}
	}
	bz_user_list_release(&users);
	return 0;
}

int trust_lookup(struct trust *t, struct bz *bz, char **logins, size_t n)
{
	const char *batch[TRUST_NAMES_PER_LOOKUP];
	size_t nb = 0;

	for (size_t i = 0; i < n; i++) {
		if (!trust_needs_lookup(t, logins[i]))
			continue;
		XGROW(t->asked, t->nasked + 1, t->alloc_asked);
		t->asked[t->nasked++] = xstrdup(logins[i]);
		batch[nb++] = logins[i];
		if (nb == TRUST_NAMES_PER_LOOKUP) {
			if (ask(t, bz, batch, nb))
				return -1;
			nb = 0;
		}
	}
	return nb ? ask(t, bz, batch, nb) : 0;
}
