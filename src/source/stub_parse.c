/* Placeholder entry points until the tokenizer and parser land. */
#include "source/ast.h"
#include "source/token.h"

// Tokenize: not yet implemented.
tdx_status tdx_src_tokenize(const char *path, const char *src, size_t len, tdx_arena *arena,
                            tdx_diags *diags, tdx_src_tokens *out)
{
    out->items = NULL;
    out->len = 0;
    return TDX_ERR_UNSUPPORTED;
}

// Parse: not yet implemented.
tdx_status tdx_src_parse(const char *path, const char *src, size_t len, tdx_arena *arena,
                         tdx_diags *diags, tdx_src_module **out)
{
    *out = NULL;
    return TDX_ERR_UNSUPPORTED;
}

const char *tdx_src_tok_kind_str(tdx_src_tok_kind k) { return "?"; }
const char *tdx_src_op_str(tdx_src_op op) { return "?"; }
const char *tdx_src_kw_str(tdx_src_kw kw) { return "?"; }
const char *tdx_src_kind_str(tdx_src_kind k) { return "?"; }
const char *tdx_src_role_str(tdx_src_role r) { return "?"; }
tdx_src_node *tdx_src_kid(const tdx_src_node *n, tdx_src_role role) { return NULL; }
tdx_src_node *tdx_src_next(const tdx_src_node *n, tdx_src_role role, const tdx_src_node *prev) { return NULL; }
size_t tdx_src_count(const tdx_src_node *n, tdx_src_role role) { return 0; }
int tdx_src_walk(tdx_src_node *n, tdx_src_visit_fn fn, void *ud) { return 0; }
const char *tdx_src_text(const tdx_src_module *m, const tdx_src_node *n, size_t *len) { *len = 0; return ""; }
char *tdx_src_text_dup(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena) { return NULL; }
char *tdx_src_dotted(const tdx_src_node *n, tdx_arena *arena) { return NULL; }
int tdx_src_is_dotted(const tdx_src_node *n, const char *dotted) { return 0; }
tdx_src_node *tdx_src_call_func(const tdx_src_node *call) { return NULL; }
tdx_src_node *tdx_src_call_arg(const tdx_src_node *call, size_t i) { return NULL; }
size_t tdx_src_call_nargs(const tdx_src_node *call) { return 0; }
tdx_src_node *tdx_src_call_kwarg(const tdx_src_node *call, const char *name) { return NULL; }
int tdx_src_is_launch(const tdx_src_node *call, tdx_src_node **kernel, tdx_src_node **grid) { return 0; }
tdx_src_node *tdx_src_decorator(const tdx_src_node *def, const char *dotted) { return NULL; }
int tdx_src_is_jit(const tdx_src_node *def) { return 0; }
int tdx_src_find_jit(const tdx_src_module *m, tdx_arena *arena, tdx_ptrvec *out) { return 0; }
tdx_src_node *tdx_src_find_def(const tdx_src_module *m, const char *name) { return NULL; }
tdx_src_node *tdx_src_param(const tdx_src_node *def, const char *name) { return NULL; }
int tdx_src_param_is_constexpr(const tdx_src_node *param) { return 0; }
tdx_status tdx_src_int_value(const tdx_src_module *m, const tdx_src_node *n, long long *v) { return TDX_ERR_UNSUPPORTED; }
tdx_status tdx_src_number_value(const tdx_src_module *m, const tdx_src_node *n, double *v) { return TDX_ERR_UNSUPPORTED; }
char *tdx_src_string_value(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena) { return NULL; }
void tdx_src_position(const tdx_src_module *m, size_t offset, int *line, int *col) { *line = *col = 0; }
tdx_status tdx_src_dump(const tdx_src_module *m, const tdx_src_node *n, tdx_buf *out) { return TDX_ERR_UNSUPPORTED; }
tdx_status tdx_src_unparse(const tdx_src_module *m, tdx_buf *out) { return TDX_ERR_UNSUPPORTED; }
tdx_status tdx_src_verify(const tdx_src_module *m, tdx_diags *diags) { return TDX_ERR_UNSUPPORTED; }
