"""`tritondx optimize` with an LLM endpoint (a canned OpenAI-compatible server
on 127.0.0.1): the model's rewrite is extracted, vetted, checked through the
interpreter and timed like a built-in candidate, and a reply with no code is
dropped with a note while the loop goes on."""
import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))
SERVER = os.environ.get("TDX_LLM_SERVER", str(ROOT / "build" / "tests" / "tdx_llm_server"))


def http_reply(path, content):
    body = json.dumps({"id": "x", "object": "chat.completion", "model": "canned-model",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 1000, "completion_tokens": 400}})
    path.write_text("HTTP/1.1 200 OK\nContent-Type: application/json\n\n" + body)


def run_optimize(tmp_path, steps):
    """optimize scale.py for one round with the canned server replying steps."""
    work = tmp_path / "_".join(steps)
    work.mkdir()
    task = work / "scale.py"
    shutil.copy(ROOT / "tests" / "data" / "rewrite" / "scale.py", task)
    src = task.read_text()
    good = src.replace("triton.cdiv(n, 64)", "triton.cdiv(n, 1024)").replace("BLOCK=64", "BLOCK=1024")
    replies = work / "replies"
    replies.mkdir()
    http_reply(replies / "good.http", "Here is the rewrite:\n\n```python\n" + good + "```\n")
    http_reply(replies / "nocode.http", "I would raise the block size.")
    srv = subprocess.Popen([SERVER, "-d", str(replies), "-l", str(work / "requests.log")] + steps,
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(srv.stdout.readline().split()[1])
        env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
                   PYTHONPATH=str(ROOT / "python"), TRITONDX_LLM_KEY="sk-secret-test-key")
        r = subprocess.run([CLI, "optimize", "--device", "cpu", "--rounds", "1", "--candidates", "3",
                            "--max-level", "0", "--no-progress", "--llm-url", f"http://127.0.0.1:{port}/v1",
                            "--llm-model", "canned-model", str(task)],
                           capture_output=True, text=True, env=env, timeout=900)
    finally:
        srv.terminate()
        srv.wait()
    assert r.returncode == 0, r.stderr
    assert "built-in families only" not in r.stderr
    entries = [json.loads(line) for line in (work / "scale.tdx" / "journal.jsonl").read_text().splitlines()]
    return r, work, entries


def test_llm_candidate_goes_through_the_loop(tmp_path):
    r, work, entries = run_optimize(tmp_path, ["good"])
    llm = [e for e in entries if e["type"] == "candidate" and e["origin"] == "llm"]
    assert llm and llm[0]["tokens"] == 1400
    assert llm[0]["verdict"] == "faster", llm[0].get("reason")
    assert llm[0]["cites"], "the LLM candidate cites the findings it was given"
    log = (work / "requests.log").read_text()
    assert "Authorization: Bearer sk-secret-test-key" in log  # sent to the server ...
    assert "TDX001" in log  # ... with the finding it was asked to act on
    for f in (work / "scale.tdx").iterdir():  # ... and written nowhere else
        assert "sk-secret-test-key" not in f.read_text()
    assert "sk-secret-test-key" not in r.stdout + r.stderr


def test_llm_reply_without_code_is_dropped_and_the_loop_goes_on(tmp_path):
    r, work, entries = run_optimize(tmp_path, ["nocode"])
    assert not [e for e in entries if e["type"] == "candidate" and e["origin"] == "llm"]
    assert "dropped" in r.stderr and "no code" in r.stderr
    assert any(e["type"] == "keep" for e in entries)  # the built-in candidates still ran
    assert entries[-1]["type"] == "stop"
