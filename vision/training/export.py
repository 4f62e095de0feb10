"""Saving a trained network: its weights (for fine-tuning later), the ONNX file OpenCV's
dnn module runs, and a JSON note of how it was made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save(net: Any, sample: Any, out: Path, names: tuple[str, str], meta: dict[str, Any],
         batch_axis: bool = False) -> None:  # fmt: skip
    import torch

    net = net.cpu().eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    axes = {names[0]: {0: "n"}, names[1]: {0: "n"}} if batch_axis else None
    torch.onnx.export(net, sample, str(out), input_names=[names[0]], output_names=[names[1]],
                      dynamic_axes=axes, opset_version=13, dynamo=False)  # fmt: skip
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
