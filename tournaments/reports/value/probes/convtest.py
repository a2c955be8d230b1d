"""Probe: held-out cross-entropy of a small convolutional value net on per-cell planes against the 35-input MLP."""
import sys, time
import numpy as np, torch, torch.nn as nn
torch.set_num_threads(2); torch.manual_seed(0)
d = np.load('runs/planes.npz')
P, Y, G, X = d['p'], d['y'].astype(np.float32), d['g'], d['x'].astype(np.float32)
rng = np.random.default_rng(3)
groups = np.unique(G); held_groups = set(rng.choice(groups, size=int(0.15 * len(groups)), replace=False).tolist())
held = np.array([g in held_groups for g in G])
import os
if os.environ.get('MORE'):  # more training positions (their openings' groups not among the held-out ones)
    e = np.load(os.environ['MORE'])
    keep = np.array([g not in held_groups for g in e['g']])
    P = np.concatenate([P, e['p'][keep]]); Y = np.concatenate([Y, e['y'][keep].astype(np.float32)])
    X = np.concatenate([X, e['x'][keep].astype(np.float32)]); G = np.concatenate([G, e['g'][keep]])
    held = np.concatenate([held, np.zeros(keep.sum(), dtype=bool)])
print('positions', len(Y), 'held out', held.sum(), 'groups', len(groups))
def ce(p, y):
    p = np.clip(p, 1e-6, 1 - 1e-6); return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
print('floor', ce(Y[held], Y[held]))

def train(model, inputs, epochs, lr=2e-3, wd=1e-4, bs=256):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    tr = np.where(~held)[0]; te = np.where(held)[0]
    yt = torch.tensor(Y)
    lossf = nn.BCEWithLogitsLoss()
    for ep in range(epochs):
        model.train(); rng.shuffle(tr); t = time.time()
        for i in range(0, len(tr), bs):
            b = tr[i:i + bs]
            loss = lossf(model(inputs(b)), yt[b])
            opt.zero_grad(); loss.backward(); opt.step()
        model.eval()
        with torch.no_grad():
            p = torch.cat([torch.sigmoid(model(inputs(te[i:i + 2048]))) for i in range(0, len(te), 2048)]).numpy()
            sub = tr[:len(te)]
            q = torch.cat([torch.sigmoid(model(inputs(sub[i:i + 2048]))) for i in range(0, len(sub), 2048)]).numpy()
        print(f'  epoch {ep + 1}: held-out CE {ce(p, Y[te]):.4f}, training CE {ce(q, Y[sub]):.4f} (floor {ce(Y[sub], Y[sub]):.4f}), same favourite {np.mean((p > .5) == (Y[te] > .5)):.3f} ({time.time() - t:.0f}s)', flush=True)

class MLP(nn.Module):
    def __init__(s, h=32):
        super().__init__(); s.f = nn.Sequential(nn.Linear(35, h), nn.ReLU(), nn.Linear(h, 1))
    def forward(s, x): return s.f(x).squeeze(1)
Xt = torch.tensor(X)
class Conv(nn.Module):
    def __init__(s, c=32):
        super().__init__()
        s.body = nn.Sequential(nn.Conv2d(39, c, 3, padding=1), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1), nn.ReLU(),
                               nn.Conv2d(c, c, 3, padding=1), nn.ReLU())
        s.head = nn.Sequential(nn.Linear(2 * c + 35, 32), nn.ReLU(), nn.Linear(32, 1))
    def forward(s, inp):
        p, x = inp
        h = s.body(p)
        z = torch.cat([h.mean((2, 3)), h.amax((2, 3)), x], 1)
        return s.head(z).squeeze(1)
Pt = torch.tensor(P.reshape(-1, 39, 15, 15))
which = sys.argv[1:] or ['mlp', 'conv']
if 'mlp' in which:
    print('MLP 35 -> 32'); train(MLP(), lambda b: Xt[b], 15, lr=3e-3)
if 'conv' in which:
    print('conv 3x32 + pooled + 35 counts'); train(Conv(), lambda b: (Pt[b].float(), Xt[b]), 7)
