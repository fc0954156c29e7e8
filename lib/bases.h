/*
 * bases: which kernel a job is built on.
 *
 * A base is a Debian linux-source package at a version, named as apt
 * names it:
 *
 *   linux-source-6.12             a kept series: the package installed on
 *                                 this host, its tarball [runner]
 *                                 kernel_source (/usr/src/linux-source-6.12.tar.xz)
 *   linux-source-6.1=6.1.170-3    a release from the archive, which the
 *                                 runner fetches on demand (runner/fetch.c)
 *
 * [runner] bases lists the series to keep ("6.1, 6.12"); those whose
 * tarball is installed are kept, in that order, and the first is the
 * default of a job whose bug names no version.  The archive's releases of
 * a series are what `apt-cache madison linux-source-X` lists.
 *
 * Short forms, as `bugbridge job add --base` takes them: "6.12" (the kept
 * series), "6.1.170" (the latest Debian revision of that release),
 * "6.1.170-3" (exactly that one).
 */
#ifndef BB_BASES_H
#define BB_BASES_H

#include <stdbool.h>
#include "buf.h"

#define BASE_PKG "linux-source-"

/* A kernel version as numbers: 6.12.118 -> {6, 12, 118}; patch -1: none given. */
struct kver {
	int major, minor, patch;
};

/*
 * Pure: the first kernel version in text ("6.12.3-rc1", "Linux 6.1.0-18-amd64",
 * "v6.6", "2.6.24-rc2-409-g9418d5d"): majors 2 to 9, not a run of four
 * numbers (an address).  need_context: only one that follows "Linux ",
 * "kernel " or "v" (free text, where "QEMU 7.2" is no kernel).
 */
bool kver_find(const char *text, bool need_context, struct kver *v);
/* Pure: a < b: -1, 0, 1 (a missing patch counts as 0). */
int kver_cmp(const struct kver *a, const struct kver *b);

/* A parsed base name. */
struct base {
	char series[16];	/* "6.1" */
	char version[64];	/* "" for the kept series, else "6.1.170-3" */
	struct kver kv;		/* the series, or the release's upstream version */
};

/* Pure: parse a canonical name (linux-source-6.1, linux-source-6.1=6.1.170-3). */
int base_parse(const char *name, struct base *b);
/* Pure: the canonical name of b into out (replacing it). */
void base_name(const struct base *b, struct buf *out);
/* Is this base a release of the archive (not a kept series)? */
static inline bool base_is_release(const struct base *b) { return b->version[0] != '\0'; }

/*
 * The kept series' canonical names ([runner] bases whose tarball is
 * installed), in the configured order; *n how many.  Free with
 * bases_free.  An entry that is not a series is logged and skipped.
 */
char **bases_kept(int *n);
void bases_free(char **v, int n);
/* The default base: [runner] base, else the first kept series, else linux-source-6.1. */
const struct buf *bases_default(struct buf *out);
/* The tarball of the default base's series (MAINTAINERS comes from it). */
const struct buf *bases_default_tarball(struct buf *out);
/* The tarball of a kept series ([runner] kernel_source, "{series}" replaced). */
void base_tarball(const char *series, struct buf *out);

/* The archive's releases of a series, oldest first: one per upstream version. */
struct release {
	char version[64];	/* Debian version: "6.1.170-3" */
	struct kver kv;
};
/*
 * Pure: `apt-cache madison` output for one package into releases, oldest
 * first: every Debian revision (all), else the latest of each upstream
 * version.  Returns the count (*n too).
 */
int releases_parse(const char *madison, const char *package, bool all, struct release **out,
		   int *n);
/* Run apt-cache madison for the series ("6.1"); -1 with why in err (none listed too). */
int releases_list(const char *series, bool all, struct release **out, int *n, struct buf *err);

/*
 * `job add --base`'s argument as a canonical name: a series (6.12 or
 * linux-source-6.12), a release (6.1.170: its latest revision in the
 * archive; 6.1.170-3: that one).  -1 with why in err.
 */
int base_resolve(const char *arg, struct buf *out, struct buf *err);

/*
 * Pure: the base for a bug, from what it says, among kept series (canonical
 * names): the tracker's cf_kernel_version, else its version field, else a
 * kernel version in its description; the nearest kept series (by minor
 * number, a tie to the newer; an exact series wins).  Without any version,
 * def.  *base and *reason (one line for the job page) are replaced.
 */
void base_choose(const char *cf_kernel_version, const char *version, const char *description,
		 char *const *kept, int nkept, const char *def, struct buf *base,
		 struct buf *reason);

#endif
