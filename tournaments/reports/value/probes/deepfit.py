"""Probe: fit the value network to Rapfi's 300,000-node labels and to the same positions' 30,000-node ones; compare on
held-out 300,000-node labels. usage: python deepfit.py cache, then python deepfit.py compare [deep|shallow-same ...]"""
import sys, time
import numpy as np
from monte.lab.value_labels import read_labels, label_key
from monte.lab import fit_value as fv
from monte.brain import value_weights

def key(l):
    """label_key as text (storable in an npz): each side's stones sorted, the board and the rule."""
    k = label_key(l.width, l.height, l.rule, l.stones)
    return repr(sorted(k[3])) + '|' + repr(sorted(k[4])) + f'|{l.width}|{l.rule}'

if sys.argv[1] == 'cache':
    shallow = read_labels('tournaments/reports/value/rapfi30k-labels.jsonl.gz') + \
        read_labels('tournaments/reports/value/rapfi30k-tree-labels.jsonl.gz')
    xs, ks, ys = [], [], []
    for l in shallow:
        ex = fv.from_labels([l])
        if ex.size:
            xs.append(ex.x[0]); ys.append(ex.y[0]); ks.append(key(l))
    np.savez('runs/shallow-x.npz', x=np.array(xs), y=np.array(ys), k=np.array(ks))
    print(len(xs)); sys.exit()

c = np.load('runs/shallow-x.npz')
X, YS, K = c['x'], c['y'], list(c['k'])
index = {k: i for i, k in enumerate(K)}
deep = read_labels('tournaments/reports/value/rapfi300k-relabelled.jsonl.gz')
di, dy = [], []
for l in deep:
    if key(l) in index:
        di.append(index[key(l)]); dy.append(l.winrate)
di, dy = np.array(di), np.array(dy)
print('deep labels', len(deep), 'matched', len(di))
rng = np.random.default_rng(1)
held = rng.random(len(di)) < 0.15
def ex(rows, y): return fv.Examples(X[rows], y, np.zeros(len(rows)))
test = ex(di[held], dy[held])
shipped = fv.Network(value_weights.W1, value_weights.B1, value_weights.W2, value_weights.B2)
print('agreement shallow vs deep labels on held-out: CE(shallow label -> deep)', fv.cross_entropy(YS[di[held]], dy[held]), 'floor', fv.cross_entropy(dy[held], dy[held]))
p = shipped.probability(test.x)
print(f'shipped       CE on deep held-out {fv.cross_entropy(p, test.y):.4f} same favourite {np.mean((p>0.5)==(test.y>0.5)):.3f}')
variants = {  # the same training positions with their deep labels, and with their shallow ones
    'deep': ex(di[~held], dy[~held]),
    'shallow-same': ex(di[~held], YS[di[~held]]),
}
which = sys.argv[2:] if len(sys.argv) > 2 else list(variants)
for name in which:
    t = time.time()
    net = fv.fit(variants[name], hidden=32, steps=4000, seed=0)
    p = net.probability(test.x)
    print(f'{name:13s} n={variants[name].size:6d} CE on deep held-out {fv.cross_entropy(p, test.y):.4f} same favourite {np.mean((p>0.5)==(test.y>0.5)):.3f}  ({time.time()-t:.0f}s)', flush=True)
