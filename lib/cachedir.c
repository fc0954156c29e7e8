/*
 * cachedir: the cache directory's one rule.  See cachedir.h.
 */
#include "cachedir.h"
#include "config.h"
#include "log.h"

#include <stdlib.h>

int cache_dir(struct buf *out)
{
	const char *dir = cfg_str("runner.cache_dir"), *env;

	buf_reset(out);
	if (*dir)
		buf_addstr(out, dir);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env == '/')
		buf_addf(out, "%s/bugbridge", env);
	else if ((env = getenv("HOME")) && *env == '/')
		buf_addf(out, "%s/.cache/bugbridge", env);
	else
		return error("no cache dir: no [runner] cache_dir, and no HOME");
	return 0;
}
