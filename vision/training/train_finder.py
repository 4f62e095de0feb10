"""Train the die finder (centre map + size) on a detector set and export it as ONNX.

    python -m vision.training.detector_set /tmp/det.npz
    python -m vision.training.train_finder /tmp/det.npz vision/models/finder.onnx

Needs PyTorch and onnx (training only).  The loss is CenterNet's: a focal loss
on Gaussian centre targets, and an L1 loss on log box side at the centres.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.finder import INPUT, STRIDE
from vision.training.export import save

GRID = INPUT // STRIDE


def targets(lengths: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(lengths)
    heat = np.zeros((n, GRID, GRID), np.float32)
    size = np.zeros((n, GRID, GRID), np.float32)
    mask = np.zeros((n, GRID, GRID), np.float32)
    ys, xs = np.mgrid[0:GRID, 0:GRID]
    start = 0
    for i, count in enumerate(lengths):
        for x0, y0, x1, y1 in boxes[start : start + count]:
            cx, cy = (x0 + x1) / 2 / STRIDE - 0.5, (y0 + y1) / 2 / STRIDE - 0.5
            side = max(x1 - x0, y1 - y0)
            if not (0 <= cx < GRID and 0 <= cy < GRID) or side < 4:
                continue
            sigma = max(0.5, side / STRIDE / 5)
            g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
            heat[i] = np.maximum(heat[i], g)
            gx, gy = min(round(cx), GRID - 1), min(round(cy), GRID - 1)
            heat[i, gy, gx] = 1.0
            for yy in range(max(gy - 1, 0), min(gy + 2, GRID)):
                for xx in range(max(gx - 1, 0), min(gx + 2, GRID)):
                    size[i, yy, xx] = np.log(side)
                    mask[i, yy, xx] = 1.0
        start += count
    return heat, size, mask


def build_net():  # type: ignore[no-untyped-def]
    """Full 3 × 3 convolutions where the channels are few (the first two, at 1/2 and 1/4
    of the input), depthwise-separable ones after: 4 ms a frame on one core where
    all-full convolutions took 9.  Dilated blocks at 1/8 see a die whole with the tray
    around it (receptive field 135 input pixels); the centre map comes out at 1/4."""
    import torch
    import torch.nn as nn

    def full(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
        )

    def separable(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cin, 3, stride, dilation, dilation=dilation, groups=cin, bias=False),
            nn.BatchNorm2d(cin),
            nn.ReLU(),
            nn.Conv2d(cin, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )

    class Finder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fine = nn.Sequential(full(3, 16, 2), full(16, 24, 2), separable(24, 32))  # 1/4
            self.coarse = nn.Sequential(
                separable(32, 64, 2),  # 1/8
                separable(64, 64),
                separable(64, 64, dilation=2),
                separable(64, 64, dilation=4),
            )
            self.fuse = nn.Sequential(
                nn.Conv2d(96, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU()
            )
            self.last = separable(32, 32)
            self.head = nn.Conv2d(32, 2, 1)

        def forward(self, x):  # type: ignore[no-untyped-def]
            a = self.fine(x)
            up = nn.functional.interpolate(self.coarse(a), scale_factor=2.0, mode="nearest")
            out = self.head(self.last(self.fuse(torch.cat([a, up], 1))))
            return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)

    return Finder()


def kept_loss(teacher, x, out):  # type: ignore[no-untyped-def]
    """How far the maps of frames whose finding is to stay lie from the teacher's: the
    centre map's cross-entropy against the teacher's map (its peaks and its doubts alike),
    and the size map's distance where the teacher sees a die."""
    import torch

    with torch.no_grad():
        want = teacher(x.contiguous()).float()
    heat = want[:, 0].clamp(1e-4, 1 - 1e-4)
    p = out[:, 0].clamp(1e-4, 1 - 1e-4)
    weight = 1 + 20 * heat  # the peaks are few: weigh them up
    centre = -(weight * (heat * torch.log(p) + (1 - heat) * torch.log(1 - p))).mean()
    size = (torch.abs(out[:, 1] - want[:, 1]) * heat).sum() / heat.sum().clamp(min=1)
    return 10 * centre + size


def main() -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--init", type=Path, help="weights (.pt) to fine-tune from")
    parser.add_argument(
        "--keep",
        type=Path,
        help="a finder's weights (.pt) whose maps the frames not marked 'felt' are taught "
        "besides their boxes: what it found well, it goes on finding as it did",
    )
    parser.add_argument("--bf16", action="store_true",
                        help="bfloat16 autocast (1.5x faster on AVX-512 BF16 CPUs)")  # fmt: skip
    args = parser.parse_args()
    dev = torch.device(args.device)
    torch.manual_seed(args.seed)
    data = np.load(args.data)
    heat, size, mask = (
        torch.from_numpy(a).to(dev) for a in targets(data["lengths"], data["boxes"])
    )
    frames = torch.from_numpy(data["frames"]).to(dev)  # N H W 3 uint8
    felt = torch.from_numpy(data["felt"] if "felt" in data else np.zeros(len(frames), bool))
    felt = felt.to(dev)
    teacher = None
    if args.keep is not None:
        teacher = build_net()
        teacher.load_state_dict(torch.load(args.keep, map_location="cpu"))
        teacher = teacher.to(dev).eval()
    net = build_net()
    if args.init is not None:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    net = net.to(dev)
    batch_size = 32
    steps = args.epochs * (len(frames) // batch_size + 1)
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    for epoch in range(args.epochs):
        start = time.perf_counter()
        net.train()
        order = torch.randperm(len(frames), device=dev)
        total = 0.0
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            x = frames[idx].permute(0, 3, 1, 2).float() / 255.0
            t, s, m = heat[idx], size[idx], mask[idx]
            # a quarter turn and a mirror, frame and targets alike: eight frames from one
            k, flip = int(torch.randint(0, 4, (1,))), bool(torch.randint(0, 2, (1,)))
            x, t, s, m = (torch.rot90(a, k, (-2, -1)) for a in (x, t, s, m))
            if flip:
                x, t, s, m = (a.flip(-1) for a in (x, t, s, m))
            with torch.autocast(dev.type, torch.bfloat16, enabled=args.bf16):
                out = net(x.contiguous()).float()
            p = out[:, 0].clamp(1e-4, 1 - 1e-4)
            pos = (t == 1.0).float()
            focal = -(
                pos * (1 - p) ** 2 * torch.log(p)
                + (1 - pos) * (1 - t) ** 4 * p**2 * torch.log(1 - p)
            ).sum()
            focal = focal / pos.sum().clamp(min=1)
            l1 = (torch.abs(out[:, 1] - s) * m).sum() / m.sum().clamp(min=1)
            loss = focal + l1
            kept = ~felt[idx]
            if teacher is not None and bool(kept.any()):
                loss = loss + kept_loss(teacher, x[kept], out[kept])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        print(
            f"epoch {epoch + 1}: loss {total / (len(order) / batch_size):.3f} "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    meta = {
        "input": INPUT,
        "stride": STRIDE,
        "epochs": args.epochs,
        "fine_tuned_from": str(args.init) if args.init else None,
        "kept_to": str(args.keep) if args.keep else None,
        "trained_on": "vision.training.detector_set: training half of ../shared/data/photos "
        "byler_d6, and synthetic renders",
    }
    save(net, torch.zeros(1, 3, INPUT, INPUT), args.out, ("frame", "maps"), meta)


if __name__ == "__main__":
    main()
