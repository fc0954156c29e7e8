/*
 * redact: replace credential values in text.  See redact.h.
 *
 * One left-to-right scan.  At each position we look for the three shapes
 * a secret takes in what we log: NAME=value (query strings, form bodies),
 * "NAME" : "value" (JSON bodies), and scheme://user:password@ (user-info).
 * Names match only at a word start, so "keywords=" or "my_api_key_count"
 * are left alone unless they are a credential name themselves.
 */
#include "redact.h"
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

static const char *const secret_names[] = {
	"api_key", "bugzilla_api_key", "apikey", "token", "bugzilla_token",
	"access_token", "password", "bugzilla_password", "passwd", "secret",
	"x-bugzilla-api-key", NULL
};

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Length of a secret name starting at s, or 0. */
static size_t secret_name_at(const char *s)
{
	size_t n = 0;

	while (is_name_char(s[n]))
		n++;
	for (int i = 0; secret_names[i]; i++)
		if (strlen(secret_names[i]) == n && !strncasecmp(s, secret_names[i], n))
			return n;
	return 0;
}

/* NAME=value: the value ends at a separator. */
static size_t query_value_len(const char *v)
{
	return strcspn(v, "&#; \t\r\n\"'<>");
}

/* "NAME" : "value": returns the offset of the value after the name's quote. */
static size_t json_value_start(const char *p)
{
	size_t i = 0;

	while (p[i] == ' ' || p[i] == '\t')
		i++;
	if (p[i] != ':')
		return 0;
	i++;
	while (p[i] == ' ' || p[i] == '\t')
		i++;
	if (p[i] != '"')
		return 0;
	return i + 1;
}

static size_t json_string_len(const char *v)
{
	size_t i = 0;

	while (v[i] && v[i] != '"') {
		if (v[i] == '\\' && v[i + 1])
			i++;
		i++;
	}
	return i;
}

/* scheme://user:password@host: the password's offset and length. */
static bool userinfo_password(const char *s, size_t *off, size_t *len)
{
	size_t i = 3, colon = 0;

	if (strncmp(s, "://", 3))
		return false;
	for (; s[i] && !strchr("/?#@ \t\r\n\"'<>", s[i]); i++)
		if (s[i] == ':' && !colon)
			colon = i;
	if (s[i] != '@' || !colon)
		return false;
	*off = colon + 1;
	*len = i - colon - 1;
	return true;
}

const char *redact_url(struct buf *out, const char *text)
{
	const char *p = text;

	buf_reset(out);
	while (*p) {
		bool word_start = p == text || !is_name_char(p[-1]);
		size_t n = word_start ? secret_name_at(p) : 0, off, len;

		if (n && p[n] == '=') {
			buf_add(out, p, n + 1);
			buf_addstr(out, REDACTED);
			p += n + 1 + query_value_len(p + n + 1);
			continue;
		}
		if (n && p > text && p[-1] == '"' && p[n] == '"' &&
		    (off = json_value_start(p + n + 1))) {
			buf_add(out, p, n + 1 + off);
			buf_addstr(out, REDACTED);
			p += n + 1 + off + json_string_len(p + n + 1 + off);
			continue;
		}
		if (n && p[n] == ':' && p[n + 1] == ' ' && !strncasecmp(p, "x-bugzilla", 10)) {
			/* a header line "X-BUGZILLA-API-KEY: value" */
			buf_add(out, p, n + 2);
			buf_addstr(out, REDACTED);
			p += n + 2 + strcspn(p + n + 2, "\r\n");
			continue;
		}
		if (*p == ':' && userinfo_password(p, &off, &len)) {
			buf_add(out, p, off);
			buf_addstr(out, REDACTED);
			p += off + len;
			continue;
		}
		buf_addch(out, *p++);
	}
	return out->ptr;
}

void redact_buf(struct buf *text)
{
	struct buf tmp = BUF_INIT;

	redact_url(&tmp, text->ptr);
	buf_reset(text);
	buf_add(text, tmp.ptr, tmp.len);
	buf_release(&tmp);
	redact_secrets(text);
}

int redact_has_secret(const char *text, size_t len)
{
	for (int i = 0; cfg && i < cfg->nsecrets; i++)
		if (memmem(text, len, cfg->secrets[i], strlen(cfg->secrets[i])))
			return 1;
	return 0;
}

int redact_secrets(struct buf *text)
{
	struct buf out = BUF_INIT;
	int found = 0;

	for (int i = 0; cfg && i < cfg->nsecrets; i++) {
		const char *secret = cfg->secrets[i], *p = text->ptr, *hit;
		size_t n = strlen(secret);

		if (!memmem(text->ptr, text->len, secret, n))
			continue;
		found = 1;
		buf_reset(&out);
		while ((hit = memmem(p, text->len - (p - text->ptr), secret, n))) {
			buf_add(&out, p, hit - p);
			buf_addstr(&out, REDACTED);
			p = hit + n;
		}
		buf_add(&out, p, text->len - (p - text->ptr));
		buf_reset(text);
		buf_add(text, out.ptr, out.len);
	}
	buf_release(&out);
	return found;
}
