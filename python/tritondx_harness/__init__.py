"""tritondx harness: the thin Python side that Triton requires.

It executes and reports facts as JSON (one object on stdout); it decides
nothing. Verbs are modules of this package, run as
``python3 -m tritondx_harness VERB --task FILE ...``.
"""

PROTOCOL_VERSION = 1
