"""Throughput of batch classification against a per-record loop and a naive if-chain.

Generates realistic failure records (seeded: stderr tails of agent CLIs, ~1.5 KB each,
0-3 pattern hits per record, some ANSI colour, carriage-return redraws and result
frames), then measures in the same run:

- ``failtax.classify_batch`` over the whole frame (hyperscan engine, ``--jobs`` processes);
- a per-record loop calling ``failtax.classify``;
- a plain-Python port of seed 004's ``classify`` if-chain (the naive baseline);
- the table's compiled patterns scanned over each record with nothing done with the hits
  (the bound on ``classify_batch``, which scans the same way and then resolves the hits);

and prints records/s, MB/s, their ratios and peak memory. The slow loops are timed on a
subset (``--subset``) and scaled; the output says so. ``--cli-gb`` measures the
``failtax classify`` command on a generated JSON Lines file of that size instead
(wall time and peak RSS of the process and its children).

Run::

    python benchmarks/bench_classify.py                      # 1,000,000 records
    python benchmarks/bench_classify.py --records 100000 --jobs 1
    python benchmarks/bench_classify.py --cli-gb 1.5         # the CLI on a 1.5 GB file
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------- realistic records

# Lines that carry a cause, in the wordings real agent CLIs print (Claude Code, Codex,
# Gemini CLI, OpenAI/Anthropic SDKs, node, shells). Each is one "pattern hit".
INCIDENTS = [
    'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 40,000 input tokens per minute."}}',
    "API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited",
    'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    "Claude AI usage limit reached|1767225600",
    "5-hour limit reached ∙ resets 3pm",
    "You've hit your limit · resets 11pm (Europe/Berlin)",
    "Invalid API key · Please run /login",
    'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}}',
    "Prompt is too long",
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213642 tokens > 200000 maximum"}}',
    "Error: Reached max turns (40)",
    "Error: connect ECONNREFUSED 127.0.0.1:443",
    "FetchError: request to https://api.anthropic.com/v1/messages failed, reason: getaddrinfo ENOTFOUND api.anthropic.com",
    "APIConnectionError: Connection error.",
    "stream error: stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)",
    "ERROR: exceeded retry limit, last status: 429 Too Many Requests",
    '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}]',
    "openai.RateLimitError: Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota'}}",
    "spawn claude ENOENT",
    "/bin/sh: 1: claude: not found",
    "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    "Killed",
    "agent uid-7f3a was deleted, so this pane cannot start",
    "Agent3 is already running in another AgentMux instance on this host. Take it over there, or close it first.",
    "no credentials for gemini: the bound account was deleted or is unresolvable. Bind an account for this provider in Connectors → Accounts.",
    "Error: socket hang up",
    "Request timed out.",
    "anthropic.InternalServerError: Error code: 503 - service unavailable, try again later",
    "Error: The model's context window exceeded: input length and `max_tokens` exceed context limit",
    "npm ERR! code ELIFECYCLE\nnpm ERR! errno 137",
]

# Lines that look like what surrounds a failure and match no rule (tool progress,
# stack frames, build output, ISO dates that contain 429).
NOISE = [
    "{ts} INFO  [agent] tool call Read src/components/{word}.tsx (124 lines)",
    "{ts} DEBUG [mcp] server '{word}' responded in {n} ms",
    "    at Object.<anonymous> (/home/dev/proj/node_modules/@anthropic-ai/claude-code/cli.js:{n}:{m})",
    "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    "    at async Promise.all (index {m})",
    "{ts} WARN  [git] working tree has {n} uncommitted changes in {word}/",
    "> {word}@1.{m}.0 build /home/dev/proj/packages/{word}",
    "vite v5.4.{m} building for production...",
    "✓ {n} modules transformed.",
    "dist/assets/{word}-{hex}.js   {n}.{m} kB │ gzip: {m}.{n} kB",
    "{ts} INFO  [agent] thinking… ({n} tokens so far)",
    "Tip: use /compact to summarise the conversation so far",
    "  File \"/usr/lib/python3.11/site-packages/{word}/client.py\", line {n}, in _request",
    "warning: unused variable: `{word}` (#[warn(unused_variables)] on by default)",
    "{ts} INFO  [session] resumed session {hex}-{hex} at 2026-04-29 (step {m})",
    "running {n} tests across {m} files",
    "Compiling {word} v0.{m}.{n}",
    "{ts} TRACE [ipc] frame {hex} len={n}",
]
# Rarer lines: test-runner reports (a report of someone else's failure) and a
# traceback line that looks like a credential to the secret masker.
RARE_NOISE = [
    "    response = self._send(request, auth=auth, follow_redirects=follow_redirects)",
    "  ● {word} › renders the {word} panel",
    "FAIL src/{word}.test.ts",
    "error[E0308]: mismatched types",
]

WORDS = [
    "sidebar", "layout", "agentPane", "checkout", "invoices", "router", "editor", "picker",
    "store", "drone", "sidecar", "relay", "panel", "toolbar", "schema", "parser", "tokens",
]


def _noise_line(rng: random.Random) -> str:
    t = rng.choice(RARE_NOISE) if rng.random() < 0.01 else rng.choice(NOISE)
    ts = f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z"
    return t.format(
        ts=ts, word=rng.choice(WORDS), n=rng.randint(2, 9999), m=rng.randint(0, 99),
        hex=f"{rng.getrandbits(32):08x}",
    )


def generate_records(n: int, *, seed: int = 0, size: int = 1600) -> list[dict[str, Any]]:
    """``n`` evidence records of about ``size`` characters of text, reproducible by ``seed``.

    >>> recs = generate_records(3, seed=1)
    >>> len(recs), all("text" in r for r in recs)
    (3, True)
    """
    rng = random.Random(seed)
    pool = [_noise_line(rng) for _ in range(20_000)]
    mean = sum(map(len, pool)) / len(pool) + 1
    k = max(1, round((size - 150) / mean))
    out = []
    for i in range(n):
        hits = rng.choices((0, 1, 2, 3), weights=(30, 45, 18, 7))[0]
        lines = rng.choices(pool, k=k + rng.randint(-3, 3))
        for _ in range(hits):  # causes sit near the end of a tail, as they do
            lines.insert(rng.randint(max(0, len(lines) - 6), len(lines)), rng.choice(INCIDENTS))
        r = rng.random()
        if r < 0.04:  # coloured output
            lines = [f"\x1b[3{rng.randint(1, 7)}m{ln}\x1b[0m" if rng.random() < 0.3 else ln for ln in lines]
        elif r < 0.06:  # a progress bar redrawn with carriage returns
            lines.insert(0, "\r".join(f"[{'#' * j}{'.' * (10 - j)}] {j * 10}%" for j in range(11)))
        rec: dict[str, Any] = {"id": i, "text": "\n".join(lines), "exit_code": rng.choice((1, 1, 1, 1, 2, 0, 137, 127))}
        if rng.random() < 0.01:
            rec["signal"] = rng.choice((9, 15))
            rec["exit_code"] = None
        if rng.random() < 0.05:
            rec["result_frame"] = {
                "type": "result", "subtype": rng.choice(("error_during_execution", "error_max_turns", "success")),
                "is_error": True, "result": rng.choice(INCIDENTS) if rng.random() < 0.5 else "",
            }
        out.append(rec)
    return out


# ---------------------------------------------------------------- the naive baseline

def _tail_lines(s: str, max_lines: int, max_chars: int) -> str:
    lines = [ln.rstrip() for ln in s.splitlines()]
    lines = [ln for ln in lines if ln]
    if len(lines) > max_lines:
        lines = lines[-max_lines:]
    joined = "\n".join(lines)
    return joined[-max_chars:] if len(joined) > max_chars else joined


def _mentions_http_status(hay: str, code: str) -> bool:
    return any(
        p in hay
        for p in (
            f"http {code}", f"http/1.1 {code}", f"http/2 {code}", f"status {code}", f"status: {code}",
            f"status code {code}", f"code {code}", f"code: {code}", f"error {code}", f"error: {code}",
            f"[{code}]", f"({code})",
        )
    )


def _frame_error_text(frame: Any) -> str:
    if not isinstance(frame, dict):
        return ""
    err = frame.get("error")
    if isinstance(err, dict) and isinstance(err.get("message"), str):
        return err["message"]
    if isinstance(err, str):
        return err
    if isinstance(frame.get("result"), str):
        return frame["result"]
    errors = frame.get("errors")
    if isinstance(errors, list):
        for e in errors:
            if isinstance(e, str) and e:
                return e
    st = frame.get("subtype")
    return st if isinstance(st, str) else ""


def naive_classify(exit_code: int | None, signal: int | None, stderr: str, result_frame: dict | None) -> tuple[str, str]:
    """Seed 004's ``classify`` ported line for line to plain Python: (code, tail)."""
    frame_error = isinstance(result_frame, dict) and (
        result_frame.get("is_error") is True or str(result_frame.get("subtype", "")).startswith("error")
    )
    frame_text = _frame_error_text(result_frame) if result_frame is not None else ""
    combined = stderr if not frame_text else f"{stderr}\n{frame_text}"
    tail = _tail_lines(combined, 24, 1600)
    hay = combined.lower()
    subtype = result_frame.get("subtype") if isinstance(result_frame, dict) else None
    if isinstance(subtype, str) and "max_turns" in subtype:
        return "max_turns", tail
    if signal is not None or exit_code == 137:
        return "killed", tail
    if "rate limited" in hay or "temporarily limiting requests" in hay or "rate_limit" in hay or _mentions_http_status(hay, "429"):
        return "rate_limited", tail
    if "overloaded" in hay or _mentions_http_status(hay, "529"):
        return "overloaded", tail
    if "bind an account for this provider in connectors" in hay or "bind an account for this provider in the armory" in hay:
        return "auth", tail
    if "running in another agentmux instance" in hay or "was taken over by another agentmux instance" in hay:
        return "live_elsewhere", tail
    if "was deleted, so this pane cannot start" in hay:
        return "agent_deleted", tail
    if "instead of an isolated agentmux account" in hay:
        return "auth", tail
    if "refusing to spawn with an unprotected config dir" in hay:
        return "auth", tail
    if (
        "authentication_error" in hay or "authentication_failed" in hay or "invalid authentication" in hay
        or "invalid api key" in hay or "invalid x-api-key" in hay or "unauthorized" in hay
        or "please run /login" in hay or _mentions_http_status(hay, "401")
    ):
        return "auth", tail
    if (
        "model_context_window_exceeded" in hay or "prompt is too long" in hay
        or ("context" in hay and ("exceed" in hay or "window" in hay or "too long" in hay))
    ):
        return "context_exceeded", tail
    if "max turns" in hay or "max-turns" in hay or "maximum number of turns" in hay:
        return "max_turns", tail
    if "usage limit" in hay or "out of credits" in hay or "quota" in hay or "billing" in hay or "insufficient" in hay:
        return "usage_limit", tail
    if (
        "apiconnectionerror" in hay or "connection error" in hay or "could not resolve" in hay or "econnreset" in hay
        or "network" in hay or "timed out" in hay or "timeout" in hay or "dns" in hay
    ):
        return "network", tail
    if frame_error:
        return "unknown_non_zero", tail
    if exit_code == 0:
        return "no_output", tail
    return "unknown_non_zero", tail


# ---------------------------------------------------------------- measuring


def _peak_rss_mb() -> float:
    """This process's peak resident set since the last reset (Linux), in MB."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def build_frame(n: int, seed: int, chunk: int = 100_000) -> tuple[Any, list[dict[str, Any]], int]:
    """The evidence frame (polars), a sample of the records as dicts, and its text bytes."""
    import polars as pl

    schema = {
        "id": pl.Int64, "text": pl.String, "exit_code": pl.Int64, "signal": pl.Int64,
        "result_frame": pl.Struct({"type": pl.String, "subtype": pl.String, "is_error": pl.Boolean, "result": pl.String}),
    }
    frames, sample = [], []
    for k in range(0, n, chunk):
        recs = generate_records(min(chunk, n - k), seed=seed * 1_000_003 + k)
        for j, r in enumerate(recs):
            r["id"] = k + j
        if len(sample) < 50_000:
            sample.extend(recs[: 50_000 - len(sample)])
        frames.append(pl.DataFrame([{c: r.get(c) for c in schema} for r in recs], schema=schema))
        del recs
    df = pl.concat(frames, rechunk=True)
    del frames
    nbytes = int(df["text"].str.len_bytes().sum())
    return df, sample, nbytes


def _bare_scan_seconds(table: Any, records: list[dict[str, Any]]) -> float | None:
    """Seconds to scan each record's text with the table's compiled patterns, doing nothing
    with the hits: the part of ``classify_batch``'s work that the scan alone costs.

    None when the table compiled to the pure fallback engine (no hyperscan here).
    """
    from failtax._batch_plan import plan_for

    db = getattr(plan_for(table, None).engine, "_db", None)
    if db is None:
        return None
    texts = [(r.get("text") or "").encode("utf-8", "surrogatepass") for r in records]

    def on_match(*_: Any) -> None:
        return None

    scan = db.scan
    t = time.perf_counter()
    for b in texts:
        scan(b, on_match)
    return time.perf_counter() - t


def _rate(n: int, seconds: float, nbytes: float) -> tuple[float, float]:
    return n / seconds, nbytes / seconds / 1e6


def bench_batch(args: argparse.Namespace) -> None:
    import failtax
    from failtax._batch_plan import plan_for
    from failtax._batch_resolve import _jobs
    from failtax.batch import classify_batch
    from failtax.table import load_table

    table = load_table(args.taxonomy)
    print(f"generating {args.records:,} records (seed {args.seed}) …", flush=True)
    t = time.perf_counter()
    df, sample, nbytes = build_frame(args.records, args.seed)
    print(f"  {time.perf_counter() - t:.1f} s; {nbytes / 1e6:,.0f} MB of text, {nbytes / args.records:,.0f} bytes per record")
    classify_batch(df.head(1000), table=table, n_jobs=1)  # compile the table once, as a caller would

    reset = _reset_peak_rss()
    base = _peak_rss_mb()
    t = time.perf_counter()
    out = classify_batch(df, table=table, n_jobs=args.jobs)
    t_batch = time.perf_counter() - t
    peak = _peak_rss_mb()
    assert out.height == df.height

    sub = sample[: args.subset]
    sub_bytes = sum(len(r["text"].encode()) for r in sub)
    t = time.perf_counter()
    for r in sub:
        naive_classify(r.get("exit_code"), r.get("signal"), r["text"], r.get("result_frame"))
    t_naive = time.perf_counter() - t
    per = sub[: args.subset_classify]
    per_bytes = sum(len(r["text"].encode()) for r in per)
    ct = table.compiled()  # the loop's set-up, untimed as classify_batch's is: the literal index
    ct.index                # and every pattern (each is compiled when first used)
    list(ct.regex.values()), list(ct.capture.values())
    t = time.perf_counter()
    for r in per:
        failtax.classify(r, taxonomy=args.taxonomy, table=table)
    t_single = time.perf_counter() - t

    t_scan = _bare_scan_seconds(table, sub)

    rb, mb = _rate(df.height, t_batch, nbytes)
    rn, mn = _rate(len(sub), t_naive, sub_bytes)
    rs, ms = _rate(len(per), t_single, per_bytes)
    print()
    print(f"{'':38s} {'records/s':>12s} {'MB/s':>8s} {'vs naive':>9s} {'vs loop':>8s}")
    jobs = _jobs(args.jobs, df.height, plan_for(table, None))  # the processes classify_batch ran
    print(f"{'classify_batch (jobs=' + str(jobs) + ')':38s} {rb:12,.0f} {mb:8.1f} {rb / rn:8.1f}× {rb / rs:7.1f}×")
    print(f"{'per-record failtax.classify loop *':38s} {rs:12,.0f} {ms:8.1f} {rs / rn:8.2f}× {1:7.1f}×")
    print(f"{'naive if-chain (seed 004 port) *':38s} {rn:12,.0f} {mn:8.1f} {1:8.1f}× {rn / rs:7.1f}×")
    if t_scan is not None:
        rf, mf = _rate(len(sub), t_scan, sub_bytes)
        print(f"{'bare scan of the table, one core *':38s} {rf:12,.0f} {mf:8.1f} {rf / rn:8.1f}× {rf / rs:7.1f}×")
        print(f"  the scan alone, record by record as classify_batch runs it, on {jobs} core(s): "
              f"≈ {jobs * rf:,.0f} records/s,")
        print(f"  {jobs * rf / rn:.1f}× the if-chain: a bound on classify_batch, whose answers need more than the scan")
    print()
    print(f"* timed on the first {len(sub):,} (if-chain, bare scan) and {len(per):,} (classify loop) records and scaled")
    print(f"  to {df.height:,}: {df.height / rn:,.0f} s and {df.height / rs:,.0f} s; classify_batch took {t_batch:.1f} s for all.")
    kind = "peak RSS during classify_batch" if reset else "peak RSS of the run"
    print(f"{kind}: {peak:,.0f} MB (data and frame before the call: {base:,.0f} MB); "
          f"largest forked part: {_children_peak_mb():,.0f} MB")
    print(f"targets on 1,000,000 records: ≥ 25× the if-chain ({'met' if rb / rn >= 25 else 'not met'}), "
          f"≥ 20× the classify loop ({'met' if rb / rs >= 20 else 'not met'})")


def write_jsonl(path: Path, gigabytes: float, seed: int) -> tuple[int, int]:
    """A JSON Lines file of about ``gigabytes`` GB of generated records; (lines, bytes)."""
    target = int(gigabytes * 1e9)
    written = lines = 0
    k = 0
    with path.open("wb") as fh:
        while written < target:
            recs = generate_records(20_000, seed=seed * 1_000_003 + k)
            for j, r in enumerate(recs):
                r["id"] = lines + j
            block = b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in recs)
            fh.write(block)
            written += len(block)
            lines += len(recs)
            k += len(recs)
    return lines, written


def bench_cli(args: argparse.Namespace) -> None:
    import psutil

    with tempfile.TemporaryDirectory(prefix="failtax-bench-") as tmp:
        path = Path(tmp) / "events.jsonl"
        print(f"writing ~{args.cli_gb} GB of JSON Lines …", flush=True)
        t = time.perf_counter()
        lines, nbytes = write_jsonl(path, args.cli_gb, args.seed)
        print(f"  {lines:,} lines, {nbytes / 1e9:.2f} GB in {time.perf_counter() - t:.0f} s")
        cmd = [sys.executable, "-c", "from failtax.cli import main; main()", "classify", "--taxonomy", args.taxonomy, str(path)]
        peak = 0
        per_pid: dict[int, int] = {}
        out_lines = 0
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        parent = psutil.Process(proc.pid)
        last = 0.0
        assert proc.stdout is not None
        for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
            out_lines += chunk.count(b"\n")
            now = time.perf_counter()
            if now - last > 0.05:
                last = now
                try:
                    procs = [parent, *parent.children(recursive=True)]
                    rss = {p.pid: p.memory_info().rss for p in procs if p.is_running()}
                    peak = max(peak, sum(rss.values()))
                    for pid, v in rss.items():
                        per_pid[pid] = max(per_pid.get(pid, 0), v)
                except psutil.Error:
                    pass
        proc.wait()
        took = time.perf_counter() - t
        err = proc.stderr.read().decode() if proc.stderr else ""
        if proc.returncode != 0:
            raise SystemExit(f"failtax classify failed ({proc.returncode}): {err}")
        print(f"failtax classify: {lines:,} lines in {took:.0f} s = {lines / took:,.0f} lines/s, {nbytes / took / 1e6:.0f} MB/s")
        print(f"output lines: {out_lines:,} (one per input line: {'yes' if out_lines == lines else 'NO'})")
        print(f"peak RSS, the command and its worker processes summed (shared pages counted per process): "
              f"{peak / 1e6:,.0f} MB — target < 1,000 MB: {'met' if peak < 1e9 else 'not met'}")
        print("  per process: " + ", ".join(f"{v / 1e6:,.0f} MB" for v in per_pid.values()))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000, help="records to classify (default 1,000,000)")
    ap.add_argument("--jobs", type=int, default=None, help="processes for classify_batch (default: every core)")
    ap.add_argument("--taxonomy", default="agent-run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--subset", type=int, default=20_000, help="records the naive if-chain is timed on")
    ap.add_argument("--subset-classify", type=int, default=3_000, help="records the classify loop is timed on")
    ap.add_argument("--cli-gb", type=float, default=None, help="instead: time `failtax classify` on a JSONL file of this many GB")
    args = ap.parse_args(argv)
    if args.cli_gb:
        bench_cli(args)
    else:
        bench_batch(args)


if __name__ == "__main__":
    main()
