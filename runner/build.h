/*
 * build: make bzImage in a variant's tree, the first compiler errors of a
 * failed build, the version the built kernel will print, and the guest
 * test suite (kernel-patches/suite) built once per content hash.
 */
#ifndef BB_BUILD_H
#define BB_BUILD_H

#include <stdbool.h>
#include "buf.h"
#include "fault.h"
#include "run.h"

/*
 * make bzImage.  FAULT_NONE: built.  FAULT_PATCH: the tree does not build
 * (the first errors in *why) or a patched build took too long; for the
 * unpatched base the caller makes that ours.  FAULT_INFRA: r->infra says
 * why (make did not run, a full disk, a base build that took too long).
 */
enum fault build_kernel(struct run *r, struct variant *v, struct buf *why);
/* Pure: the first compiler error lines of a build log. */
void build_first_errors(const char *log, struct buf *out, int max_lines);
/* UTS_VERSION of the kernel last linked in v->out ("#2 bugbridge"); -1: none. */
int build_uts_version(const struct variant *v, struct buf *out);
/*
 * Pure: false when the console's "Linux version" banner does not end with
 * uts_version (the guest booted another kernel than the one built), the
 * banner's version in *booted; true when it does or there is no banner.
 */
bool banner_is_built(const char *console, const char *uts_version, struct buf *booted);
/*
 * The compiler the kernel is built with, as `gcc --version`'s first line
 * ("gcc (Debian 12.2.0-14+deb12u1) 12.2.0"), or "(unknown)": part of the
 * seed key, so an upgraded compiler finds no seed built by the old one.
 */
void build_compiler_id(struct buf *out);
/* Build kernel-patches/suite once per content hash; r->suite_bin. */
int build_suite(struct run *r);

#endif
