"""A new class for a shipped network without moving its old ones.

Fine-tuning the whole face network on a new class also moves its reading of
pips: two fine-tunings from round 6 that learnt "numbered die" read 2 more
held-out byler dice wrong each (docs/vision.md, "A numbered die among pip
dice").  Here everything the network had stays as it was (convolutions,
hidden layer, the old classes' rows of the last layer) and only one new row of
the last layer is learnt, on the frozen hidden features, in the softmax with the
old rows.  The old classes' logits are then the old network's exactly; the new
class can only take crops away from them (FaceClassifier names it as a problem,
never a face), so no pip face is read differently, only left to a person where
the new class wins.

``python -m vision.training.new_head BASE.onnx CROPS.npz [MORE.npz ...] OUT.onnx``
(the crops sets' largest class is the new one; BASE.json gives the old count).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from vision.training.export import save
from vision.training.recover import load_into
from vision.training.train_classifier import build_net


def main() -> None:
    import torch
    import torch.nn.functional as F

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base", type=Path, help="the shipped network (ONNX, with its .json)")
    parser.add_argument("crops", type=Path, nargs="+", help="crops sets (joined)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    base_meta = json.loads(args.base.with_suffix(".json").read_text())
    old = int(base_meta["classes"])
    parts = [np.load(path) for path in args.crops]
    x_all = np.concatenate([part["x"] for part in parts])
    y = torch.from_numpy(np.concatenate([part["y"] for part in parts]))
    if int(y.max()) != old:
        raise SystemExit(f"the crops' new class must be {old} (the base has {old} classes)")
    size = x_all.shape[1]
    net = build_net(old + 1, size, float(base_meta.get("width", 1.0)))

    def batch(rows: np.ndarray, turn: int = 0) -> torch.Tensor:
        images = torch.from_numpy(rows.astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
        return torch.rot90(images, turn, (2, 3)) if turn else images

    rng = np.random.default_rng(args.seed)
    load_into(net, args.base, batch(x_all[rng.choice(len(x_all), 1024, replace=False)]))
    net.eval()
    hidden, last = net[:-1], net[-1]
    start = time.perf_counter()
    feats, fixed = [], []
    with torch.no_grad():  # every crop as it is and a quarter turn on: the features, frozen
        for turn in (0, 1):
            for i in range(0, len(x_all), 2048):
                f = hidden(batch(x_all[i : i + 2048], turn))
                feats.append(f)
                fixed.append(last(f)[:, :old])
    f_all, z_old = torch.cat(feats), torch.cat(fixed)
    y2 = torch.cat([y, y])
    print(f"features of {len(y2)} crops in {time.perf_counter() - start:.0f} s", flush=True)
    perm = torch.randperm(len(y2))
    val, train = perm[: len(y2) // 20], perm[len(y2) // 20 :]
    weight = last.weight[old : old + 1].detach().clone().requires_grad_(True)
    bias = last.bias[old : old + 1].detach().clone().requires_grad_(True)
    opt = torch.optim.Adam([weight, bias], args.lr)

    def logits(rows: torch.Tensor) -> torch.Tensor:
        return torch.cat([z_old[rows], f_all[rows] @ weight.T + bias], dim=1)

    for epoch in range(args.epochs):
        order = train[torch.randperm(len(train))]
        for i in range(0, len(order), 1024):
            rows = order[i : i + 1024]
            loss = F.cross_entropy(logits(rows), y2[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            said = logits(val).argmax(1) == old
            truth = y2[val] == old
            found = (said & truth).sum().item() / max(truth.sum().item(), 1)
            false = (said & ~truth).sum().item() / max((~truth).sum().item(), 1)
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, new class found {found:.4f}, "
              f"others taken for it {false:.5f}", flush=True)  # fmt: skip
    with torch.no_grad():
        last.weight[old] = weight[0]
        last.bias[old] = bias[0]
    meta = {**base_meta, "classes": old + 1, "new_head": {
        "started_from": str(args.base), "crops": [str(p) for p in args.crops],
        "epochs": args.epochs, "lr": args.lr, "seed": args.seed,
        "frozen": "everything but the new class's row of the last layer"}}  # fmt: skip
    save(net, torch.zeros(1, 3, size, size), args.out, ("crops", "logits"), meta, batch_axis=True)


if __name__ == "__main__":
    main()
