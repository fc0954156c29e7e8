/*
 * redact: keep secrets out of logs, stored errors and pages.
 *
 * Every URL, and every message that may quote one (libcurl errors, our own
 * "GET <url>: ..." lines), goes through redact_url() before it is logged or
 * stored.  It replaces the values of credential parameters
 * (api_key, Bugzilla_api_key, token, Bugzilla_token, password,
 * Bugzilla_password, ... compared case-insensitively) with "REDACTED",
 * wherever they occur in the text: in a query string, in a JSON member
 * ("api_key": "..."), and the password of a URL's user-info
 * (http://user:secret@host).  Everything else is copied unchanged.
 *
 * Defence in depth: redact_secrets() also replaces the VALUE of every
 * configured secret (tracker key, API token, SMTP password, also when read
 * from a *_file) wherever it stands, so a secret that leaks into text by a
 * path nobody foresaw (a hostile build printing the config, a server
 * echoing a request) is still not written.  redact_buf() does both; every
 * log line, outbox row, stored job detail and served log goes through it.
 */
#ifndef BB_REDACT_H
#define BB_REDACT_H

#include "buf.h"

#define REDACTED "REDACTED"

/*
 * Put the redacted text in out (reset first); returns out->ptr so that it
 * can be used inline:  log_warn("GET %s failed", redact_url(&tmp, url));
 */
const char *redact_url(struct buf *out, const char *text);

/* Redact in place (a stored error message, a log line being built). */
void redact_buf(struct buf *text);

/* Replace every configured secret's value in text by REDACTED; 1 if one was found. */
int redact_secrets(struct buf *text);
/* Does text hold a configured secret's value? */
int redact_has_secret(const char *text, size_t len);

#endif
