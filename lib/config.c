/*
 * config: parse the INI file, apply the environment, answer look-ups.
 *
 * The parser is line-based and strict: every problem is reported as
 * "file:line: what" and nothing is installed unless the whole file parsed.
 */
#include "config.h"
#include "xalloc.h"
#include "log.h"
#include "sha256.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct config *cfg;

void config_init(struct config *c)
{
	c->values = xcalloc(config_nkeys, sizeof(*c->values));
	for (int i = 0; i < config_nkeys; i++)
		c->values[i] = xstrdup(config_keys[i].def);
	c->path = NULL;
	c->secrets = NULL;
	c->nsecrets = 0;
}

void config_release(struct config *c)
{
	if (!c->values)
		return;
	for (int i = 0; i < config_nkeys; i++)
		free(c->values[i]);
	free(c->values);
	free(c->path);
	for (int i = 0; i < c->nsecrets; i++) {
		memset(c->secrets[i], 0, strlen(c->secrets[i]));
		free(c->secrets[i]);
	}
	free(c->secrets);
	c->values = NULL;
	c->path = NULL;
	c->secrets = NULL;
	c->nsecrets = 0;
}

static int find_key(const char *section, const char *name)
{
	for (int i = 0; i < config_nkeys; i++)
		if (!strcmp(config_keys[i].section, section) &&
		    !strcmp(config_keys[i].name, name))
			return i;
	return -1;
}

static bool known_section(const char *section)
{
	for (int i = 0; i < config_nkeys; i++)
		if (!strcmp(config_keys[i].section, section))
			return true;
	return false;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0") || !*v)
		*out = false;
	else
		return false;
	return true;
}

static bool parse_long(const char *v, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	return *v && !*end && !errno;
}

/* Check value against the key's type; message in err on failure. */
static int check_value(int idx, const char *value, struct buf *err)
{
	const struct config_key *k = &config_keys[idx];
	long l;
	bool b;

	switch (k->type) {
	case CONF_INT:
		if (!parse_long(value, &l) || l < 0) {
			buf_addf(err, "[%s] %s: '%s' is not a non-negative number",
				 k->section, k->name, value);
			return -1;
		}
		break;
	case CONF_BOOL:
		if (!parse_bool(value, &b)) {
			buf_addf(err, "[%s] %s: '%s' is not true or false",
				 k->section, k->name, value);
			return -1;
		}
		break;
	case CONF_ENUM:
		if (!str_list_has(k->choices, '|', value, strlen(value))) {
			buf_addf(err, "[%s] %s: '%s' is not one of %s",
				 k->section, k->name, value, k->choices);
			return -1;
		}
		break;
	default:
		break;
	}
	return 0;
}

static void set_value(struct config *c, int idx, const char *value)
{
	free(c->values[idx]);
	c->values[idx] = xstrdup(value);
}

static char *skip_blank(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/*
 * Decode the value part of "key = value": a quoted string with escapes, or
 * bare text up to a " #" / " ;" comment.  Returns NULL and sets *why.
 */
static char *parse_value(char *p, struct buf *out, const char **why)
{
	p = skip_blank(p);
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\') {
				p++;
				switch (*p) {
				case 'n': buf_addch(out, '\n'); break;
				case 't': buf_addch(out, '\t'); break;
				case '"': case '\\': buf_addch(out, *p); break;
				default:
					*why = "unknown escape in quoted value";
					return NULL;
				}
			} else {
				buf_addch(out, *p);
			}
		}
		if (*p != '"') {
			*why = "unterminated value (missing closing quote)";
			return NULL;
		}
		p = skip_blank(p + 1);
		if (*p && *p != '#' && *p != ';') {
			*why = "text after closing quote";
			return NULL;
		}
		return out->ptr;
	}
	for (char *q = p; *q; q++) {
		if ((*q == '#' || *q == ';') && (q == p || q[-1] == ' ' || q[-1] == '\t')) {
			*q = '\0';
			break;
		}
	}
	rtrim(p);
	buf_addstr(out, p);
	return out->ptr;
}

static int parse_line(struct config *c, char *line, char *section,
		      size_t section_size, const char **why, struct buf *why_buf)
{
	struct buf value = BUF_INIT;
	char *p = skip_blank(line), *eq, *key;
	int idx, ret = -1;

	rtrim(p);
	if (!*p || *p == '#' || *p == ';')
		return 0;
	if (*p == '[') {
		char *end = strchr(p, ']');
		if (!end || end[1]) {
			*why = "malformed section header";
			return -1;
		}
		*end = '\0';
		if (!known_section(p + 1)) {
			buf_addf(why_buf, "unknown section [%s]", p + 1);
			return -1;
		}
		snprintf(section, section_size, "%s", p + 1);
		return 0;
	}
	eq = strchr(p, '=');
	if (!eq) {
		*why = "missing '=' (expected key = value)";
		return -1;
	}
	if (!*section) {
		*why = "key outside any [section]";
		return -1;
	}
	*eq = '\0';
	key = p;
	rtrim(key);
	if (!*key) {
		*why = "missing key before '='";
		return -1;
	}
	idx = find_key(section, key);
	if (idx < 0) {
		buf_addf(why_buf, "unknown key '%s' in [%s]", key, section);
		return -1;
	}
	if (!parse_value(eq + 1, &value, why))
		goto out;
	if (check_value(idx, value.ptr, why_buf))
		goto out;
	set_value(c, idx, value.ptr);
	ret = 0;
out:
	buf_release(&value);
	return ret;
}

int config_parse(struct config *c, const char *text, const char *name,
		 struct buf *err)
{
	char section[64] = "";
	char line[CONFIG_MAX_LINE + 2];
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct buf why_buf = BUF_INIT;
		const char *why = NULL;

		lineno++;
		if (len > CONFIG_MAX_LINE) {
			buf_addf(err, "%s:%d: line too long (over %d characters)",
				 name, lineno, CONFIG_MAX_LINE);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		if (memchr(line, '\0', len)) {
			buf_addf(err, "%s:%d: NUL byte in line", name, lineno);
			return -1;
		}
		if (parse_line(c, line, section, sizeof(section), &why, &why_buf)) {
			buf_addf(err, "%s:%d: %s", name, lineno, why ? why : why_buf.ptr);
			buf_release(&why_buf);
			return -1;
		}
		buf_release(&why_buf);
		p += len;
		if (*p == '\n')
			p++;
	}
	return 0;
}

int config_apply_env(struct config *c, struct buf *err)
{
	for (int i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		char var[128];
		const char *value;
		char *q;

		snprintf(var, sizeof(var), "BUGBRIDGE_%s_%s", k->section, k->name);
		for (q = var; *q; q++)
			*q = toupper((unsigned char)*q);
		value = getenv(var);
		if (!value)
			continue;
		if (check_value(i, value, err)) {
			buf_addf(err, " (from %s)", var);
			return -1;
		}
		set_value(c, i, value);
	}
	return 0;
}

int config_load(struct config *c, const char *path, struct buf *err)
{
	struct buf text = BUF_INIT;
	int ret = -1;

	config_init(c);
	if (path) {
		buf_init(&text, 1 << 20);
		if (buf_read_file(&text, path)) {
			buf_addf(err, "cannot read config '%s': %s", path,
				 text.overflow ? "file too large" : strerror(errno));
			goto out;
		}
		if (config_parse(c, text.ptr, path, err))
			goto out;
		c->path = xstrdup(path);
	}
	if (config_apply_env(c, err))
		goto out;
	config_collect_secrets(c);
	ret = 0;
out:
	buf_release(&text);
	return ret;
}

static int key_index(const char *key)
{
	const char *dot = strchr(key, '.');
	char section[64];

	if (!dot || (size_t)(dot - key) >= sizeof(section))
		goto bad;
	memcpy(section, key, dot - key);
	section[dot - key] = '\0';
	int idx = find_key(section, dot + 1);
	if (idx >= 0)
		return idx;
bad:
	fprintf(stderr, "BUG: unknown config key '%s'\n", key);
	abort();
}

const char *config_get(const struct config *c, const char *key)
{
	return c->values[key_index(key)];
}

long config_get_int(const struct config *c, const char *key)
{
	long l = 0;

	parse_long(config_get(c, key), &l);
	return l;
}

bool config_get_bool(const struct config *c, const char *key)
{
	bool b = false;

	parse_bool(config_get(c, key), &b);
	return b;
}

int config_secret(const struct config *c, const char *key, struct buf *out,
		  struct buf *err)
{
	char file_key[128];
	const char *file;
	struct buf text = BUF_INIT;
	char *nl;
	int ret = -1;

	buf_reset(out);
	buf_addstr(out, config_get(c, key));
	if (out->len)
		return 0;
	snprintf(file_key, sizeof(file_key), "%s_file", key);
	file = config_get(c, file_key);
	if (!*file)
		return 0;
	buf_init(&text, 64 * 1024);
	if (buf_read_file(&text, file)) {
		buf_addf(err, "cannot read secret file '%s': %s", file, strerror(errno));
		goto out;
	}
	nl = strchr(text.ptr, '\n');
	if (nl)
		buf_setlen(&text, nl - text.ptr);
	buf_trim(&text);
	buf_addstr(out, text.ptr);
	ret = 0;
out:
	buf_release(&text);
	return ret;
}

void config_collect_secrets(struct config *c)
{
	struct buf value = BUF_INIT, err = BUF_INIT;
	int alloc = 0;

	for (int i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		char key[128];

		if (!(k->flags & CONF_SECRET))
			continue;
		snprintf(key, sizeof(key), "%s.%s", k->section, k->name);
		if (config_secret(c, key, &value, &err) || value.len < CONFIG_SECRET_MIN)
			continue;
		XGROW(c->secrets, c->nsecrets + 1, alloc);
		c->secrets[c->nsecrets++] = xstrdup(value.ptr);
	}
	if (value.alloc)
		memset(value.ptr, 0, value.len);
	buf_release(&value);
	buf_release(&err);
}

static void dump_value(struct buf *out, const char *v)
{
	bool quote = !*v || strpbrk(v, "#;\"\\\n\t") || v[0] == ' ' ||
		     v[strlen(v) - 1] == ' ';

	if (!quote) {
		buf_addstr(out, v);
		return;
	}
	buf_addch(out, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			buf_addch(out, '\\');
		if (*v == '\n')
			buf_addstr(out, "\\n");
		else if (*v == '\t')
			buf_addstr(out, "\\t");
		else
			buf_addch(out, *v);
	}
	buf_addch(out, '"');
}

void config_dump(const struct config *c, struct buf *out, bool example)
{
	const char *section = "";

	if (example)
		buf_addstr(out,
			   "# bugbridge.conf: every key with its default.\n"
			   "# Generated by `bugbridge config example`; any key may be overridden\n"
			   "# by the environment variable BUGBRIDGE_<SECTION>_<KEY>.\n");
	for (int i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		const char *v = example ? k->def : c->values[i];

		if (strcmp(section, k->section)) {
			section = k->section;
			buf_addf(out, "%s[%s]\n", i || example ? "\n" : "", section);
		}
		if (example)
			buf_addf(out, "# %s%s%s\n", k->help,
				 k->choices ? ": " : "", k->choices ? k->choices : "");
		buf_addf(out, "%s = ", k->name);
		if ((k->flags & CONF_SECRET) && *v && !example)
			buf_addstr(out, "(set)");
		else
			dump_value(out, v);
		buf_addch(out, '\n');
	}
}

/* Key i is the *_file of a secret key ("api_key_file" of "api_key"). */
static bool secret_file_key(int i)
{
	const struct config_key *k = &config_keys[i];
	size_t n = strlen(k->name);
	char base[64];
	int j;

	if (n <= 5 || n - 5 >= sizeof(base) || strcmp(k->name + n - 5, "_file"))
		return false;
	memcpy(base, k->name, n - 5);
	base[n - 5] = '\0';
	j = find_key(k->section, base);
	return j >= 0 && (config_keys[j].flags & CONF_SECRET);
}

int config_write_restricted(const struct config *c, const char *keep, struct buf *out,
			    struct buf *err)
{
	struct buf secret = BUF_INIT, hashed = BUF_INIT;
	const char *section = "";
	int keep_idx = key_index(keep), ret = -1;
	char hex[SHA256_HEX_LEN];

	if (config_secret(c, keep, &secret, err))
		goto out;
	if (secret.len) {
		sha256_hex(secret.ptr, secret.len, hex);
		buf_addf(&hashed, "sha256:%s", hex);
	}
	for (int i = 0; i < config_nkeys; i++) {
		const struct config_key *k = &config_keys[i];
		const char *v = c->values[i];

		if (i == keep_idx)
			v = hashed.ptr;
		else if ((k->flags & CONF_SECRET) || secret_file_key(i))
			v = "";
		if (strcmp(section, k->section)) {
			section = k->section;
			buf_addf(out, "[%s]\n", section);
		}
		buf_addf(out, "%s = ", k->name);
		dump_value(out, v);
		buf_addch(out, '\n');
	}
	ret = 0;
out:
	if (secret.alloc)
		memset(secret.ptr, 0, secret.len);
	buf_release(&secret);
	buf_release(&hashed);
	return ret;
}

/* Every configuration installed before the current one (see config_install). */
static const struct config **retired;
static size_t nretired, alloc_retired;

void config_install(struct config *c)
{
	struct config *copy = xmalloc(sizeof(*copy));

	*copy = *c;
	c->values = NULL;
	c->path = NULL;
	c->secrets = NULL;
	c->nsecrets = 0;
	/* The previous one is kept on purpose (and reachable): threads may still read it. */
	if (cfg) {
		XGROW(retired, nretired + 1, alloc_retired);
		retired[nretired++] = cfg;
	}
	cfg = copy;
}

char **config_split_list(const char *value, int *count)
{
	char **list = xcalloc(strlen(value) / 2 + 2, sizeof(*list));
	const char *p = value;
	int n = 0;

	/* Commas only: component names ("Block Layer") hold blanks. */
	while (*p) {
		size_t len;

		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, ",");
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len)
			break;
		list[n++] = xstrndup(p, len);
		p += len;
	}
	if (count)
		*count = n;
	return list;
}

void config_list_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}
