/*
 * bugbridge db: create or upgrade the database schema.
 */
#include "app.h"
#include "cli.h"
#include "config.h"
#include "db.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: bugbridge db migrate   apply pending schema migrations\n"
	"       bugbridge db version   print the database's and our schema version\n"
	"\n"
	"The database is [db] path of the configuration.  Each migration runs in\n"
	"one transaction; a database from a newer bugbridge is refused.\n";

static int db_cmd_migrate(void)
{
	struct buf err = BUF_INIT;
	struct db db;
	int applied, ret = 1;

	if (db_open(&db, cfg_str("db.path"), &err))
		goto out;
	if (db_migrate(&db, &applied, &err)) {
		db_close(&db);
		goto out;
	}
	if (applied)
		printf("applied %d migration%s; schema version %d\n", applied,
		       applied == 1 ? "" : "s", db_version(&db));
	else
		printf("database is up to date (schema version %d)\n", db_version(&db));
	db_close(&db);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
	buf_release(&err);
	return ret;
}

static int db_cmd_version(void)
{
	struct buf err = BUF_INIT;
	struct db db;

	if (db_open(&db, cfg_str("db.path"), &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		buf_release(&err);
		return 1;
	}
	printf("database %d, bugbridge %d\n", db_version(&db), db_latest_version());
	db_close(&db);
	return 0;
}

int cmd_db(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv, usage))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "migrate"))
		return db_cmd_migrate();
	if (argc == 2 && !strcmp(argv[1], "version"))
		return db_cmd_version();
	fputs(usage, stderr);
	return EXIT_USAGE;
}
