/*
 * sema_netfilter.c - pass 2: stap's netfilter hook primitive,
 * netfilter.hook("HOOK").pf("PF"), netfilter.pf("PF").hook("HOOK") and
 * either with .priority("P") (stapprobes, NETFILTER HOOKS).
 *
 * stap registers a hook function from its kernel module; ktap loads no
 * module, so the point is a kprobe on the function of the stack that
 * holds the hook: the tapset alias __netfilter_hook.PF.HOOK
 * (tapset/netfilter.stp), which sets the locals __nf_hooknum, __nf_skb,
 * __nf_in and __nf_out.  This file checks the names as stap does, picks
 * that alias, and makes the probe's $hooknum, $skb, $in and $out those
 * locals ($skb->len and $in->name read through them as @cast()s of
 * struct sk_buff and struct net_device).  A priority orders hook
 * functions; a kprobe runs beside all of them, so it is checked and
 * otherwise has no effect (doc/probes.md).
 *
 * In: the written point and the probe's body.  Out: the alias point and
 * a rewritten copy of the body, in the pass's arena.
 * A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "ast_walk.h"
#include "diag.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A protocol family: its NFPROTO_ name, the alias's component, and its
   hooks' names in hook-number order (stap's, with the synonyms stap
   takes for NFPROTO_IPV4's). */
struct nf_family {
	const char *pf, *comp;
	const char *const *hooks;	/* NULL-terminated; [i] is hook i */
	const char *const *comps;	/* hook i's alias component */
	const char *const *synonyms;	/* the same hooks under other names */
	const char *prio_prefix;	/* "NF_IP_PRI_": named priorities */
};

static const char *const nf_hook_comps[] = {
	"pre_routing", "local_in", "forward", "local_out", "post_routing", NULL
};
static const char *const nf_arp_comps[] = { "in", "out", "forward", NULL };

static const char *const nf_inet[] = {
	"NF_INET_PRE_ROUTING", "NF_INET_LOCAL_IN", "NF_INET_FORWARD", "NF_INET_LOCAL_OUT",
	"NF_INET_POST_ROUTING", NULL
};
static const char *const nf_ip[] = {
	"NF_IP_PRE_ROUTING", "NF_IP_LOCAL_IN", "NF_IP_FORWARD", "NF_IP_LOCAL_OUT",
	"NF_IP_POST_ROUTING", NULL
};
static const char *const nf_ip6[] = {
	"NF_IP6_PRE_ROUTING", "NF_IP6_LOCAL_IN", "NF_IP6_FORWARD", "NF_IP6_LOCAL_OUT",
	"NF_IP6_POST_ROUTING", NULL
};
static const char *const nf_arp[] = { "NF_ARP_IN", "NF_ARP_OUT", "NF_ARP_FORWARD", NULL };
static const char *const nf_br[] = {
	"NF_BR_PRE_ROUTING", "NF_BR_LOCAL_IN", "NF_BR_FORWARD", "NF_BR_LOCAL_OUT",
	"NF_BR_POST_ROUTING", NULL
};

static const struct nf_family nf_families[] = {
	{ "NFPROTO_IPV4", "ipv4", nf_inet, nf_hook_comps, nf_ip, "NF_IP_PRI_" },
	{ "NFPROTO_IPV6", "ipv6", nf_ip6, nf_hook_comps, NULL, "NF_IP6_PRI_" },
	{ "NFPROTO_ARP", "arp", nf_arp, nf_arp_comps, NULL, NULL },
	{ "NFPROTO_BRIDGE", "bridge", nf_br, nf_hook_comps, NULL, NULL },
};

/* The named priorities of <linux/netfilter_ipv4.h> and _ipv6.h, after
   their prefix (stap's list). */
static const char *const nf_prio_names[] = {
	"FIRST", "CONNTRACK_DEFRAG", "RAW", "SELINUX_FIRST", "CONNTRACK", "MANGLE",
	"NAT_DST", "FILTER", "SECURITY", "NAT_SRC", "SELINUX_LAST", "CONNTRACK_CONFIRM",
	"LAST", NULL
};

/* The string argument of component @k of @p, or NULL. */
static const char *nf_arg(const struct ast_ppoint *p, unsigned k)
{
	const struct ast_expr *a = p->comps[k].arg;

	return a && a->kind == AST_STR ? a->str : NULL;
}

bool sema_netfilter_is(const struct ast_ppoint *p)
{
	return (p->n == 3 || p->n == 4) && sema_point_is(p, 0, "netfilter") &&
	       ((sema_point_is(p, 1, "hook") && sema_point_is(p, 2, "pf")) ||
		(sema_point_is(p, 1, "pf") && sema_point_is(p, 2, "hook"))) &&
	       (p->n == 3 || sema_point_is(p, 3, "priority")) && !p->comps[0].arg;
}

static int nf_index(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names && names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* Is @s a priority stap takes for @f: a 32-bit integer or a name? */
static bool nf_priority_ok(const struct nf_family *f, const char *s)
{
	size_t n = f->prio_prefix ? strlen(f->prio_prefix) : 0;
	char *end;
	long long v = strtoll(s, &end, 10);

	if (*s && !*end && v >= INT_MIN && v <= INT_MAX)
		return true;
	return n && !strncmp(s, f->prio_prefix, n) && nf_index(nf_prio_names, s + n) >= 0;
}

/* The alias point __netfilter_hook.COMP.HOOK for @p (checked), or NULL. */
static struct ast_ppoint *nf_alias_point(struct sema_ctx *c, const struct ast_ppoint *p)
{
	unsigned hk = sema_point_is(p, 1, "hook") ? 1 : 2, pk = 3 - hk, i;
	const char *hook = nf_arg(p, hk), *pf = nf_arg(p, pk);
	const char *prio = p->n == 4 ? nf_arg(p, 3) : "0";
	const struct nf_family *f = NULL;
	struct ast_ppoint *q;
	int h;

	if (!hook || !pf || !prio) {
		diag_error(c->diag, p->span, "probe point '%s': hook(), pf() and priority() "
			   "take a string (\"NF_INET_PRE_ROUTING\", \"NFPROTO_IPV4\", \"0\")",
			   sema_point_text(c, p));
		return NULL;
	}
	for (i = 0; i < sizeof(nf_families) / sizeof(nf_families[0]); i++)
		if (!strcmp(nf_families[i].pf, pf))
			f = &nf_families[i];
	if (!f) {
		diag_error(c->diag, p->comps[pk].span, "unsupported netfilter protocol family "
			   "\"%s\": stap's are NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP and "
			   "NFPROTO_BRIDGE", pf);
		return NULL;
	}
	if ((h = nf_index(f->hooks, hook)) < 0)
		h = nf_index(f->synonyms, hook);
	if (h < 0) {
		for (i = 0; f->hooks[i + 1]; i++)
			;
		diag_error(c->diag, p->comps[hk].span, "unsupported netfilter hook \"%s\" for "
			   "protocol family \"%s\": its hooks are %s to %s", hook, pf, f->hooks[0],
			   f->hooks[i]);
		return NULL;
	}
	if (!nf_priority_ok(f, prio)) {
		diag_error(c->diag, p->comps[3].span, "unsupported netfilter priority \"%s\" for "
			   "protocol family \"%s\": a 32-bit integer%s%s", prio, pf,
			   f->prio_prefix ? " or a name " : "", f->prio_prefix ?
			   arena_printf(c->arena, "%s*", f->prio_prefix) : "");
		return NULL;
	}
	q = arena_alloc(c->arena, sizeof(*q));
	*q = *p;
	q->n = q->cap = 3;
	q->comps = arena_alloc(c->arena, 3 * sizeof(*q->comps));
	q->comps[0] = (struct ast_ppcomp){ "__netfilter_hook", NULL, p->span };
	q->comps[1] = (struct ast_ppcomp){ f->comp, NULL, p->span };
	q->comps[2] = (struct ast_ppcomp){ f->comps[h], NULL, p->span };
	q->optional = q->sufficient = false;
	q->cond = NULL;
	return q;
}

/* ---- the context variables ---- */

struct nf_subst {
	struct sema_ctx *c;
	bool failed;
};

/* The local a context variable is (and the struct its chain reads), or
   NULL: not one of them. */
static const char *nf_local(const char *name, const char **type)
{
	static const struct { const char *var, *local, *type; } v[] = {
		{ "$hooknum", "__nf_hooknum", NULL }, { "$skb", "__nf_skb", "sk_buff" },
		{ "$in", "__nf_in", "net_device" }, { "$out", "__nf_out", "net_device" },
	};
	unsigned i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(v[i].var, name)) {
			*type = v[i].type;
			return v[i].local;
		}
	return NULL;
}

static bool nf_is_var(const struct ast_expr *e)
{
	const char *type;

	return e && e->kind == AST_TARGET && !e->chain.n && !e->module &&
	       nf_local(e->str, &type);
}

/* $in -> __nf_in; $in->name -> @cast(__nf_in, "net_device", "kernel")->name. */
static void nf_replace(struct nf_subst *s, struct ast_expr *e)
{
	const char *type, *local = nf_local(e->str, &type);
	struct ast_expr *var;

	if (!local) {
		if (!strcmp(e->str, "$verdict"))
			diag_error(s->c->diag, e->span, "%s: a netfilter hook's verdict is stap's "
				   "guru mode (-g); ktap's netfilter probes are kprobes beside the "
				   "hooks and cannot change a packet's fate", e->str);
		else
			diag_error(s->c->diag, e->span, "%s is not a context variable of a "
				   "netfilter probe: it has $hooknum, $skb, $in and $out", e->str);
		s->failed = true;
		return;
	}
	var = ast_named(s->c->arena, AST_VAR, local, e->span);
	if (!e->chain.n) {
		*e = *var;
		return;
	}
	if (!type) {
		diag_error(s->c->diag, e->span, "%s is a number: it has no members", e->str);
		s->failed = true;
		return;
	}
	e->kind = AST_CAST;
	e->a = var;
	e->str = type;
	e->module = "kernel";
}

static int nf_subst_fn(struct ast_expr *e, void *arg)
{
	struct nf_subst *s = arg;

	if ((e->kind == AST_ASSIGN || e->kind == AST_INCDEC) && nf_is_var(e->a)) {
		diag_error(s->c->diag, e->a->span, "%s: a netfilter probe's context variables "
			   "are read-only", e->a->str);
		s->failed = true;
		return 1;
	}
	if (e->kind == AST_UNARY && e->op == AST_OP_ADDR && nf_is_var(e->a)) {
		diag_error(s->c->diag, e->a->span, "%s: a netfilter probe's context variable "
			   "has no address", e->a->str);
		s->failed = true;
		return 1;
	}
	if (e->kind == AST_TARGET && !e->module && strncmp(e->str, "$$", 2) != 0)
		nf_replace(s, e);
	else if (e->kind == AST_TARGET && !e->module) {
		diag_error(s->c->diag, e->span, "%s: a netfilter probe has $hooknum, $skb, $in "
			   "and $out, which stap gives no $$ form", e->str);
		s->failed = true;
	}
	return 0;
}

const struct ast_ppoint *sema_netfilter_point(struct sema_ctx *c, const struct ast_ppoint *p,
					      struct ast_stmt **body, struct ast_expr **cond)
{
	struct ast_ppoint *q = nf_alias_point(c, p);
	struct nf_subst s = { c, false };

	if (!q)
		return NULL;
	*body = ast_clone_stmt(c->arena, *body);
	ast_walk_stmt(*body, nf_subst_fn, &s);
	if (*cond) {
		*cond = ast_clone_expr(c->arena, *cond);
		ast_walk_expr(*cond, nf_subst_fn, &s);
	}
	return s.failed ? NULL : q;
}
