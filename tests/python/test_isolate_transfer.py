"""Tensors between the candidate's child and the judge: sealed memfds passed
over the data socket (isolate._send / isolate._Tensors)."""
import fcntl
import os
import socket

import pytest
import torch

from tritondx_harness import isolate


def _roundtrip(obj, monkeypatch, chunk=None):
    """Send obj over a socket pair in this process and read it back as the judge does."""
    if chunk is not None:
        monkeypatch.setattr(isolate, "CHUNK", chunk)
    monkeypatch.setattr(isolate, "_SENT", [0])
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    isolate._send(a, obj)
    a.close()
    t = isolate._Tensors()
    data = bytearray()
    while True:
        chunk_, fds, _, _ = socket.recv_fds(b, 1 << 20, 253)
        t.fds.extend(fds)
        if not chunk_:
            break
        data += chunk_
    b.close()
    frames = isolate._parse_frames(data)
    assert len(frames) == 1
    out = t.unpack(frames[0])
    bad = t.bad
    t.close()
    return out, bad


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.bool,
                                   torch.complex64, torch.uint8])
def test_tensors_come_back_bit_for_bit(dtype, monkeypatch):
    x = (torch.randn(3, 5, 7) * 10).to(dtype)
    out, bad = _roundtrip({"kind": "inputs", "inputs": [[x, 3, "s"]]}, monkeypatch)
    assert bad == 0
    y = out["inputs"][0][0]
    assert y.dtype == dtype and y.shape == x.shape
    assert torch.equal(y.view(torch.uint8), x.contiguous().view(torch.uint8))
    assert out["inputs"][0][1:] == [3, "s"]


def test_a_tensor_over_a_chunk_is_split_and_joined(monkeypatch):
    x = torch.arange(10000, dtype=torch.float32)
    out, bad = _roundtrip({"t": x, "e": torch.empty(0, 4), "nc": x.view(100, 100).t()}, monkeypatch, chunk=1000)
    assert bad == 0
    assert torch.equal(out["t"], x)
    assert out["e"].shape == (0, 4)
    assert torch.equal(out["nc"], x.view(100, 100).t())


def _fake(t, slots, dtype="float32", shape=(4,)):
    return t.unpack({"x": {"__tensor__": slots, "dtype": dtype, "shape": list(shape)}})["x"]


def _memfd(data, seal=True):
    fd = os.memfd_create("t", os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    if seal:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, isolate._SEALS)
    return fd


def test_an_unsealed_memfd_is_refused():
    """A memfd the sender could still write (the candidate could change the
    inputs under the judge) is not read."""
    t = isolate._Tensors()
    t.fds = [_memfd(bytes(16), seal=False), _memfd(bytes(16))]
    assert _fake(t, [0]) is None
    assert _fake(t, [1]) is not None
    assert t.bad == 1
    t.close()


@pytest.mark.parametrize("slots,dtype,shape", [
    ([5], "float32", (4,)),          # a slot that was never sent
    ([0], "float32", (5,)),          # fewer bytes than the shape needs
    ([0], "float32", (3,)),          # more bytes than the shape holds
    ([0], "object", (4,)),           # not a tensor dtype
    ([0], "float32", (-4,)),         # a negative size
    (["0"], "float32", (4,)),        # a slot that is not a number
    ([0, 0], "float32", (8,)),       # a memfd used twice is fine, if the size matches
])
def test_malformed_descriptors_read_as_none(slots, dtype, shape):
    t = isolate._Tensors()
    t.fds = [_memfd(bytes(16))]
    got = _fake(t, slots, dtype, shape)
    t.close()
    if slots == [0, 0]:
        assert got is not None and got.shape == (8,)
    else:
        assert got is None


def test_the_size_cap_holds(monkeypatch):
    monkeypatch.setattr(isolate, "DATA_CAP", 20)
    t = isolate._Tensors()
    t.fds = [_memfd(bytes(16)), _memfd(bytes(16))]
    assert _fake(t, [0]) is not None
    assert _fake(t, [1]) is None  # 32 bytes in all, over the cap of 20
    t.close()


def test_each_case_runs_on_copies_at_their_own_addresses():
    """run_cases keeps every case's input copies until it is done: no case's
    copies reuse a freed one's storage, so a launch that memoizes on its
    inputs' addresses is caught by the reuse run (its own reason), not by
    whichever case happened to land on a freed address. Without the copies
    held, same-sized copies land on the same address again and again."""
    seen = []

    class Cand:
        @staticmethod
        def launch(x):
            seen.append(x.data_ptr())
            return x * 2.0

    g = torch.Generator().manual_seed(0)
    inputs = [(torch.randn(4097, generator=g),) for _ in range(6)]
    frame = isolate.run_cases(Cand, inputs, (0, 1), "cpu")
    assert len(frame["cases"]) == 6 and all("outputs" in c for c in frame["cases"])
    assert len(seen) == 8  # six cases, then the reuse run's two calls
    assert len(set(seen[:7])) == 7, seen  # the reuse run's second call is on its first's tensors
    assert seen[7] == seen[6]


def test_a_child_forked_after_the_judge_used_cpu_threads_does_not_hang():
    """The judge's OpenMP pool (a large CPU copy, as a float64 reference
    makes) does not survive the fork: a child that clones a multi-MB input
    would wait for its threads for ever unless it runs on one thread."""
    from conftest import task
    from tritondx_harness.taskload import load_task
    assert torch.get_num_threads() > 1  # the pool the child must not wait for
    torch.ones(1 << 22).clone()
    t = load_task(task("add.py"))
    got = isolate.run_candidate(t, task("cand_add_good.py"), [((1 << 21,), 0)], "cpu", timeout_s=60)
    assert got["failure"] is None, got["failure"]
    assert len(got["cases"]) == 1


def test_a_candidate_that_closes_its_pipes_and_hangs_is_still_cut(tmp_path):
    """Its pipes' end is not its end: the judge waits for the child within
    the limit, and kills it there."""
    import time
    from conftest import task
    from tritondx_harness.taskload import load_task
    with open(task("add.py"), encoding="utf-8") as f:
        text = f.read()
    cand = tmp_path / "closer.py"
    cand.write_text(text + "\n\ndef launch(x, y):\n    import os\n    os.closerange(0, 1024)\n"
                    "    while True:\n        pass\n")
    t = load_task(task("add.py"))
    t0 = time.monotonic()
    got = isolate.run_candidate(t, str(cand), [((64,), 0)], "cpu", timeout_s=3)
    assert time.monotonic() - t0 < 30
    assert got["failure"][0] == "timeout", got["failure"]
