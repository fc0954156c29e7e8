/*
 * lava: a guest boot as a LAVA job ([runner] backend = lava), qemu_boot's
 * twin.  lava.c submits, follows and reads it back; lavaart.c publishes the
 * files it boots for the LAVA worker.  Its definition and what its log
 * means are pure (lavadef.h).
 */
#ifndef BB_LAVA_H
#define BB_LAVA_H

#include <stdbool.h>
#include "buf.h"
#include "qemu.h"
#include "run.h"

/* ---- lavaart.c ---- */
struct lava_art {
	char token[65];			/* names the directory and its URL */
	struct buf dir;			/* the published files */
	bool row;			/* an artifacts row to withdraw */
};
/* Publish the boot's files; url: where the worker fetches them. */
int lava_art_publish(struct run *r, const struct variant *v, const struct boot *b,
		     long long lava_row, struct lava_art *a, struct buf *url);
void lava_art_withdraw(struct run *r, struct lava_art *a);

/* ---- lava.c ---- */
/* [runner] backend = lava */
bool lava_enabled(void);
/*
 * qemu_boot's twin: the boot as a LAVA job (submitted, followed, its log
 * read back).  Same results in *b and *console; -1 with r->infra when the
 * lab failed us (never the patch's fault).  v names the lava_jobs row.
 */
int lava_boot(struct run *r, struct variant *v, struct boot *b, struct buf *console);

#endif
