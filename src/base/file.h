/* Reading whole files, with a size cap and a check for binary content. */
#ifndef TDX_BASE_FILE_H
#define TDX_BASE_FILE_H

#include <stddef.h>

#include "base/status.h"

/* Read path into a fresh malloc'd, NUL-terminated buffer (caller frees).
 * Over max bytes gives TDX_ERR_TOOBIG; unreadable gives TDX_ERR_IO. */
tdx_status tdx_file_read(const char *path, size_t max, char **out, size_t *len);

/* Non-zero when data looks binary (a NUL byte or invalid UTF-8 in the first
 * 8 KiB). */
int tdx_file_is_binary(const char *data, size_t len);

/* Write data to path atomically (temp file + rename). */
tdx_status tdx_file_write(const char *path, const char *data, size_t len);

/* Create the folder path and any missing parents (mkdir -p, mode 0755):
 * TDX_OK when it exists afterwards, TDX_ERR_IO otherwise (errno set). */
tdx_status tdx_file_mkdirs(const char *path);

#endif
