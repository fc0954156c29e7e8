/*
 * mirror: what the tracker takes of the triage mirror (mirror.c).  The
 * start-up check, mirror_check(), is public in tracker.h.
 */
#ifndef BB_MIRROR_H
#define BB_MIRROR_H

#include <stdbool.h>
#include "buf.h"
#include "db.h"

/* [triage] mirror has "keywords". */
bool mirror_wants_keywords(void);
/* The bugbridge-* keywords the tracker lacks (or its refusal), or NULL; caller frees. */
char *mirror_keywords_missing(struct db *db);
/* Remember why keywords are left out (NULL: they are all there again). */
int mirror_note_missing(struct db *db, const char *why);
/*
 * An update's JSON body without its "keywords" member, into rest ("" when
 * nothing else is left).  true when it had keywords.
 */
bool mirror_strip_keywords(const char *payload, struct buf *rest);

#endif
