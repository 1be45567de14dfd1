/*
 * ir_dump.c - -p3: the plan as text.  First the kernel objects as the
 * tracefs writes that create them (kp_render(); paths relative to the
 * tracing directory; ktap_$PID is the instance of the running ktap,
 * $TARGET the pid of -x/-c), then every probe's and function's code.
 */
#include "ir.h"

#include <inttypes.h>

enum { IRO_0, IRO_A, IRO_B, IRO_AN, IRO_AB, IRO_ANB, IRO_NB };

static const struct {
	const char *mnem;
	int operands;
} ir_info[] = {
#define IR(name, mnem, operands) { mnem, IRO_##operands },
#include "ir.def"
#undef IR
};

static const char *const ir_builtins[] = {
#define BI(id, name, ret, args, flags) name,
#include "builtins.def"
#undef BI
};

const char *ir_builtin_name(unsigned id)
{
	return id < sizeof(ir_builtins) / sizeof(ir_builtins[0]) ? ir_builtins[id] : "?";
}

const char *ir_op_name(enum ir_op op)
{
	return op < IR__COUNT ? ir_info[op].mnem : "?";
}

static void ir_dump_value(FILE *out, const struct rt_value *v)
{
	uint32_t i;

	if (v->type == RT_LONG) {
		fprintf(out, "%" PRId64, v->l);
		return;
	}
	fputc('"', out);
	for (i = 0; i < v->len; i++) {
		unsigned char ch = (unsigned char)v->s[i];

		if (ch == '\n')
			fputs("\\n", out);
		else if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 32 || ch >= 127)
			fprintf(out, "\\%03o", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static void ir_dump_insn(FILE *out, const struct ir_prog *p,
			 const struct ir_insn *in, unsigned pc)
{
	fprintf(out, "  %4u  %-8s", pc, ir_op_name((enum ir_op)in->op));
	switch (ir_info[in->op].operands) {
	case IRO_A: fprintf(out, " %u", in->a); break;
	case IRO_B: fprintf(out, " %d", in->b); break;
	case IRO_AN: fprintf(out, " %u n=%u", in->a, in->n); break;
	case IRO_AB: fprintf(out, " %u %d", in->a, in->b); break;
	case IRO_ANB: fprintf(out, " %u n=%u %d", in->a, in->n, in->b); break;
	case IRO_NB: fprintf(out, " %d n=%u", in->b, in->n); break;
	default: break;
	}
	if (in->op == IR_PUSHC && in->b >= 0 && (unsigned)in->b < p->nconsts) {
		fputs("\t; ", out);
		ir_dump_value(out, &p->consts[in->b]);
	} else if ((in->op == IR_LDG || in->op == IR_STG || in->op == IR_AGET ||
		    in->op == IR_ASET || in->op == IR_AOP || in->op == IR_OPG ||
		    in->op == IR_SADD || in->op == IR_ASADD) && in->a < p->nglobals) {
		fprintf(out, "\t; %s", p->globals[in->a].name);
	} else if (in->op == IR_CALL && (unsigned)in->b < p->nfuncs) {
		fprintf(out, "\t; %s", p->funcs[in->b].name);
	} else if (in->op == IR_BI) {
		fprintf(out, "\t; %s", ir_builtin_name(in->a));
	}
	fputc('\n', out);
}

static void ir_dump_code(FILE *out, const struct ir_prog *p,
			 const struct ir_code *c)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		ir_dump_insn(out, p, &c->insns[i], i);
}

/* Each kernel object as the write that creates it (kp_render()). */
static void ir_dump_writes(FILE *out, const struct ir_prog *p)
{
	struct kp_text t;
	unsigned i;

	fputs("# kernel: tracefs writes, in order\n", out);
	fputs("mkdir instances/ktap_$PID\n", out);
	for (i = 0; i < p->kplan.n; i++) {
		if (kp_render(&p->kplan.objs[i], &t) != 0) {
			fprintf(out, "# object %u: cannot be written\n", i);
			continue;
		}
		if (p->kplan.objs[i].kind == KP_PERF)	/* held open, not written */
			fprintf(out, "open %s '%s'\n", t.path, t.line);
		else
			fprintf(out, "write %s%s '%s'\n", t.global ? "" : "instances/ktap_$PID/",
				t.path, t.line);
		kp_text_free(&t);
	}
}

static const char *const ir_kind_names[] = {
	[IR_P_BEGIN] = "begin", [IR_P_END] = "end", [IR_P_ERROR] = "error",
	[IR_P_EVENT] = "event", [IR_P_TIMER] = "timer",
	[IR_P_INPUT_CHAR] = "input.char", [IR_P_INPUT_LINE] = "input.line",
	[IR_P_PROMETHEUS] = "prometheus",
	[IR_P_PROCFS_READ] = "procfs read", [IR_P_PROCFS_WRITE] = "procfs write",
};

static void ir_dump_probe(FILE *out, const struct ir_prog *p, unsigned i)
{
	const struct ir_probe *pr = &p->probes[i];
	unsigned k;

	fprintf(out, "probe %u %s /* %s", i, pr->pp, ir_kind_names[pr->kind]);
	if (pr->kind == IR_P_EVENT)
		fprintf(out, " %s:%s", p->events[pr->event].system,
			p->events[pr->event].name);
	if (pr->trigger)
		fprintf(out, " on ktap's own %s:%s record", p->events[pr->event].system,
			p->events[pr->event].name);
	if (pr->kind == IR_P_TIMER)
		fprintf(out, " every %" PRId64 " ns", pr->period_ns);
	if (pr->kind == IR_P_PROCFS_READ || pr->kind == IR_P_PROCFS_WRITE)
		fprintf(out, " of FIFO %s", pr->procfs_file);
	if (pr->kind == IR_P_PROCFS_READ && pr->procfs_max)
		fprintf(out, ", maxsize %" PRId64, pr->procfs_max);
	if (pr->entry_of)
		fprintf(out, ", @entry values of probe %u", pr->entry_of - 1);
	if (pr->nentry)
		fprintf(out, ", %u @entry value%s", pr->nentry, pr->nentry == 1 ? "" : "s");
	if (pr->lowered)
		fputs(", in the kernel (hist triggers)", out);
	fprintf(out, ", %u slots */\n", pr->code.nlocals);
	for (k = 0; k < pr->nfields; k++)
		fprintf(out, "  # field %u: %s\n", k, pr->fields[k].name);
	ir_dump_code(out, p, &pr->code);
}

void ir_dump(FILE *out, const struct ir_prog *p)
{
	ir_dump_writes(out, p);
	ir_dump_user(out, p);
}

void ir_dump_user(FILE *out, const struct ir_prog *p)
{
	unsigned i;

	fputs("# user space\n", out);
	for (i = 0; i < p->nglobals; i++)
		fprintf(out, "global %u %s%s\n", i, p->globals[i].name,
			p->globals[i].autoprint ? " /* printed at exit */" : "");
	for (i = 0; i < p->nprobes; i++)
		ir_dump_probe(out, p, i);
	for (i = 0; i < p->nfuncs; i++) {
		fprintf(out, "function %u %s /* %u params, %u slots */\n", i,
			p->funcs[i].name, p->funcs[i].nparams, p->funcs[i].code.nlocals);
		ir_dump_code(out, p, &p->funcs[i].code);
	}
}
