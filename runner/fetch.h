/*
 * fetch: where a job's base comes from, and the cache of releases.
 *
 * A kept series' tarball is installed on this host (lib/bases.h); a
 * release of the archive (linux-source-6.1=6.1.170-3) is fetched on
 * demand: `apt-get download` into [runner] deb_dir (never the host's
 * /usr/src), the tarball taken out of the package with dpkg-deb, then
 * extracted like the installed one (tree.c).  Releases are a cache:
 * their trees, packages and seeds may take [runner] release_cache_mb, and
 * past that the least recently used release goes, never one a job holds.
 *
 *   <cache>/base/<name>.used   its mtime: the last job that used the base
 *   <cache>/base/<name>.lock   a shared flock while a job uses it
 */
#ifndef BB_FETCH_H
#define BB_FETCH_H

#include <stdbool.h>
#include "buf.h"
#include "run.h"

/*
 * Is r->job->base a base this runner builds (a canonical name; a series
 * it keeps, or any release)?  -1 with the reason in r->infra.
 */
int fetch_check(struct run *r);
/*
 * The tarball r->job->base is extracted from, into *tarball: a kept
 * series' installed one, or a release's, fetched now and taken out of its
 * package into tmp (a directory the caller removes).  -1 with r->infra.
 */
int fetch_source(struct run *r, const char *tmp, struct buf *tarball);
/* Hold the base for this run (a shared lock, dropped with the fd) and stamp its use. */
int fetch_hold(struct run *r, const char *basedir);
void fetch_release_hold(struct run *r);
/* Drop the least recently used releases until they fit release_cache_mb (logged). */
void fetch_evict(struct run *r, const char *basedir);
/*
 * bugbridge-runner --fetch: base (a canonical name) fetched and extracted
 * now, releases evicted past the bound; what the cache holds printed.  0 or -1.
 */
int fetch_only(struct db *db, const char *base, const volatile sig_atomic_t *stop);
/* Bytes a release takes: its tree, its package, its seeds (for fetch_evict and tests). */
long long fetch_release_bytes(struct run *r, const char *basedir, const char *name);

#endif
