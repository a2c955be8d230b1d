"""Probe: per-cell feature planes of the value labels' positions, for an offline test of a convolutional value net."""
import numpy as np
from monte.lab.value_labels import read_labels
from monte.lab import fit_value as fv
from monte.brain.board import Board
from monte.brain.position import class_count, new_state, make
from monte.brain.patterns import C_FIVE
import sys
files = sys.argv[2:] or ['tournaments/reports/value/rapfi30k-labels.jsonl.gz', 'tournaments/reports/value/rapfi30k-tree-labels.jsonl.gz']
labels = [l for f in files for l in read_labels(f)]
labels = [l for l in labels if l.width == 15 and l.rule == 0]
P, Y, G, X35 = [], [], [], []
for l in labels:
    b = Board(15, 15, 0); st = new_state(b); colour = 1
    for (x, y) in l.stones:
        make(st, b.index(x, y), colour); colour = 3 - colour
    me = colour - 1; op = 1 - me
    if class_count(st, me, C_FIVE) > 0 or class_count(st, op, C_FIVE) > 1:
        continue
    idx = st.interior
    planes = np.zeros((39, 225), dtype=np.uint8)
    cells = st.cells[idx]
    planes[0] = cells == colour; planes[1] = cells == 3 - colour; planes[2] = cells == 0
    empty = cells == 0
    for s, side in enumerate((me, op)):
        pat = st.pat[side][idx]  # 225 x 4
        for k in range(1, 9):
            planes[3 + s * 8 + k - 1] = np.where(empty, (pat == k).sum(1), 0)
        cls = st.cls[side][idx]
        for k in range(10):
            planes[19 + s * 10 + k] = empty & (cls == k)
    P.append(planes); Y.append(l.winrate)
    G.append(hash(frozenset(l.stones[:3])) % 1000003)
    X35.append(fv.network_inputs(st, me))
np.savez_compressed(sys.argv[1], p=np.array(P), y=np.array(Y), g=np.array(G), x=np.array(X35))
print(len(P))
