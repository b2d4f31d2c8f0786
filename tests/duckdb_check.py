"""SQL in DuckDB over `puffin-lens export`'s Parquet tables answers what the
CLI answers, for every recording of the export (run by tests/parquet.rs).

Usage: python3 tests/duckdb_check.py PUFFIN_LENS OUT_DIR RECORDING...
(RECORDING: the paths as the export saw them, its `recording` column.)
Prints one line per recording; exits 1 on the first difference.
"""

import json
import subprocess
import sys

import duckdb


def cli(binary, *args):
    return json.loads(subprocess.check_output([binary, *args]))


def main():
    binary, out_dir, *recordings = sys.argv[1:]
    con = duckdb.connect()
    scopes = f"read_parquet('{out_dir}/scopes/*.parquet')"
    defs = f"read_parquet('{out_dir}/scope_defs/*.parquet')"
    frames = f"read_parquet('{out_dir}/frames/*.parquet')"
    for rec in recordings:
        # The 10 slowest scopes (ties: earlier start first), as `top`.
        top = cli(binary, "top", rec, "--top", "10", "--json")
        rows = con.execute(
            f"""SELECT name, data, duration_ns, start_ns, thread, frame_index, id
                FROM {scopes} WHERE recording = ?
                ORDER BY duration_ns DESC, start_ns ASC LIMIT 10""",
            [rec],
        ).fetchall()
        want = [tuple(r[k] for k in ("name", "data", "duration_ns", "start_ns", "thread", "frame_index", "id")) for r in top]
        assert rows == want, f"{rec}: top-10 differs:\n{rows}\n{want}"

        # Totals per name, as `find --aggregate --by name`.
        agg = cli(binary, "find", rec, "--aggregate", "--by", "name", "--top", "1000000", "--json")
        rows = con.execute(
            f"""SELECT name, count(*), sum(duration_ns), sum(self_ns), min(duration_ns), max(duration_ns)
                FROM {scopes} WHERE recording = ? GROUP BY name""",
            [rec],
        ).fetchall()
        got = {r[0]: tuple(int(x) for x in r[1:]) for r in rows}
        want = {r["name"]: (r["count"], r["total_ns"], r["self_ns"], r["min_ns"], r["max_ns"]) for r in agg}
        assert got == want, f"{rec}: totals per name differ:\n{got}\n{want}"

        # file:line through a join of scopes to scope_defs, as `scope`.
        ids = sorted({r["id"] for r in top})
        for scope_id in ids:
            s = cli(binary, "scope", rec, str(scope_id), "--json")
            row = con.execute(
                f"""SELECT DISTINCT d.name, d.function, d.file, d.line, d.kind
                    FROM {scopes} s JOIN {defs} d ON s.recording = d.recording AND s.id = d.id
                    WHERE s.recording = ? AND s.id = ?""",
                [rec, scope_id],
            ).fetchall()
            want = [(s["name"], s["function"], s["file"], s["line"], s["kind"])]
            assert row == want, f"{rec}: scope {scope_id}: {row} != {want}"

        # Frames: as many as `summary` counts, the slowest as `frames --top 1`.
        summary = cli(binary, "summary", rec, "--json")
        slowest = cli(binary, "frames", rec, "--top", "1", "--json")[0]
        n, worst = con.execute(
            f"""SELECT count(*), arg_max(frame_index, duration_ns) FROM {frames} WHERE recording = ?""",
            [rec],
        ).fetchone()
        assert n == summary["frames"], f"{rec}: {n} frames, summary says {summary['frames']}"
        assert worst == slowest["frame_index"], f"{rec}: slowest frame {worst} != {slowest}"
        print(f"duckdb: {rec}: top-10, {len(agg)} names' totals, {len(ids)} scope joins, {n} frames agree")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as err:
        print(f"duckdb_check: {err}", file=sys.stderr)
        sys.exit(1)
