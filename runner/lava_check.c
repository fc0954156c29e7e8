/*
 * lava_check: what `bugbridge config check` asks the LAVA lab of [runner]
 * backend = lava (runner.h), with lava.c's REST API v0.2 and token:
 *
 *   lava            GET system/version/: the lab answers
 *   lava token      GET system/whoami/: the token is valid, and whose
 *   lava devices    GET devices/ and workers/: devices of [lava] device_type,
 *                   how many are healthy on an online worker
 *   lava artifacts  where workers fetch the kernel from: with artifacts_dir,
 *                   a probe file written there is fetched back at
 *                   artifacts_url from here (read back from the disk for a
 *                   file:// URL); without it, bugbridged's dashboard answers
 *                   at [web] base_url (it serves a boot's files only while
 *                   its job runs, so no file can be fetched now)
 *
 * "From here" is the limit of the last one: it proves the URL answers on
 * this host, not that the lab's workers reach it (a firewall, a name that
 * resolves elsewhere); a LAVA job would, and costs a device.
 */
#include "runner.h"
#include "buf.h"
#include "check.h"
#include "config.h"
#include "hex.h"
#include "httpc.h"
#include "wfile.h"

#include <errno.h>
#include <json.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

struct lab {
	struct httpc http;
	struct buf base;	/* [lava] url without the final '/' */
	struct buf auth;	/* "Authorization: Token ..." */
};

/* GET path (under /api/v0.2/) into resp; -1 with err when no answer came. */
static int get(struct lab *l, const char *path, bool auth, struct httpc_response *resp,
	       struct buf *err)
{
	const char *headers[] = { l->auth.ptr, NULL };
	struct buf url = BUF_INIT;
	struct httpc_request req = { .method = "GET", .headers = auth ? headers : NULL };
	int ret;

	buf_addf(&url, "%s/api/v0.2/%s", l->base.ptr, path);
	req.url = url.ptr;
	ret = httpc_do(&l->http, &req, resp, err);
	buf_release(&url);
	return ret;
}

/* The string member key of a JSON answer ("" when absent) into out. */
static void member(const char *body, const char *key, struct buf *out)
{
	json_object *root = json_tokener_parse(body), *v;

	if (root && json_object_object_get_ex(root, key, &v) && json_object_is_type(v, json_type_string))
		buf_addstr(out, json_object_get_string(v));
	json_object_put(root);
}

static void answer_fail(struct check *c, const char *what, const struct httpc_response *resp,
			const struct buf *err)
{
	if (resp->status)
		check_fail(c, what, "HTTP %ld: %.200s", resp->status, resp->body.ptr);
	else
		check_fail(c, what, "%s", err->ptr);
}

/* 0 when the lab answered. */
static int check_version(struct check *c, struct lab *l)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, version = BUF_INIT;
	int ret = -1;

	if (get(l, "system/version/", false, &resp, &err) || resp.status != 200) {
		answer_fail(c, "lava", &resp, &err);
		goto out;
	}
	member(resp.body.ptr, "version", &version);
	check_ok(c, "lava", "%s answers (LAVA %s)", l->base.ptr,
		 version.len ? version.ptr : "of an unknown version");
	ret = 0;
out:
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&version);
	return ret;
}

/* 0 when the lab took the token. */
static int check_token(struct check *c, struct lab *l)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT, user = BUF_INIT;
	int ret = -1;

	if (get(l, "system/whoami/", true, &resp, &err) || resp.status != 200) {
		answer_fail(c, "lava token", &resp, &err);
		goto out;
	}
	member(resp.body.ptr, "user", &user);
	if (!user.len) {
		check_fail(c, "lava token", "the lab takes it for an anonymous user");
	} else {
		check_ok(c, "lava token", "valid, %s's", user.ptr);
		ret = 0;
	}
out:
	httpc_response_release(&resp);
	buf_release(&err);
	buf_release(&user);
	return ret;
}

/* results[] of a list answer (owned by root), or NULL. */
static json_object *results(json_object *root)
{
	json_object *r;

	return root && json_object_object_get_ex(root, "results", &r) &&
	       json_object_is_type(r, json_type_array) ? r : NULL;
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_string(v) ?
	       json_object_get_string(v) : "";
}

/* Is the worker named host online and active, by workers/'s list? */
static bool worker_up(json_object *workers, const char *host)
{
	for (size_t i = 0; workers && i < json_object_array_length(workers); i++) {
		json_object *w = json_object_array_get_idx(workers, i);

		if (!strcmp(field(w, "hostname"), host))
			return !strcmp(field(w, "state"), "Online") &&
			       !strcmp(field(w, "health"), "Active");
	}
	return false;
}

static void count_devices(struct check *c, const char *devices, const char *workers)
{
	json_object *d = json_tokener_parse(devices), *w = json_tokener_parse(workers);
	const char *type = cfg_str("lava.device_type");
	int n = 0, up = 0;

	for (size_t i = 0; results(d) && i < json_object_array_length(results(d)); i++) {
		json_object *dev = json_object_array_get_idx(results(d), i);
		const char *health = field(dev, "health");

		if (strcmp(field(dev, "device_type"), type))
			continue;
		n++;
		up += (!strcmp(health, "Good") || !strcmp(health, "Unknown")) &&
		      worker_up(results(w), field(dev, "worker_host"));
	}
	if (!n)
		check_fail(c, "lava devices", "none of type '%s' ([lava] device_type)", type);
	else if (!up)
		check_fail(c, "lava devices", "%d of type '%s', none healthy on an online worker:"
			   " boots would wait for [lava] queue_timeout", n, type);
	else
		check_ok(c, "lava devices", "%d of type '%s', %d healthy on an online worker", n,
			 type, up);
	json_object_put(d);
	json_object_put(w);
}

static void check_devices(struct check *c, struct lab *l)
{
	struct httpc_response dev = HTTPC_RESPONSE_INIT, work = HTTPC_RESPONSE_INIT;
	struct buf err = BUF_INIT;

	if (get(l, "devices/?limit=500", true, &dev, &err) || dev.status != 200)
		answer_fail(c, "lava devices", &dev, &err);
	else if (get(l, "workers/?limit=500", true, &work, &err) || work.status != 200)
		answer_fail(c, "lava devices", &work, &err);
	else
		count_devices(c, dev.body.ptr, work.body.ptr);
	httpc_response_release(&dev);
	httpc_response_release(&work);
	buf_release(&err);
}

/* GET url from here: 0 with the body in resp, else -1 and why. */
static int fetch(struct lab *l, const char *url, struct httpc_response *resp, struct buf *why)
{
	struct httpc_request req = { .method = "GET", .url = url };

	if (!strncmp(url, "file://", 7)) {
		httpc_response_release(resp);
		buf_init(&resp->body, 1 << 20);
		if (buf_read_file(&resp->body, url + 7)) {
			buf_addf(why, "cannot read '%s': %s", url + 7, strerror(errno));
			return -1;
		}
		resp->status = 200;
		return 0;
	}
	if (httpc_do(&l->http, &req, resp, why))
		return -1;
	if (resp->status != 200) {
		buf_addf(why, "GET %s: HTTP %ld", url, resp->status);
		return -1;
	}
	return 0;
}

/* A probe file in artifacts_dir, fetched back at artifacts_url. */
static void probe_dir(struct check *c, struct lab *l, const char *dir, const char *url)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf path = BUF_INIT, get_url = BUF_INIT, why = BUF_INIT;
	unsigned char rnd[16];
	char token[33];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		check_fail(c, "lava artifacts", "no random bytes for a probe: %s", strerror(errno));
		return;
	}
	hex_encode(token, rnd, sizeof(rnd));
	buf_addf(&path, "%s/bugbridge-probe-%s", dir, token);
	buf_addf(&get_url, "%s/bugbridge-probe-%s", url, token);
	if (write_file(path.ptr, token, strlen(token), WF_ATOMIC)) {
		check_fail(c, "lava artifacts", "cannot write '%s' ([lava] artifacts_dir): %s",
			   path.ptr, strerror(errno));
	} else if (fetch(l, get_url.ptr, &resp, &why)) {
		check_fail(c, "lava artifacts", "a file put in %s is not at %s from here: %s",
			   dir, url, why.ptr);
	} else if (strcmp(resp.body.ptr, token)) {
		check_fail(c, "lava artifacts", "%s serves another file than %s's", url, dir);
	} else {
		check_ok(c, "lava artifacts", "a file put in %s is fetched at %s from here"
			 " (whether the lab's workers reach it, only a LAVA job shows)", dir, url);
	}
	unlink(path.ptr);
	httpc_response_release(&resp);
	buf_release(&path);
	buf_release(&get_url);
	buf_release(&why);
}

/* bugbridged serves the files: its dashboard must answer at [web] base_url. */
static void probe_dashboard(struct check *c, struct lab *l, const char *base)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf url = BUF_INIT, why = BUF_INIT;

	buf_addstr(&url, base);
	while (url.len && url.ptr[url.len - 1] == '/')
		buf_setlen(&url, url.len - 1);
	buf_addch(&url, '/');
	if (fetch(l, url.ptr, &resp, &why))
		check_fail(c, "lava artifacts", "bugbridged serves them at %sartifacts/, but %s",
			   url.ptr, why.ptr);
	else if (!strstr(resp.body.ptr, "bugbridge</title>"))
		check_fail(c, "lava artifacts", "%s answers, but not as bugbridge's dashboard:"
			   " workers would fetch the kernel from another server", url.ptr);
	else
		check_ok(c, "lava artifacts", "bugbridged's dashboard answers at %s from here (it"
			 " serves a boot's files under artifacts/ while its job runs; whether the"
			 " lab's workers reach it, only a LAVA job shows)", url.ptr);
	httpc_response_release(&resp);
	buf_release(&url);
	buf_release(&why);
}

static void check_artifacts(struct check *c, struct lab *l)
{
	const char *url = cfg_str("lava.artifacts_url"), *dir = cfg_str("lava.artifacts_dir");
	const char *base = cfg_str("web.base_url");

	/* config_unworkable() said what is wrong with the URLs themselves */
	if ((*dir && !*url) || (*url ? !config_absolute_url(url, true) :
				!config_absolute_url(base, false)))
		check_skip(c, "lava artifacts", "no URL workers could use (above)");
	else if (*dir)
		probe_dir(c, l, dir, url);
	else if (*url)
		check_warn(c, "lava artifacts", "%s is served by something else than bugbridge"
			   " ([lava] artifacts_dir is not set): nothing to probe", url);
	else
		probe_dashboard(c, l, base);
}

void lava_check(struct check *c)
{
	struct httpc_opts o = { .connect_timeout = 5, .timeout = 20, .max_response = 16 << 20 };
	struct buf tok = BUF_INIT, err = BUF_INIT;
	struct lab l = { .base = BUF_INIT, .auth = BUF_INIT };

	if (httpc_init(&l.http, &o, &err)) {
		check_fail(c, "lava", "%s", err.ptr);
		goto out;
	}
	buf_addstr(&l.base, cfg_str("lava.url"));
	while (l.base.len && l.base.ptr[l.base.len - 1] == '/')
		buf_setlen(&l.base, l.base.len - 1);
	if (!config_secret(cfg, "lava.token", &tok, &err))
		buf_addf(&l.auth, "Authorization: Token %s", tok.ptr);
	if (!l.base.len)
		check_skip(c, "lava", "no [lava] url (above)");
	else if (!check_version(c, &l)) {
		if (!tok.len)
			check_skip(c, "lava token", "none (above)");
		if (tok.len && check_token(c, &l))
			check_skip(c, "lava devices", "the token was refused");
		else
			check_devices(c, &l);
	}
	check_artifacts(c, &l);
	httpc_release(&l.http);
out:
	if (tok.alloc)
		memset(tok.ptr, 0, tok.len);
	if (l.auth.alloc)
		memset(l.auth.ptr, 0, l.auth.len);
	buf_release(&tok);
	buf_release(&err);
	buf_release(&l.base);
	buf_release(&l.auth);
}
