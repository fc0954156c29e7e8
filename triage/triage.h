/*
 * triage: what bugbridge concludes from finished jobs and tracker comments,
 * and what it writes back.  This is the folder's public face: bugbridged
 * calls triage_run(), which drives the rest.  May use: lib/ only.  Each
 * part is one file, with its own header:
 *
 *   triage.c                finished jobs -> state, comment, mirror (one transaction)
 *   triage_state.[ch]       the per-bug state machine and its tracker mirror
 *   triage_comment.[ch]     the result comment text (+ triage_hunk.c,
 *                           comment_detail.c: an apply failure, a detail)
 *   duplicates.[ch]         equal failure signatures across open bugs
 *   owners.[ch]             patch files and trace files -> MAINTAINERS entries
 *   stale.[ch]              bugs nobody but the reporter and we answer
 *   bisect.[ch]             first bad patch of a series, by binary search
 *   triage_backtest.[ch]    a fix on every other kept series, one matrix comment
 *                           (the matrix: lib/backtest.[ch])
 *   releases.[ch]           the first release of a series that fails a test
 *   commands.h              "bugbridge: test 123" and its kin, each answered
 *                           (commands_parse.c, commands_run.c,
 *                           commands_in_comments.c)
 *
 * Every write to the tracker is an outbox row (outbox_add) whose marker is
 * also in the text, added in the same transaction as the fact behind it, so
 * that each is posted exactly once.  Markers:
 *   bugbridge-result: job <id>         result comment
 *   bugbridge-state: bug <b> <state> job <id>   mirror update (no text)
 *   bugbridge-dup: <bug> <other>       duplicate link, one per bug
 *   bugbridge-bisect: job <root>       bisection result
 *   bugbridge-backtest: job <fix>      back-test matrix of a fix
 *   bugbridge-releases: job <root>     release bisection result
 *   bugbridge-cmd: comment <id>        the answer to the commands in a comment
 *   bugbridge-refused: bug <b> <who>   refusal of an account's commands, once per bug
 *   bugbridge-ack: job <id>            acknowledgement (off by default)
 *   bugbridge-cc: bug <b> <hash>       Cc of maintainers (update), per set of people
 */
#ifndef BB_TRIAGE_H
#define BB_TRIAGE_H

#include <signal.h>
#include "db.h"

/*
 * finished jobs -> triage state, outbox rows (one transaction per job);
 * also commands in comments, acknowledgements, stale flags and owners.
 * 0 when the step ran, -1 when it failed (logged, retried next cycle).
 */
int triage_run(struct db *db, const volatile sig_atomic_t *stop);

#endif
