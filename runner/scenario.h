/*
 * scenario (pure but for the images): kernel-patches/suite/scenarios, the
 * boots the suite needs (grammar at the top of that file): each one's
 * disk images, QEMU arguments, kernel command line and tests.
 */
#ifndef BB_SCENARIO_H
#define BB_SCENARIO_H

#include <stdbool.h>
#include "buf.h"

struct scenario_image {
	char *name;
	long long size;
	bool lba_pattern;		/* else zero-filled */
};
struct scenario_boot {
	char *name;
	int timeout;			/* seconds; 0: [runner] boot_timeout */
	struct scenario_image *images;
	int nimages;
	char **qemu;			/* argv elements, "@NAME@" unresolved */
	int nqemu;
	char **cmdline;
	int ncmdline;
	char **tests;
	int ntests;
	bool *emulated;			/* per test: needs QEMU's devices or faults */
	char *controller;		/* a controller's boot (controllers.c), or NULL */
	bool controller_default;	/* one of the default set */
	char *config;			/* configs/CONFIG.config while it runs, or NULL */
	char **selects;			/* a patch to a file under one of these picks it */
	int nselects;
};
struct scenario {
	struct scenario_boot *boots;
	int nboots;
};
int scenario_load(const char *path, struct scenario *sc, struct buf *err);
/* Pure: parse text; -1 with "line N: why" in err. */
int scenario_parse(const char *text, struct scenario *sc, struct buf *err);
void scenario_release(struct scenario *sc);
/* Keep the boots with keep[i] set, in order, and free the others. */
void scenario_keep(struct scenario *sc, const bool *keep);
/* The boot that lists test `name` (or a test starting with "name-"), or NULL. */
const struct scenario_boot *scenario_boot_for(const struct scenario *sc, const char *name);
/* Fresh images for a boot under dir (dir/NAME.img). */
int scenario_make_images(const struct scenario_boot *b, const char *dir, struct buf *err);
/* The kernel command line of a boot (only: bbsuite.only=NAME, or NULL). */
void scenario_append(const struct scenario_boot *b, const char *only, struct buf *out);
/* arg with each "@NAME@" replaced by dir/NAME.img. */
void scenario_subst(const struct scenario_boot *b, const char *arg, const char *dir,
		    struct buf *out);

#endif
