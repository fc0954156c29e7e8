/*
 * config: the INI-style configuration file, and the only global.
 *
 *   [section]
 *   key = value            # comment
 *   key = "quoted # value" # \" \\ \n escapes inside quotes
 *
 * Every key is declared once in config_keys.c with its default, type and
 * help text; the example file is generated from that table (`bugbridge
 * config example`), so documentation cannot drift from the code.  Unknown
 * sections and keys are errors (a typo must not silently become a default).
 * Each key may be overridden by BUGBRIDGE_<SECTION>_<KEY> in the environment.
 *
 * Secrets (flag CONF_SECRET) are never printed: config_dump() shows "(set)".
 * A secret key "x" may instead be given as "x_file", naming a file whose
 * first line is the secret.
 *
 * The global `cfg` is set once at start-up (config_install) and read-only
 * afterwards; SIGHUP installs a fresh one and keeps the old alive until exit,
 * so threads holding a string from the old one never see it freed.
 */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include <stdbool.h>
#include "buf.h"

enum conf_type { CONF_STR, CONF_INT, CONF_BOOL, CONF_ENUM, CONF_LIST };

#define CONF_SECRET 1

struct config_key {
	const char *section;
	const char *name;
	enum conf_type type;
	const char *def;
	const char *choices;	/* CONF_ENUM: "a|b|c" */
	int flags;
	const char *help;
};

extern const struct config_key config_keys[];
extern const int config_nkeys;

struct config {
	char **values;		/* one per config_keys[] entry, never NULL */
	char *path;		/* file it came from, or NULL */
	char **secrets;		/* the values of every secret (also from *_file), for redaction */
	int nsecrets;
};

/* Secrets shorter than this are not scrubbed from text (they would match anywhere). */
#define CONFIG_SECRET_MIN 6

#define CONFIG_MAX_LINE 4096

/* Defaults only. */
void config_init(struct config *c);
void config_release(struct config *c);
/*
 * Parse text (named `name` in messages) over c.  On error, returns -1 and
 * puts "name:line: what" in err; c may hold part of the file then, so
 * callers parse into a scratch config and install it only on success.
 */
int config_parse(struct config *c, const char *text, const char *name,
		 struct buf *err);
/* Defaults, then the file (if path is not NULL), then the environment. */
int config_load(struct config *c, const char *path, struct buf *err);
int config_apply_env(struct config *c, struct buf *err);

/* "section.key"; aborts on a key that is not in the table (a bug). */
const char *config_get(const struct config *c, const char *key);
long config_get_int(const struct config *c, const char *key);
bool config_get_bool(const struct config *c, const char *key);
/* The secret `key`, or the first line of the file `key_file`. */
int config_secret(const struct config *c, const char *key, struct buf *out,
		  struct buf *err);
/*
 * Fill c->secrets with the value of every CONF_SECRET key, read from its
 * *_file where it has one (config_load does this).  A file that cannot be
 * read is skipped here: using the secret reports it.
 */
void config_collect_secrets(struct config *c);
/* Every key with its value, secrets masked; example=true: the example file. */
void config_dump(const struct config *c, struct buf *out, bool example);
/*
 * c as a configuration file for a process that must hold no secret (the
 * dashboard's): every key with its value, but every secret and every
 * secret's *_file empty, except the secret `keep` ("web.token"), written as
 * its SHA-256, "sha256:" and 64 hex digits (read from its file if need be;
 * empty stays empty): enough to check a secret someone presents, not to
 * present it.  -1 with err when that file cannot be read.  The caller
 * wipes out when done with it.
 */
int config_write_restricted(const struct config *c, const char *keep, struct buf *out,
			    struct buf *err);

/*
 * config_workable.c: what keeps a program from working although every key
 * is well-formed (a LAVA backend whose workers would get relative URLs, a
 * tracker URL that is no http(s) URL, a secret file that cannot be read).
 * who: the programs asked about.  Appends one line per problem to why and
 * returns how many; the programs refuse to start on any (exit 2), `bugbridge
 * config check` prints them.
 */
#define CONFIG_DAEMON 1u	/* bugbridged */
#define CONFIG_RUNNER 2u	/* bugbridge-runner */
int config_unworkable(const struct config *c, unsigned who, struct buf *why);
/* http(s)://host... (file_ok: or file:///path): a URL a client elsewhere can use. */
bool config_absolute_url(const char *url, bool file_ok);

/* The process-wide configuration. */
extern const struct config *cfg;
void config_install(struct config *c);

static inline const char *cfg_str(const char *key) { return config_get(cfg, key); }
static inline long cfg_int(const char *key) { return config_get_int(cfg, key); }
static inline bool cfg_bool(const char *key) { return config_get_bool(cfg, key); }

/* Split a CONF_LIST value on commas, trimming blanks; free with config_list_free. */
char **config_split_list(const char *value, int *count);
void config_list_free(char **list);

#endif
