/*
 * ktap-tfs-snapshot.c - print the tracefs state a ktap run must leave
 * unchanged (tfs_snapshot(), tfs_snapshot.h); the live tests compare its
 * output before and after runs.
 */
#include "tfs_snapshot.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char *s = tfs_snapshot(NULL);

	if (!s) {
		perror("tfs_snapshot");
		return 1;
	}
	fputs(s, stdout);
	free(s);
	return 0;
}
