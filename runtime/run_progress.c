/*
 * run_progress.c - -v's progress line (run_progress.h).
 *
 * A long run with -v says once a second how it goes, in one terse line
 * on stderr, as stap's -v reports each pass:
 *
 *   Progress: 3s: 15234 events/s, 0 lost, maps: counts=37 starts=2
 *
 * events/s is over the last interval; lost is the total so far (the
 * ring buffer's overruns and drops, as -v's final "handled" line); maps
 * are the user-space entries of each global array (one kept in a
 * kernel hist is read only at its end, so it is left out).  run.c calls
 * run_progress_tick() from its loop, also while records keep coming.
 */
#include "run_progress.h"
#include "ir.h"
#include "reader.h"
#include "store.h"

#include <inttypes.h>

void run_progress_init(struct run_progress *p, bool on, uint64_t now)
{
	*p = (struct run_progress){ on, now, now + RUN_PROGRESS_NS, now, 0 };
}

int run_progress_timeout(const struct run_progress *p, uint64_t now, int timeout_ms)
{
	int t;

	if (!p->on)
		return timeout_ms;
	t = p->next <= now ? 0 : (int)((p->next - now + 999999) / 1000000);
	return timeout_ms < 0 || t < timeout_ms ? t : timeout_ms;
}

/* Is global @g kept in a kernel hist (its store is empty until read)? */
static bool run_progress_in_kernel(const struct ir_prog *prog, unsigned g)
{
	unsigned i;

	for (i = 0; i < prog->nhreads; i++)
		if (prog->hreads[i].global == g)
			return true;
	return false;
}

static void run_progress_maps(const struct ir_prog *prog, struct rt_store *store, FILE *out)
{
	const char *sep = ", maps: ";
	unsigned g;

	for (g = 0; store && g < prog->nglobals; g++) {
		if (!prog->globals[g].is_array || run_progress_in_kernel(prog, g))
			continue;
		fprintf(out, "%s%s=%zu", sep, prog->globals[g].name, st_entries(store, g));
		sep = " ";
	}
}

void run_progress_tick(struct run_progress *p, uint64_t now, uint64_t nevents,
		       struct rdr *rdr, const struct ir_prog *prog,
		       struct rt_store *store, FILE *out)
{
	struct rdr_stats st = { 0 };
	uint64_t dt;

	if (!p->on || now < p->next)
		return;
	dt = now - p->last_at;
	if (rdr)
		rdr_get_stats(rdr, &st);
	fprintf(out, "Progress: %" PRIu64 "s: %" PRIu64 " events/s, %" PRIu64 " lost",
		(now - p->start) / RUN_PROGRESS_NS,
		dt ? (nevents - p->last_events) * RUN_PROGRESS_NS / dt : 0, st.lost);
	run_progress_maps(prog, store, out);
	fputc('\n', out);
	fflush(out);
	p->last_at = now;
	p->last_events = nevents;
	/* the next whole second after now (a slow handler skips lines) */
	p->next += ((now - p->next) / RUN_PROGRESS_NS + 1) * RUN_PROGRESS_NS;
}
