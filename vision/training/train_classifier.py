"""Train the die-face classifier on a crops set and export it as ONNX.

    python -m vision.training.crops_set /tmp/crops.npz
    python -m vision.training.train_classifier /tmp/crops.npz vision/models/faces.onnx

Needs PyTorch and onnx (training only; the Pi runs the ONNX file with OpenCV).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.training.export import save


def build_net(classes: int, size: int, width: float = 1.0):  # type: ignore[no-untyped-def]
    import torch
    import torch.nn as nn

    def c(n: int) -> int:
        return round(n * width)

    def block(cin: int, cout: int, stride: int = 1) -> list:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    body = nn.Sequential(
        *block(3, c(12)),
        *block(c(12), c(16), 2),  # size / 2
        *block(c(16), c(24)),
        nn.MaxPool2d(2),  # size / 4
        *block(c(24), c(32)),
        nn.MaxPool2d(2),  # size / 8
        *block(c(32), c(48)),
        *([nn.MaxPool2d(2)] if size >= 48 else []),
        nn.Flatten(),
    )
    flat = body(torch.zeros(1, 3, size, size)).shape[1]
    return nn.Sequential(
        body, nn.Dropout(0.2), nn.Linear(flat, c(64)), nn.ReLU(), nn.Linear(c(64), classes)
    )


def main() -> None:
    import torch
    import torch.nn.functional as F

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("crops", type=Path, nargs="+", help="crops sets (joined)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=float, default=1.0, help="channel multiplier")
    parser.add_argument("--init", type=Path, metavar="ONNX",
                        help="start from this network (vision/training/recover.py)")  # fmt: skip
    parser.add_argument("--init-convs", type=Path, metavar="ONNX",
                        help="start the convolutions from this network, trained on another "
                        "crop size (its linear layers start fresh)")  # fmt: skip
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--photo-weight", type=float, default=1.0, metavar="W",
                        help="draw crops of photos W times as often as renders")  # fmt: skip
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--bf16", action="store_true",
                        help="bfloat16 autocast (1.5x faster on AVX-512 BF16 CPUs)")  # fmt: skip
    args = parser.parse_args()
    dev = torch.device(args.device)
    torch.manual_seed(args.seed)
    parts = [np.load(path) for path in args.crops]
    data = {key: np.concatenate([part[key] for part in parts]) for key in ("x", "y")}
    if all("photo" in part for part in parts):
        data["photo"] = np.concatenate([part["photo"] for part in parts])
    x = torch.from_numpy(data["x"].astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
    x = x.to(dev)
    y = torch.from_numpy(data["y"]).to(dev)
    classes = int(y.max()) + 1
    size = x.shape[-1]
    net = build_net(classes, size, args.width).to(dev)
    init_from = args.init or args.init_convs  # a whole network, or only its convolutions
    if init_from is not None:
        from vision.training.recover import load_into

        sample = x[torch.randperm(len(x), device=dev)[:1024]]
        load_into(net, init_from, sample, convs_only=args.init is None)
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(y) // 128 + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    perm = torch.randperm(len(y), device=dev)
    val, train = perm[: len(y) // 20], perm[len(y) // 20 :]
    for epoch in range(args.epochs):
        net.train()
        start = time.perf_counter()
        if args.photo_weight != 1.0 and "photo" in data:  # photos drawn more often
            photo = torch.from_numpy(data["photo"]).to(dev)[train]
            weight = 1.0 + (args.photo_weight - 1.0) * photo.float()
            order = train[torch.multinomial(weight, len(train), replacement=True)]
        else:
            order = train[torch.randperm(len(train), device=dev)]
        for i in range(0, len(order), 128):
            idx = order[i : i + 128]
            batch = x[idx]
            if torch.rand(1).item() < 0.5:
                batch = batch.flip(3)
            k = int(torch.randint(0, 4, (1,)))
            batch = torch.rot90(batch, k, (2, 3))
            with torch.autocast(dev.type, torch.bfloat16, enabled=args.bf16):
                logits = net(batch)
            loss = F.cross_entropy(logits.float(), y[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(x[val]).argmax(1) == y[val]).float().mean().item()
        print(
            f"epoch {epoch + 1}: loss {loss.item():.3f}, val {acc:.4f} "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    meta = {
        "size": int(size),
        "width": args.width,
        "epochs": args.epochs,
        "classes": classes,
        "started_from": str(init_from) if init_from is not None else None,
        "convs_only": init_from is not None and args.init is None,
        "lr": args.lr,
        "photo_weight": args.photo_weight,
        "trained_on": "vision.training.crops_set: training half of ../shared/data/photos "
        "byler_d6 and skovy_d6, and synthetic renders",
    }
    save(net, torch.zeros(1, 3, size, size), args.out, ("crops", "logits"), meta, batch_axis=True)


if __name__ == "__main__":
    main()
