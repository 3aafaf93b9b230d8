/* Shared between the files of the llm module only. */
#ifndef TDX_LLM_INTERNAL_H
#define TDX_LLM_INTERNAL_H

#include "llm/llm.h"

/* The endpoint without user info, query or fragment: safe to show. */
tdx_status tdx_llm__safe_endpoint(const tdx_llm_config *c, tdx_buf *out);

#endif
