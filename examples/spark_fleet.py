"""Fleet questions over `puffin-lens export`'s Parquet tables, with PySpark.

1. Each scope's p95 duration across every recording (calls, recordings).
2. With --before and --after (globs on the `recording` path): each scope's
   time per frame in the two groups (the mean over the group's recordings),
   self and total, and the change, largest self-time regression first (self
   time names the scope that changed; its callers' totals change with it).

On this machine (local[*]):

    puffin-lens export captures/ -o fleet/
    python3 examples/spark_fleet.py fleet/ --before 'captures/2026-11-2*' --after 'captures/2026-11-3*'

On a cluster:

    spark-submit --master spark://host:7077 examples/spark_fleet.py s3a://bucket/fleet/ --before ... --after ...

--json prints the answers as JSON lines instead of tables (for scripts and tests).
"""

import argparse
import fnmatch
import json

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("export_dir", help="the folder `puffin-lens export -o` wrote")
    ap.add_argument("--before", help="glob of the baseline recordings' paths")
    ap.add_argument("--after", help="glob of the recordings to compare with the baseline")
    ap.add_argument("--top", type=int, default=20, help="rows shown per answer (default 20)")
    ap.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    ap.add_argument("--json", action="store_true", help="JSON lines instead of tables")
    args = ap.parse_args()
    if bool(args.before) != bool(args.after):
        ap.error("--before and --after go together")

    builder = SparkSession.builder.appName("puffin-lens fleet")
    if args.master:
        builder = builder.master(args.master)
    elif not SparkSession.getActiveSession():
        builder = builder.master("local[*]")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")

    root = args.export_dir.rstrip("/")
    scopes = spark.read.parquet(f"{root}/scopes/*.parquet")
    frames = spark.read.parquet(f"{root}/frames/*.parquet")

    def emit(title, df, order):
        rows = [r.asDict() for r in df.orderBy(*order).limit(args.top).collect()]
        if args.json:
            print(json.dumps({"answer": title, "rows": rows}))
        else:
            print(f"\n{title}")
            df.orderBy(*order).show(args.top, truncate=False)

    p95 = scopes.groupBy("name").agg(
        F.count("*").alias("calls"),
        F.countDistinct("recording").alias("recordings"),
        F.expr("percentile_approx(duration_ns, 0.95)").alias("p95_ns"),
    )
    emit("p95 per scope across recordings", p95, [F.desc("p95_ns"), F.asc("name")])

    if args.before:
        before_re = fnmatch.translate(args.before)
        after_re = fnmatch.translate(args.after)
        group = (
            F.when(F.col("recording").rlike(before_re), "before")
            .when(F.col("recording").rlike(after_re), "after")
        )
        # Time per frame of each scope in each recording (total, and self:
        # without its children, which names the scope that changed), then
        # the mean over each group's recordings: recordings of different
        # lengths weigh alike.
        n_frames = frames.groupBy("recording").agg(F.count("*").alias("frames"))
        per_rec = (
            scopes.groupBy("recording", "name")
            .agg(F.sum("duration_ns").alias("total_ns"), F.sum("self_ns").alias("self_ns"))
            .join(n_frames, "recording")
            .withColumn("group", group)
            .where(F.col("group").isNotNull())
            .withColumn("total_pf", F.col("total_ns") / F.col("frames"))
            .withColumn("self_pf", F.col("self_ns") / F.col("frames"))
        )
        pivot = per_rec.groupBy("name").pivot("group", ["before", "after"]).agg(
            F.avg("total_pf").alias("total"), F.avg("self_pf").alias("self")
        )
        cols = ["before_total", "before_self", "after_total", "after_self"]
        change = (
            pivot.fillna(0.0, cols)
            .withColumn("delta_self_ns_per_frame", F.col("after_self") - F.col("before_self"))
            .withColumn("delta_total_ns_per_frame", F.col("after_total") - F.col("before_total"))
            .select(
                "name",
                F.col("before_self").alias("before_self_ns_per_frame"),
                F.col("after_self").alias("after_self_ns_per_frame"),
                "delta_self_ns_per_frame",
                F.col("before_total").alias("before_total_ns_per_frame"),
                F.col("after_total").alias("after_total_ns_per_frame"),
                "delta_total_ns_per_frame",
            )
        )
        emit(
            "change per scope, time per frame (after - before), largest self-time regression first",
            change,
            [F.desc("delta_self_ns_per_frame"), F.desc("delta_total_ns_per_frame"), F.asc("name")],
        )
    spark.stop()


if __name__ == "__main__":
    main()
