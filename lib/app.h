/*
 * app: what every bugbridge program does at start-up, in one place.
 *
 * Finds the config (--config, else $BUGBRIDGE_CONFIG, else
 * /etc/bugbridge/bugbridge.conf when it exists, else built-in defaults),
 * installs it as the global, opens the log.  Errors are one line; the
 * programs exit 2 for them, as docs/configuration.md promises.
 */
#ifndef BB_APP_H
#define BB_APP_H

#include "buf.h"
#include "db.h"

#define BUGBRIDGE_VERSION "0.1.0"
#define EXIT_USAGE 2

struct app_opts {
	const char *config_path;
	int verbosity;		/* -1 quiet, 0 normal, 1+ verbose */
	unsigned refuse;	/* CONFIG_DAEMON, CONFIG_RUNNER (config.h): a configuration
				   that program cannot work with is an error */
};

/* The options every program takes, for its getopt_long tables. */
#define APP_SHORTOPTS "c:vqhV"
#define APP_LONGOPTS \
	{ "config", required_argument, NULL, 'c' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }

/*
 * Act on one of the common options (getopt_long's answer c): fill opts;
 * -h prints usage and -V the version, and exit 0; anything else is a usage
 * error that names the option (exit 2).
 */
void app_option(int c, const char *prog, const char *usage, char **argv, int optind,
		int optopt, struct app_opts *opts);

/*
 * Start-up of a program that uses the database: app_setup, then open it
 * (migrating when asked).  Returns 0, or the exit code after printing
 * "prog: reason" (2 for the configuration, 1 for the database).
 */
int app_start(const char *prog, const struct app_opts *opts, struct db *db, bool migrate);

/*
 * Load and install the configuration and open the log; err on failure (a
 * line per problem: opts->refuse's config_unworkable() may find several).
 */
int app_setup(const struct app_opts *opts, struct buf *err);
/* Re-read the config (SIGHUP); the old one stays installed on failure. */
int app_reload(const struct app_opts *opts, struct buf *err);
/* Open the configured database and check (or apply) its schema. */
int app_open_db(struct db *db, bool migrate, struct buf *err);
/* After getopt_long returned '?' or ':': name the bad option and exit 2. */
__attribute__((noreturn)) void app_option_error(const char *prog, char **argv,
						 int optind, int optopt);
/* Print "bugbridge: msg" to stderr and exit(EXIT_USAGE). */
__attribute__((noreturn)) void app_usage_error(const char *prog, const char *msg);

#endif
