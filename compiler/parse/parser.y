/*
 * parser.y - pass 1c: the SystemTap grammar.
 *
 * Input: the preprocessed token vector, through the feeder in parse.c
 * (probe-point components arrive as PPNAME, brace expansions as
 * PPLBRACE/PPRBRACE, adjacent strings already glued).  Output: the AST
 * of one file (ctx->file).  Actions are one call each; checks that span
 * several nodes live in parse.c.
 *
 * Precedence follows stap's recursive-descent parser, loosest first:
 * assignment and ?: (right), ||, &&, |, ^, &, in, comparisons and =~,
 * shifts, '.', + -, * / %, unary, postfix.  Statements need no ';', so
 * an expression statement followed by something that could continue it
 * ("a \n -b") continues it, as in stap: rules that would end a statement
 * early carry %prec LOWEST and lose every shift/reduce choice.
 */
%require "3.6"
%define api.pure full
%define api.prefix {pr_}
%define api.token.prefix {P_}
%define api.location.type {struct src_span}
%define parse.error custom
%locations
%expect 0
%param {struct parse_ctx *ctx}

%code requires {
#include "ast.h"
#include "parse.h"
#include "source.h"
#include "token.h"
}

%code provides {
int pr_lex(PR_STYPE *lval, struct src_span *lloc, struct parse_ctx *ctx);
}

%code {
#include <string.h>

#include "arena.h"
#include "diag.h"

/* Only called by bison when its stack overflows. */
static void pr_error(struct src_span *loc, struct parse_ctx *ctx,
		     const char *msg)
{
	ctx->errors++;
	diag_error(ctx->diag, *loc, "%s (the script nests too deeply)", msg);
}

#define A (ctx->arena)

/* A rule's span runs from its first to its last symbol. */
#define YYLLOC_DEFAULT(cur, rhs, n) do {				\
	if (n) {							\
		(cur) = src_join(YYRHSLOC(rhs, 1), YYRHSLOC(rhs, n));	\
	} else {							\
		(cur) = YYRHSLOC(rhs, 0);				\
		(cur).start = (cur).end;				\
	}								\
} while (0)

static struct ast_expr *bin(struct parse_ctx *ctx, enum ast_op op,
			    struct ast_expr *l, struct ast_expr *r,
			    struct src_span at)
{
	return ast_binary(ctx->arena, AST_BINARY, op, l, r, at);
}

static struct ast_expr *asg(struct parse_ctx *ctx, enum ast_op op,
			    struct ast_expr *l, struct ast_expr *r,
			    struct src_span at)
{
	return ast_binary(ctx->arena, AST_ASSIGN, op, l, r, at);
}

static struct ast_expr *kid(struct parse_ctx *ctx, enum ast_expr_kind kind,
			    enum ast_op op, struct ast_expr *x,
			    struct src_span span)
{
	struct ast_expr *e = ast_expr_new(ctx->arena, kind, span);

	e->op = op;
	e->a = x;
	return e;
}

static struct ast_stmt *stmt(struct parse_ctx *ctx, enum ast_stmt_kind kind,
			     struct src_span span, struct ast_expr *e,
			     struct ast_stmt *s1, struct ast_stmt *s2)
{
	struct ast_stmt *s = ast_stmt_new(ctx->arena, kind, span);

	s->e = e;
	s->s1 = s1;
	s->s2 = s2;
	return s;
}
}

%union {
	const struct token *tok;
	struct ast_expr *expr;
	struct ast_list list;
	struct ast_chain chain;
	struct ast_stmt *stmt;
	struct ast_stmt_list stmts;
	struct ast_pplist pps;
	struct parse_alts *alts;
	struct ast_foreach *fe;
	struct ast_func *func;
	struct parse_globals globals;
	enum ast_type type;
	int i;
}

%token <tok> EOF 0 "end of file"
%token <tok> IDENT NUMBER STRING TARGET EMBEDDED PPNAME PPLBRACE PPRBRACE
%token <tok> PROBE GLOBAL PRIVATE FUNCTION IF ELSE FOR FOREACH IN LIMIT WHILE
%token <tok> BREAK CONTINUE NEXT RETURN DELETE TRY CATCH LONG STRINGKW
%token <tok> AT_CAST AT_VAR AT_DEFINED AT_ENTRY AT_PROBEWRITE AT_PERF AT_KDEREF AT_UDEREF
%token <tok> AT_KREGISTER AT_UREGISTER AT_COUNT AT_SUM AT_MIN AT_MAX AT_AVG
%token <tok> AT_VARIANCE AT_HIST_LOG AT_HIST_LINEAR
%token <tok> AT_MACRO AT_DEFINE ARG_NUM ARG_STR ARGC_NUM ARGC_STR
%token <tok> PP_IF PP_THEN PP_ELSE PP_END
%token <tok> LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA SEMI DOT
%token <tok> QUESTION COLON ARROW DOLLAR
%token <tok> ASSIGN ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN
%token <tok> SHL_ASSIGN SHR_ASSIGN AND_ASSIGN XOR_ASSIGN OR_ASSIGN CAT_ASSIGN
%token <tok> STAT_ADD
%token <tok> PLUS MINUS STAR SLASH PERCENT SHL SHR USHR AMP PIPE CARET TILDE BANG
%token <tok> ANDAND OROR LT GT LE GE EQ NE MATCH NOMATCH INC DEC

%precedence LOWEST
%precedence THEN
%precedence ELSE
%right ASSIGN ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN SHL_ASSIGN SHR_ASSIGN AND_ASSIGN XOR_ASSIGN OR_ASSIGN CAT_ASSIGN STAT_ADD QUESTION
%left OROR
%left ANDAND
%left PIPE
%left CARET
%left AMP
%precedence IN
%left LT GT LE GE EQ NE MATCH NOMATCH
%left SHL SHR USHR
%left DOT
%left PLUS MINUS
%left STAR SLASH PERCENT
%precedence UNARY
%precedence INC DEC
%precedence LPAREN LBRACKET
/* Tokens that can start a statement: shifting them continues the current
   statement rather than ending it. */
%precedence SEMI IDENT NUMBER STRING TARGET EMBEDDED BANG TILDE
%precedence AT_CAST AT_VAR AT_DEFINED AT_ENTRY AT_PROBEWRITE AT_PERF AT_KDEREF AT_UDEREF AT_KREGISTER AT_UREGISTER AT_COUNT AT_SUM AT_MIN AT_MAX AT_AVG AT_VARIANCE AT_HIST_LOG AT_HIST_LINEAR

%type <expr> expr primary literal ppliteral hist_op index_item cond_opt
%type <expr> fe_limit_opt global_init_opt expr_opt fe_array
%type <list> index_list args args_opt fe_slice_opt
%type <globals> global_list
%type <chain> chain chain_opt arrow_chain arrow_chain_opt
%type <stmt> stmt block
%type <stmts> stmts
%type <pps> pplist
%type <alts> ppseq ppelem ppalts ppalt
%type <fe> foreach_head fe_keys fe_keylist fe_rest
%type <func> func_head func_params func_ready
%type <type> type_opt
%type <i> suffix_opt sort_opt wrap_opt stat_tok fe_sort_opt
%type <tok> size_opt

%%

file
	: decls
	;

decls
	: %empty
	| decls decl
	;

decl
	: probe_decl
	| GLOBAL global_list semi_opt	{ parse_globals_done(ctx, &$2, false); }
	| PRIVATE GLOBAL global_list semi_opt	{ parse_globals_done(ctx, &$3, true); }
	| PRIVATE global_list semi_opt	{ parse_globals_done(ctx, &$2, true); }
	| FUNCTION func_def
	| PRIVATE FUNCTION func_def_private
	| EMBEDDED			{ parse_embedded_decl(ctx, $1); }
	| error
	;

semi_opt
	: %empty %prec LOWEST
	| SEMI
	;

/* ---- probes ---- */

probe_decl
	: PROBE pplist block
		{ parse_probe(ctx, AST_PROBE, NULL, &$2, $3, @$); }
	| PROBE pplist ASSIGN pplist block
		{ parse_probe(ctx, AST_ALIAS, &$2, &$4, $5, @$); }
	| PROBE pplist ASSIGN pplist block COMMA block
		{ parse_probe(ctx, AST_ALIAS, &$2, &$4, $5, @$)->epilogue = $7; }
	| PROBE pplist ADD_ASSIGN pplist block
		{ parse_probe(ctx, AST_EPILOGUE, &$2, &$4, $5, @$); }
	;

pplist
	: ppseq suffix_opt cond_opt
		{ memset(&$$, 0, sizeof($$)); parse_point_finish(ctx, &$$, $1, $2, $3); }
	| pplist COMMA ppseq suffix_opt cond_opt
		{ $$ = $1; parse_point_finish(ctx, &$$, $3, $4, $5); }
	;

ppseq
	: ppelem
	| ppseq DOT ppelem		{ $$ = parse_alts_cross(ctx, $1, $3, @$); }
	;

ppelem
	: PPNAME			{ $$ = parse_alts_one(ctx, $1, NULL, @$); }
	| PPNAME LPAREN ppliteral RPAREN	{ $$ = parse_alts_one(ctx, $1, $3, @$); }
	| PPLBRACE ppalts PPRBRACE	{ $$ = $2; }
	;

ppalts
	: ppalt
	| ppalts COMMA ppalt		{ $$ = parse_alts_union(ctx, $1, $3); }
	;

ppalt
	: ppseq suffix_opt cond_opt	{ $$ = parse_alts_mark(ctx, $1, $2, $3); }
	;

ppliteral
	: literal
	;

suffix_opt
	: %empty			{ $$ = 0; }
	| QUESTION			{ $$ = '?'; }
	| BANG				{ $$ = '!'; }
	;

cond_opt
	: %empty			{ $$ = NULL; }
	| IF LPAREN expr RPAREN		{ $$ = $3; }
	;

/* ---- globals ---- */

global_list
	: IDENT wrap_opt size_opt global_init_opt
		{ memset(&$$, 0, sizeof($$)); parse_global(ctx, &$$, $1, $2, $3, $4); }
	| global_list COMMA IDENT wrap_opt size_opt global_init_opt
		{ $$ = $1; parse_global(ctx, &$$, $3, $4, $5, $6); }
	;

wrap_opt
	: %empty			{ $$ = 0; }
	| PERCENT			{ $$ = 1; }
	;

size_opt
	: %empty			{ $$ = NULL; }
	| LBRACKET NUMBER RBRACKET	{ $$ = $2; }
	;

global_init_opt
	: %empty			{ $$ = NULL; }
	| ASSIGN literal		{ $$ = $2; }
	;

literal
	: NUMBER			{ $$ = parse_literal_num(ctx, $1, false, @$); }
	| MINUS NUMBER			{ $$ = parse_literal_num(ctx, $2, true, @$); }
	| STRING			{ $$ = parse_literal_str(ctx, $1); }
	;

/* ---- functions ---- */

func_def
	: func_ready block		{ parse_func_end(ctx, $1, $2, NULL, false, @$); }
	| func_ready EMBEDDED		{ parse_func_end(ctx, $1, NULL, $2, false, @$); }
	;

func_def_private
	: func_ready block		{ parse_func_end(ctx, $1, $2, NULL, true, @$); }
	| func_ready EMBEDDED		{ parse_func_end(ctx, $1, NULL, $2, true, @$); }
	;

/* "(...)" and stap's optional ":PRIORITY" of runtime overloading */
func_ready
	: func_params RPAREN		{ $$ = $1; }
	| func_params RPAREN COLON NUMBER
		{ $$ = $1; parse_func_priority(ctx, $$, $4); }
	| func_params RPAREN COLON MINUS NUMBER
		{ $$ = $1; parse_func_priority(ctx, $$, $5); $$->priority = -$$->priority; }
	;

func_head
	: IDENT type_opt LPAREN		{ $$ = parse_func_begin(ctx, $1, $2); }
	;

func_params
	: func_head
	| func_head IDENT type_opt	{ $$ = $1; parse_func_param(ctx, $$, $2, $3); }
	| func_params COMMA IDENT type_opt
		{ $$ = $1; parse_func_param(ctx, $$, $3, $4); }
	;

type_opt
	: %empty			{ $$ = AST_TYPE_NONE; }
	| COLON LONG			{ $$ = AST_TYPE_LONG; }
	| COLON STRINGKW		{ $$ = AST_TYPE_STRING; }
	;

/* ---- statements ---- */

block
	: LBRACE stmts RBRACE
		{ $$ = ast_stmt_new(A, AST_S_BLOCK, @$); $$->body = $2; }
	| LBRACE stmts error RBRACE
		{ $$ = ast_stmt_new(A, AST_S_BLOCK, @$); $$->body = $2; }
	;

stmts
	: %empty			{ memset(&$$, 0, sizeof($$)); }
	| stmts stmt			{ $$ = $1; ast_stmt_push(A, &$$, $2); }
	;

stmt
	: block
	| SEMI				{ $$ = stmt(ctx, AST_S_NULL, @$, NULL, NULL, NULL); }
	| expr semi_opt			{ $$ = stmt(ctx, AST_S_EXPR, @1, $1, NULL, NULL); }
	| IF LPAREN expr RPAREN stmt %prec THEN
		{ $$ = stmt(ctx, AST_S_IF, @$, $3, $5, NULL); }
	| IF LPAREN expr RPAREN stmt ELSE stmt
		{ $$ = stmt(ctx, AST_S_IF, @$, $3, $5, $7); }
	| WHILE LPAREN expr RPAREN stmt
		{ $$ = stmt(ctx, AST_S_WHILE, @$, $3, $5, NULL); }
	| FOR LPAREN expr_opt SEMI expr_opt SEMI expr_opt RPAREN stmt
		{ $$ = stmt(ctx, AST_S_FOR, @$, $3, $9, NULL); $$->e2 = $5; $$->e3 = $7; }
	| FOREACH LPAREN foreach_head RPAREN stmt
		{ $$ = stmt(ctx, AST_S_FOREACH, @$, NULL, NULL, NULL);
		  $$->fe = $3; $3->body = $5; }
	| BREAK semi_opt		{ $$ = stmt(ctx, AST_S_BREAK, @1, NULL, NULL, NULL); }
	| CONTINUE semi_opt		{ $$ = stmt(ctx, AST_S_CONTINUE, @1, NULL, NULL, NULL); }
	| NEXT semi_opt			{ $$ = stmt(ctx, AST_S_NEXT, @1, NULL, NULL, NULL); }
	| RETURN semi_opt		{ $$ = stmt(ctx, AST_S_RETURN, @1, NULL, NULL, NULL); }
	| RETURN expr semi_opt		{ $$ = stmt(ctx, AST_S_RETURN, @1, $2, NULL, NULL); }
	| DELETE expr semi_opt		{ $$ = stmt(ctx, AST_S_DELETE, @1, $2, NULL, NULL); }
	| TRY block CATCH block		{ $$ = stmt(ctx, AST_S_TRY, @$, NULL, $2, $4); }
	| TRY block CATCH LPAREN IDENT RPAREN block
		{ $$ = stmt(ctx, AST_S_TRY, @$, NULL, $2, $7); $$->name = $5->text; }
	| error SEMI			{ $$ = stmt(ctx, AST_S_NULL, @$, NULL, NULL, NULL); }
	;

expr_opt
	: %empty			{ $$ = NULL; }
	| expr
	;

/* ---- foreach ---- */

foreach_head
	: fe_keys IN fe_rest		{ $$ = parse_foreach_merge(ctx, $1, NULL, 0, $3); }
	| IDENT sort_opt ASSIGN fe_keys IN fe_rest
		{ $$ = parse_foreach_merge(ctx, $4, $1, $2, $6); }
	;

fe_keys
	: IDENT sort_opt		{ $$ = parse_foreach_key(ctx, NULL, $1, $2, @2); }
	| LBRACKET fe_keylist RBRACKET	{ $$ = $2; $$->bracketed = true; }
	;

fe_keylist
	: IDENT sort_opt		{ $$ = parse_foreach_key(ctx, NULL, $1, $2, @2); }
	| fe_keylist COMMA IDENT sort_opt
		{ $$ = parse_foreach_key(ctx, $1, $3, $4, @4); }
	;

/* Collects array, slice, value sort and limit in a scratch foreach. */
fe_rest
	: fe_array fe_slice_opt fe_sort_opt fe_limit_opt
		{ $$ = parse_foreach_rest(ctx, $1, &$2, $3, $4, @3); }
	;

fe_array
	: IDENT				{ $$ = ast_named(A, AST_VAR, $1->text, @1); }
	| hist_op
	;

fe_slice_opt
	: %empty %prec LOWEST		{ memset(&$$, 0, sizeof($$)); }
	| LBRACKET index_list RBRACKET	{ $$ = $2; }
	;

/* Encoded as (stat + 1) << 2 | (1 ascending, 2 descending). */
fe_sort_opt
	: %empty			{ $$ = 0; }
	| PLUS				{ $$ = 1; }
	| MINUS				{ $$ = 2; }
	| stat_tok PLUS			{ $$ = (($1 + 1) << 2) | 1; }
	| stat_tok MINUS		{ $$ = (($1 + 1) << 2) | 2; }
	;

stat_tok
	: AT_COUNT			{ $$ = AST_OP_COUNT; }
	| AT_SUM			{ $$ = AST_OP_SUM; }
	| AT_MIN			{ $$ = AST_OP_MIN; }
	| AT_MAX			{ $$ = AST_OP_MAX; }
	| AT_AVG			{ $$ = AST_OP_AVG; }
	| AT_VARIANCE			{ $$ = AST_OP_VARIANCE; }
	;

sort_opt
	: %empty			{ $$ = 0; }
	| PLUS				{ $$ = 1; }
	| MINUS				{ $$ = -1; }
	;

fe_limit_opt
	: %empty			{ $$ = NULL; }
	| LIMIT expr			{ $$ = $2; }
	;

/* ---- expressions ---- */

expr
	: expr ASSIGN expr		{ $$ = asg(ctx, AST_OP_SET, $1, $3, @2); }
	| expr ADD_ASSIGN expr		{ $$ = asg(ctx, AST_OP_ADD_SET, $1, $3, @2); }
	| expr SUB_ASSIGN expr		{ $$ = asg(ctx, AST_OP_SUB_SET, $1, $3, @2); }
	| expr MUL_ASSIGN expr		{ $$ = asg(ctx, AST_OP_MUL_SET, $1, $3, @2); }
	| expr DIV_ASSIGN expr		{ $$ = asg(ctx, AST_OP_DIV_SET, $1, $3, @2); }
	| expr MOD_ASSIGN expr		{ $$ = asg(ctx, AST_OP_MOD_SET, $1, $3, @2); }
	| expr SHL_ASSIGN expr		{ $$ = asg(ctx, AST_OP_SHL_SET, $1, $3, @2); }
	| expr SHR_ASSIGN expr		{ $$ = asg(ctx, AST_OP_SHR_SET, $1, $3, @2); }
	| expr AND_ASSIGN expr		{ $$ = asg(ctx, AST_OP_AND_SET, $1, $3, @2); }
	| expr XOR_ASSIGN expr		{ $$ = asg(ctx, AST_OP_XOR_SET, $1, $3, @2); }
	| expr OR_ASSIGN expr		{ $$ = asg(ctx, AST_OP_OR_SET, $1, $3, @2); }
	| expr CAT_ASSIGN expr		{ $$ = asg(ctx, AST_OP_CAT_SET, $1, $3, @2); }
	| expr STAT_ADD expr		{ $$ = asg(ctx, AST_OP_STAT_ADD, $1, $3, @2); }
	| expr QUESTION expr COLON expr %prec QUESTION
		{ $$ = ast_ternary(A, $1, $3, $5); }
	| expr OROR expr		{ $$ = bin(ctx, AST_OP_LOR, $1, $3, @2); }
	| expr ANDAND expr		{ $$ = bin(ctx, AST_OP_LAND, $1, $3, @2); }
	| expr PIPE expr		{ $$ = bin(ctx, AST_OP_BOR, $1, $3, @2); }
	| expr CARET expr		{ $$ = bin(ctx, AST_OP_BXOR, $1, $3, @2); }
	| expr AMP expr			{ $$ = bin(ctx, AST_OP_BAND, $1, $3, @2); }
	| expr IN IDENT
		{ $$ = ast_expr_new(A, AST_IN, @$); ast_list_push(A, &$$->args, $1);
		  $$->a = ast_named(A, AST_VAR, $3->text, @3); $$->op_span = @2; }
	| expr IN hist_op
		{ $$ = ast_expr_new(A, AST_IN, @$); ast_list_push(A, &$$->args, $1);
		  $$->a = $3; $$->op_span = @2; }
	| LBRACKET index_list RBRACKET IN IDENT
		{ $$ = ast_expr_new(A, AST_IN, @$); $$->args = $2;
		  $$->a = ast_named(A, AST_VAR, $5->text, @5); $$->op_span = @4; }
	| LBRACKET index_list RBRACKET IN hist_op
		{ $$ = ast_expr_new(A, AST_IN, @$); $$->args = $2; $$->a = $5; $$->op_span = @4; }
	/* stap's other spelling of a key list: (K1, K2) in A */
	| LPAREN expr COMMA index_list RPAREN IN IDENT
		{ $$ = ast_expr_new(A, AST_IN, @$); ast_list_push(A, &$$->args, $2);
		  for (unsigned i = 0; i < $4.n; i++) ast_list_push(A, &$$->args, $4.v[i]);
		  $$->a = ast_named(A, AST_VAR, $7->text, @7); $$->op_span = @6; }
	| expr LT expr			{ $$ = bin(ctx, AST_OP_LT, $1, $3, @2); }
	| expr GT expr			{ $$ = bin(ctx, AST_OP_GT, $1, $3, @2); }
	| expr LE expr			{ $$ = bin(ctx, AST_OP_LE, $1, $3, @2); }
	| expr GE expr			{ $$ = bin(ctx, AST_OP_GE, $1, $3, @2); }
	| expr EQ expr			{ $$ = bin(ctx, AST_OP_EQ, $1, $3, @2); }
	| expr NE expr			{ $$ = bin(ctx, AST_OP_NE, $1, $3, @2); }
	| expr MATCH STRING		{ $$ = bin(ctx, AST_OP_MATCH, $1, parse_literal_str(ctx, $3), @2); }
	| expr NOMATCH STRING		{ $$ = bin(ctx, AST_OP_NOMATCH, $1, parse_literal_str(ctx, $3), @2); }
	| expr SHL expr			{ $$ = bin(ctx, AST_OP_SHL, $1, $3, @2); }
	| expr SHR expr			{ $$ = bin(ctx, AST_OP_SHR, $1, $3, @2); }
	| expr USHR expr		{ $$ = bin(ctx, AST_OP_USHR, $1, $3, @2); }
	| expr DOT expr			{ $$ = bin(ctx, AST_OP_CONCAT, $1, $3, @2); }
	| expr PLUS expr		{ $$ = bin(ctx, AST_OP_ADD, $1, $3, @2); }
	| expr MINUS expr		{ $$ = bin(ctx, AST_OP_SUB, $1, $3, @2); }
	| expr STAR expr		{ $$ = bin(ctx, AST_OP_MUL, $1, $3, @2); }
	| expr SLASH expr		{ $$ = bin(ctx, AST_OP_DIV, $1, $3, @2); }
	| expr PERCENT expr		{ $$ = bin(ctx, AST_OP_MOD, $1, $3, @2); }
	| BANG expr %prec UNARY		{ $$ = ast_unary(A, AST_OP_NOT, $2, @1); }
	| TILDE expr %prec UNARY	{ $$ = ast_unary(A, AST_OP_BNOT, $2, @1); }
	| MINUS expr %prec UNARY	{ $$ = ast_unary(A, AST_OP_NEG, $2, @1); }
	| PLUS expr %prec UNARY		{ $$ = ast_unary(A, AST_OP_PLUS, $2, @1); }
	| AMP expr %prec UNARY		{ $$ = ast_unary(A, AST_OP_ADDR, $2, @1); }
	| INC expr %prec UNARY		{ $$ = ast_unary(A, AST_OP_PREINC, $2, @1); }
	| DEC expr %prec UNARY		{ $$ = ast_unary(A, AST_OP_PREDEC, $2, @1); }
	| expr INC			{ $$ = ast_postfix(A, AST_OP_POSTINC, $1, @2); }
	| expr DEC			{ $$ = ast_postfix(A, AST_OP_POSTDEC, $1, @2); }
	| primary
	;

primary
	: NUMBER			{ $$ = parse_literal_num(ctx, $1, false, @$); }
	| STRING			{ $$ = parse_literal_str(ctx, $1); }
	| EMBEDDED			{ $$ = parse_embedded_expr(ctx, $1); }
	| IDENT %prec LOWEST		{ $$ = ast_named(A, AST_VAR, $1->text, @$); }
	| IDENT arrow_chain		{ $$ = parse_autocast(ctx, ast_named(A, AST_VAR, $1->text, @1), &$2, @$); }
	| IDENT LBRACKET index_list RBRACKET arrow_chain_opt
		{ $$ = parse_index(ctx, ast_named(A, AST_VAR, $1->text, @1), &$3, @$);
		  if ($5.n) $$ = parse_autocast(ctx, $$, &$5, @$); }
	| IDENT LPAREN args_opt RPAREN arrow_chain_opt
		{ $$ = parse_call(ctx, $1, &$3, @$);
		  if ($5.n) $$ = parse_autocast(ctx, $$, &$5, @$); }
	| TARGET chain_opt		{ $$ = parse_target(ctx, $1, &$2, @$); }
	| LPAREN expr RPAREN chain_opt
		{ $$ = $4.n ? parse_autocast(ctx, $2, &$4, @$) : $2; }
	| AT_CAST LPAREN expr COMMA STRING RPAREN chain_opt
		{ $$ = ast_expr_new(A, AST_CAST, @$); $$->a = $3; $$->str = $5->text;
		  $$->chain = $7; }
	| AT_CAST LPAREN expr COMMA STRING COMMA STRING RPAREN chain_opt
		{ $$ = ast_expr_new(A, AST_CAST, @$); $$->a = $3; $$->str = $5->text;
		  $$->module = $7->text; $$->chain = $9; }
	| AT_VAR LPAREN STRING RPAREN chain_opt
		{ $$ = ast_named(A, AST_ATVAR, $3->text, @$); $$->chain = $5; }
	| AT_VAR LPAREN STRING COMMA STRING RPAREN chain_opt
		{ $$ = ast_named(A, AST_ATVAR, $3->text, @$); $$->module = $5->text;
		  $$->chain = $7; }
	| AT_DEFINED LPAREN expr RPAREN	{ $$ = kid(ctx, AST_DEFINED, 0, $3, @$); }
	| AT_ENTRY LPAREN expr RPAREN	{ $$ = kid(ctx, AST_ENTRY, 0, $3, @$); }
	| AT_PROBEWRITE LPAREN expr RPAREN { $$ = kid(ctx, AST_PROBEWRITE, 0, $3, @$); }
	| AT_PERF LPAREN STRING RPAREN	{ $$ = parse_perf(ctx, $3, @$); }
	| AT_KDEREF LPAREN expr COMMA expr RPAREN
		{ $$ = parse_guru_op(ctx, AST_DEREF, AST_OP_KDEREF, $3, $5, @$); }
	| AT_UDEREF LPAREN expr COMMA expr RPAREN
		{ $$ = parse_guru_op(ctx, AST_DEREF, AST_OP_UDEREF, $3, $5, @$); }
	| AT_KREGISTER LPAREN expr RPAREN
		{ $$ = parse_guru_op(ctx, AST_REGISTER, AST_OP_KREGISTER, $3, NULL, @$); }
	| AT_UREGISTER LPAREN expr RPAREN
		{ $$ = parse_guru_op(ctx, AST_REGISTER, AST_OP_UREGISTER, $3, NULL, @$); }
	| stat_tok LPAREN expr RPAREN	{ $$ = kid(ctx, AST_STAT, (enum ast_op)$1, $3, @$); }
	| stat_tok LPAREN expr COMMA expr RPAREN
		{ $$ = kid(ctx, AST_STAT, (enum ast_op)$1, $3, @$);
		  ast_list_push(A, &$$->args, $5);
		  if ($1 != AST_OP_VARIANCE)
			diag_error(ctx->diag, @4, "only @variance takes a second argument (its bit-shift)"); }
	| hist_op %prec LOWEST
	| hist_op LBRACKET expr RBRACKET
		{ struct ast_list l = { 0 }; ast_list_push(A, &l, $3); $$ = parse_index(ctx, $1, &l, @$); }
	;

hist_op
	: AT_HIST_LOG LPAREN expr RPAREN
		{ $$ = kid(ctx, AST_HIST, AST_OP_HIST_LOG, $3, @$); }
	| AT_HIST_LINEAR LPAREN expr COMMA expr COMMA expr COMMA expr RPAREN
		{ $$ = kid(ctx, AST_HIST, AST_OP_HIST_LINEAR, $3, @$);
		  ast_list_push(A, &$$->args, $5); ast_list_push(A, &$$->args, $7);
		  ast_list_push(A, &$$->args, $9); }
	;

index_list
	: index_item			{ memset(&$$, 0, sizeof($$)); ast_list_push(A, &$$, $1); }
	| index_list COMMA index_item	{ $$ = $1; ast_list_push(A, &$$, $3); }
	;

index_item
	: expr
	| STAR				{ $$ = ast_expr_new(A, AST_STAR, @$); }
	;

args_opt
	: %empty			{ memset(&$$, 0, sizeof($$)); }
	| args
	;

args
	: expr				{ memset(&$$, 0, sizeof($$)); ast_list_push(A, &$$, $1); }
	| args COMMA expr		{ $$ = $1; ast_list_push(A, &$$, $3); }
	;

chain_opt
	: %empty %prec LOWEST		{ memset(&$$, 0, sizeof($$)); }
	| chain %prec LOWEST
	;

chain
	: ARROW IDENT			{ memset(&$$, 0, sizeof($$)); parse_chain_member(ctx, &$$, $2, @$); }
	| LBRACKET expr RBRACKET	{ memset(&$$, 0, sizeof($$)); ast_chain_index(A, &$$, $2, @$); }
	| chain ARROW IDENT		{ $$ = $1; parse_chain_member(ctx, &$$, $3, src_join(@2, @3)); }
	| chain LBRACKET expr RBRACKET	{ $$ = $1; ast_chain_index(A, &$$, $3, src_join(@2, @4)); }
	| DOLLAR			{ memset(&$$, 0, sizeof($$)); parse_chain_pretty(ctx, &$$, @$); }
	| chain DOLLAR			{ $$ = $1; parse_chain_pretty(ctx, &$$, @2); }
	;

arrow_chain_opt
	: %empty %prec LOWEST		{ memset(&$$, 0, sizeof($$)); }
	| arrow_chain %prec LOWEST
	;

arrow_chain
	: ARROW IDENT chain_opt
		{ memset(&$$, 0, sizeof($$)); parse_chain_member(ctx, &$$, $2, src_join(@1, @2));
		  parse_chain_append(ctx, &$$, &$3); }
	;

%%

/*
 * Syntax errors: name what was expected, in the user's terms, and which
 * bracket is still open when its closer is one of the options.
 */
static int
yyreport_syntax_error(const yypcontext_t *yyctx, struct parse_ctx *ctx)
{
	yysymbol_kind_t expected[64];
	enum tok_kind kinds[64];
	int n = yypcontext_expected_tokens(yyctx, expected, 64);
	unsigned k, nk = 0;

	if (n < 0)
		n = 0;
	for (int i = 0; i < n; i++) {
		for (k = 0; k < TOK__COUNT; k++) {
			if (YYTRANSLATE(parse_bison_token((enum tok_kind)k)) ==
			    expected[i]) {
				kinds[nk++] = (enum tok_kind)k;
				break;
			}
		}
	}
	parse_report(ctx, kinds, nk);
	return 0;
}
