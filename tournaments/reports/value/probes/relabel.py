"""Probe: relabel the shipped value labels' positions with Rapfi at more nodes (one shard of a shuffled order)."""
import random, sys, time
from monte.lab.value_labels import read_labels, Label
from monte.lab.position_judge import KeptJudge
nodes, shard, shards, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
limit = int(sys.argv[5]) if len(sys.argv) > 5 else 10**9
labels = read_labels('tournaments/reports/value/rapfi30k-labels.jsonl.gz') + \
    read_labels('tournaments/reports/value/rapfi30k-tree-labels.jsonl.gz')
labels = [l for l in labels if l.width == 15 and l.rule == 0]
random.Random(7).shuffle(labels)
mine = labels[shard::shards][:limit]
t0 = time.time(); n = 0
with KeptJudge(['/tmp/sparring/bin/pbrain-rapfi'], nodes, 15, 15, 0) as judge, open(out, 'a') as f:
    for lab in mine:
        v = judge.verdict(lab.stones)
        if v is None:
            continue
        f.write(Label(15, 15, 0, lab.stones, v.eval, v.mate, v.nodes, v.move).line() + '\n'); f.flush()
        n += 1
        if n % 200 == 0:
            print(n, time.time() - t0, flush=True)
