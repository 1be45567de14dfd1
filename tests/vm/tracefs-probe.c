/* tracefs-probe - a small dynamically linked libtracefs/libtraceevent user
 * for the ktap VM self-test (tests/vm/vm-selftest.sh).
 *
 *   tracefs-probe           print "tracing_dir=DIR events=N sched=M": the
 *                           tracefs directory libtracefs finds, the number
 *                           of lines of available_events, and the number of
 *                           sched events libtraceevent parsed
 *   tracefs-probe --offset  print the file offset (0x...) of
 *                           ktap_probe_target, for a uprobe on this file
 *   tracefs-probe --target  call ktap_probe_target once
 *
 * If it runs in the guest at all, mkinitramfs.sh shipped its libraries
 * (libtracefs, libtraceevent, libc) and the dynamic loader correctly.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tracefs.h>

volatile int ktap_probe_sink;

__attribute__((noinline, used)) int ktap_probe_target(int x)
{
	ktap_probe_sink += x;
	return ktap_probe_sink;
}

/* File offset of ktap_probe_target, from the mapping that holds it. */
static int print_offset(void)
{
	uintptr_t addr = (uintptr_t)&ktap_probe_target;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps) {
		perror("/proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, off;

		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    addr >= start && addr < end) {
			printf("0x%lx\n", (unsigned long)(addr - start + off));
			fclose(maps);
			return 0;
		}
	}
	fclose(maps);
	fprintf(stderr, "ktap_probe_target not found in /proc/self/maps\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *dir;
	const char *systems[] = { "sched", NULL };
	struct tep_handle *tep;
	char *buf;
	int size = 0, lines = 0, sched = -1;

	if (argc > 1 && strcmp(argv[1], "--offset") == 0)
		return print_offset();
	if (argc > 1 && strcmp(argv[1], "--target") == 0)
		return ktap_probe_target(1) == 1 ? 0 : 1;

	dir = tracefs_tracing_dir();
	if (!dir) {
		fprintf(stderr, "tracefs_tracing_dir: no tracefs\n");
		return 1;
	}
	buf = tracefs_instance_file_read(NULL, "available_events", &size);
	if (!buf) {
		fprintf(stderr, "cannot read available_events\n");
		return 1;
	}
	for (int i = 0; i < size; i++)
		lines += buf[i] == '\n';
	free(buf);
	tep = tracefs_local_events_system(NULL, systems);
	if (tep) {
		sched = tep_get_events_count(tep);
		tep_free(tep);
	}
	printf("tracing_dir=%s events=%d sched=%d\n", dir, lines, sched);
	return lines > 0 && sched > 0 ? 0 : 1;
}
