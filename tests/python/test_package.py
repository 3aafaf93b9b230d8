import tritondx_harness


def test_protocol_version_is_an_int():
    assert isinstance(tritondx_harness.PROTOCOL_VERSION, int)
    assert tritondx_harness.PROTOCOL_VERSION >= 1
