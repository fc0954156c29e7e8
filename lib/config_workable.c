/*
 * config_workable: the configurations bugbridged or bugbridge-runner cannot
 * work with, though every key in them is well-formed.  See config.h.
 *
 * Only what the file says is judged here (no network, no probe): a LAVA
 * backend whose workers would get relative URLs for the kernel, a LAVA lab
 * or a tracker without a URL a client can use, a secret file that cannot
 * be read.  Such a configuration fails every job or every poll, each
 * quickly and alike; refused at start, it is one line to read instead.
 * `bugbridge config check` prints the same lines.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* scheme://host...: what a client elsewhere can fetch (file:// only on the same host). */
static bool absolute_url(const char *url, const char *const *schemes)
{
	if (!url)
		return false;
	for (; *schemes; schemes++) {
		size_t n = strlen(*schemes);

		if (!strncasecmp(url, *schemes, n) && !strncmp(url + n, "://", 3))
			return url[n + 3] && (url[n + 3] != '/' || !strcmp(*schemes, "file"));
	}
	return false;
}

static const char *const web_schemes[] = { "http", "https", NULL };
static const char *const art_schemes[] = { "http", "https", "file", NULL };
static const char *const mail_schemes[] = { "smtp", "smtps", NULL };

bool config_absolute_url(const char *url, bool file_ok)
{
	return absolute_url(url, file_ok ? art_schemes : web_schemes);
}

__attribute__((format(printf, 3, 4)))
static void problem(struct buf *why, int *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(why, fmt, ap);
	va_end(ap);
	buf_addch(why, '\n');
	(*n)++;
}

/* A secret that is set (as itself or a file) and readable; "" allowed if !required. */
static void secret(const struct config *c, const char *key, bool required, struct buf *why,
		   int *n)
{
	struct buf value = BUF_INIT, err = BUF_INIT;

	if (config_secret(c, key, &value, &err))
		problem(why, n, "%s", err.ptr);
	else if (required && !value.len)
		problem(why, n, "[runner] backend = lava, but neither [lava] token nor"
			" token_file is set: the lab takes no job without it");
	if (value.alloc)
		memset(value.ptr, 0, value.len);
	buf_release(&value);
	buf_release(&err);
}

static void lava_shared(const struct config *c, struct buf *why, int *n)
{
	const char *art_url = config_get(c, "lava.artifacts_url");
	const char *base = config_get(c, "web.base_url");

	if (*config_get(c, "lava.artifacts_dir") && !*art_url)
		problem(why, n, "[lava] artifacts_dir is set but artifacts_url is not: the"
			" files would be put where nothing serves them");
	else if (!*art_url && !*base)
		problem(why, n, "[runner] backend = lava, but neither [lava] artifacts_url nor"
			" [web] base_url is set: LAVA workers would be given relative URLs"
			" (/artifacts/...) for the kernel");
	else if (*art_url && !absolute_url(art_url, art_schemes))
		problem(why, n, "[lava] artifacts_url '%s' is not an absolute URL (http://,"
			" https:// or file://): LAVA workers fetch the kernel from it", art_url);
	else if (!*art_url && !absolute_url(base, web_schemes))
		problem(why, n, "[web] base_url '%s' is not an absolute http(s) URL: LAVA"
			" workers fetch the kernel from it", base);
}

static void lava_runner(const struct config *c, struct buf *why, int *n)
{
	const char *url = config_get(c, "lava.url");

	if (!*url)
		problem(why, n, "[runner] backend = lava, but [lava] url is not set");
	else if (!absolute_url(url, web_schemes))
		problem(why, n, "[lava] url '%s' is not an absolute http(s) URL", url);
	secret(c, "lava.token", true, why, n);
}

static void daemon_keys(const struct config *c, struct buf *why, int *n)
{
	const char *url = config_get(c, "tracker.url"), *smtp = config_get(c, "smtp.url");

	if (!absolute_url(url, web_schemes))
		problem(why, n, "[tracker] url '%s' is not an absolute http(s) URL", url);
	secret(c, "tracker.api_key", false, why, n);
	if (strcmp(config_get(c, "digest.every"), "never")) {
		if (!absolute_url(smtp, mail_schemes))
			problem(why, n, "[smtp] url '%s' is neither smtp:// nor smtps://", smtp);
		if (*config_get(c, "smtp.user"))
			secret(c, "smtp.password", false, why, n);
	}
}

int config_unworkable(const struct config *c, unsigned who, struct buf *why)
{
	bool lava = !strcmp(config_get(c, "runner.backend"), "lava");
	int n = 0;

	if (lava && (who & (CONFIG_DAEMON | CONFIG_RUNNER)))
		lava_shared(c, why, &n);
	if (lava && (who & CONFIG_RUNNER))
		lava_runner(c, why, &n);
	if (who & CONFIG_DAEMON)
		daemon_keys(c, why, &n);
	return n;
}
