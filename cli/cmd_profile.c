/* tritondx profile: not built yet. */
#include "cli.h"

int tdx_cmd_profile(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tdx_cli_error("'profile' is not available in this build yet");
    return TDX_EXIT_FAILED;
}
