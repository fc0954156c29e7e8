/*
 * app: configuration discovery, log set-up and database opening shared by
 * bugbridged, bugbridge-runner and bugbridge.
 */
#include "app.h"
#include "config.h"
#include "log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *find_config(const char *given)
{
	const char *env = getenv("BUGBRIDGE_CONFIG");

	if (given)
		return given;
	if (env && *env)
		return env;
	if (!access("/etc/bugbridge/bugbridge.conf", R_OK))
		return "/etc/bugbridge/bugbridge.conf";
	return NULL;
}

static int apply_log(const struct app_opts *opts, const struct config *c,
		     struct buf *err)
{
	int level = log_level_parse(config_get(c, "log.level"));

	level += opts->verbosity;
	if (level < LOG_ERROR)
		level = LOG_ERROR;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	if (log_open(config_get(c, "log.file"), level)) {
		buf_addf(err, "cannot open log file '%s'", config_get(c, "log.file"));
		return -1;
	}
	return 0;
}

/* Each problem of config_unworkable() as a line of err, naming the file. */
static int refuse(const struct config *c, unsigned who, struct buf *err)
{
	struct buf why = BUF_INIT;
	const char *p, *nl;

	if (!config_unworkable(c, who, &why)) {
		buf_release(&why);
		return 0;
	}
	for (p = why.ptr; (nl = strchr(p, '\n')); p = nl + 1)
		buf_addf(err, "%s%s%s%.*s", err->len ? "\n" : "", c->path ? c->path : "",
			 c->path ? ": " : "", (int)(nl - p), p);
	buf_release(&why);
	return -1;
}

int app_setup(const struct app_opts *opts, struct buf *err)
{
	struct config c = { 0 };
	int ret = -1;

	if (config_load(&c, find_config(opts->config_path), err))
		goto out;
	if (opts->refuse && refuse(&c, opts->refuse, err))
		goto out;
	if (apply_log(opts, &c, err))
		goto out;
	config_install(&c);
	ret = 0;
out:
	config_release(&c);
	return ret;
}

int app_reload(const struct app_opts *opts, struct buf *err)
{
	return app_setup(opts, err);
}

int app_open_db(struct db *db, bool migrate, struct buf *err)
{
	int applied;

	if (db_open(db, cfg_str("db.path"), err))
		return -1;
	if (migrate ? db_migrate(db, &applied, err) : db_check_version(db, err)) {
		db_close(db);
		return -1;
	}
	return 0;
}

void app_option(int c, const char *prog, const char *usage, char **argv, int optind,
		int optopt, struct app_opts *opts)
{
	switch (c) {
	case 'c': opts->config_path = optarg; return;
	case 'v': opts->verbosity++; return;
	case 'q': opts->verbosity = -1; return;
	case 'h': fputs(usage, stdout); exit(0);
	case 'V': printf("%s %s\n", prog, BUGBRIDGE_VERSION); exit(0);
	default: app_option_error(prog, argv, optind, optopt);
	}
}

int app_start(const char *prog, const struct app_opts *opts, struct db *db, bool migrate)
{
	struct buf err = BUF_INIT;
	int ret = 0;

	if (app_setup(opts, &err))
		ret = EXIT_USAGE;
	else if (app_open_db(db, migrate, &err))
		ret = 1;
	for (const char *p = err.ptr, *nl; ret && *p; p = nl + !!*nl) {
		nl = strchrnul(p, '\n');
		fprintf(stderr, "%s: %.*s\n", prog, (int)(nl - p), p);
	}
	buf_release(&err);
	return ret;
}

void app_usage_error(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: %s (try '%s --help')\n", prog, msg, prog);
	exit(EXIT_USAGE);
}

void app_option_error(const char *prog, char **argv, int optind, int optopt)
{
	char msg[256];

	if (optopt && optopt != '?')
		snprintf(msg, sizeof(msg), "option '-%c' is unknown or needs a value", optopt);
	else
		snprintf(msg, sizeof(msg), "option '%s' is unknown or needs a value",
			 argv[optind - 1]);
	app_usage_error(prog, msg);
}
