"""The fault-injection suite (CPU side): hostile candidates go through the real
`tritondx optimize` loop -- a canned LLM server replies with the hostile code --
and hostile tasks are handed to it directly, with Triton's interpreter
(`--device cpu`) and the model timer.

For every case: the candidate is rejected with the expected one-line reason,
tritondx finishes with the documented exit status, the user's task folder
and a stand-in $HOME are byte-identical afterwards, the journal is valid JSON
lines, `--resume` works after it, no process it started outlives it and
nothing reaches a TCP listener on 127.0.0.1. The counts (tried, contained,
files lost) are printed and, with TDX_FAULTS_REPORT set, written as a
Markdown table.

The cases run two at a time (each one is a fresh optimize run of two or three
Python children); the whole suite takes about 7 CPU-minutes.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAULTS = ROOT / "tests" / "faults"
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))
SERVER = os.environ.get("TDX_LLM_SERVER", str(ROOT / "build" / "tests" / "tdx_llm_server"))
TIMER = ROOT / "tests" / "helpers" / "model_timer.py"
KEY = "sk-fault-suite-" + uuid.uuid4().hex
# Limits of every child: wall clock (TRITONDX_CANDIDATE_TIMEOUT) long enough
# for a busy machine; CPU time (TRITONDX_CANDIDATE_CPU) short for the cases
# that loop, so they cost little and end alike however loaded the machine is.
CHILD_TIMEOUT = 300
HANG_CPU = 10
HANGS = {"hang_python", "hang_kernel", "hang"}
HANG_REASON = r"killed by signal 24 \(SIGXCPU\)|over its CPU time limit of 10 s"

# Hostile candidates (tests/faults/candidates/NAME.py, an LLM's reply): the
# reason the journal must give for rejecting each.
CANDIDATES = {
    "segfault": r"killed by signal 11 \(SIGSEGV\)",
    "hang_python": HANG_REASON,
    "hang_kernel": HANG_REASON,
    "nan": r"NaN/Inf where the reference is finite",
    "zeros": r"output is all zero where the reference is not",
    "out_of_bounds": r"wrote past the ends of its outputs",
    "unwritten_tail": r"500 of 1000 elements were never written",
    "write_task_dir": r"PermissionError: \[Errno 13\] Permission denied",
    "write_home": r"PermissionError: \[Errno 13\] Permission denied",
    "network": r"OSError: \[Errno 101\] Network is unreachable|PermissionError: \[Errno 13\]",
    "huge_memory": r"can't allocate memory|not enough memory",
    "patch_compare": r"replaced tritondx_harness\.check\.compare",
    "patch_timer": r"replaced torch\.cuda\.Event",
    "cache_by_identity": r"caches on its inputs' identity",
    "cache_tensor": r"seed 1: relative error",
    "change_reference": r"candidate changes reference, which belongs to the task",
    "change_signature": r"candidate changes launch's parameters from \(x\) to \(x, scale=2\.0\)",
    "change_shapes": r"candidate changes SHAPES, which belongs to the task",
    "change_tolerance": r"candidate adds TOLERANCE, which belongs to the task",
    "flood_stdout": r"wrote more than 1 MiB to stdout/stderr",
    "non_json": r"output is all zero where the reference is not",
    "sys_exit": r"the candidate called exit\(0\)",
    "os_exit": r"exited with status 0 before it returned its outputs",
    "fork_orphan": r"left \d+ process(es)? running after it returned",
    "kill_tritondx": r"PermissionError: \[Errno 1\] Operation not permitted",
    "steal_key": r"key=absent",
    "poke_judge": r"PermissionError: \[Errno 13\] Permission denied: '/proc/\d+/mem'",
}

# Hostile tasks (tests/faults/tasks/NAME.py): optimize stops before any round
# with exit status 4 and this reason on stderr.
TASKS = {
    "segfault_import": r"killed by signal 11 \(SIGSEGV\)",
    "hang": HANG_REASON,
    "exit": r"exited with status 7",
    "flood": r"wrote more than 1 MiB to stdout/stderr|output over cap",
    "write_outside": r"PermissionError: \[Errno 13\] Permission denied",
}


def landlock_abi():
    """The kernel's Landlock ABI version (0: none): where there is none the
    documented fallback runs children without write isolation."""
    import ctypes
    try:
        return max(0, ctypes.CDLL(None).syscall(ctypes.c_long(444), None, ctypes.c_long(0), ctypes.c_long(1)))
    except (OSError, AttributeError):
        return 0


LANDLOCK = landlock_abi()


def tree_digest(root, skip=()):
    """{relative path: sha256} of every file under root (links by target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if os.path.normpath(os.path.join(rel_dir, d)) not in skip]
        for name in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel in skip:
                continue
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            else:
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
        out[rel_dir + "/"] = "dir"
    return out


def files_lost(before, after):
    """Paths changed, removed or added between two digests."""
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


class Listener:
    """A TCP listener on 127.0.0.1 that records whatever reaches it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received = []
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(4096))
                except OSError:
                    self.received.append(b"(connected)")

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def http_reply(path, content):
    """A canned chat-completion reply with `content` as the message."""
    body = json.dumps({"id": "x", "object": "chat.completion", "model": "canned-model",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 100}})
    path.write_text("HTTP/1.1 200 OK\nContent-Type: application/json\n\n" + body)


def processes_with(marker):
    """Pids whose command line holds marker."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return found


def journal_entries(path):
    """The journal's entries; AssertionError when a line is not a JSON object."""
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        obj = json.loads(line)
        assert isinstance(obj, dict), f"journal line {n} is not an object"
        entries.append(obj)
    return entries


def run_case(base, kind, name, listener):
    """One fault: set up a user folder and a home, run optimize, look at
    everything afterwards. Returns a dict of facts."""
    work = base / f"{kind}_{name}"
    user = work / "project"
    home = work / "home"
    user.mkdir(parents=True)
    (home / ".ssh").mkdir(parents=True)
    (home / ".bashrc").write_text("# the user's shell setup\n")
    (home / ".ssh" / "known_hosts").write_text("host ssh-ed25519 AAAA\n")
    (user / "notes.txt").write_text("the user's notes\n")
    (user / "data").mkdir()
    (user / "data" / "weights.bin").write_bytes(bytes(range(256)) * 16)
    marker = "tdx-fault-" + uuid.uuid4().hex
    task = user / "task.py"
    if kind == "cand":
        shutil.copy(FAULTS / "task.py", task)
        code = (FAULTS / "candidates" / f"{name}.py").read_text()
    else:
        shutil.copy(FAULTS / "tasks" / f"{name}.py", task)
        code = None
    task.write_text(task.read_text().replace("@TASKDIR@", str(user)).replace("@MARKER@", marker))
    outputs = ("task.tdx", "task.opt.py")  # what optimize itself writes next to the task
    before = (tree_digest(user, skip=outputs), tree_digest(home))
    env = dict(os.environ, TDX_TEST_TIMER=str(TIMER), PYTHONPATH=str(ROOT / "python"),
               TRITONDX_CANDIDATE_TIMEOUT=str(CHILD_TIMEOUT), HOME=str(home), TRITONDX_LLM_KEY=KEY)
    env.pop("OPENAI_API_KEY", None)
    env.pop("TRITONDX_CANDIDATE_CPU", None)
    if name in HANGS:
        env["TRITONDX_CANDIDATE_CPU"] = str(HANG_CPU)
    argv = [CLI, "optimize", "--device", "cpu", "--rounds", "1", "--candidates", "2", "--max-level", "0",
            "--no-progress", str(task)]
    srv = None
    if code is not None:
        code = (code.replace("@TASKDIR@", str(user)).replace("@PORT@", str(listener.port))
                .replace("@MARKER@", marker))
        replies = work / "replies"
        replies.mkdir()
        http_reply(replies / "hostile.http", "Here is the faster kernel:\n\n```python\n" + code + "```\n")
        srv = subprocess.Popen([SERVER, "-d", str(replies), "-l", str(work / "requests.log"), "hostile"],
                               stdout=subprocess.PIPE, text=True)
        port = int(srv.stdout.readline().split()[1])
        argv[2:2] = ["--llm-url", f"http://127.0.0.1:{port}/v1", "--llm-model", "canned-model"]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    finally:
        if srv is not None:
            srv.terminate()
            srv.wait()
    facts = {"name": name, "kind": kind, "rc": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
    jpath = user / "task.tdx" / "journal.jsonl"
    try:
        facts["entries"] = journal_entries(jpath)
        facts["journal_ok"] = True
    except (OSError, ValueError, AssertionError) as e:
        facts["entries"] = []
        facts["journal_ok"] = f"journal invalid: {e}"
    res = subprocess.run(argv[:-1] + ["--resume", str(task)], capture_output=True, text=True, env=env,
                         timeout=600)
    facts["resume_rc"] = res.returncode
    facts["resume_err"] = res.stderr
    try:
        facts["resume_entries"] = journal_entries(jpath)
    except (OSError, ValueError, AssertionError):
        facts["resume_entries"] = None
    after = (tree_digest(user, skip=outputs), tree_digest(home))
    facts["lost"] = files_lost(before[0], after[0]) + ["~/" + p for p in files_lost(before[1], after[1])]
    strays = processes_with(marker)
    for pid in strays:  # leave nothing behind, whatever the verdict
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    facts["strays"] = strays
    cands = [e for e in facts["entries"] if e.get("type") == "candidate" and e.get("origin") == "llm"]
    facts["verdict"] = cands[0]["verdict"] if cands else None
    facts["reason"] = cands[0].get("reason", "") if cands else ""
    return facts


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """Every case, run two at a time; {(kind, name): facts}."""
    base = tmp_path_factory.mktemp("faults")
    listener = Listener()
    jobs = [("cand", n) for n in CANDIDATES] + [("task", n) for n in TASKS]
    only = os.environ.get("TDX_FAULTS_ONLY")  # while working on some cases: NAME,NAME
    if only:
        jobs = [j for j in jobs if j[1] in only.split(",")]
    # the slow ones (they wait for the timeout) first, so the pool stays busy
    jobs.sort(key=lambda j: 0 if j[1] in HANGS else 1)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            futs = {job: pool.submit(run_case, base, job[0], job[1], listener) for job in jobs}
            results = {job: f.result() for job, f in futs.items()}
    finally:
        listener.close()
    results["listener"] = listener.received
    return results


def facts_of(suite, kind, name):
    """The facts of one case (only cases left out by TDX_FAULTS_ONLY are missing)."""
    if (kind, name) not in suite:
        pytest.skip("not selected by TDX_FAULTS_ONLY")
    return suite[(kind, name)]


def contained(f, pattern):
    """(contained?, why not) for one case's facts."""
    problems = []
    if f["kind"] == "cand":
        if f["rc"] != 0:
            problems.append(f"exit status {f['rc']} (expected 0)")
        if f["verdict"] != "rejected":
            problems.append(f"verdict {f['verdict']!r}")
        if not re.search(pattern, f["reason"]):
            problems.append(f"reason {f['reason']!r}")
    else:
        if f["rc"] != 4:
            problems.append(f"exit status {f['rc']} (expected 4)")
        if not re.search(pattern, f["stderr"]):
            problems.append(f"stderr {f['stderr'][-300:]!r}")
    if f["journal_ok"] is not True:
        problems.append(str(f["journal_ok"]))
    if f["resume_rc"] != f["rc"] and not (f["kind"] == "task" and f["resume_rc"] == 0):
        problems.append(f"--resume exit status {f['resume_rc']}: {f['resume_err'][-200:]}")
    if f["resume_entries"] is None:
        problems.append("journal invalid after --resume")
    if f["lost"]:
        problems.append(f"files lost: {f['lost']}")
    if f["strays"]:
        problems.append(f"processes left running: {f['strays']}")
    # where the kernel has Landlock, every check of the run says it was isolated
    if LANDLOCK:
        checked = [e for e in f["entries"] if "sandbox" in e]
        if f["kind"] == "cand" and not checked:
            problems.append("no check recorded its sandbox")
        if any(e["sandbox"].get("fs") is not True for e in checked):
            problems.append("a check ran without file system isolation")
    if KEY in json.dumps(f["entries"]) + f["stdout"] + f["stderr"]:
        problems.append("the API key leaked")
    return not problems, "; ".join(problems)


@pytest.mark.parametrize("name", sorted(CANDIDATES))
def test_hostile_candidate_is_rejected_and_contained(suite, name):
    f = facts_of(suite, "cand", name)
    ok, why = contained(f, CANDIDATES[name])
    assert ok, why
    assert "\n" not in f["reason"]  # one line


@pytest.mark.parametrize("name", sorted(TASKS))
def test_hostile_task_stops_the_run_with_a_reason(suite, name):
    f = facts_of(suite, "task", name)
    ok, why = contained(f, TASKS[name])
    assert ok, why
    assert "the task's own kernel fails its check" in f["stderr"]


def test_nothing_reached_the_network(suite):
    assert suite["listener"] == []


def test_the_counts(suite):
    """faults tried, contained, files lost: printed, and written as a table
    to $TDX_FAULTS_REPORT when set."""
    rows, n_ok, n_lost = [], 0, 0
    for (kind, name), pattern in [(("cand", n), p) for n, p in CANDIDATES.items()] + \
                                 [(("task", n), p) for n, p in TASKS.items()]:
        if (kind, name) not in suite:
            continue
        f = suite[(kind, name)]
        ok, why = contained(f, pattern)
        n_ok += ok
        n_lost += len(f["lost"])
        reason = f["reason"] if kind == "cand" else (f["stderr"].strip().splitlines() or [""])[-1]
        rows.append(f"| {kind} | {name} | {'yes' if ok else 'NO: ' + why} | {reason[:140]} | {len(f['lost'])} |")
    table = "\n".join(["| | fault | contained | reason | files lost |", "|---|---|---|---|---|"] + rows)
    summary = f"faults tried: {len(rows)}, contained: {n_ok}, files lost: {n_lost}"
    print("\n" + table + "\n" + summary)
    if os.environ.get("TDX_FAULTS_REPORT"):
        Path(os.environ["TDX_FAULTS_REPORT"]).write_text(table + "\n\n" + summary + "\n")
    assert n_lost == 0
    assert n_ok == len(rows), summary
