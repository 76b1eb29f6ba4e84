#!/usr/bin/env python3
"""Writes a synthetic run's part files from one real part file, to time `nqueen merge`
at record sizes: the one file's case and end records (of one shard K of M) are copied for
every shard 0..M-1, as tasks of SHARDS_PER_TASK shards each would write them, each task a
run of its own on one of HOSTS hosts (each with a machine id of its own), the tasks ending
one after another over --days, with their digests made again (see src/parts/digest.rs).
The first --slow hosts take four times the device-seconds, and so count at a quarter of the
others' rate, for `nqueen status` to flag. With --cards MODEL each host counts on one GPU
card of that model, as a GPU run's records say; with --done SHARE only that share of the
run's days has passed (a run still going: the shards that ended by then are in). The counts
are the real shard's, so the total means nothing; the records are otherwise what a real run writes.

    nqueen --shard 0/262144 empty_20.in > one.jsonl
    scripts/synth_parts.py one.jsonl parts/ --per-task 64 --hosts 140
    /usr/bin/time -v nqueen merge parts/part-*.jsonl
    nqueen status --by host --plot run.svg parts/part-*.jsonl
"""

import argparse
import hashlib
import json
import os
import re
import time


def sealed(body):
    """`body` (a record's JSON without its closing brace) with its digest last."""
    return '%s,"digest":"%s"}\n' % (body, hashlib.sha256(body.encode()).hexdigest())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part", help="a part file of one shard (its case and end records)")
    ap.add_argument("out", help="directory for part-T.jsonl, one per task")
    ap.add_argument("--per-task", type=int, default=64, help="shards per task (SHARDS_PER_TASK)")
    ap.add_argument("--hosts", type=int, default=140, help="hosts the tasks ran on")
    ap.add_argument("--days", type=float, default=7.0, help="days over which the tasks end")
    ap.add_argument("--slow", type=int, default=1, help="hosts at a quarter of the others' rate")
    ap.add_argument("--cards", metavar="MODEL", help="count on one GPU card of MODEL a host")
    ap.add_argument("--done", type=float, default=1.0, help="the share of the run's days that have passed")
    args = ap.parse_args()
    with open(args.part) as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    # Each record without its digest, with the fields a copy changes as format strings.
    templates = []
    for line in lines:
        body = line[: line.rindex(',"digest":')]
        shards = json.loads(line)["shards"]
        body = re.sub(r'"shard":\d+,', '"shard":\0SHARD\0,', body, count=1)
        body = re.sub(r'"run":"[0-9a-f]+"', '"run":"\0RUN\0"', body, count=1)
        body = re.sub(r'"host":"[^"]*"', '"host":"\0HOST\0"', body, count=1)
        body = re.sub(r'"machine":"[0-9a-f]+"', '"machine":"\0MACHINE\0"', body, count=1)
        body = re.sub(r'"started":"[^"]*"', '"started":"\0STARTED\0"', body, count=1)
        body = re.sub(r'"ended":"[^"]*"', '"ended":"\0ENDED\0"', body, count=1)
        if args.cards and '"record":"case"' in body:
            body = re.sub(r'"backend":"[^"]*"', '"backend":"gpu(0: %s; count_prefixes)"' % args.cards, body, count=1)
            card = '"cards":[{"uuid":"\0CARD\0","model":"%s","seconds":\0SECONDS\0,"prefixes":1000}],' % args.cards
            body = body.replace('"device_seconds":', card + '"device_seconds":', 1)
        body = re.sub(r'"device_seconds":[0-9.e+-]+', '"device_seconds":\0SECONDS\0', body, count=1)
        seconds = json.loads(line).get("device_seconds") or 1.0
        templates.append(body)
    os.makedirs(args.out, exist_ok=True)
    tasks = -(-shards // args.per_task)
    for task, first in enumerate(range(0, shards, args.per_task)):
        run = hashlib.sha256(b"task %d" % task).hexdigest()[:32]
        number = task % args.hosts
        host = "node-%03d" % number
        machine = hashlib.sha256(host.encode()).hexdigest()[:16]
        end = 1_800_000_000 + args.days * 86400 * (task + 1) / tasks
        # Each host's tasks follow one another: this one began when its host's last ended,
        # and its shards end one after another.
        start = end - args.days * 86400 * args.hosts / tasks
        began = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
        spent = repr(seconds * (4 if number < args.slow else 1))
        card = "GPU-%s" % hashlib.sha256(b"card " + host.encode()).hexdigest()[:32]
        count = min(first + args.per_task, shards) - first
        with open(os.path.join(args.out, "part-%d.jsonl" % task), "w") as f:
            for shard in range(first, first + count):
                at = start + (end - start) * (shard - first + 1) / count
                if at > 1_800_000_000 + args.done * args.days * 86400:
                    break
                ended = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
                for t in templates:
                    fields = {"SHARD": str(shard), "RUN": run, "HOST": host, "MACHINE": machine, "STARTED": began, "ENDED": ended,
                              "SECONDS": spent, "CARD": card}
                    f.write(sealed(re.sub("\0([A-Z]+)\0", lambda m: fields[m.group(1)], t)))


if __name__ == "__main__":
    main()
