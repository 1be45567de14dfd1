/*
 * kplan.c - the kernel plan's objects as tracefs text (see kplan.h).
 *
 * In: one struct kp_obj.  Out: the file it goes to, the line written and
 * the line that removes it.  This is the only place that knows tracefs's
 * syntax for ktap's objects (kernel Documentation/trace/kprobetrace.rst,
 * uprobetracer.rst, events.rst §5-6, histogram.rst §2): -p3 prints these
 * strings and the runtime writes them.
 */
#define _GNU_SOURCE
#include "kplan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growing string: open_memstream() keeps the appending simple. */
struct kp_buf {
	FILE *f;
	char *s;
	size_t len;
};

static int kp_open(struct kp_buf *b)
{
	b->s = NULL;
	b->f = open_memstream(&b->s, &b->len);
	return b->f ? 0 : -1;
}

/* Close @b; the string, or NULL (and nothing to free) on failure. */
static char *kp_close(struct kp_buf *b)
{
	bool bad = ferror(b->f);

	if (fclose(b->f) != 0 || bad) {
		free(b->s);
		errno = ENOMEM;
		return NULL;
	}
	return b->s;
}

static char *kp_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *kp_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

const char *kp_dyn_file(const struct kp_dynevent *d)
{
	if (d->kind == KP_EPROBE || d->kind == KP_TPROBE)	/* no file of their own */
		return "dynamic_events";
	return d->kind == KP_UPROBE || d->kind == KP_URETPROBE ? "uprobe_events" :
								 "kprobe_events";
}

/* "p:G/N TARGET a=FETCH:TYPE ...", "r64:G/N ...", "e:...", "t:...". */
static char *kp_dyn_line(const struct kp_dynevent *d)
{
	struct kp_buf b;
	bool ret = d->kind == KP_KRETPROBE || d->kind == KP_URETPROBE;
	unsigned i;

	if (kp_open(&b) != 0)
		return NULL;
	fputc(d->kind == KP_EPROBE ? 'e' : d->kind == KP_TPROBE ? 't' : ret ? 'r' : 'p', b.f);
	if (d->kind == KP_KRETPROBE && d->maxactive)
		fprintf(b.f, "%u", d->maxactive);
	fprintf(b.f, ":%s/%s %s", d->group, d->name, d->target);
	if (d->ref_ctr_offset)
		fprintf(b.f, "(0x%llx)", d->ref_ctr_offset);
	for (i = 0; i < d->nargs; i++) {
		const struct kp_arg *a = &d->args[i];

		fprintf(b.f, " %s=%s%s%s", a->name, a->fetch, a->type ? ":" : "",
			a->type ? a->type : "");
	}
	return kp_close(&b);
}

static const char *const kp_mod_names[] = {
	[KP_KEY_NORMAL] = "", [KP_KEY_HEX] = ".hex", [KP_KEY_SYM] = ".sym",
	[KP_KEY_SYM_OFFSET] = ".sym-offset", [KP_KEY_SYSCALL] = ".syscall",
	[KP_KEY_EXECNAME] = ".execname", [KP_KEY_LOG2] = ".log2",
	[KP_KEY_USECS] = ".usecs", [KP_KEY_BUCKETS] = ".buckets",
};

static const char *const kp_handler_names[] = {
	[KP_ON_MATCH] = "onmatch", [KP_ON_MAX] = "onmax", [KP_ON_CHANGE] = "onchange",
};

static const char *const kp_action_names[] = {
	[KP_ACT_TRACE] = "trace", [KP_ACT_SAVE] = "save", [KP_ACT_SNAPSHOT] = "snapshot",
};

/* ":onmatch(sys.ev).trace(synth,$a,b)" */
static void kp_hist_action(FILE *f, const struct kp_hist_action *a)
{
	const char *sep = "";
	unsigned i;

	fprintf(f, ":%s(%s).%s(", kp_handler_names[a->handler], a->arg,
		kp_action_names[a->action]);
	if (a->action == KP_ACT_TRACE) {
		fputs(a->synth, f);
		sep = ",";
	}
	for (i = 0; i < a->nparams; i++, sep = ",")
		fprintf(f, "%s%s", sep, a->params[i]);
	fputc(')', f);
}

/*
 * hist:keys=K[.mod],...[:VAR=EXPR...][:vals=V,...][:sort=S[.descending],...]
 *   [:size=N][:name=NAME][:clock=C][:pause][:HANDLER.ACTION...]   (histogram.rst §2)
 */
static int kp_hist_text(FILE *f, const struct kp_hist *h)
{
	unsigned i;

	if (!h->nkeys)
		return -1;
	fputs("hist:keys=", f);
	for (i = 0; i < h->nkeys; i++) {
		fprintf(f, "%s%s%s", i ? "," : "", h->keys[i].field,
			kp_mod_names[h->keys[i].mod]);
		if (h->keys[i].mod == KP_KEY_BUCKETS)
			fprintf(f, "=%u", h->keys[i].buckets);
	}
	for (i = 0; i < h->nvars; i++)
		fprintf(f, ":%s=%s", h->vars[i].name, h->vars[i].expr);
	for (i = 0; i < h->nvals; i++)
		fprintf(f, "%s%s", i ? "," : ":vals=", h->vals[i]);
	for (i = 0; i < h->nsort; i++)
		fprintf(f, "%s%s%s", i ? "," : ":sort=", h->sort[i].field,
			h->sort[i].descending ? ".descending" : "");
	if (h->size)
		fprintf(f, ":size=%u", h->size);
	if (h->name)
		fprintf(f, ":name=%s", h->name);
	if (h->clock)
		fprintf(f, ":clock=%s", h->clock);
	if (h->nohitcount)
		fputs(":nohitcount", f);
	if (h->paused)
		fputs(":pause", f);
	for (i = 0; i < h->nactions; i++)
		kp_hist_action(f, &h->actions[i]);
	return 0;
}

static const char *const kp_trig_names[] = {
	[KP_T_STACKTRACE] = "stacktrace", [KP_T_TRACEON] = "traceon",
	[KP_T_TRACEOFF] = "traceoff", [KP_T_SNAPSHOT] = "snapshot",
	[KP_T_ENABLE_EVENT] = "enable_event", [KP_T_DISABLE_EVENT] = "disable_event",
	[KP_T_HIST] = "hist",
};

/*
 * A trigger without its filter: "stacktrace:5", "enable_event:sys:ev",
 * "hist:keys=...".  After a '!' this removes the trigger, except a hist
 * trigger's: see kp_render_trigger().
 */
static char *kp_trigger_base(const struct kp_trigger *t)
{
	struct kp_buf b;

	if (kp_open(&b) != 0)
		return NULL;
	if (t->kind == KP_T_HIST) {
		if (kp_hist_text(b.f, &t->hist) != 0) {
			fclose(b.f);
			free(b.s);
			errno = EINVAL;
			return NULL;
		}
	} else {
		fputs(kp_trig_names[t->kind], b.f);
		if (t->kind == KP_T_ENABLE_EVENT || t->kind == KP_T_DISABLE_EVENT)
			fprintf(b.f, ":%s:%s", t->other_system, t->other_event);
		if (t->count)
			fprintf(b.f, ":%u", t->count);
	}
	return kp_close(&b);
}

static const char *const kp_hist_cmd_names[] = {
	[KP_HIST_PAUSE] = "pause", [KP_HIST_CONT] = "cont", [KP_HIST_CLEAR] = "clear",
};

char *kp_hist_cmd_line(const struct kp_obj *o, enum kp_hist_cmd cmd)
{
	const struct kp_trigger *t = &o->u.trigger;
	struct kp_trigger plain;
	char *base, *line;

	if (o->kind != KP_TRIGGER || t->kind != KP_T_HIST) {
		errno = EINVAL;
		return NULL;
	}
	plain = *t;
	plain.hist.paused = false;	/* the command says which state */
	base = kp_trigger_base(&plain);
	if (!base)
		return NULL;
	line = t->filter ? kp_printf("%s:%s if %s", base, kp_hist_cmd_names[cmd], t->filter) :
			   kp_printf("%s:%s", base, kp_hist_cmd_names[cmd]);
	free(base);
	return line;
}

/* "NAME TYPE FIELD; TYPE FIELD" (events/synthetic). */
static char *kp_synth_line(const struct kp_synth *s)
{
	struct kp_buf b;
	unsigned i;

	if (kp_open(&b) != 0)
		return NULL;
	fputs(s->name, b.f);
	for (i = 0; i < s->nfields; i++)
		fprintf(b.f, "%s %s %s", i ? ";" : "", s->fields[i].type, s->fields[i].name);
	return kp_close(&b);
}

static int kp_render_dyn(const struct kp_dynevent *d, struct kp_text *out)
{
	out->global = true;
	out->path = strdup(kp_dyn_file(d));
	out->line = kp_dyn_line(d);
	out->undo = kp_printf("-:%s/%s", d->group, d->name);
	return out->path && out->line && out->undo ? 0 : -1;
}

static int kp_render_trigger(const struct kp_trigger *t, struct kp_text *out)
{
	char *base = kp_trigger_base(t);

	if (!base)
		return -1;
	out->path = kp_printf("events/%s/%s/trigger", t->system, t->event);
	out->line = t->filter ? kp_printf("%s if %s", base, t->filter) : strdup(base);
	/* The kernel finds the hist trigger a removal names by its filter
	   too (hist_unregister_trigger() matches with ignore_filter false)
	   and reports success when none matches: without the filter the
	   trigger stayed, and kept a kprobe event or the variables a
	   synthetic event's onmatch reads busy.  Other triggers are found by
	   their command alone. */
	if (t->kind == KP_T_HIST && t->filter)
		out->undo = kp_printf("!%s if %s", base, t->filter);
	else
		out->undo = kp_printf("!%s", base);
	free(base);
	return out->path && out->line && out->undo ? 0 : -1;
}

static int kp_render_option(const struct kp_option *o, struct kp_text *out)
{
	if (o->kind == KP_OPT_EVENT_PID) {	/* kplan_apply.c lists the threads */
		out->path = strdup("set_event_pid");
		out->line = strdup("$TARGET");
		return out->path && out->line ? 0 : -1;
	}
	if (o->kind == KP_OPT_BUFFER_KB) {
		out->path = strdup("buffer_size_kb");
		out->line = kp_printf("%u", o->kb);
		return out->path && out->line ? 0 : -1;
	}
	out->path = kp_printf("options/%s", o->name);
	out->line = strdup(o->on ? "1" : "0");
	out->undo = strdup(o->on ? "0" : "1");
	return out->path && out->line && out->undo ? 0 : -1;
}

int kp_render(const struct kp_obj *o, struct kp_text *out)
{
	int rc = -1;

	memset(out, 0, sizeof(*out));
	switch (o->kind) {
	case KP_DYNEVENT:
		rc = kp_render_dyn(o->u.dyn, out);
		break;
	case KP_ENABLE:
		out->path = kp_printf("events/%s/%s/enable", o->u.enable.system,
				      o->u.enable.event);
		out->line = strdup("1");
		out->undo = strdup("0");
		rc = out->path && out->line && out->undo ? 0 : -1;
		break;
	case KP_FILTER:
		out->path = kp_printf("events/%s/%s/filter", o->u.filter.system,
				      o->u.filter.event);
		out->line = strdup(o->u.filter.expr);
		out->undo = strdup("0");
		rc = out->path && out->line && out->undo ? 0 : -1;
		break;
	case KP_TRIGGER:
		rc = kp_render_trigger(&o->u.trigger, out);
		break;
	case KP_SYNTH:
		out->global = true;
		out->path = strdup("synthetic_events");
		out->line = kp_synth_line(&o->u.synth);
		out->undo = kp_printf("!%s", o->u.synth.name);
		rc = out->path && out->line && out->undo ? 0 : -1;
		break;
	case KP_OPTION:
		rc = kp_render_option(&o->u.option, out);
		break;
	case KP_PERF:	/* shown, not written: the perf event's fd goes at exit */
		out->global = true;
		out->path = kp_printf("events/%s/%s/id", o->u.perf.system, o->u.perf.event);
		out->line = strdup("perf_event_open(PERF_TYPE_TRACEPOINT, disabled)");
		rc = out->path && out->line ? 0 : -1;
		break;
	}
	if (rc != 0) {
		int e = errno == EINVAL ? EINVAL : ENOMEM;

		kp_text_free(out);
		errno = e;
	}
	return rc;
}

void kp_text_free(struct kp_text *t)
{
	free(t->path);
	free(t->line);
	free(t->undo);
	memset(t, 0, sizeof(*t));
}

/* The placeholder at @text, written into @out (room for 48 bytes);
   returns its length in @text, 0 when there is none. */
static size_t kp_placeholder(const char *text, const struct kp_env *env, char *out,
			     size_t *n)
{
	const char *session = env ? env->session : NULL;
	unsigned long long d;
	char *end;
	int64_t m;

	if (!strncmp(text, "$TARGET", 7)) {
		*n += (size_t)sprintf(out, "%d", env ? env->target : 0);
		return 7;
	}
	if (!strncmp(text, "$KTAP", 5)) {
		*n += (size_t)sprintf(out, "%d", (int)getpid());
		return 5;
	}
	if (!strncmp(text, "$PID", 4)) {
		if (session && strlen(session) < 40)
			*n += (size_t)sprintf(out, "%s", session + 5);
		else
			*n += (size_t)sprintf(out, "%d", (int)getpid());
		return 4;
	}
	if (!strncmp(text, "$WALL%", 6) && text[6] >= '1' && text[6] <= '9') {
		d = strtoull(text + 6, &end, 10);
		if (d > 1000000000000000000ull)
			return 0;
		m = (env ? env->wall_ns : 0) % (int64_t)d;
		*n += (size_t)sprintf(out, "%lld", (long long)(m < 0 ? m + (int64_t)d : m));
		return (size_t)(end - text);
	}
	return 0;
}

char *kp_expand(const char *text, const struct kp_env *env)
{
	size_t len = strlen(text) + 1, n = 0, k;
	char *out = malloc(len + 64), *grown;

	while (out && *text) {
		if (n + 48 > len + 64) {
			len *= 2;
			grown = realloc(out, len + 64);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		k = kp_placeholder(text, env, out + n, &n);
		if (!k)
			out[n++] = *text++;
		text += k;
	}
	if (out)
		out[n] = '\0';
	return out;
}
