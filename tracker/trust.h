/*
 * trust: whose patches are built as soon as they are seen ([triage]
 * test_from).  "anyone" (the default; the runner's sandbox is what holds a
 * hostile patch), "editbugs" (members of that tracker group, asked from
 * GET /rest/user), and/or a list of accounts.  Everyone else's candidates
 * are stored and wait for "bugbridge: test N" from an account in [triage]
 * allow_commands.
 *
 * Bugzilla shows another account's groups only to callers in editusers (or
 * who may bless the group); where it does not show them, the account does
 * not count as a member: the patch waits.  Nothing is cached across polls:
 * a new candidate is rare, and group membership can be taken away.
 */
#ifndef BB_TRUST_H
#define BB_TRUST_H

#include <stdbool.h>
#include "bugzilla.h"

struct trust {
	bool anyone;		/* test_from = anyone */
	bool editbugs;		/* members of editbugs count */
	char **listed;		/* accounts named in test_from */
	int nlisted;
	char **members;		/* asked this poll and in editbugs */
	size_t nmembers, alloc;
	char **asked;		/* asked this poll, member or not */
	size_t nasked, alloc_asked;
};

/* From [triage] test_from; release with trust_release(). */
void trust_init(struct trust *t);
void trust_release(struct trust *t);
/* Does login's patch run without asking? */
bool trust_allows(const struct trust *t, const char *login);
/* Would login need a group look-up (editbugs, not listed, not asked yet)? */
bool trust_needs_lookup(const struct trust *t, const char *login);
/*
 * Ask the tracker for the groups of these logins (those that need it), in
 * a few requests.  -1 with bz->err set when the tracker could not answer
 * (the poll then fails and is retried); a tracker that refuses to say
 * (an unknown account, no permission) is not an error: nobody is a member.
 */
int trust_lookup(struct trust *t, struct bz *bz, char **logins, size_t n);

#endif
