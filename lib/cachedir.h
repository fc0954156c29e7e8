/*
 * cachedir: where bugbridge keeps what it can make again (the runner's
 * extracted baseline, trees, seed builds and ccache; the MAINTAINERS file
 * triage extracts from the kernel tarball).  One rule for every folder.
 */
#ifndef BB_CACHEDIR_H
#define BB_CACHEDIR_H

#include "buf.h"

/*
 * [runner] cache_dir, else $XDG_CACHE_HOME/bugbridge, else
 * $HOME/.cache/bugbridge (the variables count only when they hold an
 * absolute path).  Replaces out's contents.  Returns -1 (error logged) when
 * none of them is set.  Does not create the directory.
 */
int cache_dir(struct buf *out);

#endif
