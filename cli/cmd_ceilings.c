/* tritondx ceilings: not built yet. */
#include "cli.h"

int tdx_cmd_ceilings(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tdx_cli_error("'ceilings' is not available in this build yet");
    return TDX_EXIT_FAILED;
}
