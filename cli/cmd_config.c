/*
 * bugbridge config: show the effective configuration (secrets masked),
 * print the example file, or check it.
 *
 * `config check` checks what the configuration reaches, a line each, as
 * the folder that owns each thing checks it (tracker_check, mail_check,
 * runner_check: the same clients and probes the programs use); --offline
 * only the file.  Exit 0 when nothing failed (warnings allowed), 1 when a
 * check failed, 2 when bugbridged or bugbridge-runner would refuse the
 * configuration at start (config_unworkable).
 */
#include "app.h"
#include "cli.h"
#include "check.h"
#include "config.h"
#include "db.h"
#include "log.h"
#include "mail.h"
#include "runner.h"
#include "tracker.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: bugbridge config show      the effective configuration, secrets masked\n"
	"       bugbridge config example   every key with its default and help\n"
	"       bugbridge config check [--offline]\n"
	"                                  check what the configuration reaches, a line\n"
	"                                  each (the database, the tracker and its key,\n"
	"                                  SMTP, the runner's directories, tarballs and\n"
	"                                  sandbox, the LAVA lab); --offline: the file.\n"
	"                                  Exit 0: all ok, 1: a check failed, 2: the\n"
	"                                  programs would refuse the configuration\n";

/* The file, and what bugbridged and bugbridge-runner would refuse in it. */
static int check_file(struct check *c)
{
	struct buf why = BUF_INIT;
	int n = config_unworkable(cfg, CONFIG_DAEMON | CONFIG_RUNNER, &why);

	check_ok(c, "configuration", "%s loads", cfg->path ? cfg->path : "the built-in defaults");
	for (char *p = why.ptr, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		check_fail(c, "configuration", "%s", p);
	}
	buf_release(&why);
	return n;
}

/* The database: there, readable, and of this bugbridge's schema. */
static void check_database(struct check *c)
{
	const char *path = cfg_str("db.path");
	struct buf err = BUF_INIT;
	struct db db = { 0 };
	int have, want = db_latest_version();

	if (access(path, F_OK)) {
		check_warn(c, "database", "'%s' does not exist yet: bugbridged creates it at start"
			   " (or bugbridge db migrate)", path);
	} else if (db_open(&db, path, &err) || (have = db_version(&db)) < 0) {
		check_fail(c, "database", "%s", err.len ? err.ptr : db_errmsg(&db));
	} else if (have > want) {
		check_fail(c, "database", "'%s' has schema %d, newer than this bugbridge's %d",
			   path, have, want);
	} else if (have < want) {
		check_warn(c, "database", "'%s' has schema %d, this bugbridge's is %d: bugbridged"
			   " migrates it at start; bugbridge-runner refuses it until then", path,
			   have, want);
	} else if (access(path, W_OK)) {
		check_fail(c, "database", "'%s' is not writable: %s", path, strerror(errno));
	} else {
		check_ok(c, "database", "%s (schema %d)", path, have);
	}
	db_close(&db);
	buf_release(&err);
}

static int check(bool offline)
{
	struct check c = CHECK_INIT(stdout);
	int refused;

	/* every finding is a line; the log would only say it twice (-v: it does) */
	if (log_get_level() < LOG_DEBUG)
		log_open("/dev/null", LOG_ERROR);
	refused = check_file(&c);
	if (!offline) {
		check_database(&c);
		tracker_check(&c);
		mail_check(&c);
		runner_check(&c);
	}
	if (!c.failed) {
		printf("configuration ok%s%s%s\n", cfg->path ? ": " : " (built-in defaults)",
		       cfg->path ? cfg->path : "", c.warned ? " (see the warnings)" : "");
		return 0;
	}
	fprintf(stderr, "bugbridge: config check: %d failed%s\n", c.failed,
		refused ? "; bugbridged and bugbridge-runner refuse this configuration" : "");
	return refused ? EXIT_USAGE : 1;
}

int cmd_config(int argc, char **argv)
{
	struct buf out = BUF_INIT;
	bool offline = argc == 3 && !strcmp(argv[2], "--offline");

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	if (argc != 2 && !(offline && !strcmp(argv[1], "check"))) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "show")) {
		if (cfg->path)
			printf("# from %s and the environment\n", cfg->path);
		config_dump(cfg, &out, false);
	} else if (!strcmp(argv[1], "example")) {
		config_dump(cfg, &out, true);
	} else if (!strcmp(argv[1], "check")) {
		return check(offline);
	} else {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	fputs(out.ptr, stdout);
	buf_release(&out);
	return 0;
}
