/* tritondx diagnose: not built yet. */
#include "cli.h"

int tdx_cmd_diagnose(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tdx_cli_error("'diagnose' is not available in this build yet");
    return TDX_EXIT_FAILED;
}
