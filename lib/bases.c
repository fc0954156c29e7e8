/*
 * bases: base names, the kept series, the archive's releases, and the
 * base a bug asks for.  See bases.h.
 *
 * Versions are read leniently from what people write ("6.12.3-rc1",
 * "Linux 6.1.0-18-amd64", "v6.6", "2.6.24-rc2-409-g9418d5d"), strictly
 * from what apt prints.  The only programs run are apt-cache (madison,
 * for the releases) and nothing else; fetching is the runner's.
 */
#include "bases.h"
#include "child.h"
#include "config.h"
#include "log.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- versions ---- */

/* Digits at p into *out (at most 4 of them); the length, 0 for none. */
static size_t take_num(const char *p, int *out)
{
	size_t n = 0;

	*out = 0;
	while (isdigit((unsigned char)p[n]) && n < 4)
		*out = *out * 10 + (p[n++] - '0');
	return isdigit((unsigned char)p[n]) ? 0 : n;
}

/* A version X.Y[.Z] starting exactly at p; its length, 0 for none. */
static size_t version_at(const char *p, struct kver *v)
{
	size_t a, b, c = 0;

	if (!(a = take_num(p, &v->major)) || p[a] != '.' || !(b = take_num(p + a + 1, &v->minor)))
		return 0;
	v->patch = -1;
	if (p[a + 1 + b] == '.' && (c = take_num(p + a + b + 2, &v->patch)))
		c++;
	/* four dot-separated numbers: an address or a date, not a kernel */
	if (c && p[a + b + 1 + c] == '.' && isdigit((unsigned char)p[a + b + 2 + c]))
		return 0;
	return a + 1 + b + c;
}

/* Does the text before p name a kernel ("Linux ", "kernel ", "v")? */
static bool kernel_context(const char *text, const char *p)
{
	static const char *const words[] = { "linux ", "kernel ", "linux-", "kernel: ",
					     "kernel version ", "linux version " };
	size_t off = p - text;

	if (off && (p[-1] == 'v' || p[-1] == 'V') && (off == 1 || !isalnum((unsigned char)p[-2])))
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t len = strlen(words[i]);

		if (off >= len && !strncasecmp(p - len, words[i], len))
			return true;
	}
	return false;
}

bool kver_find(const char *text, bool need_context, struct kver *v)
{
	for (const char *p = text; p && *p; p++) {
		struct kver k;

		if (!isdigit((unsigned char)*p))
			continue;
		/* a run that starts inside a word or a number is not a version */
		if (p > text && (p[-1] == '.' || isdigit((unsigned char)p[-1]) ||
				 (isalpha((unsigned char)p[-1]) && p[-1] != 'v' && p[-1] != 'V'))) {
			continue;
		}
		if (!version_at(p, &k) || k.major < 2 || k.major > 9 ||
		    (need_context && !kernel_context(text, p))) {
			while (isdigit((unsigned char)p[1]) || p[1] == '.')
				p++;
			continue;
		}
		*v = k;
		return true;
	}
	return false;
}

int kver_cmp(const struct kver *a, const struct kver *b)
{
	int x[3] = { a->major, a->minor, a->patch < 0 ? 0 : a->patch };
	int y[3] = { b->major, b->minor, b->patch < 0 ? 0 : b->patch };

	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* ---- names ---- */

int base_parse(const char *name, struct base *b)
{
	const char *s, *eq;
	size_t len;

	memset(b, 0, sizeof(*b));
	if (strncmp(name, BASE_PKG, strlen(BASE_PKG)))
		return -1;
	s = name + strlen(BASE_PKG);
	eq = strchr(s, '=');
	len = eq ? (size_t)(eq - s) : strlen(s);
	if (!len || len >= sizeof(b->series) || version_at(s, &b->kv) != len || b->kv.patch >= 0)
		return -1;
	memcpy(b->series, s, len);
	if (!eq)
		return 0;
	/* a Debian version: the upstream release of this series, then -revision */
	if (strlen(eq + 1) >= sizeof(b->version) || !version_at(eq + 1, &b->kv) ||
	    b->kv.patch < 0 || strncmp(eq + 1, s, len) || eq[1 + len] != '.' ||
	    eq[1 + version_at(eq + 1, &b->kv)] != '-')
		return -1;
	for (const char *p = eq + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(".-~+", *p))
			return -1;
	strcpy(b->version, eq + 1);
	return 0;
}

void base_name(const struct base *b, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, BASE_PKG "%s", b->series);
	if (base_is_release(b))
		buf_addf(out, "=%s", b->version);
}

/* ---- the kept series ---- */

void base_tarball(const char *series, struct buf *out)
{
	const char *pattern = cfg_str("runner.kernel_source");
	const char *hole = strstr(pattern, "{series}");

	buf_reset(out);
	if (!hole) {
		/* one tarball named outright: it is the first series' */
		buf_addstr(out, pattern);
		return;
	}
	buf_add(out, pattern, hole - pattern);
	buf_addstr(out, series);
	buf_addstr(out, hole + strlen("{series}"));
}

char **bases_kept(int *n)
{
	int count = 0;
	char **list = config_split_list(cfg_str("runner.bases"), &count), **out;
	struct buf name = BUF_INIT, tarball = BUF_INIT;
	bool pattern = strstr(cfg_str("runner.kernel_source"), "{series}") != NULL;

	out = xcalloc(count + 1, sizeof(*out));
	*n = 0;
	for (int i = 0; i < count; i++) {
		struct base b;

		buf_reset(&name);
		if (strncmp(list[i], BASE_PKG, strlen(BASE_PKG)))
			buf_addstr(&name, BASE_PKG);
		buf_addstr(&name, list[i]);
		if (base_parse(name.ptr, &b) || base_is_release(&b)) {
			log_warn("config: [runner] bases: '%s' is not a kernel series (6.1)", list[i]);
			continue;
		}
		/* a tarball named outright serves the first series alone */
		if (!pattern && *n)
			break;
		base_tarball(b.series, &tarball);
		if (access(tarball.ptr, R_OK))
			continue;	/* not installed: not kept */
		out[(*n)++] = buf_detach(&name, NULL);
	}
	config_list_free(list);
	buf_release(&name);
	buf_release(&tarball);
	return out;
}

void bases_free(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

const struct buf *bases_default(struct buf *out)
{
	int n;
	char **kept;

	buf_reset(out);
	if (*cfg_str("runner.base")) {
		buf_addstr(out, cfg_str("runner.base"));
		return out;
	}
	kept = bases_kept(&n);
	buf_addstr(out, n ? kept[0] : BASE_PKG "6.1");
	bases_free(kept, n);
	return out;
}

const struct buf *bases_default_tarball(struct buf *out)
{
	struct base b;

	bases_default(out);
	if (base_parse(out->ptr, &b))
		snprintf(b.series, sizeof(b.series), "6.1");
	base_tarball(b.series, out);
	return out;
}

/* ---- the archive's releases ---- */

/* The Debian revision's leading number ("3", "1~deb12u1" -> 1). */
static int revision_of(const char *debver)
{
	const char *dash = strrchr(debver, '-');

	return dash ? atoi(dash + 1) : 0;
}

static int release_cmp(const void *pa, const void *pb)
{
	const struct release *a = pa, *b = pb;
	int c = kver_cmp(&a->kv, &b->kv);

	if (c)
		return c;
	c = revision_of(a->version) - revision_of(b->version);
	return c ? (c < 0 ? -1 : 1) : strcmp(a->version, b->version);
}

int releases_parse(const char *madison, const char *package, bool all, struct release **out,
		   int *n)
{
	struct release *v = NULL;
	int count = 0, kept = 0;

	for (const char *p = madison; *p;) {
		const char *nl = strchrnul(p, '\n');
		char pkg[64], ver[64];
		struct release r;

		/* "linux-source-6.1 |  6.1.170-3 | http://... Packages" */
		if (sscanf(p, " %63s | %63s |", pkg, ver) == 2 && !strcmp(pkg, package) &&
		    version_at(ver, &r.kv) && r.kv.patch >= 0 && strchr(ver, '-')) {
			snprintf(r.version, sizeof(r.version), "%s", ver);
			v = xrealloc(v, (count + 1) * sizeof(*v));
			v[count++] = r;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (count)
		qsort(v, count, sizeof(*v), release_cmp);
	/* the latest revision of each upstream release (sorted last among equals) */
	for (int i = 0; i < count; i++) {
		if (!all && i + 1 < count && !kver_cmp(&v[i].kv, &v[i + 1].kv))
			continue;
		v[kept++] = v[i];
	}
	*out = v;
	*n = kept;
	return kept;
}

int releases_list(const char *series, bool all, struct release **out, int *n, struct buf *err)
{
	struct child ch = CHILD_INIT;
	struct buf pkg = BUF_INIT, text = BUF_INIT;
	const char *argv[] = { "apt-cache", "madison", NULL, NULL };
	int ret = -1;

	*out = NULL;
	*n = 0;
	buf_addf(&pkg, BASE_PKG "%s", series);
	argv[2] = pkg.ptr;
	buf_init(&text, 1 << 20);
	ch.argv = argv;
	ch.capture = &text;
	ch.timeout = 60;
	if (child_run(&ch) || ch.exit_code) {
		buf_addf(err, "cannot list the releases of '%s' (apt-cache madison)", pkg.ptr);
		goto out;
	}
	if (releases_parse(text.ptr, pkg.ptr, all, out, n) <= 0) {
		buf_addf(err, "the archive lists no release of '%s'", pkg.ptr);
		goto out;
	}
	ret = 0;
out:
	buf_release(&pkg);
	buf_release(&text);
	return ret;
}

/* ---- --base ---- */

/* Is series kept?  Else why not, in err. */
static bool series_kept(const char *name, const char *series, struct buf *err)
{
	int n;
	char **kept = bases_kept(&n);
	bool found = false;

	for (int i = 0; i < n; i++)
		found |= !strcmp(kept[i], name);
	if (!found) {
		buf_addf(err, "series %s is not kept here (the installed ones of [runner] bases"
			 " '%s' are)", series, cfg_str("runner.bases"));
	}
	bases_free(kept, n);
	return found;
}

/* The Debian version of release k of series in the archive (want: that exact one, or NULL). */
static int release_lookup(const char *series, const struct kver *k, const char *want,
			  struct base *b, struct buf *err)
{
	struct release *rel = NULL;
	struct buf all = BUF_INIT;
	int n = 0, ret = -1;

	/* every revision when one is named (6.1.192-2), else the latest of each */
	if (releases_list(series, want != NULL, &rel, &n, err))
		goto out;
	for (int i = 0; i < n; i++) {
		if (!kver_cmp(&rel[i].kv, k) && (!want || !strcmp(rel[i].version, want)))
			snprintf(b->version, sizeof(b->version), "%s", rel[i].version);
		buf_addf(&all, "%s%s", i ? ", " : "", rel[i].version);
	}
	if (!b->version[0]) {
		if (want)
			buf_addf(err, "the archive has no release %s", want);
		else
			buf_addf(err, "the archive has no release %d.%d.%d", k->major, k->minor,
				 k->patch);
		buf_addf(err, " of " BASE_PKG "%s (it has %s)", series, all.ptr);
		goto out;
	}
	ret = 0;
out:
	free(rel);
	buf_release(&all);
	return ret;
}

int base_resolve(const char *arg, struct buf *out, struct buf *err)
{
	const char *v = arg;
	struct base b;
	struct kver k;
	size_t len;

	memset(&b, 0, sizeof(b));
	if (!strncmp(v, BASE_PKG, strlen(BASE_PKG)))
		v += strlen(BASE_PKG);
	if (strchr(v, '='))
		v = strchr(v, '=') + 1;
	len = version_at(v, &k);
	if (!len || (v[len] && v[len] != '-') || strpbrk(v, "/ \t'\"$;")) {
		buf_addf(err, "'%s' is not a kernel base (6.12, 6.1.170 or 6.1.170-3)", arg);
		return -1;
	}
	snprintf(b.series, sizeof(b.series), "%d.%d", k.major, k.minor);
	if (k.patch < 0) {
		buf_addf(out, BASE_PKG "%s", b.series);
		if (!series_kept(out->ptr, b.series, err)) {
			buf_reset(out);
			return -1;
		}
		return 0;
	}
	if (release_lookup(b.series, &k, v[len] ? v : NULL, &b, err))
		return -1;
	base_name(&b, out);
	return base_parse(out->ptr, &b);
}

/* ---- the base a bug asks for ---- */

/* The kept series nearest v (by minor number across majors), or NULL. */
static const char *nearest(const struct kver *v, char *const *kept, int nkept)
{
	const char *best = NULL;
	struct kver best_kv = { 0 };
	int best_d = 0;

	for (int i = 0; i < nkept; i++) {
		struct base b;
		int d;

		if (base_parse(kept[i], &b))
			continue;
		d = abs((b.kv.major * 100 + b.kv.minor) - (v->major * 100 + v->minor));
		/* a tie goes to the newer series: the code the bug saw lives on there */
		if (!best || d < best_d || (d == best_d && kver_cmp(&b.kv, &best_kv) > 0)) {
			best = kept[i];
			best_kv = b.kv;
			best_d = d;
		}
	}
	return best;
}

void base_choose(const char *cf_kernel_version, const char *version, const char *description,
		 char *const *kept, int nkept, const char *def, struct buf *base,
		 struct buf *reason)
{
	static const char *const what[] = { "kernel version field (cf_kernel_version)",
					    "version field", "description" };
	const char *from[] = { cf_kernel_version, version, description }, *pick = NULL;
	struct kver v = { 0 };
	struct base b;
	int i;

	buf_reset(base);
	buf_reset(reason);
	for (i = 0; i < 3; i++)
		if (from[i] && kver_find(from[i], i == 2, &v))
			break;
	if (i < 3)
		pick = nearest(&v, kept, nkept);
	if (!pick) {
		buf_addstr(base, def);
		if (i < 3)
			buf_addf(reason, "the bug's %s says %d.%d, but no series is kept here:"
				 " the default base", what[i], v.major, v.minor);
		else
			buf_addstr(reason, "the bug names no kernel version: the default base");
		return;
	}
	buf_addstr(base, pick);
	buf_addf(reason, "the bug's %s says %d.%d", what[i], v.major, v.minor);
	if (v.patch >= 0)
		buf_addf(reason, ".%d", v.patch);
	base_parse(pick, &b);
	buf_addf(reason, ": series %s", b.series);
	if (b.kv.major != v.major || b.kv.minor != v.minor)
		buf_addstr(reason, ", the nearest kept");
}
