/*
 * outbox: the durable queue of everything we write to the outside world.
 *
 * A row is added in the SAME transaction as the fact that causes it (a
 * verdict, a triage change, a digest), so a crash can never lose a write or
 * invent one.  The marker is the idempotency key: unique in the table, and
 * carried inside the written text ("bugbridge-result: job 42") so that after
 * a crash the poster can find out from the tracker whether a write already
 * landed, and skip it.
 *
 * kinds and payloads:
 *   comment  payload = the comment text (plain text, <= 65535 chars, must
 *            contain the marker)
 *   update   payload = JSON object for PUT /rest/bug/{id} (no api_key; the
 *            poster adds credentials)
 *   mail     payload = the whole RFC 5322 message (sent by the digest module)
 */
#ifndef BB_OUTBOX_H
#define BB_OUTBOX_H

#include "db.h"

/*
 * Queue a write.  Returns 0 if queued or if a row with that marker already
 * exists (idempotent), -1 on database error.  Call inside the caller's
 * transaction.
 */
int outbox_add(struct db *db, const char *kind, sqlite3_int64 bug_id,
	       sqlite3_int64 job_id, const char *marker, const char *payload);

#endif
