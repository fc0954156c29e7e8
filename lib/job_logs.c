/*
 * job_logs: the servable files of a job's log directory.  See job_logs.h.
 */
#include "job_logs.h"
#include "buf.h"
#include "xalloc.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool job_log_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n < 5 || n > 64 || name[0] == '.' || strcmp(name + n - 4, ".log"))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return !strstr(name, "..");
}

/* A regular file in dir (lstat: a symlink is not one). */
static bool regular_file(const char *dir, const char *name)
{
	struct buf path = BUF_INIT;
	struct stat sb;
	bool ok;

	buf_addf(&path, "%s/%s", dir, name);
	ok = !lstat(path.ptr, &sb) && S_ISREG(sb.st_mode);
	buf_release(&path);
	return ok;
}

void job_logs_list(const char *dir, char ***names, int *n)
{
	struct dirent **ents = NULL;
	int nents = dir && *dir == '/' ? scandir(dir, &ents, NULL, alphasort) : -1;
	size_t alloc = 0;

	*names = NULL;
	*n = 0;
	for (int i = 0; i < nents; i++) {
		const char *name = ents[i]->d_name;

		if (job_log_name_ok(name) && regular_file(dir, name)) {
			XGROW(*names, *n + 1, alloc);
			(*names)[(*n)++] = xstrdup(name);
		}
		free(ents[i]);
	}
	free(ents);
}

void job_logs_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
