#!/usr/bin/env python3
"""Drives `puffin-lens mcp` with the official MCP Python SDK (`pip install mcp`)
through a whole investigation of the planted before/after pair
(tests/common/planted.rs `jobs_pair`), and checks:

- the session: server info, instructions, the tools (each saying when to use it
  and when not), the investigate_pair prompt, the agents.md resource;
- open_recording of A and B, their ids and summaries;
- report: the pair's planted changes (job::cloth slower per call, the hitch in
  A's assets::stream a spike, the new gap after sim::step) in an agent-sized
  answer, and its sections paged;
- calls and window follow-ups equal to the CLI's `--json` for the same query;
- a long answer cut to max_bytes with a note saying what was cut;
- bad arguments, an unknown id, a bad transform, a missing file, a file that is
  not a recording: tool errors, and the session goes on;
- a damaged file: opened, and said to be damaged;
- a hostile recording (markup, quotes, control characters in names): every
  answer is JSON text that carries the names exactly;
- a huge recording: every answer within its size bound.

Run by tests/mcp.rs with one argument, a JSON object: {"bin", "files": {name:
path}, "agents_md"}. Prints the measurements and "all checks passed".
"""

import asyncio
import json
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CONFIG = json.loads(sys.argv[1])
BIN = CONFIG["bin"]
FILES = CONFIG["files"]
DEFAULT_MAX_BYTES = 24_000


def is_error(result):
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def text_of(result):
    assert len(result.content) == 1, result
    return result.content[0].text


def cli_json(*args):
    """The CLI's --json answer to the same question."""
    out = subprocess.run([BIN, *args, "--json"], capture_output=True, check=False)
    assert out.returncode in (0, 3), (args, out.stderr)
    return json.loads(out.stdout)


class Session:
    def __init__(self, session):
        self.s = session
        self.times = {}

    async def call(self, tool, **args):
        start = time.perf_counter()
        result = await self.s.call_tool(tool, args)
        self.times.setdefault(tool, []).append(time.perf_counter() - start)
        return result

    async def ok(self, tool, **args):
        """A tool's answer as JSON (it must not be an error)."""
        result = await self.call(tool, **args)
        text = text_of(result)
        assert not is_error(result), f"{tool} {args}: {text}"
        limit = args.get("max_bytes", DEFAULT_MAX_BYTES)
        assert len(text.encode()) <= limit, (tool, args, len(text))
        return json.loads(text), len(text.encode())

    async def error(self, tool, says, **args):
        result = await self.call(tool, **args)
        text = text_of(result)
        assert is_error(result), f"{tool} {args} should fail: {text[:300]}"
        assert says in text, f"{tool} {args}: {text!r} should say {says!r}"
        assert "\n" not in text, text
        return text


def names_by_kind(report):
    return report["comparison"]["changes_by_kind"]


async def investigation(s, measures):
    a, b = FILES["a.puffin"], FILES["b.puffin"]
    ra, _ = await s.ok("open_recording", path=a)
    rb, _ = await s.ok("open_recording", path=b)
    assert (ra["id"], rb["id"]) == ("r1", "r2"), (ra, rb)
    assert ra["summary"]["frames"] == 60 and rb["summary"]["frames"] == 90, (ra, rb)
    assert ra["summary"]["has_registration"] is True
    assert ra["summary"]["damaged"] is False
    assert ra["summary"] == cli_json("summary", a), "open_recording's summary is `summary --json`"

    report, size = await s.ok("report", a="r1", b="r2")
    measures["report_pair_bytes"] = size
    c = report["comparison"]
    kinds = names_by_kind(report)
    print("report kinds:", json.dumps(kinds), file=sys.stderr)
    assert "job::cloth" in kinds.get("slower", []), kinds
    assert "assets::stream" in kinds.get("spike", []), kinds
    assert c["look_first"], c
    assert any("job::cloth" in s_ for s_ in c["look_first"]), c["look_first"]
    new_gaps = [g for g in c["gaps_changed"] if g["verdict"] == "new"]
    assert any("sim::step" in g["sentence"] for g in new_gaps), c["gaps_changed"]
    # The loop is paced (vsync): main's period held at 16.667 ms, the work's
    # growth taken from the time between frames.
    assert c["frame"]["median_b_ns"] == c["frame"]["median_a_ns"] == 16666667, c["frame"]
    between = c["frame"]["between_frames"]
    assert between["mean_b_ns"] < between["mean_a_ns"], c["frame"]
    assert report["more"], report
    # Every figure carries its unit in its key (or is a count: total_*).
    for key in c["frame"]:
        if isinstance(c["frame"][key], (int, float)) and not isinstance(c["frame"][key], bool):
            assert key.endswith(("_ns", "_pct", "_fps")) or key.startswith("total_"), key
    # The report's look_first is the engine's, as the CLI writes it.
    full = cli_json_report(a, b)
    assert c["look_first"] == full["comparison"]["look_first"][: len(c["look_first"])]
    assert c["total_look_first"] == len(full["comparison"]["look_first"])

    # Paging a section.
    page, _ = await s.ok("report", a="r1", b="r2", section="comparison.rows", top=2)
    assert len(page["items"]) == min(2, page["total"]) and page["offset"] == 0, page
    assert page["items"] == full["comparison"]["rows"][:2]
    if page["total"] > 2:
        assert page["next_offset"] == 2
        page2, _ = await s.ok("report", a="r1", b="r2", section="comparison.rows", offset=2, top=2)
        assert page2["items"] == full["comparison"]["rows"][2:4]
    drift, _ = await s.ok("report", a="r1", b="r2", section="comparison.drift")
    assert drift["value"] == full["comparison"]["drift"]
    await s.error("report", "no section", a="r1", b="r2", section="comparison.nothing")

    # One recording's report.
    one, _ = await s.ok("report", a="r2")
    assert "comparison" not in one and one["recordings"][0]["frames"] == 90, one

    # Back the per-call claim: the calls of job::cloth on both sides, judged.
    calls, _ = await s.ok("calls", a="r1", b="r2", name="job::cloth", max_bytes=200_000)
    assert calls == cli_json("calls", a, b, "job::cloth"), "calls A B NAME"
    assert calls["change"]["kind"] == "slower", calls["change"]
    # The default size cuts the calls and says how to get more.
    cut, size = await s.ok("calls", a="r1", b="r2", name="job::cloth")
    assert size <= DEFAULT_MAX_BYTES
    assert cut["cut"] and "max_bytes" in cut["more"], cut["cut"]
    assert cut["answer"]["change"] == calls["change"]
    one_side, _ = await s.ok("calls", a="r2", name="sim::step", max_bytes=200_000)
    assert one_side == cli_json("calls", b, "sim::step")
    # The slow frames: the pacing of both sides, judged, as the CLI says it.
    pacing, _ = await s.ok("pacing", a="r1", b="r2", max_bytes=200_000)
    assert pacing == cli_json("pacing", a, b), "pacing A B"
    assert len(pacing["changes"]) == 7 and pacing["b"]["frames"] > 0, pacing["headline"]

    # Look into the new gap: B's frame 5, from sim::step's end to draw::batch's start.
    sim = one_side["calls"][5]
    batch, _ = await s.ok("calls", a="r2", name="draw::batch", max_bytes=200_000)
    lo = sim["start_ns"] + sim["duration_ns"]
    hi = batch["calls"][5]["start_ns"]
    assert hi - lo == 1_500_000, (lo, hi)
    window, _ = await s.ok("window", a="r2", lo=lo, hi=hi)
    assert window == cli_json("window", b, str(lo), str(hi))
    main = next(t for t in window["split"] if t["thread"] == "main")
    assert main["unprofiled_ns"] == hi - lo, main

    # The other analyses answer as the CLI does.
    for tool, args, cli in [
        ("gaps", {"a": "r2", "thread": "main"}, ["gaps", b, "--thread", "main"]),
        ("tree", {"a": "r1", "depth": 2, "transforms": ["merge:jobs::run"]},
         ["tree", a, "--depth", "2", "--merge", "jobs::run"]),
        ("children", {"a": "r1", "name": "main_loop", "ordered": True},
         ["children", a, "main_loop", "--ordered"]),
        ("compare", {"a": "r1", "b": "r2", "top": 5}, ["compare", a, b, "--top", "5"]),
        ("scope", {"a": "r1", "id": 1}, ["scope", a, "1"]),
    ]:
        got, _ = await s.ok(tool, max_bytes=200_000, **args)
        assert got == cli_json(*cli), (tool, args)
    got, _ = await s.ok("query", name="frames", a="r1", args={"top": 3})
    assert got == cli_json("frames", a, "--top", "3")
    got, _ = await s.ok("query", name="diff", a="r1", b="r2", args={"depth": 2}, max_bytes=200_000)
    assert got == cli_json("diff", a, b, "--depth", "2")


def cli_json_report(a, b):
    out = subprocess.run([BIN, "report", a, b, "--format", "json", "--top", "10000"],
                         capture_output=True, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


async def errors(s):
    await s.error("calls", 'unknown recording id "r9"', a="r9", name="job::cloth")
    await s.error("tree", "bogus", a="r1", transforms=["bogus:x"])
    await s.error("calls", "name", a="r1")
    await s.error("calls", "no scope named", a="r1", name="no::such::scope")
    await s.error("window", "lo", a="r1", lo="soon", hi=5)
    await s.error("compare", "give b", a="r1")
    await s.error("gaps", "leave out b", a="r1", b="r2")
    await s.error("report", "noise_pct", a="r1", b="r2", noise_pct=-3)
    await s.error("report", "unknown field", a="r1", bogus=1)
    await s.error("query", "unknown query", name="nothing", a="r1")
    await s.error("open_recording", "cannot read", path=FILES["a.puffin"] + ".missing")
    await s.error("open_recording", "notes.puffin", path=FILES["notes.puffin"])
    await s.error("open_recording", "path", wrong=1)
    await s.error("record", "127.0.0.1:9", addr="127.0.0.1:9", seconds=1)
    damaged, _ = await s.ok("open_recording", path=FILES["damaged.puffin"])
    assert damaged["summary"]["damaged"] is True and damaged["summary"]["frames"] > 0, damaged
    assert any("damaged" in n for n in damaged["notes"]), damaged["notes"]
    partial, _ = await s.ok("query", name="frames", a=damaged["id"], args={"top": 1})
    assert "damaged" in partial["partial"], partial
    # The session goes on after errors.
    await s.ok("scope", a="r1", id=1)


async def hostile(s):
    ha, _ = await s.ok("open_recording", path=FILES["hostile-a.puffin"])
    hb, _ = await s.ok("open_recording", path=FILES["hostile-b.puffin"])
    names = set()
    for tool, args in [
        ("report", {"a": ha["id"], "b": hb["id"]}),
        ("report", {"a": ha["id"], "b": hb["id"], "section": "comparison.rows"}),
        ("tree", {"a": ha["id"], "depth": 3}),
        ("gaps", {"a": hb["id"]}),
        ("compare", {"a": ha["id"], "b": hb["id"]}),
        ("query", {"name": "top", "a": ha["id"]}),
        ("query", {"name": "find", "a": ha["id"], "max_bytes": 200_000,
                   "args": {"aggregate": True, "by": "name", "top": 100}}),
    ]:
        got, _ = await s.ok(tool, **args)
        collect_strings(got, names)
    script = "<script>window.__puffinLensPwned=1</script>"
    assert script in names, "a hostile name comes back exactly, as text"
    assert any("\u001b[31m" in n for n in names), "control characters come back as JSON escapes"
    calls, _ = await s.ok("calls", a=ha["id"], name=script)
    assert calls["summary"]["count"] > 0


def collect_strings(v, out):
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, list):
        for x in v:
            collect_strings(x, out)
    elif isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            collect_strings(x, out)


async def huge(s, measures):
    start = time.perf_counter()
    h, _ = await s.ok("open_recording", path=FILES["huge.puffin"])
    measures["open_huge_s"] = round(time.perf_counter() - start, 2)
    assert h["summary"]["scopes"] == 20 * 5001, h["summary"]
    rid = h["id"]
    for tool, args in [
        ("report", {"a": rid}),
        ("report", {"a": rid, "section": "recordings.0.totals"}),
        ("calls", {"a": rid, "name": "hot"}),
        ("tree", {"a": rid}),
        ("gaps", {"a": rid, "min_ms": 0, "top": 100000}),
        ("window", {"a": rid, "lo": "0ms", "hi": "1000ms", "scopes": 100000}),
        ("query", {"name": "find", "a": rid, "args": {"top": 100000}}),
        ("calls", {"a": rid, "name": "hot", "max_bytes": 200_000}),
    ]:
        start = time.perf_counter()
        got, size = await s.ok(tool, **args)
        elapsed = time.perf_counter() - start
        key = f"{tool}_{args.get('section', args.get('name', ''))}_{args.get('max_bytes', DEFAULT_MAX_BYTES)}"
        measures[f"huge_{key}_bytes"] = size
        measures[f"huge_{key}_s"] = round(elapsed, 2)
        if tool == "report" and "section" in args:
            # A section is paged: as many items as fit, and where the next page starts.
            assert got["next_offset"] == len(got["items"]) < got["total"], (got["next_offset"], got["total"])
        elif tool != "report":
            assert "cut" in got and got["cut"], (tool, list(got))


async def session_checks(s, init):
    info = init.server_info if hasattr(init, "server_info") else init.serverInfo
    assert info.name == "puffin-lens", info
    assert "look_first" in init.instructions and "Kinds of change" in init.instructions
    tools = (await s.s.list_tools()).tools
    names = sorted(t.name for t in tools)
    assert names == sorted([
        "open_recording", "close_recording", "report", "calls", "window", "gaps", "tree",
        "children", "compare", "scope", "query", "record", "pacing",
    ]), names
    for t in tools:
        assert "use" in t.description.lower(), (t.name, t.description)
    prompts = (await s.s.list_prompts()).prompts
    assert [p.name for p in prompts] == ["investigate_pair"], prompts
    prompt = await s.s.get_prompt("investigate_pair", {"a": "before.puffin", "b": "after.puffin"})
    text = prompt.messages[0].content.text
    assert "before.puffin" in text and "report" in text, text
    resources = (await s.s.list_resources()).resources
    assert [str(r.uri) for r in resources] == ["puffin-lens://docs/agents.md"], resources
    doc = await s.s.read_resource("puffin-lens://docs/agents.md")
    with open(CONFIG["agents_md"], encoding="utf-8") as f:
        assert doc.contents[0].text == f.read()


async def main():
    params = StdioServerParameters(command=BIN, args=["mcp"])
    measures = {}
    with open("mcp-server.stderr", "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                s = Session(session)
                await session_checks(s, init)
                await investigation(s, measures)
                await errors(s)
                await hostile(s)
                await huge(s, measures)
    for k, v in sorted(measures.items()):
        print(f"measure {k} = {v}")
    for tool, times in sorted(s.times.items()):
        print(f"time {tool}: {len(times)} calls, median {sorted(times)[len(times) // 2] * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms")
    with open("mcp-server.stderr", encoding="utf-8") as f:
        err = f.read()
    assert "panicked" not in err, err
    print("all checks passed")


asyncio.run(main())
