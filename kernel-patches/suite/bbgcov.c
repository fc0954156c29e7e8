/*
 * bbgcov.c: hand the kernel's gcov data to the host.
 *
 * A kernel built with CONFIG_GCOV_KERNEL (the runner's configs/gcov.config;
 * the harness makes drivers/scsi profile itself, the runner the other
 * objects a patch touches) lists one .gcda file per profiled object under
 * /sys/kernel/debug/gcov/<build dir>/.  After the suite, each is printed
 * on the console, base64, named by its path below the gcov directory (the
 * build directory's path first, which the guest does not know: the host
 * keeps the tail it asked for), as
 *
 *   #bbgcov file bb/src/out/drivers/scsi/sd.gcda 4242
 *   #g <76 base64 characters>
 *   ...
 *   #bbgcov end
 *
 * None of these lines is KTAP (no "# " diagnostic, no result), so the
 * report stays what it was; the runner decodes them into the build
 * directory beside the .gcno files and asks gcov which lines ran.
 * Without /sys/kernel/debug/gcov (a kernel without gcov) nothing is printed.
 */
#include "bbsuite.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GCOV_ROOT "/sys/kernel/debug/gcov"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(const unsigned char *p, size_t n)
{
	char line[80];
	size_t out = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		line[out++] = b64[v >> 18 & 63];
		line[out++] = b64[v >> 12 & 63];
		line[out++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		line[out++] = i + 2 < n ? b64[v & 63] : '=';
		if (out == 76 || i + 3 >= n) {
			line[out] = '\0';
			printf("#g %s\n", line);
			out = 0;
		}
	}
}

/* debugfs files report size 0: read until EOF. */
static unsigned char *slurp(const char *path, size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	unsigned char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			unsigned char *bigger = realloc(buf, cap *= 2);

			if (!bigger) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = bigger;
		}
	}
	close(fd);
	*len = n;
	return buf;
}

static int one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(GCOV_ROOT);
	size_t len = strlen(path), n;
	unsigned char *data;

	(void)sb;
	(void)ftw;
	if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".gcda") || rel[0] != '/')
		return 0;
	data = slurp(path, &n);
	if (!data)
		return 0;
	printf("#bbgcov file %s %zu\n", rel + 1, n);
	put_base64(data, n);
	printf("#bbgcov end\n");
	free(data);
	return 0;
}

void gcov_dump(void)
{
	if (access(GCOV_ROOT, F_OK))
		return;
	fflush(stdout);
	nftw(GCOV_ROOT, one, 16, FTW_PHYS);
	fflush(stdout);
}
