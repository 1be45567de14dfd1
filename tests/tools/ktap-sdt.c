/*
 * ktap-sdt.c - the program the SDT marker tests probe (tests/harness/sdt.sh,
 * sdt-plan.sh), built with -g -O0 against <sys/sdt.h> (systemtap-sdt-dev).
 *
 * Fires ktap:tick three times with (7 * i, "tick-I"), then ktap:consts
 * with a constant, a global read %rip-relative and a negative short,
 * then, only when its semaphore is set (a tracer attached to it),
 * ktap:guarded with 42.  Says on stderr whether the semaphore was set,
 * so a test can tell that the kernel counted it.  Every marker has a
 * semaphore (<sys/sdt.h> decides that per file).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <stdio.h>

#define KTAP_SEM(name) \
	__extension__ unsigned short ktap_##name##_semaphore \
	__attribute__((unused, section(".probes")))
KTAP_SEM(tick);
KTAP_SEM(consts);
KTAP_SEM(guarded);

long ktap_sdt_global = 1234567;

int main(void)
{
	char name[16];
	short neg = -3;
	int i;

	for (i = 1; i <= 3; i++) {
		snprintf(name, sizeof(name), "tick-%d", i);
		DTRACE_PROBE2(ktap, tick, 7 * i, name);
	}
	DTRACE_PROBE3(ktap, consts, 42, ktap_sdt_global, neg);
	if (ktap_guarded_semaphore) {
		fprintf(stderr, "guarded: semaphore set\n");
		DTRACE_PROBE1(ktap, guarded, 42);
	} else {
		fprintf(stderr, "guarded: semaphore not set\n");
	}
	return 0;
}
