/*
 * kconfig: a variant's .config (tinyconfig + the fragments + olddefconfig)
 * and the check that every option the fragments ask for stuck.
 */
#ifndef BB_KCONFIG_H
#define BB_KCONFIG_H

#include "buf.h"
#include "run.h"

/*
 * tinyconfig + fragments + olddefconfig, then the check that every option
 * the fragments ask for is set.  -1 with r->infra saying why: options that
 * did not stick are our fault (stage_blame, FAULT_OURS), the rest the
 * infrastructure's.
 */
int kconfig_configure(struct run *r, struct variant *v);
/* Only the check, on a seeded out/.config (no Kconfig file changed). */
int kconfig_check(struct run *r, struct variant *v);
/*
 * Configure in v->out (made if missing) and read the .config back, without
 * the check: kplan.c's probe of a grown config, or of the standard one.
 * dropped: the configs/ options that did not stick.  0, or -1 (r->infra,
 * or v's verdict when the patched tree made the .config unreadable).
 */
int kconfig_probe(struct run *r, struct variant *v, struct buf *config, struct buf *dropped);
/* Pure: options in fragment text that config text does not have; names in *missing. */
int kconf_missing(const char *fragment, const char *config, struct buf *missing);

#endif
